"""A bedroom's screen: `screen_off` on the installed unit. Within the hours the connector's DPMS
reads Off, the glass is black and the television (vivid's, answered by cec-follower, as in the
television scenario) is put to standby; a message announced lights the screen and wakes the
television, and the end of the light darkens both again; the end of the hours lights the screen
and wakes the television. The guest's clock is set to move through the night. It runs after
the television scenario, on its television."""
import time

from kiosk.harness import check_picture, status_report, wait_until
from screenshots import band_rows

# The connected connector's DPMS, as the kernel says it.
DPMS = "for c in /sys/class/drm/card*-*; do [ \"$(cat $c/status)\" = connected ] && cat $c/dpms; done"
POWER = "cec-ctl -d /dev/cec1 --to 0 --give-device-power-status | grep -q 'pwr-state: {}'"


def screen(guest):
    return status_report(guest).get("screen") or {}


def glass_is_dark(guest, label):
    """Whether the glass shows no picture, and what it shows: black, or QEMU's own placeholder
    ("Guest has not initialized the display", 640x480) when the driver turned its VGA output
    off, as a television shows "no signal"."""
    width, height, rows = guest.screenshot(label)
    brightest = max(max(row) for row in rows)
    if (width, height) == (640, 480):
        return True, f"the output off: QEMU's {width}x{height} placeholder"
    return brightest <= 8, f"{width}x{height}, brightest pixel {brightest}"


def run(kiosk, box):
    guest, name = box.guest, box.name
    _, follower = guest.run("pgrep -x cec-follower && cec-ctl -d /dev/cec0 | grep -i 'logical address'")
    kiosk.check("Logical Address" in follower,
                f"{name}: the television of the television scenario is on the bus ({' '.join(follower.split())})")
    guest.run("cp /etc/marquee/marquee.toml /root/marquee.toml.before && "
              "printf 'screen_off = \"23:00-06:30\"\\ncec_standby = true\\n' >> /etc/marquee/marquee.toml && "
              "date -s '2026-11-24 23:30:00' >/dev/null && systemctl reload marquee")
    dark = wait_until(guest, f"[ \"$({DPMS})\" = Off ]", 20)
    standby = wait_until(guest, POWER.format("standby"), 30)
    black, glass = glass_is_dark(guest, "dark")
    _, line = guest.run("marquee status | grep -E '^screen|^television'")
    kiosk.check(dark is not None and black and standby is not None and "screen: dark until 06:30" in line,
                f"{name}: within screen_off the connector's DPMS is Off in {dark} s, no picture on the glass "
                f"({glass}), the television in standby in {standby} s ({' / '.join(line.strip().splitlines())})")
    # Its own line: the television's (going to standby, in standby) may come after it.
    _, journal = guest.run("journalctl -b -u marquee -o cat --no-pager | grep -F 'the screen is dark until' | tail -2")
    kiosk.check("the screen is dark until 06:30 (screen_off): powered down (DPMS)" in journal,
                f"{name}: the journal says how the screen went dark ({' / '.join(journal.strip().splitlines())})")
    # A message announced lights it and wakes the television; the picture is the ticker again.
    guest.run("marquee show 'Your daughter is on her way' --minutes 2")
    lit = wait_until(guest, f"[ \"$({DPMS})\" = On ]", 20)
    woken = wait_until(guest, POWER.format("on"), 30)
    time.sleep(2)
    _, _, rows = guest.screenshot("lit-for-an-announcement")
    status = screen(guest)
    kiosk.check(lit is not None and woken is not None and len(band_rows(rows)) > 10 and status.get("state") == "lit"
                and status.get("litBecause") == "an announcement",
                f"{name}: a message announced lights the screen in {lit} s (DPMS On, {len(band_rows(rows))} rows of "
                f"text in the band) and wakes the television in {woken} s ({status})")
    # Ten minutes on, the light is over: dark again, and the television to standby.
    guest.run("date -s '2026-11-24 23:45:00' >/dev/null")
    again = wait_until(guest, f"[ \"$({DPMS})\" = Off ]", 20)
    asleep = wait_until(guest, POWER.format("standby"), 30)
    black, glass = glass_is_dark(guest, "dark-again")
    kiosk.check(again is not None and asleep is not None and black,
                f"{name}: after the message and its minute, dark again in {again} s ({glass}) and the television "
                f"in standby in {asleep} s")
    # The end of the hours: lit, the television woken, the ticker moving.
    guest.run("marquee show --clear; date -s '2026-11-25 06:29:58' >/dev/null")
    morning = wait_until(guest, f"[ \"$({DPMS})\" = On ]", 20)
    awake = wait_until(guest, POWER.format("on"), 30)
    _, line = guest.run("marquee status | grep -E '^screen|^television'")
    kiosk.check(morning is not None and awake is not None and "screen: on" in line,
                f"{name}: at 06:30 the screen is lit in {morning} s and the television woken in {awake} s "
                f"({' / '.join(line.strip().splitlines())})")
    check_picture(kiosk, guest, "after-screen-off")
    guest.run("cp /root/marquee.toml.before /etc/marquee/marquee.toml && systemctl reload marquee; pkill cec-follower")

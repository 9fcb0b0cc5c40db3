"""The television on the box's HDMI, over CEC, with no hardware: the Debian kernel's vivid driver
gives a television-side adapter (an HDMI input) wired to a source-side one (an HDMI output);
cec-follower (v4l-utils) on the television's side answers as a television does and keeps its
power. The installed unit finds the source's adapter (and sends a wake asked before it
came), says the television's power in its status, leaves a television that is on alone when it
restarts, wakes it from standby and takes its input back when a message is announced, and
hears the television switched to another input."""
import time

from kiosk.harness import status_report, wait_until


def television(guest):
    return status_report(guest).get("television") or {}


def television_until(guest, wanted, timeout):
    """Seconds until the status's television satisfies `wanted`, or None."""
    began = time.time()
    while time.time() - began < timeout:
        if wanted(television(guest)):
            return round(time.time() - began, 1)
        time.sleep(0.5)
    return None


def follower_power(guest):
    """The television's power as cec-follower keeps it, asked from the source's side."""
    _, output = guest.run("cec-ctl -d /dev/cec1 --to 0 --give-device-power-status 2>&1 | grep -o 'pwr-state: [a-z-]*'")
    return output.strip()


def run(kiosk, box):
    guest, name = box.guest, box.name
    # A carer's wake while the box has no adapter yet: it waits for one.
    guest.run("marquee wake")
    # A television (vivid's HDMI input, /dev/cec0) and the box's HDMI output (/dev/cec1).
    _, made = guest.run("modprobe vivid num_inputs=1 input_types=0x3 num_outputs=1 output_types=0x1 && sleep 1 && "
                        "cec-ctl -d /dev/cec0 --tv --osd-name TV >/dev/null && "
                        "(setsid cec-follower -d /dev/cec0 >/var/log/cec-follower.log 2>&1 &) && sleep 1 && "
                        "ls -l /dev/cec* && cec-ctl -d /dev/cec1 | grep -i 'physical address'", timeout=60)
    kiosk.check("/dev/cec1" in made and "video" in made and "1.0.0.0" in made,
                f"{name}: vivid's television and the box's HDMI output on the CEC bus ({' '.join(made.split())[:200]})")
    # The adapter appeared after marquee started: the waiting wake has it looked for within
    # seconds (not the minute between looks), and is sent.
    found = television_until(
        guest, lambda status: status.get("adapter") == "/dev/cec1" and status.get("lastWake") == "a request", 30)
    status = television(guest)
    _, journal = guest.run("journalctl -b -u marquee -o cat --no-pager | grep -E 'HDMI-CEC|television' | tail -4")
    kiosk.check(found is not None and found <= 15,
                f"{name}: a wake asked while there was no adapter is sent {found} s after the adapter appeared "
                f"({status}; {' / '.join(journal.strip().splitlines())})")
    # Restarted by day while the television is on (someone may be watching another input):
    # it is left on its input, and its power is known.
    guest.run("cec-ctl -d /dev/cec0 --to 15 --routing-change orig-phys-addr=1.0.0.0,new-phys-addr=2.0.0.0 >/dev/null; "
              "systemctl restart marquee")
    known = television_until(guest, lambda status: status.get("power") in ("on", "going to on"), 30)
    status = television(guest)
    _, journal = guest.run("journalctl -u marquee -o cat --no-pager -n 40 | grep -E 'television' | tail -3")
    kiosk.check(known is not None and "left on its input (marquee started)" in journal and not status.get("lastWake"),
                f"{name}: restarted by day, the unit knows the television is on and leaves its input "
                f"({status}; {' / '.join(journal.strip().splitlines())})")
    # The television to standby (as its remote would), then a message announced: it wakes
    # and shows marquee.
    # (cec-follower reports its old power for a few seconds after a change, as televisions do.)
    guest.run("cec-ctl -d /dev/cec1 --to 0 --standby")
    wait_until(guest, "cec-ctl -d /dev/cec1 --to 0 --give-device-power-status | grep -q 'pwr-state: standby'", 30)
    standby = follower_power(guest)
    guest.run("marquee show 'The taxi is here' --minutes 5")
    woken = wait_until(guest, "cec-ctl -d /dev/cec1 --to 0 --give-device-power-status | grep -q 'pwr-state: on'", 30)
    reported = television_until(guest, lambda status: status.get("power") == "on", 20)
    status = television(guest)
    kiosk.check("standby" in standby and woken is not None and reported is not None
                and status.get("showingMarquee") is True and status.get("lastWake") == "an announcement",
                f"{name}: from standby ({standby}) a message announced wakes the television in {woken} s and "
                f"marquee is its input; the status says so {reported} s later ({status})")
    # Someone switches the television to another input (2.0.0.0): marquee hears it and says it.
    guest.run("cec-ctl -d /dev/cec0 --to 15 --routing-change orig-phys-addr=1.0.0.0,new-phys-addr=2.0.0.0")
    elsewhere = television_until(guest, lambda status: status.get("otherInput") == "2.0.0.0", 10)
    _, line = guest.run("marquee status | grep television")
    kiosk.check(elsewhere is not None and "on another input (2.0.0.0)" in line,
                f"{name}: the television switched to another input is said ({line.strip()})")
    # The television back to marquee's input, for the scenarios after this one.
    guest.run("marquee show --clear; cec-ctl -d /dev/cec0 --to 15 --routing-change "
              "orig-phys-addr=2.0.0.0,new-phys-addr=1.0.0.0 >/dev/null")

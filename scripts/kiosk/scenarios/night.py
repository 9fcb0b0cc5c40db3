"""On a box with a backlight, started at night: the backlight goes down (not the colours),
comes up with the morning, and is left at the day's level when marquee stops."""
import os, subprocess, time

from kiosk.harness import check_picture, main_pid, wait_for_restart, wait_until
from screenshots import band_rows

# The panel's backlight as a laptop's firmware describes it: an ACPI video device on the VGA
# card (00:02.0) whose LCD output lists brightness levels (_BCL), takes one (_BCM) and reports
# it (_BQC); the kernel's acpi_video driver makes it /sys/class/backlight/acpi_video0.
PANEL_ASL = """DefinitionBlock ("", "SSDT", 2, "MARQEE", "PANEL", 1)
{
    External (\\_SB.PCI0, DeviceObj)
    Scope (\\_SB.PCI0)
    {
        Device (GFX0)
        {
            Name (_ADR, 0x00020000)
            Method (_DOS, 1) { }
            Method (_DOD, 0) { Return (Package () { 0x80010400 }) }
            Device (LCD0)
            {
                Name (_ADR, 0x0400)
                Name (BLVL, 80)
                Method (_BCL, 0) { Return (Package () { 100, 40, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100 }) }
                Method (_BCM, 1) { BLVL = Arg0 }
                Method (_BQC, 0) { Return (BLVL) }
            }
        }
    }
}
"""


def panel_table(work):
    """PANEL_ASL compiled in the folder `work` (an SSDT for QEMU's -acpitable)."""
    with open(os.path.join(work, "panel.asl"), "w") as source:
        source.write(PANEL_ASL)
    subprocess.run(["iasl", "-p", os.path.join(work, "panel"), os.path.join(work, "panel.asl")], check=True,
                   stdout=subprocess.DEVNULL)
    return os.path.join(work, "panel.aml")


def backlight_reaches(guest, level, timeout=20):
    """Seconds until the firmware reports the panel at `level`, or None."""
    return wait_until(guest, f"[ \"$(cat /sys/class/backlight/acpi_video0/actual_brightness)\" = {level} ]", timeout)


def backlight(guest):
    """(brightness, actual_brightness) of the panel; the second is what the firmware reports."""
    _, output = guest.run("cd /sys/class/backlight/acpi_video0 && cat brightness actual_brightness")
    values = output.split()
    return tuple(int(value) for value in values) if len(values) == 2 and all(v.isdigit() for v in values) else None


def qemu_arguments(work):
    """The guest's extra hardware: the panel's ACPI table (compiled in `work`), and a clock
    that starts at 23:00."""
    return ("-acpitable", f"file={panel_table(work)}", "-rtc", "base=2026-11-23T23:00:00")


def run(kiosk, box):
    guest, name = box.guest, box.name
    _, found = guest.run("cd /sys/class/backlight/acpi_video0 && cat type max_brightness && stat -c %G brightness")
    kiosk.check(found.split() == ["firmware", "10", "video"],
          f"{name}: the panel's backlight, its brightness given to the video group by the package's udev rule "
          f"({' '.join(found.split())})")
    dimmed = backlight_reaches(guest, 3)
    _, journal = guest.run("journalctl -b -u marquee -o cat --no-pager | grep -i backlight")
    kiosk.check(dimmed is not None and "at night the backlight acpi_video0 dims from 8 to 3" in journal,
          f"{name}: at 23:00 the backlight is at the night's level, 3 of 8 ({backlight(guest)}; {journal.strip()})")
    check_picture(kiosk, guest, "at-night")
    _, _, rows = guest.screenshot("night-colours")
    brightest = max(max(rows[y]) for y in band_rows(rows)) if band_rows(rows) else 0
    kiosk.check(brightest >= 230, f"{name}: the backlight dims, not the colours: the band's brightest pixel is {brightest} of 255")
    guest.run("date -s '2026-11-24 07:07:30'")
    time.sleep(3)
    morning = backlight(guest)
    _, status = guest.run("marquee status")
    kiosk.check(morning is not None and 3 < morning[0] < 8 and morning[0] == morning[1] and "Tuesday morning" in status,
          f"{name}: the clock set to 07:07:30, half way through the brightening: {morning} "
          f"({[line for line in status.splitlines() if 'Tuesday' in line][:1]})")
    guest.run("date -s '2026-11-24 07:20:00'")
    day = backlight_reaches(guest, 8)
    kiosk.check(day is not None, f"{name}: after the morning's quarter of an hour, the day's level again ({backlight(guest)})")
    # A dark screen asked for (screen_off): the backlight is switched off with the display, and
    # on again when the hours are taken away.
    power = "/sys/class/backlight/acpi_video0/bl_power"
    guest.run("cp /etc/marquee/marquee.toml /root/night.toml && "
              "echo 'screen_off = \"07:20-07:40\"' >> /etc/marquee/marquee.toml && systemctl reload marquee")
    off = wait_until(guest, f"[ \"$(cat {power})\" = 4 ]", 20)
    _, group = guest.run(f"stat -c %G {power}")
    guest.run("cp /root/night.toml /etc/marquee/marquee.toml && systemctl reload marquee")
    on = wait_until(guest, f"[ \"$(cat {power})\" = 0 ]", 20)
    kiosk.check(off is not None and on is not None and group.strip() == "video",
                f"{name}: within screen_off the backlight is switched off (bl_power 4 after {off} s, the file the "
                f"video group's: {group.strip()}), and on again when the hours go ({on} s)")
    guest.run("date -s '2026-11-24 23:30:00'")
    night = backlight_reaches(guest, 3)
    # Killed at night, it cannot brighten: the next run finds the backlight dim and knows the
    # day's level from its note, so stopping brings the day's level back.
    pid = main_pid(guest)
    guest.run("systemctl kill -s KILL marquee")
    restarted = wait_for_restart(guest, pid, 30)
    time.sleep(2)
    after_crash = backlight(guest)
    guest.run("systemctl stop marquee")
    stopped = wait_until(guest, "! systemctl is-active -q marquee", 20)
    kiosk.check(night is not None and restarted is not None and after_crash == (3, 3) and stopped is not None
          and backlight(guest) == (8, 8),
          f"{name}: dimmed again at night, killed and restarted ({after_crash}), then stopped: the day's level "
          f"is back ({backlight(guest)})")

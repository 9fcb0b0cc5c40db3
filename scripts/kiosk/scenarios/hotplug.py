"""The screen unplugged and plugged back in (the connector forced off, then detected again),
as a television switched off or to another input: no restart, the schedule runs on."""
import time

from kiosk.harness import check_picture, main_pid, wait_until


def run(kiosk, box):
    guest, name = box.guest, box.name
    connector = "/sys/class/drm/card0-Virtual-1/status"
    pid = main_pid(guest)
    guest.run(f"echo off > {connector}")
    gone = wait_until(guest, "marquee status | head -1 | grep -q 'no screen connected'", 45)
    _, status = guest.run("marquee status | head -3")
    kiosk.check(gone is not None and "showing:" in status,
          f"{name}: the screen unplugged, status says so after {gone} s and the schedule runs on: "
          f"{' '.join(status.split())[:160]}")
    guest.run(f"echo detect > {connector}")
    back = wait_until(guest, "marquee status | head -1 | grep -q 'KMS /dev/dri/card0 Virtual-1'", 45)
    kiosk.check(back is not None and main_pid(guest) == pid,
          f"{name}: plugged back in, the ticker is drawn again after {back} s by the same process")
    time.sleep(1)
    check_picture(kiosk, guest, "plugged-in-again")

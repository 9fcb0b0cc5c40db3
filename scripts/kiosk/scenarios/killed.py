"""Killed (SIGKILL), systemd starts it again and it draws again."""
import time

from kiosk.harness import check_picture, main_pid, wait_for_restart


def run(kiosk, box):
    guest, name = box.guest, box.name
    pid = main_pid(guest)
    guest.run("systemctl kill -s KILL marquee")
    restarted = wait_for_restart(guest, pid, 30)
    kiosk.check(restarted is not None, f"{name}: killed with SIGKILL, restarted after {restarted} s")
    time.sleep(2)
    check_picture(kiosk, guest, "restarted")

"""Stopped (SIGSTOP), it no longer tells systemd it is alive: the watchdog restarts it (takes
about 30 s)."""
import time

from kiosk.harness import check_picture, main_pid, wait_for_restart


def run(kiosk, box):
    guest, name = box.guest, box.name
    pid = main_pid(guest)
    guest.run("systemctl kill -s STOP marquee")
    restarted = wait_for_restart(guest, pid, 60)
    _, journal = guest.run("journalctl -b -u marquee -o cat --no-pager | grep -i watchdog | tail -1")
    kiosk.check(restarted is not None and "atchdog" in journal,
                f"{name}: stopped with SIGSTOP, the watchdog restarted it after {restarted} s ({journal.strip()})")
    time.sleep(2)
    check_picture(kiosk, guest, "after-watchdog")

"""`systemctl reload` keeps the process and the picture; switched to tty2 the ticker gives the
screen up, and back on tty1 it is drawn again and moves."""
import time

from kiosk.harness import band_moves, check_picture, main_pid
from screenshots import band_rows


def run(kiosk, box):
    guest, name = box.guest, box.name
    pid = main_pid(guest)
    status, _ = guest.run("systemctl reload marquee")
    time.sleep(2)
    same = main_pid(guest)
    _, state = guest.run("systemctl is-active marquee")
    kiosk.check(status == 0 and same == pid and state.strip() == "active",
                f"{name}: systemctl reload keeps the display process ({pid} -> {same}, {state.strip()})")
    check_picture(kiosk, guest, "reloaded")
    guest.run("chvt 2")
    if box.variant.has_framebuffer:
        time.sleep(1.5)
        _, height, away = guest.screenshot("tty2")
        kiosk.check(not band_rows(away), f"{name}: after reload, switched to tty2 the ticker is not drawn")
    else:
        # Without fbdev no console draws on tty2: what the glass keeps must stand still, all of it
        # (band, box and line), from the moment chvt returns: two shots 1.5 s apart, the first at once.
        _, _, first = guest.screenshot("tty2")
        time.sleep(1.5)
        _, _, second = guest.screenshot("tty2-later")
        changed = [y for y in range(min(len(first), len(second))) if first[y] != second[y]]
        kiosk.check(not changed and len(first) == len(second),
                    f"{name}: after reload, switched to tty2 the ticker stops (no flips): rows changed {changed[:5]}")
    guest.run("chvt 1")
    time.sleep(1.5)
    _, height, back = guest.screenshot("tty1-again")
    kiosk.check(len(band_rows(back)) > height // 20 and band_moves(guest, "tty1-moving"),
                f"{name}: back on tty1 the ticker is drawn again and moves")

"""`systemctl stop` gives tty1 back to a login prompt, and the band is gone."""
import time

from kiosk.harness import wait_until
from screenshots import band_rows, lit_rows


def run(kiosk, box):
    guest, name = box.guest, box.name
    guest.run("systemctl stop marquee")
    getty = wait_until(guest, "systemctl is-active -q getty@tty1.service", 20)
    time.sleep(4)
    _, height, stopped = guest.screenshot("stopped")
    # Without fbdev the kernel draws no console: the prompt is on tty1 but not on the glass.
    top = lit_rows(stopped, 0, height // 4) if box.variant.has_framebuffer else [0]
    kiosk.check(getty is not None and top and not band_rows(stopped),
                f"{name}: systemctl stop gives tty1 back to a login prompt (getty after {getty} s, "
                f"{len(top)} lit rows of text at the top, {len(band_rows(stopped))} in the band)")

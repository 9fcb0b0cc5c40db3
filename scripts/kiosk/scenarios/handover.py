"""A DRM driver (bochs) replacing the firmware framebuffer (vesafb) while marquee draws: it
goes on drawing through the new driver's KMS, in its mode."""
import time

from kiosk.harness import check_picture


def run(kiosk, box):
    guest, name = box.guest, box.name
    status, output = guest.run("modprobe bochs && sleep 3 && cat /sys/class/graphics/fb0/name")
    kiosk.check(status == 0 and "drm" in output, f"{name}: bochs-drm replaced vesafb ({output.strip()})")
    time.sleep(3)
    _, output = guest.run("marquee status")
    first_line = output.splitlines()[0] if output else ""
    kiosk.check("KMS /dev/dri/card0" in first_line, f"{name}: marquee draws through the new driver's KMS ({first_line})")
    check_picture(kiosk, guest, "after-handover")
    width, _, _ = guest.screenshot("handover-mode")
    kiosk.check(width == 1280, f"{name}: the display shows the new driver's mode ({width} px wide, 1280 expected)")

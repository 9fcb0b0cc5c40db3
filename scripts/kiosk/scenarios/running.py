"""While it draws, console text and a kernel message stay invisible: the band moves, the
orientation line stands below it, nothing else is lit."""
import time

from kiosk.harness import check_picture


def run(kiosk, box):
    guest = box.guest
    guest.run("echo 'console text written while marquee draws' > /dev/tty1; "
              "echo '<2>kiosk-system-test: a kernel message at critical level' > /dev/kmsg")
    time.sleep(1)
    check_picture(kiosk, guest, "running")

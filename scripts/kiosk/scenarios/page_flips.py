"""Through KMS, the status counts the page flips that reached the glass."""

from kiosk.harness import wait_until


def run(kiosk, box):
    # The scenario before may have just restarted the display: its count starts again at 0, so
    # the status is asked until more than a hundred flips were counted (75 a second).
    wait_until(box.guest, "[ \"$(marquee status | awk '/^page flips/ {print $3}')\" -gt 100 ] 2>/dev/null", 20)
    _, status = box.guest.run("marquee status | grep -E '^page flips'")
    flips = [int(word) for word in status.split() if word.isdigit()]
    kiosk.check(len(flips) == 2 and flips[0] > 100,
                f"{box.name}: the status counts the page flips that reached the glass: {status.strip()}")

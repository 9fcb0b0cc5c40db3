"""Through KMS, the status counts the page flips that reached the glass."""


def run(kiosk, box):
    _, status = box.guest.run("marquee status | grep -E '^page flips'")
    flips = [int(word) for word in status.split() if word.isdigit()]
    kiosk.check(len(flips) == 2 and flips[0] > 100,
                f"{box.name}: the status counts the page flips that reached the glass: {status.strip()}")

"""A file dropped in (written elsewhere, renamed in, as a sync tool does) is loaded within the
limit: the time from the rename to marquee's journal line saying it loaded the file, logged
as it comes into effect (the status command itself takes a while to start under emulation).
The examples copied in at install are read first (by the running process), so the figure is
the dropped-in file's own, not the wait for them."""
from kiosk.harness import wait_until

# By the running process (a scenario before may have restarted it).
EXAMPLES_LOADED = ("pid=$(systemctl show -P MainPID marquee); for f in /usr/share/doc/marquee/examples/*.ics; do "
                   "journalctl -b _PID=$pid -o cat --no-pager | grep -qF \"/etc/marquee/feeds.d/$(basename $f): loaded\" || exit 1; done")


def run(kiosk, box):
    guest, name = box.guest, box.name
    examples = wait_until(guest, f"( {EXAMPLES_LOADED} )", 60)
    kiosk.check(examples is not None, f"{name}: the examples copied in are loaded (after {examples} s)")
    guest.run("cp /root/kiosk-test/kiosk-test.ics /etc/marquee/.kiosk-test.tmp")
    _, moved = guest.run("date +%s.%N; mv /etc/marquee/.kiosk-test.tmp /etc/marquee/feeds.d/kiosk-test.ics")
    shown = wait_until(guest, "marquee status --json | grep -q 'KIOSK TEST'", 10)
    _, loaded = guest.run("journalctl -b -u marquee -o short-unix --no-pager | grep 'kiosk-test.ics: loaded' | tail -1")
    took = float(loaded.split()[0]) - float(moved.split()[0]) if loaded.strip() else None
    kiosk.check(shown is not None and took is not None and took <= kiosk.drop_in_limit,
                f"{name}: a dropped-in .ics is loaded {took and round(took, 3)} s after it was renamed in "
                f"(status showed it after {shown} s)")

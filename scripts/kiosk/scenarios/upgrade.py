"""Kept up to date from marquee's apt repository: the box installs marquee-apt-source (as an
image comes with it), then unattended-upgrades — as its daily timer would — installs a newer
version published meanwhile. The signature verifies, the service restarts into the new version,
the screen stands still or dark for only a few seconds (measured from screenshots taken all
along), and what must survive does: the reminder ledger and the message sent now."""
import hashlib, json, threading, time

from kiosk.harness import check_picture, main_pid, wait_for_restart, wait_until

SHOWN = "The upgrade keeps this message"
# The longest the screen may stand still or dark while the service restarts into the new version.
GAP_LIMIT = 8.0


class ScreenWatch:
    """Screenshots taken in a thread of their own, five a second (more would take the emulated
    guest's time): when each was taken and whether the picture had changed since the one before
    (the band moves in every frame)."""

    def __init__(self, guest):
        self.guest, self.samples, self.running = guest, [], True
        self.thread = threading.Thread(target=self.watch)
        self.thread.start()

    def watch(self):
        previous = None
        while self.running:
            pixels = self.guest.screendump()[2]
            taken = time.time()
            digest = hashlib.sha1(pixels).digest()
            self.samples.append((taken, digest != previous))
            previous = digest
            time.sleep(0.2)

    def stop(self):
        self.running = False
        self.thread.join()

    def longest_still(self):
        """(the longest time between two changed pictures, the median time between shots)."""
        moved = [taken for taken, changed in self.samples[1:] if changed]
        gaps = [later - earlier for earlier, later in zip(moved, moved[1:])]
        spacing = sorted(later - earlier for (earlier, _), (later, _) in zip(self.samples, self.samples[1:]))
        return (max(gaps) if gaps else float("inf")), (spacing[len(spacing) // 2] if spacing else 0)


def ledger(guest):
    """The reminders in the ledger, by their words and their minute (their outcome may move on)."""
    _, output = guest.run("marquee reminders --json")
    rows = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    return {(row["text"], row["trigger"]) for row in rows}


def run(kiosk, box):
    guest, name, repository = box.guest, box.name, box.repository
    # The test box reaches no Debian mirror: apt reads only marquee's own repository.
    guest.run("echo 'Dir::Etc::SourceList \"/dev/null\";' > /etc/apt/apt.conf.d/00kiosk-no-mirror")
    status, output = guest.run("apt-get install -y --no-install-recommends /root/kiosk-test/marquee-apt-source_*_all.deb "
                               "&& apt-get update 2>&1", timeout=300)
    kiosk.check(status == 0 and "W:" not in output and "E:" not in output,
                f"{name}: marquee-apt-source installed; apt-get update verifies marquee's repository "
                f"({' / '.join(line for line in output.splitlines() if 'stable' in line)[:160]})")
    # Sent now and heard as a reminder is: a row in the ledger (heard, or why not), and a feed.
    guest.run(f"marquee show '{SHOWN}' --minutes 60 --speak")
    wait_until(guest, f"marquee reminders | grep -q '{SHOWN}'", 30)
    before = ledger(guest)
    pid = main_pid(guest)
    newer = repository.publish_newer()
    status, output = guest.run("apt-get update 2>&1 && apt-cache policy marquee", timeout=300)
    kiosk.check(status == 0 and f"Candidate: {newer}" in output,
                f"{name}: the newer version {newer}, published after the box was set up, is its candidate")
    watch = ScreenWatch(guest)
    began = time.time()
    try:
        status, output = guest.run("unattended-upgrade -v 2>&1; dpkg-query -W -f '${Version}' marquee", timeout=600)
        restarted = wait_for_restart(guest, pid, 60)
        time.sleep(3)
    finally:
        watch.stop()
    gap, spacing = watch.longest_still()
    upgraded = output.strip().splitlines()[-1] if output.strip() else ""
    kiosk.check(upgraded.endswith(newer) and restarted is not None,
                f"{name}: unattended-upgrades installed {upgraded!r} in {time.time() - began:.0f} s; the service "
                f"restarted as a new process" + ("" if upgraded.endswith(newer) else output[-800:]))
    kiosk.check(gap <= GAP_LIMIT,
                f"{name}: the screen stood still or dark for at most {gap:.1f} s during the upgrade "
                f"(limit {GAP_LIMIT} s; {len(watch.samples)} screenshots, one every {spacing:.2f} s)")
    check_picture(kiosk, guest, "upgraded")
    _, status = guest.run("marquee status")
    after = ledger(guest)
    kiosk.check(SHOWN in status and before and before <= after,
                f"{name}: the message sent now and the reminder ledger ({len(before)} entries) survive the upgrade"
                + ("" if before <= after else f" lost: {list(before - after)[:2]}"))
    guest.run("marquee show --clear")

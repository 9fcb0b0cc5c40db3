"""What every scenario of the kiosk system test uses: the run's checks (PASS/FAIL, with what
marquee was doing when one failed) and ways to wait for the guest and look at its screen."""
import json, socket, subprocess, time

from screenshots import band_rows, line_rows, shift, stray_rows

DIAGNOSIS = """systemctl show -p ActiveState -p SubState -p NRestarts -p ExecMainStatus marquee | paste -sd' '
journalctl -b -u marquee -o short-monotonic --no-pager | tail -n 20
pid=$(systemctl show -P MainPID marquee); for task in /proc/$pid/task/*; do
    echo "thread $(cat $task/comm): state $(cut -d' ' -f3 $task/stat), waiting in $(cat $task/wchan)"; done"""


class Kiosk:
    """One run: its options, the guest being checked, and what passed and failed."""

    def __init__(self, out, drop_in_limit, soak_minutes):
        self.out = out
        self.drop_in_limit = drop_in_limit
        self.soak_minutes = soak_minutes
        self.passed, self.failed = [], []
        self.guest = None

    def check(self, ok, message):
        print(("PASS " if ok else "FAIL ") + message, flush=True)
        (self.passed if ok else self.failed).append(message)
        if not ok and self.guest:
            try:
                _, diagnosis = self.guest.run(DIAGNOSIS, timeout=60)
            except (OSError, socket.timeout) as error:
                diagnosis = f"(no diagnosis: {error})"
            print("\n".join("    | " + line for line in diagnosis.splitlines()), flush=True)
        return ok


def status_report(guest):
    """`marquee status --json` in the guest, read ({} when nothing answers or it is not JSON)."""
    _, output = guest.run("marquee status --json")
    try:
        return json.loads(output)
    except ValueError:
        return {}


def main_pid(guest):
    return guest.run("systemctl show -P MainPID marquee")[1].strip()


def wait_for_restart(guest, pid, timeout):
    """Seconds until marquee runs again as another process than `pid`, or None."""
    return wait_until(guest, f"p=$(systemctl show -P MainPID marquee); [ \"$p\" != 0 ] && [ \"$p\" != {pid} ] "
                             "&& systemctl is-active -q marquee", timeout)


def wait_until(guest, command, timeout, first="true"):
    """Runs `first`, then `command` in the guest until it succeeds; the seconds it took from
    the start of `first`, or None."""
    status, output = guest.run(f"""start=$(date +%s%N); end=$((start + {int(timeout * 1e9)})); {first} || exit 1
        until {command}; do [ $(date +%s%N) -gt $end ] && exit 1; sleep 0.05; done
        echo $(( ($(date +%s%N) - start) / 1000000 ))""", timeout=timeout + 30)
    return int(output.split()[-1]) / 1000 if status == 0 else None


def check_picture(kiosk, guest, label, interval=0.5):
    """Two shots about `interval` seconds apart: text in the band, moved rigidly left, nothing
    else lit."""
    taken = time.time()
    width, height, first = guest.screenshot(label)
    time.sleep(interval)
    elapsed = time.time() - taken
    _, _, second = guest.screenshot(label + "-later")
    band, stray, line = band_rows(first), stray_rows(first), line_rows(first)
    name = guest.name
    kiosk.check(len(band) > height // 20, f"{name} {label}: {width}x{height}, {len(band)} rows of text in the band")
    kiosk.check(not stray, f"{name} {label}: nothing lit outside the band, the box and the orientation line (stray rows {stray[:5]})")
    kiosk.check(len(line) > height // 60 and all(first[y] == second[y] for y in line),
          f"{name} {label}: the orientation line stands still below the band ({len(line)} rows)")
    if band:
        best, aligned, still = shift(first, second, band)
        kiosk.check(best > 10 and aligned < 0.25 * still,
              f"{name} {label}: the band moved {best} px left between shots {elapsed:.2f} s apart; difference "
              f"{aligned:.2f} aligned vs {still:.2f} unaligned")


def band_moves(guest, label, interval=0.5):
    """Whether the band differs between two shots `interval` seconds apart."""
    _, _, first = guest.screenshot(label)
    time.sleep(interval)
    _, _, second = guest.screenshot(label + "-later")
    return any(first[y] != second[y] for y in band_rows(first) or band_rows(second))


def lintian_faults(packages):
    """What lintian finds wrong with `packages` as Debian would judge them: its errors and
    warnings (an informational tag, such as the Swift runtime's strings read as misspellings, is
    not a fault), or its own failure."""
    judged = subprocess.run(["lintian", "--tag-display-limit", "0", *packages], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    faults = [line for line in judged.stdout.splitlines() if line[:2] in ("E:", "W:")]
    return faults if judged.returncode == 0 else faults + [f"lintian exit {judged.returncode}: {judged.stdout[-300:]}"]

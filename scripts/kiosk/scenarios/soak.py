"""Every script for a while: the service's memory stays small."""
import time

from kiosk.harness import check_picture, wait_until


def run(kiosk, box):
    guest, name = box.guest, box.name
    guest.run("cp /root/kiosk-test/mixed-scripts.ics /etc/marquee/feeds.d/")
    loaded = wait_until(guest, "marquee status --json | grep -q 'Johnny'", 30)
    kiosk.check(loaded is not None, f"{name}: the mixed-scripts feed is shown (after {loaded} s)")
    memory = "grep -E 'VmRSS|VmHWM' /proc/$(systemctl show -P MainPID marquee)/status | tr -s ' \\t' ' '"
    started = time.time()
    while time.time() - started < kiosk.soak_minutes * 60:
        time.sleep(min(60, max(1, kiosk.soak_minutes * 60 - (time.time() - started))))
        _, sample = guest.run(memory)
        print(f"    {name}: after {(time.time() - started) / 60:.1f} min: {' '.join(sample.split())}", flush=True)
    _, peak = guest.run("grep VmHWM /proc/$(systemctl show -P MainPID marquee)/status | tr -dc 0-9")
    _, status = guest.run("marquee status | grep -E 'glyph cache|frames/s'")
    _, missing = guest.run("journalctl -b -u marquee -o cat --no-pager | grep 'no font has' || true")
    # Where the memory is: the process's own (anonymous), shared libraries, font files.
    _, parts = guest.run("awk '/^[0-9a-f]+-/ { name = $6 } /^Rss:/ { if (name ~ /\/fonts\//) fonts += $2; "
                         "else if (name ~ /\.so|bin\/marquee/) code += $2; else own += $2 } "
                         "END { printf \"own (anonymous) %.1f MB, libraries %.1f MB, fonts %.1f MB\", own / 1024, "
                         "code / 1024, fonts / 1024 }' /proc/$(systemctl show -P MainPID marquee)/smaps")
    _, largest = guest.run("awk '/^[0-9a-f]+-/ { name = ($6 == \"\" ? \"[anonymous]\" : $6) } /^Rss:/ { rss[name] += $2 } "
                           "END { for (name in rss) print rss[name], name }' /proc/$(systemctl show -P MainPID marquee)/smaps "
                           "| sort -rn | head -8")
    print("    largest mappings (kB resident): " + "; ".join(largest.strip().splitlines()), flush=True)
    peak_kb = int(peak.strip() or 0)
    kiosk.check(0 < peak_kb <= 20 * 1024,
          f"{name}: after {kiosk.soak_minutes:g} min of every script, emoji and a dance, the service's peak memory "
          f"(VmHWM) is {peak_kb / 1024:.1f} MB (limit 20 MB; now {parts.strip()}); "
          f"{' · '.join(status.strip().splitlines())}; "
          f"characters no font has: {' '.join(missing.split()) or 'none'}")
    check_picture(kiosk, guest, "soaked")

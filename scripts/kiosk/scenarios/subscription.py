"""A calendar subscription as a carer sets one up: the address in marquee.toml, fetched by
the installed service through its sandbox, shown, and still shown from the cache after a
restart without the network."""
from kiosk.harness import main_pid, wait_until


def run(kiosk, box):
    guest, name, server = box.guest, box.name, box.calendar_server
    # The host's loopback, as QEMU's user network shows it to the guest.
    address = f"webcal://10.0.2.2:{server.port}/family.ics"
    status, output = guest.run(
        "cp /root/kiosk-test/kiosk-ca.crt /usr/local/share/ca-certificates/ && update-ca-certificates >/dev/null && "
        f"printf 'subscriptions = [\\n    \"{address}\",\\n]\\n' >> /etc/marquee/marquee.toml && "
        "systemctl restart marquee", timeout=180)
    kiosk.check(status == 0, f"{name}: a subscription added to marquee.toml, the test's authority trusted ({output.strip()[-200:]})")
    shown = wait_until(guest, "marquee status --json | grep -q 'KIOSK SUBSCRIPTION'", 60)
    _, text = guest.run("marquee status | sed -n '/^subscriptions:/,$p'")
    kiosk.check(shown is not None and "ok, HTTP 200, 1 event(s)" in text,
          f"{name}: the service fetched the subscription through its sandbox and shows it after {shown} s: "
          f"{' '.join(text.split())[:200]}")
    fetched = [line for line in server.requests() if "GET /family.ics" in line]
    kiosk.check(bool(fetched), f"{name}: the server saw the guest's request ({fetched[:1]})")
    server.stop()
    pid = main_pid(guest)
    guest.run("systemctl restart marquee")
    kept = wait_until(guest, f"[ \"$(systemctl show -P MainPID marquee)\" != {pid} ] && "
                             "marquee status --json | grep -q 'KIOSK SUBSCRIPTION'", 60)
    kiosk.check(kept is not None, f"{name}: restarted without the calendar's server, the cached calendar shows after {kept} s")

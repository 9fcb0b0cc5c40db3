"""The carer's page on the installed unit: a password set with `marquee web-password`, then the
page served on 0.0.0.0:8080 as the `marquee` user over HTTPS with a certificate the box made for
itself (its fingerprint in `marquee status`, its key the service's alone), and a setting changed
there written into /etc/marquee/marquee.toml — which the unit (ReadWritePaths, the folder 0775
root:marquee) must allow, and nothing more — and applied by a reload of the same process. The
guest has no HTTP client: the requests are HTTP/1.1 by hand through `openssl s_client`."""
import re

from kiosk.harness import main_pid, wait_until

PASSWORD = "the kiosk's carer 2026"


def request(guest, method, path, cookie="", body=""):
    """(status line, headers and body) of one request to the page from inside the guest."""
    lines = [f"{method} {path} HTTP/1.1", "Host: kiosk", "Connection: close"]
    if cookie:
        lines.append(f"Cookie: {cookie}")
    if body:
        lines += ["Content-Type: application/x-www-form-urlencoded", f"Content-Length: {len(body.encode())}"]
    text = "\\r\\n".join(lines) + "\\r\\n\\r\\n" + body
    _, answer = guest.run(f"printf '%b' '{text}' | timeout 10 openssl s_client -quiet -connect 127.0.0.1:8080 2>/dev/null")
    return answer


def run(kiosk, box):
    guest, name = box.guest, box.name
    pid = main_pid(guest)
    guest.run(f"printf '%s\\n' \"{PASSWORD}\" | marquee web-password")
    served = wait_until(guest, "marquee status | grep -q '^page: https://0.0.0.0:8080/'", 20)
    kiosk.check(served is not None, f"{name}: the page is served {served} s after `marquee web-password`")
    _, said = guest.run("marquee status | grep '^page:'")
    _, seen = guest.run("openssl s_client -connect 127.0.0.1:8080 </dev/null 2>/dev/null | openssl x509 -noout -fingerprint -sha256")
    _, key = guest.run("stat -c '%U %a' /var/lib/marquee/page-tls/page.key")
    fingerprint = seen.strip().split("=")[-1]
    kiosk.check(len(fingerprint) == 95 and f"certificate SHA-256 {fingerprint}" in said and key.strip() == "marquee 600",
                f"{name}: the certificate served is the box's own, whose fingerprint the status says "
                f"({said.strip()[:60]}…; its key: {key.strip()})")
    signed = request(guest, "POST", "/login", body="password=" + PASSWORD.replace(" ", "%20").replace("'", "%27"))
    cookie = re.search(r"marquee_session=([0-9a-f]+)", signed)
    kiosk.check(signed.startswith("HTTP/1.1 303") and cookie is not None, f"{name}: the carer signs in ({signed[:40]!r})")
    if cookie is None:
        return
    session = "marquee_session=" + cookie.group(1)
    page = request(guest, "GET", "/settings", cookie=session)
    token = re.search(r'name="token" value="([0-9a-f]+)"', page)
    kiosk.check(token is not None, f"{name}: the settings page offers its form")
    if token is None:
        return
    changed = request(guest, "POST", "/settings", cookie=session, body=f"token={token.group(1)}&volume_day=55")
    _, file = guest.run("grep -x 'volume_day = 55' /etc/marquee/marquee.toml && stat -c '%U:%G %a' /etc/marquee/marquee.toml")
    _, journal = guest.run("journalctl -b -u marquee -o cat --no-pager | grep -F 'the page: settings changed' | tail -1")
    kiosk.check(changed.startswith("HTTP/1.1 303") and "volume_day = 55" in file and "marquee:marquee 640" in file
                and "(volume_day)" in journal and main_pid(guest) == pid,
                f"{name}: a setting changed on the page is written by the unit's user into marquee.toml "
                f"({' / '.join(file.split(chr(10)))}), said in the journal, and reloaded in the same process")
    _, denied = guest.run("runuser -u marquee -- touch /etc/marquee/feeds.d/x 2>&1; ls /etc/marquee/feeds.d/x 2>&1")
    kiosk.check("No such file" in denied, f"{name}: the calendars' folder stays the carer's ({denied.strip()[:80]})")

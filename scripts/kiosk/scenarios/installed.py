"""Installed as the README says (apt install ./marquee_*.deb, feeds copied into the folder):
the unit verifies, is active with its STATUS= line, and its journal says where it draws,
without start-up noise."""
from kiosk.harness import wait_until


def run(kiosk, box):
    guest, name = box.guest, box.name
    status, output = guest.run("cd /root/kiosk-test && apt-get install -y ./marquee_*.deb", timeout=300)
    kiosk.check(status == 0, f"{name}: apt install ./marquee_*.deb (exit {status})" + ("" if status == 0 else output[-800:]))
    status, output = guest.run("systemd-analyze verify --man=no marquee.service && zcat /usr/share/man/man1/marquee.1.gz | grep -c SYNOPSIS "
        "&& zcat /usr/share/man/man5/marquee.toml.5.gz | grep -c night_backlight && ! id -nG marquee | grep -qw tty "
        "&& test -s /usr/share/bash-completion/completions/marquee && marquee --version")
    kiosk.check(status == 0, f"{name}: the installed unit verifies; man page, completions, version: {' '.join(output.split())}")
    guest.run("cp /usr/share/doc/marquee/examples/*.ics /etc/marquee/feeds.d/")
    active = wait_until(guest, "systemctl is-active -q marquee && [ -n \"$(systemctl show -P StatusText marquee)\" ]", 60)
    _, status_text = guest.run("systemctl show -P StatusText marquee")
    kiosk.check(active is not None, f"{name}: marquee.service active, STATUS=\"{status_text.strip()}\"")
    _, fb = guest.run("cat /sys/class/graphics/fb0/name 2>&1")
    _, journal = guest.run("journalctl -b -u marquee -o cat --no-pager")
    chose = [line for line in journal.splitlines() if "drawing on" in line]
    kiosk.check(any(box.variant.draws_on in line for line in chose) and "using the terminal" not in journal,
                f"{name}: the journal says where it draws ({fb.strip()}): {chose[-1] if chose else journal[-300:]}")
    if not box.variant.has_framebuffer:
        kiosk.check("No such file" in fb, f"{name}: the kernel has no framebuffer device ({fb.strip()})")
    noise = [line for line in journal.splitlines() if "swift runtime" in line or "thread priority" in line]
    kiosk.check(not noise, f"{name}: no start-up noise in the journal {noise[:2]}")

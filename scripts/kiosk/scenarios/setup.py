"""The carer's setup file as the installed units apply it: `marquee-setup.txt` written where the
card's FAT partition is mounted (/boot/efi on a PC), `marquee-setup.path` wakes
`marquee-setup.service` (root), which changes /etc/marquee/marquee.toml, keeps the page's
password and the Wi-Fi's connection, writes the file back without its secrets, and restarts
the display in the new language. Put back as it was afterwards, for the scenarios after it."""
from kiosk.harness import main_pid, wait_for_restart, wait_until

SECRET = "kiosk wifi secret"


def run(kiosk, box):
    guest, name = box.guest, box.name
    pid = main_pid(guest)
    written = ('language = "de"\\nquiet_night = "21:45-07:00"\\npage_password = "the setup files carer"\\n'
               f'wifi_name = "KioskNet"\\nwifi_password = "{SECRET}"\\n')
    applied = wait_until(guest, "grep -q '^# marquee: applied' /boot/efi/marquee-setup.txt", 30,
                         first=f"mkdir -p /boot/efi && printf '{written}' > /boot/efi/marquee-setup.txt")
    _, back = guest.run("cat /boot/efi/marquee-setup.txt")
    kiosk.check(applied is not None and SECRET not in back and "the setup files carer" not in back,
                f"{name}: the setup file is applied {applied} s after it is written, its secrets taken out "
                f"({back.splitlines()[0][:90] if back else ''!r})")
    _, configuration = guest.run("grep -E '^(language|night|morning) =' /etc/marquee/marquee.toml")
    _, wifi = guest.run("stat -c '%U %a' /etc/NetworkManager/system-connections/marquee-wifi.nmconnection")
    kiosk.check('language = "de"' in configuration and 'night = "21:45"' in configuration and wifi.strip() == "root 600",
                f"{name}: the configuration and the Wi-Fi's connection are written "
                f"({' / '.join(configuration.split(chr(10))).strip()}; {wifi.strip()})")
    restarted = wait_for_restart(guest, pid, 30)
    german = wait_until(guest, "marquee status | grep -qE 'Montag|Dienstag|Mittwoch|Donnerstag|Freitag|Samstag|Sonntag'", 30)
    kiosk.check(restarted is not None and german is not None,
                f"{name}: the display restarts {restarted} s later and speaks German {german} s after that")
    _, status = guest.run("systemctl is-failed marquee-setup.service; journalctl -u marquee-setup -o cat --no-pager | tail -3")
    kiosk.check(SECRET not in status, f"{name}: the journal never holds the Wi-Fi's password ({status.strip()[:120]!r})")
    pid = main_pid(guest)
    # The Wi-Fi's connection goes too (NetworkManager does not run here: the wifi scenario joins one).
    guest.run("systemctl stop marquee-wifi; rm -f /etc/NetworkManager/system-connections/marquee-wifi.nmconnection "
              "/var/lib/marquee/wifi-not-joined; rm /boot/efi/marquee-setup.txt; sed -i '/^language = \"de\"$/d; /^night = /d; /^morning = /d' "
              "/etc/marquee/marquee.toml; systemctl restart marquee")
    wait_for_restart(guest, pid, 30)

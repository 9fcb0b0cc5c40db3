"""The box in Home Assistant as a carer sets it up (README, five steps): a broker on the host
with TLS and a password, the mqtt keys in marquee.toml and the password in a file of its own
that only the service's group may read. From outside, through the unit's sandbox: the box is
online, its state says what `marquee status` says, the screen comes as a picture, Home
Assistant's entities are announced, a pause sent over MQTT pauses it, and killed it is offline
through its last will until systemd has it back."""
import json, os, struct, zlib

from kiosk.harness import main_pid, status_report, wait_until

TOPIC = "marquee/kiosk"


def node_id(topic):
    """The box's id in Home Assistant, as MQTTSettings.nodeID makes it: the topic in id letters
    and six hexadecimal digits of its FNV-1a hash."""
    word = "".join(c if c.isascii() and (c.isalnum() or c in "-_") else "_" for c in topic.lower()) or "marquee"
    digest = 0xCBF29CE484222325
    for byte in topic.encode():
        digest = ((digest ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{word}_{digest & 0xFFFFFF:06x}"


def png_size_and_lit(data):
    """(width, height, share of pixels not black) of an 8-bit RGB PNG."""
    width, height = struct.unpack(">II", data[16:24])
    raw, at = b"", 8
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        if kind == b"IDAT":
            raw += data[at + 8:at + 8 + length]
        at += 12 + length
    rows = zlib.decompress(raw)
    stride = width * 3 + 1
    lit = sum(1 for y in range(height) for x in range(width)
              if any(rows[y * stride + 1 + x * 3 + c] > 40 for c in range(3)))
    return width, height, lit / (width * height)


def run(kiosk, box):
    guest, name, broker = box.guest, box.name, box.broker
    settings = (f'mqtt = "mqtts://kiosk@10.0.2.2:{broker.port}"\\nmqtt_password_file = "/etc/marquee/mqtt-password"\\n'
                f'mqtt_ca_file = "/etc/marquee/broker-ca.crt"\\nmqtt_topic = "{TOPIC}"\\nmqtt_name = "Kiosk"\\n')
    status, output = guest.run(
        "install -m 0640 -g marquee /root/kiosk-test/mqtt-password /etc/marquee/mqtt-password && "
        "install -m 0644 /root/kiosk-test/broker-ca.crt /etc/marquee/broker-ca.crt && "
        f"printf '{settings}' >> /etc/marquee/marquee.toml && systemctl restart marquee", timeout=120)
    kiosk.check(status == 0, f"{name}: the broker set up in marquee.toml, its password readable only by the service's group "
                             f"({output.strip()[-200:]})")
    online = broker.wait_for(f"{TOPIC}/availability", lambda p: p == b"online", 60)
    kiosk.check(online is not None, f"{name}: the installed service is online on the broker after {online} s (TLS, password)")
    # Restarted: what it shows once its feeds are read (the emulated guest reads them after
    # the first frame, and the broker may be reached before).
    wait_until(guest, "marquee status --json | grep -q 'KIOSK TEST'", 60)
    shown = status_report(guest).get("showing")
    same = broker.wait_for(f"{TOPIC}/state", lambda p: json.loads(p).get("showing") == shown, 30)
    state = json.loads(broker.retained(f"{TOPIC}/state") or b"{}")
    kiosk.check(same is not None and bool(shown), f"{name}: the broker's state shows what `marquee status` shows: {shown}; "
                                                  f"part of day {state.get('partOfDay')}, problems {state.get('problems')}")
    picture = broker.wait_for(f"{TOPIC}/screen", lambda p: p[:8] == b"\x89PNG\r\n\x1a\n", 60)
    data = broker.retained(f"{TOPIC}/screen") or b""
    if data:
        open(os.path.join(kiosk.out, f"{name}.mqtt-screen.png"), "wb").write(data)
    size = png_size_and_lit(data) if picture is not None else (0, 0, 0)
    # The screen's own frame, in the screen's shape (1280x800: 640x400), not a simulated 16:9 one.
    glass_width, glass_height, _ = guest.screenshot("mqtt-glass")
    kiosk.check(picture is not None and size[:2] == (640, 640 * glass_height // glass_width) and 0.005 < size[2] < 0.5,
                f"{name}: the screen's own picture on the broker, {size[0]}x{size[1]} of {glass_width}x{glass_height}, "
                f"{size[2] * 100:.1f} % lit ({name}.mqtt-screen.png)")
    announced = broker.retained(f"homeassistant/switch/{node_id(TOPIC)}/paused/config")
    device = json.loads(announced).get("device", {}) if announced else {}
    kiosk.check(device.get("name") == "Kiosk", f"{name}: Home Assistant's entities are announced (device {device})")
    broker.publish(f"{TOPIC}/paused/set", "ON")
    paused = wait_until(guest, "marquee status --json | grep -q '\"paused\":true'", 15)
    told = broker.wait_for(f"{TOPIC}/state", lambda p: json.loads(p).get("paused") is True, 15)
    kiosk.check(paused is not None and told is not None, f"{name}: paused over MQTT after {paused} s, the state says so")
    broker.publish(f"{TOPIC}/paused/set", "OFF")
    wait_until(guest, "marquee status --json | grep -q '\"paused\":false'", 15)
    pid = main_pid(guest)
    guest.run("systemctl kill -s KILL marquee")
    offline = broker.wait_for(f"{TOPIC}/availability", lambda p: p == b"offline", 30)
    kiosk.check(offline is not None, f"{name}: killed, the box is offline on the broker after {offline} s (its last will)")
    back = broker.wait_for(f"{TOPIC}/availability", lambda p: p == b"online", 60)
    restarted = main_pid(guest) != pid
    kiosk.check(back is not None and restarted, f"{name}: restarted by systemd, online again after {back} s")

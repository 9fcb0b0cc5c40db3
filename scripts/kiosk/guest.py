"""The machine under test: Debian's kernel from /boot, a cached Debian 12 userspace with a
guest agent, and a booted QEMU guest that takes screenshots (QMP) and runs commands (over a
virtio serial port)."""
import base64, glob, json, os, shutil, socket, struct, subprocess, sys, tempfile, time, zlib

from screenshots import read_png

ROOTFS_PACKAGES = ("systemd,systemd-sysv,udev,kmod,dbus,kbd,procps,libical3,libfreetype6,libharfbuzz0b,libfribidi0,libdrm2,"
                   "zlib1g,libcurl4,libmosquitto1,ca-certificates,fonts-dejavu-core,fonts-noto-color-emoji,fonts-noto-core,fonts-noto-cjk,tzdata,"
                   "v4l-utils,unattended-upgrades,libpam-systemd,network-manager,wpasupplicant,hostapd,dnsmasq-base,iproute2")
AGENT_PORT = "org.marquee.agent"


def kernel():
    kernels = sorted(glob.glob("/boot/vmlinuz-*"))
    if not kernels:
        sys.exit("kiosk-system-test: no kernel in /boot (apt-get install linux-image-amd64)")
    version = kernels[-1].split("vmlinuz-", 1)[1]
    return version, kernels[-1], f"/boot/initrd.img-{version}"


def prepare_rootfs(version, cache):
    """The cached Debian 12 userspace, with the guest agent and the kernel's display,
    virtio-console, DRM, AC97 sound, evdev, vivid (a television on a CEC bus), mac80211_hwsim
    (Wi-Fi radios on a simulated air) and WPA2's ciphers (ccm, ctr, cmac) modules, v4l-utils (cec-ctl, cec-follower),
    unattended-upgrades and NetworkManager (as an image has them; NetworkManager started only by
    the scenario that needs it, beside systemd-networkd's wired network), hostapd and dnsmasq
    (a Wi-Fi network for the box to join)."""
    rootfs = os.path.join(cache, "rootfs")
    stamp = os.path.join(rootfs, ".marquee-kiosk-packages")
    if not os.path.exists(stamp) or open(stamp).read() != ROOTFS_PACKAGES:
        print(f"kiosk-system-test: debootstrap Debian 12 into {rootfs} (once)", flush=True)
        shutil.rmtree(rootfs, ignore_errors=True)
        partial = rootfs + ".partial"
        shutil.rmtree(partial, ignore_errors=True)
        subprocess.run(["debootstrap", "--variant=minbase", f"--include={ROOTFS_PACKAGES}", "bookworm", partial,
                        "http://deb.debian.org/debian"], check=True, stdout=subprocess.DEVNULL)
        open(os.path.join(partial, ".marquee-kiosk-packages"), "w").write(ROOTFS_PACKAGES)
        os.rename(partial, rootfs)
    write = lambda path, text, mode=0o644: (open(rootfs + path, "w").write(text), os.chmod(rootfs + path, mode))
    write("/etc/hostname", "kiosk\n")
    write("/etc/fstab", "/dev/vda / ext4 rw,errors=remount-ro 0 1\n")
    write("/usr/local/sbin/kiosk-agent", f"""#!/bin/bash
# Runs each "TAG BASE64(COMMAND)" line from the host as a bash command; answers
# "TAG STATUS BASE64(OUTPUT)", so the host can skip a late answer to an earlier request.
exec 3<>/dev/virtio-ports/{AGENT_PORT}
while IFS=' ' read -r tag line <&3; do
    output=$(printf '%s' "$line" | base64 -d | bash 2>&1)
    printf '%s %d %s\\n' "$tag" $? "$(printf '%s' "$output" | base64 -w0)" >&3
done
""", 0o755)
    write("/etc/systemd/system/kiosk-agent.service", f"""[Unit]
Description=kiosk-system-test agent on the virtio serial port
BindsTo=dev-virtio\\x2dports-{AGENT_PORT}.device
After=dev-virtio\\x2dports-{AGENT_PORT}.device
[Service]
ExecStart=/usr/local/sbin/kiosk-agent
Restart=always
[Install]
WantedBy=multi-user.target
""")
    # The network by DHCP from QEMU's user network (the host is 10.0.2.2), for subscriptions.
    write("/etc/systemd/network/80-kiosk.network", "[Match]\nName=en*\n[Network]\nDHCP=yes\n")
    wants = rootfs + "/etc/systemd/system/multi-user.target.wants"
    os.makedirs(wants, exist_ok=True)
    for unit, target in (("kiosk-agent.service", "/etc/systemd/system/kiosk-agent.service"),
                         ("systemd-networkd.service", "/lib/systemd/system/systemd-networkd.service")):
        if not os.path.lexists(f"{wants}/{unit}"):
            os.symlink(target, f"{wants}/{unit}")
    # NetworkManager leaves the wired network to systemd-networkd and the test's access point
    # (the first simulated radio) to hostapd; it starts only when a scenario starts it.
    write("/etc/NetworkManager/conf.d/kiosk.conf", "[keyfile]\nunmanaged-devices=interface-name:en*;interface-name:wlan0\n")
    for unit in ("multi-user.target.wants/NetworkManager.service", "network-online.target.wants/NetworkManager-wait-online.service"):
        if os.path.lexists(f"{rootfs}/etc/systemd/system/{unit}"):
            os.unlink(f"{rootfs}/etc/systemd/system/{unit}")
    modules = set()
    for module in ("bochs", "virtio_console", "video", "virtio_net", "snd_intel8x0", "evdev", "vivid", "mac80211_hwsim", "ccm", "ctr", "cmac"):
        shown = subprocess.run(["modprobe", "-S", version, "--show-depends", module], capture_output=True, text=True,
                               check=True).stdout
        modules.update(line.split()[1] for line in shown.splitlines() if line.startswith("insmod"))
    target = f"{rootfs}/lib/modules/{version}"
    for path in modules:
        os.makedirs(os.path.dirname(rootfs + path), exist_ok=True)
        shutil.copy2(path, rootfs + path)
    for extra in glob.glob(f"/lib/modules/{version}/modules.builtin*") + [f"/lib/modules/{version}/modules.order"]:
        shutil.copy2(extra, target)
    subprocess.run(["depmod", "-b", rootfs, version], check=True)
    return rootfs


def connect_when_made(path):
    """A connection to the Unix socket QEMU makes at `path` as it starts (waited for, 20 s at most)."""
    for _ in range(400):
        if os.path.exists(path):
            break
        time.sleep(0.05)
    connection = socket.socket(socket.AF_UNIX)
    connection.connect(path)
    return connection


PC = ("qemu-system-x86_64", "-vga", "std")
ARM64 = ("qemu-system-aarch64", "-machine", "virt", "-cpu", "cortex-a72")


class Machine:
    """A QEMU machine started with `arguments` (beyond its QMP socket): screenshots over QMP.
    `emulator` is the QEMU program and what makes the kind of machine: a PC by default."""

    def __init__(self, name, out, arguments, emulator=PC):
        self.name = name
        self.out = out
        self.work = tempfile.mkdtemp()
        self.qmp_path = os.path.join(self.work, "qmp.sock")
        self.console_log = os.path.join(self.out, f"{name}.console.log")
        self.vm = subprocess.Popen([*emulator, "-accel", "tcg", "-smp", "2", "-m", "1024", "-display", "none",
                                    "-no-reboot", "-serial", f"file:{self.console_log}", "-qmp",
                                    f"unix:{self.qmp_path},server=on,wait=off", *arguments])
        self.qmp = connect_when_made(self.qmp_path)
        self.qmp_file = self.qmp.makefile("rw")
        self.qmp_file.readline()
        self.call("qmp_capabilities")
        self.shots = 0

    def call(self, command, **arguments):
        self.qmp_file.write(json.dumps({"execute": command, "arguments": arguments}) + "\n")
        self.qmp_file.flush()
        while True:
            reply = json.loads(self.qmp_file.readline())
            if "return" in reply or "error" in reply:
                return reply

    def screendump(self):
        """The screen now, as QEMU dumps it: (width, height, its RGB bytes row after row)."""
        ppm = os.path.join(self.work, "shot.ppm")
        reply = self.call("screendump", filename=ppm)
        if "error" in reply:
            raise RuntimeError(reply["error"])
        _, size, _, pixels = open(ppm, "rb").read().split(b"\n", 3)
        width, height = map(int, size.split())
        return width, height, pixels

    def screenshot(self, label):
        """The screen now, as rows of brightness; also saved as OUT/NAME.N.LABEL.png."""
        png = os.path.join(self.out, f"{self.name}.{self.shots}.{label}.png")
        self.shots += 1
        write_png(*self.screendump(), png)
        return read_png(png)

    def console(self):
        """What the machine wrote on its serial console so far."""
        return open(self.console_log, errors="replace").read() if os.path.exists(self.console_log) else ""

    def shut_down(self, timeout):
        """Presses the power button (ACPI) and waits for the machine to power itself off: whether
        it did within `timeout` seconds (else the plug is pulled)."""
        self.call("system_powerdown")
        try:
            self.vm.wait(timeout=timeout)
            done = True
        except subprocess.TimeoutExpired:
            done = False
        self.power_off()
        return done

    def power_off(self):
        """Quits QEMU (as pulling the plug) and removes the machine's own files."""
        try:
            if self.vm.poll() is None:
                self.call("quit")
            self.vm.wait(timeout=30)
        except Exception:
            self.vm.kill()
            self.vm.wait()
        shutil.rmtree(self.work, ignore_errors=True)


class Guest(Machine):
    """A booted guest of the cached userspace: the agent (a virtio serial port) for commands."""

    def __init__(self, name, out, image, kernel_path, initrd, append, extra=()):
        agent_path = os.path.join(tempfile.gettempdir(), f"marquee-kiosk-agent-{name}-{os.getpid()}.sock")
        super().__init__(name, out, [
            "-kernel", kernel_path, "-initrd", initrd, "-append", f"root=/dev/vda rw console=ttyS0 loglevel=3 {append}",
            "-drive", f"file={image},format=raw,if=virtio", "-device", "virtio-serial-pci",
            "-chardev", f"socket,id=agent,path={agent_path},server=on,wait=off",
            "-device", f"virtserialport,chardev=agent,name={AGENT_PORT}",
            "-nic", "user,model=virtio-net-pci", *extra])
        self.agent_path = agent_path
        self.agent = connect_when_made(agent_path)
        self.agent_file = self.agent.makefile("rw")
        self.requests = 0

    def send(self, command):
        """Sends a bash command to the agent; the tag its answer will carry."""
        self.requests += 1
        tag = f"r{self.requests}"
        self.agent_file.write(f"{tag} {base64.b64encode(command.encode()).decode()}\n")
        self.agent_file.flush()
        return tag

    def answer(self, tag):
        """(status, output) answering `tag`; late answers to earlier requests are skipped."""
        while True:
            answered, _, rest = self.agent_file.readline().strip().partition(" ")
            if answered == tag:
                status, _, output = rest.partition(" ")
                return int(status), base64.b64decode(output).decode(errors="replace")

    def run(self, command, timeout=60):
        """(status, output) of a bash command in the guest."""
        self.agent.settimeout(timeout)
        return self.answer(self.send(command))

    def wait_for_agent(self, timeout=300):
        deadline = time.time() + timeout
        self.agent.settimeout(5)
        while time.time() < deadline:
            try:
                if self.answer(self.send("true"))[0] == 0:
                    return True
            except (socket.timeout, OSError):
                # The port was not open in the guest yet: what was written is lost; reconnect.
                self.agent.close()
                self.agent = socket.socket(socket.AF_UNIX)
                self.agent.connect(self.agent_path)
                self.agent_file = self.agent.makefile("rw")
                self.agent.settimeout(5)
        return False

    def stop(self):
        try:
            _, journal = self.run("journalctl -b --no-pager -o short-monotonic", timeout=60)
            open(os.path.join(self.out, f"{self.name}.journal.log"), "w").write(journal)
        except Exception:
            pass
        self.power_off()
        if os.path.exists(self.agent_path):
            os.unlink(self.agent_path)


def write_png(w, h, pixels, dst):
    """RGB bytes, row after row, as an 8-bit PNG file."""
    raw = b"".join(b"\x00" + pixels[y * w * 3:(y + 1) * w * 3] for y in range(h))

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
    open(dst, "wb").write(png + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))

"""The ready image (scripts/build-image) as a carer uses it: built from the run's own repository,
its setup file edited on "another computer" (mtools on the image's FAT partition), started as the
box starts, looked at only from outside:

  - it is compressed under 1 GB, with a checksum that verifies;
  - amd64 ("image"): booted from a USB stick by UEFI firmware (OVMF, software emulation);
  - arm64 ("image-arm64", a Raspberry Pi's card): the FAT partition holds what a Pi 4, 400 or 5
    starts from (the firmware, config.txt for Debian's own kernel, cmdline.txt naming the root
    by its label, the device trees, the kernel and its initramfs); its root, run under
    qemu-user, has marquee enabled, passes `marquee check` and draws the README's picture
    byte for byte as the arm64 package drew it beside amd64 (scripts/build-deb-arm64); then the
    same kernel and initramfs boot it on QEMU's arm64 `virt` machine (no Pi is emulated: the
    Pi's firmware is not run);
  - booted, marquee draws through KMS, and the calendar the setup file names (served on the
    host) is fetched and drawn in its own colour;
  - apt on the box reads marquee's repository and accepts its signature (the index is fetched
    only after InRelease verified);
  - the setup file on the FAT partition has lost its secrets and says what was applied, which of
    its settings (a misspelt one) was not used, and that the Wi-Fi it names could not be joined
    (the emulated PC has no Wi-Fi; a real network is joined in the kms variant's wifi scenario);
  - written to a card 1 GiB larger than the image, the system's partition and file system have
    grown to its end.

The test adds `systemd.journald.forward_to_console=1` and a serial console to the kernel's
command line (to read the journal from outside), `systemd.wants=apt-daily.service` (apt's daily
update at once, not at a random hour) and masks systemd-timesyncd (this machine reaches no time
server; the box's clock is QEMU's)."""
import json, os, re, shutil, struct, subprocess, tempfile, time

from kiosk.folder_server import FolderServer
from kiosk.guest import ARM64, Machine
from kiosk.harness import check_picture

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(HERE)
SECRETS = ("the image's wifi secret", "the image's carer 2026")
TEST_OPTIONS = ("systemd.journald.forward_to_console=1 systemd.wants=apt-daily.service "
                "systemd.mask=systemd-timesyncd.service")
CALENDAR = """BEGIN:VCALENDAR\r
VERSION:2.0\r
PRODID:-//marquee//image test//EN\r
BEGIN:VEVENT\r
UID:image-test@marquee\r
DTSTAMP:20260101T000000Z\r
DTSTART;VALUE=DATE:20200101\r
RRULE:FREQ=DAILY\r
SUMMARY:IMAGE TEST: this calendar was named in the setup file and is fetched from the host\r
COLOR:deepskyblue\r
END:VEVENT\r
END:VCALENDAR\r
"""
# What a Pi 4, 400 or 5 starts from, on the FAT partition.
PI_FILES = ("config.txt", "cmdline.txt", "start4.elf", "fixup4.dat", "bcm2711-rpi-4-b.dtb", "bcm2711-rpi-400.dtb",
            "bcm2712-rpi-5-b.dtb")


def blue_share(machine):
    """The share of the band's lit pixels that are clearly blue (the calendar's deepskyblue;
    marquee's own text is warm white or gold)."""
    width, height, pixels = machine.screendump()
    lit = blue = 0
    for y in range(height // 3, height // 2 + height // 9):
        row = pixels[y * width * 3:(y + 1) * width * 3]
        for x in range(0, width * 3, 6):
            r, g, b = row[x], row[x + 1], row[x + 2]
            if max(r, g, b) > 80:
                lit += 1
                blue += b > r + 60
    return blue / lit if lit else 0


def wait_for(predicate, timeout):
    """Seconds until `predicate()` held, or None."""
    began = time.time()
    while time.time() - began < timeout:
        if predicate():
            return time.time() - began
        time.sleep(1)
    return None


def partitions(raw):
    """The image's partitions as (offset, size) in bytes, from its partition table."""
    table = json.loads(subprocess.run(["sfdisk", "--json", raw], capture_output=True, text=True,
                                      check=True).stdout)["partitiontable"]
    sector = table.get("sectorsize", 512)
    return [(part["start"] * sector, part["size"] * sector) for part in table["partitions"]]


def root_sizes(raw):
    """The system partition's size and its ext4 file system's, in bytes (from its superblock)."""
    offset, size = partitions(raw)[1]
    with open(raw, "rb") as image:
        image.seek(offset + 1024)
        superblock = image.read(1024)
    blocks_low, = struct.unpack_from("<I", superblock, 4)
    log_block, = struct.unpack_from("<I", superblock, 24)
    blocks_high, = struct.unpack_from("<I", superblock, 0x150)
    return size, (blocks_high << 32 | blocks_low) * (1024 << log_block)


def fat_file(fat, name, to):
    """A file of the FAT partition copied to `to`; its text."""
    subprocess.run(["mcopy", "-o", "-i", fat, f"::{name}", to], check=True)
    return open(to, errors="replace").read()


def fat_listing(fat):
    """Every file of the FAT partition, as "::/PATH" lines."""
    return subprocess.run(["mdir", "-i", fat, "-b", "-/", "::"], capture_output=True, text=True).stdout


def check_raspberry_pi_files(kiosk, fat, work):
    """The FAT partition of the arm64 image holds what a Pi starts from: the kernel's and the
    initramfs' names and the kernel's command line (None where they are missing)."""
    names = [line[3:] for line in fat_listing(fat).splitlines()]
    missing = [name for name in PI_FILES + ("marquee-setup.txt",) if name not in names]
    config = fat_file(fat, "config.txt", os.path.join(work, "config.txt"))
    kernel = re.search(r"^kernel=(vmlinuz-\S+)$", config, re.M)
    initrd = re.search(r"^initramfs (initrd\.img-\S+)", config, re.M)
    settings = [line for line in config.splitlines() if line and not line.startswith("#")]
    kiosk.check(not missing and kernel and initrd and kernel[1] in names and initrd[1] in names
                and "arm_64bit=1" in settings and "upstream_kernel=1" in settings and "KMS" in config,
                f"image-arm64: the FAT partition holds the Pi's firmware, device trees, the kernel and initramfs "
                f"config.txt names (missing {missing}; config.txt: {'; '.join(settings)})")
    cmdline = fat_file(fat, "cmdline.txt", os.path.join(work, "cmdline.txt")).strip()
    kiosk.check("root=LABEL=marquee-root" in cmdline and "cma=" not in cmdline and "rootwait" in cmdline,
                f"image-arm64: cmdline.txt finds the system by its label ({cmdline})")
    return (kernel[1], initrd[1], cmdline) if kernel and initrd else (None, None, None)


def check_root_under_qemu_user(kiosk, raw, work, reference):
    """The arm64 image's root, mounted read-only and run under qemu-user: marquee enabled, its
    check passing, the README's picture drawn as `reference` (build-deb-arm64's)."""
    offset, size = partitions(raw)[1]
    root = os.path.join(work, "root-arm64")
    os.makedirs(root)
    mounted = []
    try:
        for command in (["mount", "-o", f"ro,loop,offset={offset},sizelimit={size}", raw, root],
                        ["mount", "-t", "proc", "proc", f"{root}/proc"], ["mount", "--bind", "/dev", f"{root}/dev"],
                        ["mount", "-t", "tmpfs", "tmpfs", f"{root}/tmp"]):
            subprocess.run(command, check=True)
            mounted.append(command[-1])
        shutil.copytree(os.path.join(ROOT, "examples"), f"{root}/tmp/src/examples")

        def inside(*command):
            return subprocess.run(["chroot", root, "env", "-C", "/tmp/src", "LANG=C.UTF-8", *command],
                                  capture_output=True, text=True)

        enabled = inside("systemctl", "is-enabled", "marquee.service", "marquee-setup.path")
        kiosk.check(enabled.stdout.split() == ["enabled", "enabled"],
                    f"image-arm64: marquee.service and marquee-setup.path are enabled ({' '.join(enabled.stdout.split())})")
        feeds = ["--feeds", "examples/feeds", "--timezone", "Europe/Berlin"]
        checked = inside("marquee", "check", *feeds)
        kiosk.check(checked.returncode == 0 and checked.stdout.strip() != "",
                    f"image-arm64: `marquee check` passes under qemu-user ({checked.stdout.strip().splitlines()[-1:]}"
                    f"{checked.stderr[-300:]})")
        drawn = inside("marquee", "snapshot", *feeds, "--at", "2027-03-03 19:00:02", "--running", "5",
                       "--size", "1280x720", "--out", "/tmp/snapshot.png")
        picture = f"{root}/tmp/snapshot.png"
        same = drawn.returncode == 0 and os.path.exists(reference) and open(picture, "rb").read() == open(reference, "rb").read()
        if drawn.returncode == 0:
            shutil.copy(picture, os.path.join(kiosk.out, "image-arm64.snapshot.png"))
        kiosk.check(same, f"image-arm64: the README's picture drawn under qemu-user is byte for byte "
                          f"{os.path.basename(reference)} ({drawn.stderr[-300:]})")
    finally:
        for folder in reversed(mounted):
            subprocess.run(["umount", folder])


def edit_setup(fat, work, server):
    """The carer edits the setup file on another computer."""
    setup = os.path.join(work, "marquee-setup.txt")
    template = fat_file(fat, "marquee-setup.txt", setup)
    open(setup, "w").write(template + f'''
wifi_name = "Kiosk image net"
wifi_password = "{SECRETS[0]}"
timezone = "Europe/Berlin"
calendar = "http://10.0.2.2:{server.port}/family.ics"
page_password = "{SECRETS[1]}"
quiet_nite = "22:00-07:00"
''')
    subprocess.run(["mcopy", "-o", "-i", fat, setup, "::marquee-setup.txt"], check=True)
    return setup


def start_pc(name, out, fat, raw, work):
    """The amd64 image as a PC starts it from a USB stick: UEFI firmware, then its GRUB."""
    grub = os.path.join(work, "grub.cfg")
    configuration = fat_file(fat, "EFI/marquee/grub.cfg", grub)
    open(grub, "w").write(configuration.replace("fsck.repair=yes", f"fsck.repair=yes console=ttyS0 {TEST_OPTIONS}"))
    subprocess.run(["mcopy", "-o", "-i", fat, grub, "::EFI/marquee/grub.cfg"], check=True)
    variables = os.path.join(work, "OVMF_VARS.fd")
    shutil.copy("/usr/share/OVMF/OVMF_VARS_4M.fd", variables)
    return Machine(name, out, [
        "-machine", "q35", "-drive", "if=pflash,format=raw,readonly=on,file=/usr/share/OVMF/OVMF_CODE_4M.fd",
        "-drive", f"if=pflash,format=raw,file={variables}",
        "-device", "qemu-xhci", "-drive", f"if=none,id=stick,format=raw,file={raw}",
        "-device", "usb-storage,drive=stick,removable=on", "-nic", "user,model=virtio-net-pci"])


def start_arm64(name, out, fat, raw, work, kernel, initrd, cmdline):
    """The arm64 image on QEMU's `virt` machine: the kernel, initramfs and command line of its
    FAT partition, as the Pi's firmware would start them; a virtio screen for KMS."""
    for file in (kernel, initrd):
        subprocess.run(["mcopy", "-o", "-i", fat, f"::{file}", os.path.join(work, file)], check=True)
    append = re.sub(r"console=\S+ ?", "", cmdline) + f" console=ttyAMA0 {TEST_OPTIONS}"
    return Machine(name, out, [
        "-kernel", os.path.join(work, kernel), "-initrd", os.path.join(work, initrd), "-append", append,
        "-drive", f"if=none,id=card,format=raw,file={raw}", "-device", "virtio-blk-pci,drive=card",
        "-device", "virtio-gpu-pci", "-nic", "user,model=virtio-net-pci"], emulator=ARM64)


def run(kiosk, repository, out, arch="amd64", reference=None):
    """`reference`: for arm64, the picture scripts/build-deb-arm64 drew with the package."""
    name = "image" if arch == "amd64" else f"image-{arch}"
    work = tempfile.mkdtemp(prefix=f"marquee-kiosk-{name}-")
    calendar = os.path.join(work, "www")
    os.makedirs(calendar)
    open(os.path.join(calendar, "family.ics"), "w").write(CALENDAR)
    server = FolderServer(calendar)
    machine = None
    try:
        began = time.time()
        built = subprocess.run([os.path.join(HERE, "build-image"), "--arch", arch, "--repository", repository.out,
                                "--out", work, "--keep-raw"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if not kiosk.check(built.returncode == 0, f"{name}: scripts/build-image built it in {time.time() - began:.0f} s"
                                                  + ("" if built.returncode == 0 else built.stdout[-1500:])):
            return
        compressed = built.stdout.strip().splitlines()[-1]
        raw = compressed[:-len(".xz")]
        verified = subprocess.run(["sha256sum", "-c", os.path.basename(compressed) + ".sha256"], cwd=work,
                                  capture_output=True, text=True)
        size, raw_size = os.path.getsize(compressed), os.path.getsize(raw)
        kiosk.check(size < 1 << 30 and verified.returncode == 0,
                    f"{name}: {os.path.basename(compressed)} is {size / 2**20:.0f} MiB ({raw_size / 2**20:.0f} MiB written), "
                    f"its checksum verifies ({verified.stdout.strip()})")
        fat_offset, fat_size = partitions(raw)[0]
        fat = f"{raw}@@{fat_offset}"
        label = subprocess.run(["mlabel", "-i", fat, "-s", "::"], capture_output=True, text=True).stdout
        if arch == "amd64":
            listed = fat_listing(fat)
            kiosk.check("MARQUEE" in label and "::/marquee-setup.txt" in listed and "::/EFI/BOOT/BOOTX64.EFI" in listed,
                        f"{name}: the FAT partition MARQUEE holds the boot loader and marquee-setup.txt")
        else:
            kiosk.check("MARQUEE" in label, f"{name}: the FAT partition is MARQUEE ({label.strip()})")
            kernel, initrd, cmdline = check_raspberry_pi_files(kiosk, fat, work)
            check_root_under_qemu_user(kiosk, raw, work, reference)
            if not kernel:
                return
        setup = edit_setup(fat, work, server)
        # A card larger than the image.
        before = root_sizes(raw)
        os.truncate(raw, raw_size + (1 << 30))
        earlier = len(repository.server.requests())
        booted = time.time()
        machine = start_pc(name, out, fat, raw, work) if arch == "amd64" else \
            start_arm64(name, out, fat, raw, work, kernel, initrd, cmdline)
        drawing = wait_for(lambda: "drawing on KMS" in machine.console(), 900)
        kiosk.check(drawing is not None, f"{name}: started as the box starts, marquee draws through KMS "
                                         f"{drawing and time.time() - booted:.0f} s after power on"
                    + ("" if drawing else machine.console()[-1500:]))
        fetched = wait_for(lambda: any("/family.ics" in line for line in server.requests()), 180)
        kiosk.check(fetched is not None, f"{name}: the calendar the setup file names is fetched "
                                         f"{time.time() - booted:.0f} s after power on "
                                         f"({(server.requests() or ['nothing'])[0][-60:]})")
        blue = wait_for(lambda: blue_share(machine) > 0.2, 120)
        kiosk.check(blue is not None, f"{name}: the calendar's message is on the screen in its colour "
                                      f"(deepskyblue: {blue_share(machine):.0%} of the band's lit pixels)")
        check_picture(kiosk, machine, name)
        index = wait_for(lambda: any(f"binary-{arch}/Packages" in line or "by-hash" in line
                                     for line in repository.server.requests()[earlier:]), 300)
        asked = [line.split('"')[1] for line in repository.server.requests()[earlier:]]
        kiosk.check(index is not None, f"{name}: apt on the box verified marquee's repository and read its index "
                                       f"({'; '.join(asked[-3:])[:160]})")
        # This PC has no Wi-Fi: once NetworkManager has looked for one a while, that is said.
        no_wifi = wait_for(lambda: "is not joined: the box has no Wi-Fi" in machine.console(), 300)
        kiosk.check(no_wifi is not None, f"{name}: the Wi-Fi the setup file names is tried once NetworkManager runs "
                                         f"(this PC has none: said {time.time() - booted:.0f} s after power on)")
        # Shut down with the power button, as a box is before its card goes to another computer.
        pressed = time.time()
        down = machine.shut_down(180)
        machine = None
        kiosk.check(down, f"{name}: the power button shuts the box down ({time.time() - pressed:.0f} s)")
        read = subprocess.run(["mcopy", "-o", "-i", fat, "::marquee-setup.txt", setup], capture_output=True, text=True)
        back = open(setup).read() if read.returncode == 0 else read.stderr
        if read.returncode != 0:
            # What is wrong with the FAT partition, for the failure's message.
            copy = os.path.join(work, "fat.img")
            subprocess.run(["dd", f"if={raw}", f"of={copy}", "bs=1M", f"skip={fat_offset >> 20}",
                            f"count={fat_size >> 20}", "status=none"], check=True)
            back += subprocess.run(["fsck.vfat", "-n", copy], capture_output=True, text=True).stdout[-600:]
        kiosk.check(not any(secret in back for secret in SECRETS) and "# marquee: applied" in back,
                    f"{name}: the setup file on the FAT partition has lost its secrets and says what was applied "
                    f"({next((line for line in back.splitlines() if line.startswith('# marquee: applied')), back[-800:])[:800]})")
        unknown = next((line for line in back.splitlines() if "quiet_nite" in line and line.startswith("# marquee: not used")), "")
        kiosk.check(unknown != "", f"{name}: the setting it does not know is said in the file ({unknown[:140]})")
        wifi = next((line for line in back.splitlines() if line.startswith("# marquee: not used: wifi_name: the box has no Wi-Fi")), "")
        kiosk.check(wifi != "", f"{name}: so is the Wi-Fi it could not join ({wifi[:140]})")
        after = root_sizes(raw)
        end = partitions(raw)[1][0] + after[0]
        kiosk.check(os.path.getsize(raw) - end < 1 << 20 and after[1] >= before[1] + (1000 << 20),
                    f"{name}: on a card 1 GiB larger, the system grew to its end (partition {before[0] >> 20} → "
                    f"{after[0] >> 20} MiB, file system {before[1] >> 20} → {after[1] >> 20} MiB)")
    finally:
        if machine:
            machine.power_off()
        server.stop()
        shutil.rmtree(work, ignore_errors=True)

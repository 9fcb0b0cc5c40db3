"""The ready image (scripts/build-image) as a carer uses it: built from the run's own repository,
its setup file edited on "another computer" (mtools on the image's FAT partition), booted as a PC
boots a USB stick (UEFI firmware, OVMF; software emulation), looked at only from outside:

  - it is compressed under 1 GB, with a checksum that verifies;
  - it boots to marquee drawing through KMS, and the calendar the setup file names (served on
    the host) is fetched and drawn in its own colour;
  - apt on the box reads marquee's repository and accepts its signature (the index is fetched
    only after InRelease verified);
  - the setup file on the FAT partition has lost its secrets and says what was applied, and
    which of its settings (a misspelt one) was not used.

The test adds `console=ttyS0 systemd.journald.forward_to_console=1` to the image's GRUB
configuration (to read the journal from outside), `systemd.wants=apt-daily.service` (apt's daily
update at once, not at a random hour) and masks systemd-timesyncd (this machine reaches no time
server; the box's clock is QEMU's)."""
import os, shutil, subprocess, tempfile, time

from kiosk.folder_server import FolderServer
from kiosk.guest import Machine
from kiosk.harness import check_picture

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SECRETS = ("the image's wifi secret", "the image's carer 2026")
TEST_OPTIONS = ("console=ttyS0 systemd.journald.forward_to_console=1 systemd.wants=apt-daily.service "
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


def run(kiosk, repository, out):
    work = tempfile.mkdtemp(prefix="marquee-kiosk-image-")
    calendar = os.path.join(work, "www")
    os.makedirs(calendar)
    open(os.path.join(calendar, "family.ics"), "w").write(CALENDAR)
    server = FolderServer(calendar)
    machine = None
    try:
        began = time.time()
        built = subprocess.run([os.path.join(HERE, "build-image"), "--repository", repository.out, "--out", work,
                                "--keep-raw"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if not kiosk.check(built.returncode == 0, f"image: scripts/build-image built it in {time.time() - began:.0f} s"
                                                  + ("" if built.returncode == 0 else built.stdout[-1500:])):
            return
        compressed = built.stdout.strip().splitlines()[-1]
        raw = compressed[:-len(".xz")]
        verified = subprocess.run(["sha256sum", "-c", os.path.basename(compressed) + ".sha256"], cwd=work,
                                  capture_output=True, text=True)
        size, raw_size = os.path.getsize(compressed), os.path.getsize(raw)
        kiosk.check(size < 1 << 30 and verified.returncode == 0,
                    f"image: {os.path.basename(compressed)} is {size / 2**20:.0f} MiB ({raw_size / 2**20:.0f} MiB written), "
                    f"its checksum verifies ({verified.stdout.strip()})")
        fat = f"{raw}@@1M"
        listed = subprocess.run(["mdir", "-i", fat, "-b", "-/", "::"], capture_output=True, text=True).stdout
        kiosk.check("::/marquee-setup.txt" in listed and "::/EFI/BOOT/BOOTX64.EFI" in listed,
                    f"image: the FAT partition MARQUEE holds the boot loader and marquee-setup.txt")
        # The carer edits the setup file on another computer.
        setup = os.path.join(work, "marquee-setup.txt")
        subprocess.run(["mcopy", "-o", "-i", fat, "::marquee-setup.txt", setup], check=True)
        template = open(setup).read()
        open(setup, "w").write(template + f'''
wifi_name = "Kiosk image net"
wifi_password = "{SECRETS[0]}"
timezone = "Europe/Berlin"
calendar = "http://10.0.2.2:{server.port}/family.ics"
page_password = "{SECRETS[1]}"
quiet_nite = "22:00-07:00"
''')
        subprocess.run(["mcopy", "-o", "-i", fat, setup, "::marquee-setup.txt"], check=True)
        grub = os.path.join(work, "grub.cfg")
        subprocess.run(["mcopy", "-o", "-i", fat, "::EFI/marquee/grub.cfg", grub], check=True)
        configuration = open(grub).read()
        open(grub, "w").write(configuration.replace("fsck.repair=yes", f"fsck.repair=yes {TEST_OPTIONS}"))
        subprocess.run(["mcopy", "-o", "-i", fat, grub, "::EFI/marquee/grub.cfg"], check=True)
        earlier = len(repository.server.requests())
        variables = os.path.join(work, "OVMF_VARS.fd")
        shutil.copy("/usr/share/OVMF/OVMF_VARS_4M.fd", variables)
        booted = time.time()
        machine = Machine("image", out, [
            "-machine", "q35", "-drive", "if=pflash,format=raw,readonly=on,file=/usr/share/OVMF/OVMF_CODE_4M.fd",
            "-drive", f"if=pflash,format=raw,file={variables}",
            "-device", "qemu-xhci", "-drive", f"if=none,id=stick,format=raw,file={raw}",
            "-device", "usb-storage,drive=stick,removable=on", "-nic", "user,model=virtio-net-pci"])
        drawing = wait_for(lambda: "drawing on KMS" in machine.console(), 600)
        kiosk.check(drawing is not None, f"image: booted from the stick by UEFI firmware, marquee draws through KMS "
                                         f"{drawing and time.time() - booted:.0f} s after power on"
                    + ("" if drawing else machine.console()[-1500:]))
        fetched = wait_for(lambda: any("/family.ics" in line for line in server.requests()), 180)
        kiosk.check(fetched is not None, f"image: the calendar the setup file names is fetched "
                                         f"({(server.requests() or ['nothing'])[0][-60:]})")
        blue = wait_for(lambda: blue_share(machine) > 0.2, 120)
        kiosk.check(blue is not None, f"image: the calendar's message is on the screen in its colour "
                                      f"(deepskyblue: {blue_share(machine):.0%} of the band's lit pixels)")
        check_picture(kiosk, machine, "image")
        index = wait_for(lambda: any("binary-amd64/Packages" in line or "by-hash" in line
                                     for line in repository.server.requests()[earlier:]), 300)
        asked = [line.split('"')[1] for line in repository.server.requests()[earlier:]]
        kiosk.check(index is not None, f"image: apt on the box verified marquee's repository and read its index "
                                       f"({'; '.join(asked[-3:])[:160]})")
        # Shut down with the power button, as a box is before its stick goes to another computer.
        pressed = time.time()
        down = machine.shut_down(180)
        machine = None
        kiosk.check(down, f"image: the power button shuts the box down ({time.time() - pressed:.0f} s)")
        read = subprocess.run(["mcopy", "-o", "-i", fat, "::marquee-setup.txt", setup], capture_output=True, text=True)
        back = open(setup).read() if read.returncode == 0 else read.stderr
        if read.returncode != 0:
            # What is wrong with the FAT partition, for the failure's message.
            copy = os.path.join(work, "fat.img")
            subprocess.run(["dd", f"if={raw}", f"of={copy}", "bs=1M", "skip=1", "count=128", "status=none"], check=True)
            back += subprocess.run(["fsck.vfat", "-n", copy], capture_output=True, text=True).stdout[-600:]
        kiosk.check(not any(secret in back for secret in SECRETS) and "# marquee: applied" in back,
                    f"image: the setup file on the FAT partition has lost its secrets and says what was applied "
                    f"({next((line for line in back.splitlines() if line.startswith('# marquee: applied')), back[-800:])[:800]})")
        unknown = next((line for line in back.splitlines() if "quiet_nite" in line and line.startswith("# marquee: not used")), "")
        kiosk.check(unknown != "", f"image: the setting it does not know is said in the file ({unknown[:140]})")
    finally:
        if machine:
            machine.power_off()
        server.stop()
        shutil.rmtree(work, ignore_errors=True)

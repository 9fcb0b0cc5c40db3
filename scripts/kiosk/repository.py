"""marquee's apt repository for the upgrade scenario, made by scripts/release with a signing key
of the run's own and served over HTTP on the host, where the guest sees it at 10.0.2.2 (QEMU's
user network). Before any guest boots, apt on the host proves the signature is checked: the
repository verifies with the key marquee-apt-source carries, and a changed index or a stranger's
signature is refused."""
import glob, os, shutil, subprocess, tempfile, time

from kiosk.folder_server import FolderServer
from kiosk.harness import lintian_faults

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SUFFIX = "+kiosk1"


class Repository:
    def __init__(self, deb, dbgsym, others=()):
        """`deb` and its `dbgsym` (if there is one) published, and `others` beside them (another
        architecture's package)."""
        self.folder = tempfile.mkdtemp(prefix="marquee-kiosk-apt-")
        self.out, self.keys = os.path.join(self.folder, "apt"), os.path.join(self.folder, "key")
        os.makedirs(self.out)
        self.server = FolderServer(self.out)
        self.port = self.server.port
        self.deb = deb
        self.release_seconds = self.publish([deb] + ([dbgsym] if os.path.exists(dbgsym) else []) + list(others))

    def publish(self, packages):
        """scripts/release --packages: the seconds it took."""
        began = time.time()
        subprocess.run([os.path.join(HERE, "release"), "--url", f"http://10.0.2.2:{self.port}/", "--out", self.out,
                        "--key-dir", self.keys, "--packages", *packages], check=True, stdout=subprocess.DEVNULL)
        return time.time() - began

    def apt_source(self):
        return glob.glob(os.path.join(self.out, "pool/main/m/marquee/marquee-apt-source_*_all.deb"))[0]

    def version(self):
        return subprocess.run(["dpkg-deb", "-f", self.deb, "Version"], capture_output=True, text=True,
                              check=True).stdout.strip()

    def publish_newer(self):
        """The same package as a newer version (VERSION+kiosk1), published: what a box upgrades to."""
        unpacked = os.path.join(self.folder, "newer")
        subprocess.run(["dpkg-deb", "-R", self.deb, unpacked], check=True)
        control = os.path.join(unpacked, "DEBIAN/control")
        old = self.version()
        text = open(control).read().replace(f"Version: {old}\n", f"Version: {old}{SUFFIX}\n")
        open(control, "w").write(text)
        newer = os.path.join(self.folder, f"marquee_{old}{SUFFIX}_amd64.deb")
        subprocess.run(["dpkg-deb", "--root-owner-group", "-Zxz", "--build", unpacked, newer], check=True,
                       stdout=subprocess.DEVNULL)
        shutil.rmtree(unpacked)
        self.publish([newer])
        return old + SUFFIX

    def host_apt(self, root, keyring, url=None):
        """`apt-get update` on the host in a folder of its own, for this repository (or a copy of
        it at `url`), trusting `keyring`: (exit status, output)."""
        for folder in ("lists/partial", "cache/archives/partial", "etc/apt.conf.d", "etc/preferences.d"):
            os.makedirs(os.path.join(root, folder), exist_ok=True)
        sources = os.path.join(root, "etc/marquee.sources")
        open(sources, "w").write(f"Types: deb\nURIs: {url or f'http://127.0.0.1:{self.port}/'}\nSuites: stable\n"
                                 f"Components: main\nArchitectures: amd64\nSigned-By: {keyring}\n")
        options = {"Dir::Etc::SourceList": "/dev/null", "Dir::Etc::SourceParts": os.path.join(root, "etc"),
                   "Dir::Etc::Parts": os.path.join(root, "etc/apt.conf.d"),
                   "Dir::Etc::PreferencesParts": os.path.join(root, "etc/preferences.d"),
                   "Dir::State::Lists": os.path.join(root, "lists"), "Dir::Cache": os.path.join(root, "cache"),
                   "Dir::State::status": "/var/lib/dpkg/status", "APT::Sandbox::User": "root"}
        arguments = [word for key, value in options.items() for word in ("-o", f"{key}={value}")]
        done = subprocess.run(["apt-get", *arguments, "update"], capture_output=True, text=True)
        listed = subprocess.run(["apt-cache", *arguments, "policy", "marquee"], capture_output=True, text=True)
        return done.returncode, done.stdout + done.stderr + listed.stdout

    def check_signature(self, kiosk):
        """apt on the host: the repository verifies; a changed index and another key's signature do not."""
        faults = lintian_faults([self.apt_source()])
        kiosk.check(not faults,
                    f"repository: lintian on {os.path.basename(self.apt_source())}: no errors, no warnings {faults[:3]}")
        keyring = os.path.join(self.folder, "box-keyring.gpg")
        subprocess.run(f"dpkg-deb --fsys-tarfile {self.apt_source()} | tar -xO ./usr/share/keyrings/marquee-archive-keyring.gpg"
                       f" > {keyring}", shell=True, check=True)
        status, output = self.host_apt(os.path.join(self.folder, "host-apt"), keyring)
        kiosk.check(status == 0 and "W:" not in output and "E:" not in output and self.version() in output,
                    f"repository: scripts/release published {os.path.basename(self.deb)} in {self.release_seconds:.1f} s; "
                    f"apt-get update verifies its signature with marquee-apt-source's key and lists {self.version()}"
                    + ("" if status == 0 else output[-600:]))
        # A changed index (one package's size altered after signing): apt refuses it.
        tampered = os.path.join(self.folder, "tampered")
        shutil.copytree(self.out, tampered)
        packages = os.path.join(tampered, "dists/stable/main/binary-amd64/Packages")
        text = open(packages).read().replace("Priority: optional", "Priority: required", 1)
        open(packages, "w").write(text)
        subprocess.run(f"gzip -9nc {packages} > {packages}.gz", shell=True, check=True)
        status, output = self.serve_copy(tampered, lambda url: self.host_apt(
            os.path.join(self.folder, "host-apt-tampered"), keyring, url))
        refusal = next((line for line in output.splitlines() if line.startswith("E: Failed to fetch")), "")
        kiosk.check(status != 0 and ("mismatch" in refusal or "unexpected size" in refusal),
                    f"repository: an index changed after signing is refused ({(refusal or output[-200:])[:150]})")
        # Signed by a stranger's key: apt refuses it too.
        stranger = os.path.join(self.folder, "stranger")
        shutil.copytree(self.out, stranger)
        gpg = ["gpg", "--homedir", os.path.join(self.folder, "stranger-key"), "--batch", "--quiet", "--pinentry-mode",
               "loopback", "--passphrase", ""]
        os.makedirs(os.path.join(self.folder, "stranger-key"), mode=0o700)
        subprocess.run(gpg + ["--quick-generate-key", "a stranger", "ed25519", "sign", "never"], check=True)
        release = os.path.join(stranger, "dists/stable/Release")
        for name in ("InRelease", "Release.gpg"):
            os.unlink(os.path.join(stranger, "dists/stable", name))
        subprocess.run(gpg + ["--clearsign", "--output", os.path.join(stranger, "dists/stable/InRelease"), release], check=True)
        subprocess.run(["gpgconf", "--homedir", os.path.join(self.folder, "stranger-key"), "--kill", "gpg-agent"], check=True)
        status, output = self.serve_copy(stranger, lambda url: self.host_apt(
            os.path.join(self.folder, "host-apt-stranger"), keyring, url))
        kiosk.check(status != 0 and "NO_PUBKEY" in output,
                    f"repository: signed by another key, it is refused "
                    f"({next((line for line in output.splitlines() if 'NO_PUBKEY' in line or 'signature' in line), output[-200:]).strip()[:140]})")

    def serve_copy(self, folder, use):
        """`use(url)` while `folder` is served on a port of its own."""
        server = FolderServer(folder)
        try:
            return use(server.url)
        finally:
            server.stop()

    def remove(self):
        self.server.stop()
        shutil.rmtree(self.folder, ignore_errors=True)

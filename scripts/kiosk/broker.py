"""An MQTT broker on the host for the mqtt scenario: Debian's mosquitto with a certificate
authority of its own and a password, at the address the guest sees the host at (10.0.2.2 on
QEMU's user network); mosquitto_sub and mosquitto_pub look at it as Home Assistant would."""
import os, shutil, socket, subprocess, tempfile, time

USER, PASSWORD = "kiosk", "carer-window-7"


class Broker:
    def __init__(self):
        self.folder = tempfile.mkdtemp(prefix="marquee-kiosk-broker-")
        run = lambda *words: subprocess.run(words, cwd=self.folder, check=True,
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=kiosk broker CA",
            "-keyout", "ca.key", "-out", "ca.crt")
        open(os.path.join(self.folder, "san.ext"), "w").write("subjectAltName=IP:10.0.2.2\n")
        run("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=10.0.2.2", "-keyout", "server.key",
            "-out", "server.csr")
        run("openssl", "x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
            "-days", "2", "-extfile", "san.ext", "-out", "server.crt")
        run("mosquitto_passwd", "-b", "-c", "passwords", USER, PASSWORD)
        open(os.path.join(self.folder, "password"), "w").write(PASSWORD + "\n")
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        self.port, self.plain_port = probe.getsockname()[1], None
        probe.close()
        base = self.folder
        open(os.path.join(base, "mosquitto.conf"), "w").write(f"""user root
per_listener_settings false
allow_anonymous false
password_file {base}/passwords
persistence false
log_dest file {base}/broker.log
listener {self.port} 127.0.0.1
cafile {base}/ca.crt
certfile {base}/server.crt
keyfile {base}/server.key
""")
        self.process = subprocess.Popen(["mosquitto", "-c", os.path.join(base, "mosquitto.conf")],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.3)

    def _client(self, program, *words):
        return [program, "-h", "127.0.0.1", "-p", str(self.port), "--cafile", os.path.join(self.folder, "ca.crt"),
                "--insecure", "-u", USER, "-P", PASSWORD, *words]

    def retained(self, topic, wait=1.0):
        """The bytes retained on `topic` (None: none within `wait` seconds)."""
        try:
            result = subprocess.run(self._client("mosquitto_sub", "-t", topic, "-C", "1", "-N", "--retained-only"),
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=wait)
            return result.stdout or None
        except subprocess.TimeoutExpired:
            return None

    def wait_for(self, topic, predicate, timeout):
        """Seconds until the retained message on `topic` satisfies `predicate`, or None."""
        start = time.time()
        while time.time() - start < timeout:
            payload = self.retained(topic)
            if payload is not None and predicate(payload):
                return round(time.time() - start, 1)
            time.sleep(0.2)
        return None

    def listen(self, topic):
        """A subscriber to `topic` from now on, as Home Assistant would be; `heard` ends it and
        gives the payloads it received, in order."""
        return Listener(self._client("mosquitto_sub", "-t", topic), self.folder)

    def publish(self, topic, payload):
        subprocess.run(self._client("mosquitto_pub", "-t", topic, "-m", payload), check=True, timeout=30,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def remove(self):
        self.process.kill()
        self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


class Listener:
    def __init__(self, command, folder):
        self.path = tempfile.mktemp(prefix="heard-", dir=folder)
        self.output = open(self.path, "wb")
        self.process = subprocess.Popen(["stdbuf", "-o0", *command], stdout=self.output, stderr=subprocess.DEVNULL)
        time.sleep(0.5)

    def heard(self):
        self.process.kill()
        self.process.wait()
        self.output.close()
        return open(self.path, "rb").read().decode().splitlines()

"""A folder served over plain HTTP on the host's loopback (Python's http.server), its requests
logged: marquee's apt repository, or a calendar, for a guest that sees the host at 10.0.2.2."""
import os, socket, subprocess, tempfile, time


class FolderServer:
    def __init__(self, folder):
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        self.port = probe.getsockname()[1]
        probe.close()
        self.log = tempfile.NamedTemporaryFile(prefix="marquee-kiosk-http-", suffix=".log", delete=False)
        self.process = subprocess.Popen(["python3", "-m", "http.server", "--bind", "127.0.0.1", str(self.port),
                                         "--directory", folder], stdout=subprocess.DEVNULL, stderr=self.log)
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}/"

    def requests(self):
        """The request lines served so far ("GET /path HTTP/1.1" and their status)."""
        return [line for line in open(self.log.name, errors="replace").read().splitlines() if '"' in line]

    def stop(self):
        self.process.kill()
        self.process.wait()
        self.log.close()
        os.unlink(self.log.name)

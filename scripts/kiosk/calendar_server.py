"""A calendar server on the host for the subscription scenario."""
import os, shutil, socket, subprocess, tempfile

from kiosk.feeds import SUBSCRIBED_FEED


class CalendarServer:
    """nginx on the host with a certificate authority of its own, serving a calendar over TLS
    at the address the guest sees the host at (10.0.2.2 on QEMU's user network)."""

    def __init__(self):
        self.folder = tempfile.mkdtemp(prefix="marquee-kiosk-web-")
        run = lambda *words: subprocess.run(["openssl", *words], cwd=self.folder, check=True,
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=kiosk test CA",
            "-keyout", "ca.key", "-out", "ca.crt")
        open(os.path.join(self.folder, "san.ext"), "w").write("subjectAltName=IP:10.0.2.2\n")
        run("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=10.0.2.2", "-keyout", "server.key", "-out", "server.csr")
        run("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-days", "2",
            "-extfile", "san.ext", "-out", "server.crt")
        os.makedirs(os.path.join(self.folder, "www"))
        open(os.path.join(self.folder, "www", "family.ics"), "w").write(SUBSCRIBED_FEED)
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        self.port = probe.getsockname()[1]
        probe.close()
        base = self.folder
        open(os.path.join(base, "nginx.conf"), "w").write(f"""daemon off; master_process off; pid {base}/nginx.pid;
error_log {base}/error.log;
events {{ worker_connections 16; }}
http {{
    types {{ text/calendar ics; }}
    access_log {base}/access.log;
    client_body_temp_path {base}/body; proxy_temp_path {base}/proxy; fastcgi_temp_path {base}/fastcgi;
    uwsgi_temp_path {base}/uwsgi; scgi_temp_path {base}/scgi;
    server {{ listen 127.0.0.1:{self.port} ssl; ssl_certificate {base}/server.crt;
              ssl_certificate_key {base}/server.key; root {base}/www; }}
}}
""")
        self.nginx = subprocess.Popen(["nginx", "-p", base, "-c", os.path.join(base, "nginx.conf")],
                                      stderr=subprocess.DEVNULL)

    def requests(self):
        path = os.path.join(self.folder, "access.log")
        return open(path).read().splitlines() if os.path.exists(path) else []

    def stop(self):
        self.nginx.kill()
        self.nginx.wait()

    def remove(self):
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)

"""Hostile clients of the carer's page: slow ones that send a header a byte at a time
(slowloris) while 500 connections come at once, and a 100 MB form. Prints one JSON object of what
happened; the Swift test judges it. All over TLS, as the page is served (the box's own
certificate, not checked here: a hostile client does not care). Usage: page_flood.py HOST PORT"""
import json, select, socket, ssl, sys, threading, time

host, port = sys.argv[1], int(sys.argv[2])
seen = {}
unchecked = ssl.create_default_context()
unchecked.check_hostname = False
unchecked.verify_mode = ssl.CERT_NONE


def connect(timeout):
    """A TLS connection to the page, its handshake done."""
    return unchecked.wrap_socket(socket.create_connection((host, port), timeout=timeout), server_hostname=host)


def ask(path="/", body=None, timeout=30):
    """One request on a connection of its own: the status code (0: no answer)."""
    try:
        with connect(timeout) as connection:
            if body is None:
                connection.sendall(f"GET {path} HTTP/1.1\r\nHost: box\r\nConnection: close\r\n\r\n".encode())
            else:
                connection.sendall(f"POST {path} HTTP/1.1\r\nHost: box\r\nConnection: close\r\n"
                                   f"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {len(body)}\r\n\r\n".encode())
                # A server that refuses the body answers before it is all sent: the body goes a
                # piece at a time, until an answer can be read (a TLS connection is not written
                # and read from two threads at once).
                try:
                    for start in range(0, len(body), 65536):
                        if select.select([connection], [], [], 0)[0]:
                            break
                        connection.sendall(body[start:start + 65536])
                except OSError:
                    pass  # the server stopped reading or closed
            answer = b""
            while b"\r\n" not in answer:
                chunk = connection.recv(4096)
                if not chunk:
                    break
                answer += chunk
            return int(answer.split(b" ")[1]) if answer.startswith(b"HTTP/1.1 ") else 0
    except OSError:
        return 0


# Slowloris: 40 connections, each sending its header a byte every second for as long as the
# rest runs (they hold 40 of the page's 64 connections), and a carer is answered meanwhile.
slow = []
for _ in range(40):
    try:
        connection = connect(5)
        connection.sendall(b"GET / HTTP/1.1\r\nHost: box\r\n")
        slow.append(connection)
    except OSError:
        pass
seen["slowOpened"] = len(slow)
trickling = threading.Event()


def trickle():
    while not trickling.wait(1):
        for connection in slow:
            try:
                connection.sendall(b"X")
            except OSError:
                pass


trickler = threading.Thread(target=trickle)
trickler.start()
started = time.monotonic()
seen["answeredDuringSlowloris"] = ask()
seen["answerSecondsDuringSlowloris"] = round(time.monotonic() - started, 3)

# 500 connections at once, each asking for the sign-in page.
codes = []
lock = threading.Lock()


def one():
    code = ask(timeout=60)
    with lock:
        codes.append(code)


started = time.monotonic()
threads = [threading.Thread(target=one) for _ in range(500)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
seen["floodSeconds"] = round(time.monotonic() - started, 2)
seen["floodAnswered"] = sum(1 for code in codes if code == 200)
seen["floodCodes"] = sorted(set(codes))

# A 100 MB form is refused without being read.
started = time.monotonic()
seen["hugeForm"] = ask("/login", body=b"password=" + b"x" * (100 * 1024 * 1024), timeout=60)
seen["hugeFormSeconds"] = round(time.monotonic() - started, 2)
trickling.set()
trickler.join()
for connection in slow:
    connection.close()
seen["afterwards"] = ask()
print(json.dumps(seen))

"""Hostile clients of the carer's page: slow ones that send a header a byte at a time
(slowloris) while 500 connections come at once, and a 100 MB form. Prints one JSON object of what
happened; the Swift test judges it. Usage: page_flood.py HOST PORT"""
import json, socket, sys, threading, time

host, port = sys.argv[1], int(sys.argv[2])
seen = {}


def ask(path="/", body=None, timeout=30):
    """One request on a connection of its own: the status code (0: no answer)."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as connection:
            if body is None:
                connection.sendall(f"GET {path} HTTP/1.1\r\nHost: box\r\nConnection: close\r\n\r\n".encode())
            else:
                connection.sendall(f"POST {path} HTTP/1.1\r\nHost: box\r\nConnection: close\r\n"
                                   f"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {len(body)}\r\n\r\n".encode())
                # Sent beside the reading: a server that refuses the body answers before it is all sent.
                def send():
                    try:
                        connection.sendall(body)
                    except OSError:
                        pass  # the server stopped reading or closed
                threading.Thread(target=send, daemon=True).start()
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
        connection = socket.create_connection((host, port), timeout=5)
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

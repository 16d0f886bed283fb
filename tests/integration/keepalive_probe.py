#!/usr/bin/python3
"""keepalive_probe.py: how a qcg SOAP service treats kept-alive connections.

    keepalive_probe.py HOST PORT CERT KEY CA_DIR MODE N [SECONDS]

MODE:
  hold     open N TLS connections and send one GetHealth on each, keeping every connection
           open (HTTP/1.1 keep-alive) and idle; then one more connection asks GetHealth; then
           every held connection asks a second time. Prints "first=K extra=ok|fail second=K":
           K answered of N. A service that parks idle connections answers all of them even
           with fewer workers than N; one that keeps a worker per idle connection cannot.
  expire   open N connections, one GetHealth each, wait SECONDS in silence, then count how many
           the service has closed. Prints "closed=K".
  burst    N GetHealth back to back, each sent as soon as the previous answer is read, on one
           connection for as long as the service keeps it: a new connection only after an
           answer that said "Connection: close" (what an HTTP/1.1 client relies on). Prints
           "answered=K reconnects=R": a service that closes a connection it announced as kept
           alive loses the request already sent on it.
  share    two connections ask GetHealth back to back, each as soon as its previous answer is
           read, until N answers have come on the two together. Prints "first=K second=K":
           a service whose worker keeps serving the client it has while the other's request
           waits answers nearly all N on one connection.
Each answer must come within 10 s.
"""
import socket
import ssl
import sys
import threading
import time

BODY = ('<?xml version="1.0" encoding="UTF-8"?>'
        '<SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/" '
        'xmlns:qb="urn:qcg-ompi:broker:1"><SOAP-ENV:Body><qb:GetHealth/></SOAP-ENV:Body>'
        '</SOAP-ENV:Envelope>').encode()
TIMEOUT = 10


def connect(host, port, ctx):
    raw = socket.create_connection((host, int(port)), timeout=TIMEOUT)
    return ctx.wrap_socket(raw, server_hostname=host)


def ask(conn, host, port, said_close=None):
    """One GetHealth on conn; True when a 200 answer without a fault came back whole. When
    said_close is a list, appends whether the answer's header said "Connection: close"."""
    head = (f"POST / HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: text/xml; charset=utf-8\r\n"
            f"Content-Length: {len(BODY)}\r\nConnection: keep-alive\r\n\r\n").encode()
    try:
        conn.sendall(head + BODY)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(65536)
            if not chunk:
                return False
            data += chunk
        header, _, body = data.partition(b"\r\n\r\n")
        length = None
        for line in header.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
            if said_close is not None and name.strip().lower() == b"connection":
                said_close.append(value.strip().lower() == b"close")
        if length is None:  # chunked: read to the terminating chunk
            while not body.endswith(b"0\r\n\r\n"):
                chunk = conn.recv(65536)
                if not chunk:
                    return False
                body += chunk
        else:
            while len(body) < length:
                chunk = conn.recv(65536)
                if not chunk:
                    return False
                body += chunk
        return header.startswith(b"HTTP/1.1 200") and b"Fault>" not in body
    except (ssl.SSLError, OSError):
        return False


def closed_by_peer(conn):
    conn.settimeout(0.5)
    try:
        return conn.recv(1) == b""
    except socket.timeout:
        return False
    except (ssl.SSLError, OSError):
        return True


def share(host, port, ctx, n):
    conns = [connect(host, port, ctx), connect(host, port, ctx)]
    # Both connections answered once before the race, so both are kept alive and parked.
    if not all(ask(c, host, port) for c in conns):
        print("share: the first requests failed")
        return 1
    counts = [0, 0]
    lock = threading.Lock()
    done = threading.Event()

    def client(i):
        while not done.is_set():
            if not ask(conns[i], host, port):
                done.set()
                return
            with lock:
                counts[i] += 1
                if counts[0] + counts[1] >= n:
                    done.set()

    threads = [threading.Thread(target=client, args=(i,)) for i in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for c in conns:
        c.close()
    print(f"first={counts[0]} second={counts[1]}")
    return 0


def main():
    host, port, cert, key, ca_dir, mode, n = sys.argv[1:8]
    n = int(n)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.load_verify_locations(capath=ca_dir)
    ctx.check_hostname = False
    ctx.load_cert_chain(cert, key)
    if mode == "burst":
        answered = reconnects = 0
        conn = connect(host, port, ctx)
        for _ in range(n):
            said_close = []
            answered += ask(conn, host, port, said_close)
            if said_close and said_close[-1]:
                conn.close()
                conn = connect(host, port, ctx)
                reconnects += 1
        conn.close()
        print(f"answered={answered} reconnects={reconnects}")
        return 0
    if mode == "share":
        return share(host, port, ctx, n)
    held = []
    first = 0
    for _ in range(n):
        try:
            c = connect(host, port, ctx)
        except (ssl.SSLError, OSError):
            continue
        held.append(c)
        first += ask(c, host, port)
    if mode == "hold":
        try:
            with connect(host, port, ctx) as extra:
                extra_ok = ask(extra, host, port)
        except (ssl.SSLError, OSError):
            extra_ok = False
        second = sum(ask(c, host, port) for c in held)
        print(f"first={first} extra={'ok' if extra_ok else 'fail'} second={second}")
    elif mode == "expire":
        time.sleep(float(sys.argv[8]))
        print(f"closed={sum(closed_by_peer(c) for c in held)}")
    else:
        print(f"unknown mode {mode}", file=sys.stderr)
        return 2
    for c in held:
        c.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""tbtool.py: the testbed tests' tiny TCP listener and measuring client.

  serve PORT[,PORT...]       listen on every PORT; each connection first receives this host's
                             name and a newline, then gets back every byte it sends (echo)
                             until it closes; a connection that sends "BULK\n" instead gets
                             an endless stream of zeros (the bulk source)
  probe TIMEOUT ADDR:PORT... connect to each ADDR:PORT at once, print "ADDR:PORT NAME" with the
                             name the listener sent, "ADDR:PORT +" if it connected but got no
                             name (another kind of server), "ADDR:PORT -" if it could not connect
  rtt ADDR PORT COUNT        COUNT one-byte round trips; prints "min MS median MS"
  bulk ADDR PORT SECONDS WARMUP
                             receive the bulk stream; prints the rate in Mbit/s measured over
                             SECONDS after WARMUP seconds (TCP slow start excluded)

Only the Python standard library, so the tests need nothing installed beyond python3.
"""
import socket
import sys
import threading
import time

ACCEPT_BACKLOG = 128
CHUNK = 65536
NAME_MAX = 256


def serve_conn(conn):
    with conn:
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        conn.sendall(socket.gethostname().encode() + b"\n")
        first = conn.recv(CHUNK)
        if first.startswith(b"BULK\n"):
            zeros = bytes(CHUNK)
            try:
                while True:
                    conn.sendall(zeros)
            except OSError:
                return
        data = first
        while data:
            conn.sendall(data)
            data = conn.recv(CHUNK)


def serve_port(port):
    lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind(("0.0.0.0", port))
    lsock.listen(ACCEPT_BACKLOG)
    while True:
        conn, _ = lsock.accept()
        threading.Thread(target=serve_conn, args=(conn,), daemon=True).start()


def cmd_serve(ports):
    ports = [int(p) for p in ports.split(",")]
    threads = [threading.Thread(target=serve_port, args=(p,), daemon=True) for p in ports]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def read_line(sock):
    buf = b""
    while not buf.endswith(b"\n") and len(buf) < NAME_MAX:
        part = sock.recv(NAME_MAX - len(buf))
        if not part:
            break
        buf += part
    return buf.decode(errors="replace").strip()


def probe_one(target, timeout, results):
    addr, port = target.rsplit(":", 1)
    try:
        sock = socket.create_connection((addr, int(port)), timeout=timeout)
    except OSError:
        results[target] = "-"
        return
    with sock:
        try:
            results[target] = read_line(sock) or "+"
        except OSError:
            results[target] = "+"


def cmd_probe(timeout, *targets):
    results = {}
    threads = [threading.Thread(target=probe_one, args=(t, float(timeout), results))
               for t in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for t in targets:
        print(t, results.get(t, "-"))


def connect(addr, port):
    sock = socket.create_connection((addr, int(port)), timeout=10)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    read_line(sock)
    return sock


def cmd_rtt(addr, port, count):
    samples = []
    with connect(addr, port) as sock:
        for _ in range(int(count)):
            start = time.perf_counter()
            sock.sendall(b"x")
            if not sock.recv(1):
                sys.exit("rtt: connection closed")
            samples.append((time.perf_counter() - start) * 1000.0)
    samples.sort()
    print("min %.3f median %.3f" % (samples[0], samples[len(samples) // 2]))


def cmd_bulk(addr, port, seconds, warmup):
    seconds, warmup = float(seconds), float(warmup)
    with connect(addr, port) as sock:
        sock.sendall(b"BULK\n")
        start = time.perf_counter()
        counted, begin = 0, None
        while True:
            n = len(sock.recv(CHUNK))
            if n == 0:
                sys.exit("bulk: connection closed")
            now = time.perf_counter()
            if begin is None and now - start >= warmup:
                begin = now
            elif begin is not None:
                counted += n
                if now - begin >= seconds:
                    break
    print("%.3f" % (counted * 8 / (now - begin) / 1e6))


COMMANDS = {"serve": cmd_serve, "probe": cmd_probe, "rtt": cmd_rtt, "bulk": cmd_bulk}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        sys.exit(__doc__)
    COMMANDS[sys.argv[1]](*sys.argv[2:])

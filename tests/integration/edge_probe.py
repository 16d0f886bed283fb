#!/usr/bin/python3
"""edge_probe.py: what an attacker on the network can do to a qcg SOAP service before and while
it serves others (issue 17's probe, made repeatable).

    edge_probe.py HOST PORT CERT KEY CA_DIR MODE [ARGS...]

MODE:
  hold IDLE_TCP SLOW_LORIS IDLE_TLS SECONDS
           open IDLE_TCP plain TCP connections that send nothing, SLOW_LORIS TLS connections
           (client certificate) that send a request head one byte per second, and IDLE_TLS TLS
           connections that complete the handshake and send nothing; hold them SECONDS (or
           until this process gets SIGTERM). Prints "holding" once they are all open, then
           "held open=K" at the end (K still open).
  quadratic N
           one request of N attributes on one element (distinct names), about 11 bytes each
           (N = 90000 makes the 979 KB request of the issue).
  pipelined N
           N GetHealth requests written in one send on one connection; prints "answered=K".
  not-xml  a request whose body is plain text.
  churn N  N plain TCP connections opened one after another, at most 24 kept (the oldest
           closed), and one byte sent on the oldest kept right after each new one: the
           listener's event and an older connection's land in one batch of the server's event
           loop, while the per-address cap closes the oldest. Prints "churned=N".
The single-request modes print "status=<HTTP status line> seconds=S reason=<fault string or
text>", or "status=none" when the connection closed without an answer.
Every wait is bounded (20 s per answer).
"""
import signal
import socket
import ssl
import sys
import time

TIMEOUT = 20
ENVELOPE = ('<?xml version="1.0" encoding="UTF-8"?>'
            '<SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/" '
            'xmlns:qb="urn:qcg-ompi:broker:1"><SOAP-ENV:Body>{}</SOAP-ENV:Body></SOAP-ENV:Envelope>')


def context(cert, key, ca_dir):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.load_verify_locations(capath=ca_dir)
    ctx.check_hostname = False
    ctx.load_cert_chain(cert, key)
    return ctx


def request(host, port, body, close=False):
    return (f"POST / HTTP/1.1\r\nHost: {host}:{port}\r\n"
            f"Content-Type: text/xml; charset=utf-8\r\nContent-Length: {len(body)}\r\n"
            f"Connection: {'close' if close else 'keep-alive'}\r\n\r\n").encode() + body


def read_answer(conn, pending=b""):
    """One HTTP answer from conn: (status line or None, rest of the bytes read after it)."""
    data = pending
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return None, b""
        data += chunk
    header, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in header.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            return None, b""
        body += chunk
    read_answer.reason = b""
    if b"<faultstring>" in body[:length]:
        read_answer.reason = body.split(b"<faultstring>")[1].split(b"</faultstring>")[0]
    elif length:
        read_answer.reason = body[:length].strip()
    return header.split(b"\r\n")[0].decode(errors="replace"), body[length:]


def hold(host, port, ctx, idle_tcp, slow, idle_tls, seconds):
    conns = []
    for _ in range(idle_tcp):
        conns.append(socket.create_connection((host, port), timeout=TIMEOUT))
    lorises = []
    for _ in range(slow):
        raw = socket.create_connection((host, port), timeout=TIMEOUT)
        lorises.append(ctx.wrap_socket(raw, server_hostname=host))
    for _ in range(idle_tls):
        raw = socket.create_connection((host, port), timeout=TIMEOUT)
        conns.append(ctx.wrap_socket(raw, server_hostname=host))
    print("holding", flush=True)
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    head = request(host, port, ENVELOPE.format("<qb:GetHealth/>").encode())
    end = time.monotonic() + seconds
    i = 0
    while not stop and time.monotonic() < end:
        for s in lorises:
            try:
                s.send(head[i % len(head):i % len(head) + 1])
            except OSError:
                pass
        i += 1
        time.sleep(1)
    still = 0
    for s in conns + lorises:
        try:
            s.setblocking(False)
            still += s.recv(1) != b""
        except (BlockingIOError, ssl.SSLWantReadError):
            still += 1
        except OSError:
            pass
    print(f"held open={still}")


def churn(host, port, n):
    conns = []
    for _ in range(n):
        try:
            conns.append(socket.create_connection((host, port), timeout=TIMEOUT))
        except OSError:
            pass  # the service is gone or refusing: the caller checks it
        if len(conns) > 24:
            conns.pop(0).close()
        try:
            conns[0].send(b"\x16")
        except (OSError, IndexError):
            pass
    for s in conns:
        s.close()
    print(f"churned={n}")


def main():
    host, port, cert, key, ca_dir, mode = sys.argv[1:7]
    args = [int(a) for a in sys.argv[7:]]
    port = int(port)
    ctx = context(cert, key, ca_dir)
    if mode == "hold":
        hold(host, port, ctx, *args)
        return 0
    if mode == "churn":
        churn(host, port, *args)
        return 0
    if mode == "quadratic":
        attrs = " ".join(f"a{i}=\"1\"" for i in range(args[0]))
        bodies = [ENVELOPE.format(f"<qb:GetHealth {attrs}/>").encode()]
    elif mode == "pipelined":
        bodies = [ENVELOPE.format("<qb:GetHealth/>").encode()] * args[0]
    elif mode == "not-xml":
        bodies = [b"hello, this is not XML at all\n"]
    else:
        print(f"unknown mode {mode}")
        return 2
    raw = socket.create_connection((host, port), timeout=TIMEOUT)
    conn = ctx.wrap_socket(raw, server_hostname=host)
    start = time.monotonic()
    try:
        conn.sendall(b"".join(request(host, port, b) for b in bodies))
    except OSError:
        pass  # the service may refuse before reading everything: read its answer
    answered, status, pending = 0, "none", b""
    try:
        for _ in bodies:
            line, pending = read_answer(conn, pending)
            if line is None:
                break
            status = line
            answered += line.startswith("HTTP/1.1 200")
    except (OSError, ssl.SSLError):
        pass
    seconds = time.monotonic() - start
    if mode == "pipelined":
        print(f"answered={answered}")
    else:
        reason = getattr(read_answer, "reason", b"").decode(errors="replace")
        print(f"status={status} seconds={seconds:.2f} reason={reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

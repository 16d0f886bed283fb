#!/usr/bin/python3
"""soap_raw.py: send hand-made (mostly bad) requests to a qcg SOAP service over TLS and report
what came back, so the shell tests can assert on it.

    soap_raw.py HOST PORT CERT KEY CA_DIR MODE

MODE is one of:
  malformed    a body that is not XML
  oversized    a well-formed request larger than the service's max_message
  unknown-op   a well-formed envelope whose operation the service does not offer
  no-cert      a TLS connection that presents no client certificate

Prints "status=<HTTP status> fault=<yes|no>" followed by the fault string, or
"refused=<reason>" when the service would not talk at all. Exit code 0 in every case that
produced an answer or a refusal; the caller decides what is right.
"""
import socket
import ssl
import sys

ENVELOPE = ('<?xml version="1.0" encoding="UTF-8"?>'
            '<SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/" '
            'xmlns:qb="urn:qcg-ompi:broker:1"><SOAP-ENV:Body>{}</SOAP-ENV:Body></SOAP-ENV:Envelope>')


def body_for(mode):
    if mode == "malformed":
        # complete (Content-Length is honest) but not well-formed: mismatched tags, bad entity
        return ENVELOPE.format("<qb:GetJob><qb:id>&bogus;</qb:name></qb:GetJob>").encode()
    if mode == "oversized":
        padding = "x" * (2 * 1024 * 1024)
        return ENVELOPE.format("<qb:GetJob><qb:id>" + padding + "</qb:id></qb:GetJob>").encode()
    if mode == "unknown-op":
        return ENVELOPE.format("<qb:LaunchMissiles><qb:target>moon</qb:target></qb:LaunchMissiles>").encode()
    return ENVELOPE.format("<qb:GetHealth/>").encode()


def main():
    host, port, cert, key, ca_dir, mode = sys.argv[1:7]
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.load_verify_locations(capath=ca_dir)
    ctx.check_hostname = False
    if mode != "no-cert":
        ctx.load_cert_chain(cert, key)
    body = body_for(mode)
    request = (f"POST / HTTP/1.1\r\nHost: {host}:{port}\r\n"
               f"Content-Type: text/xml; charset=utf-8\r\nContent-Length: {len(body)}\r\n"
               f"Connection: close\r\n\r\n").encode() + body
    try:
        with socket.create_connection((host, int(port)), timeout=10) as raw:
            with ctx.wrap_socket(raw, server_hostname=host) as tls:
                try:
                    tls.sendall(request)
                except (ssl.SSLError, OSError):
                    pass  # the service may stop reading an oversized body; read its answer
                answer = b""
                while True:
                    chunk = tls.recv(65536)
                    if not chunk:
                        break
                    answer += chunk
    except (ssl.SSLError, ConnectionError, OSError) as e:
        print(f"refused={type(e).__name__}: {e}")
        return 0
    if not answer:
        print("refused=closed without an answer")
        return 0
    head, _, rest = answer.partition(b"\r\n\r\n")
    status = head.split(b"\r\n")[0].decode(errors="replace")
    fault = b"Fault>" in rest
    reason = ""
    if b"<faultstring>" in rest:
        reason = rest.split(b"<faultstring>")[1].split(b"</faultstring>")[0].decode(errors="replace")
    print(f"status={status} fault={'yes' if fault else 'no'} reason={reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

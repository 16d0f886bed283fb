#!/usr/bin/python3
"""nil_requests.py: send every operation of a qcg WSDL with nil, empty and missing elements and
check that the service answers each with a SOAP message and stays up.

    nil_requests.py ops WSDL
        print the operations of WSDL, one a line (what the shell test loops over)
    nil_requests.py send WSDL TYPES_XSD OP HOST PORT CA_DIR PID PROBE_OP WHO=CERT,KEY...

For operation OP the request element is built from the schema (every element present, with a
plausible value) and then sent in these variants:
  wrapper-nil      <ns:OP xsi:nil="true"/>   (what Perl SOAP::Lite sends for a call without
                   arguments)
  wrapper-empty    <ns:OP/>
  full             every element present
  nil:PATH         the element at PATH as xsi:nil, the rest as in full, for every element at
                   every depth (and every occurrence of a repeated one)
  missing:PATH     the element at PATH left out
  control:PATH     the qcg:Name at PATH holding a newline and a control character: every
                   service must refuse it (it would forge log lines and end up in answers)
each from every identity WHO (a certificate of the grid CA: authorized for some operations,
unmapped for all). After every request the daemon PID must still run and PROBE_OP (sent in
full from the first identity) must be answered, so a request that kills a worker thread, and
with it the process, is named right away.

An answer is good when it is HTTP and its body an XML SOAP envelope holding a Fault or OP's
response element. It must hold a Fault when a required element is nil or missing (the wrapper
itself counts as required when it has a required child): accepting such a request means some
field was read as a default the caller never sent; and when a name holds a control character.
The probe's answer must be well-formed XML too, so with ListJobs as the broker's probe a job
id recorded with a control character fails every later check.

Prints one "FAIL ..." line per bad answer and a last line "OP requests=N failures=K died=yes|no";
exit code 0 when every answer was good, 1 otherwise, 2 on a usage error. With NIL_VERBOSE=1 in
the environment, every good answer is printed too ("ok ..." with its fault string). Stops at the
first request after which the daemon is gone (nothing more can be learnt from a dead process).
"""
import os
import socket
import ssl
import sys
import time
import xml.etree.ElementTree as ET

XS = "http://www.w3.org/2001/XMLSchema"
WSDL = "http://schemas.xmlsoap.org/wsdl/"
SOAP_ENV = "http://schemas.xmlsoap.org/soap/envelope/"
XSI = "http://www.w3.org/2001/XMLSchema-instance"
TIMEOUT = 15
# A qcg:Name (a job, cluster or node) with a newline, which would forge a log line, and a
# character XML 1.0 forbids, which would make every later answer holding it invalid XML.
CONTROL_NAME = "nil-test&#10;2026-01-01 00:00:00.000 qcg[info] forged&#1;"
VERBOSE = os.environ.get("NIL_VERBOSE") == "1"  # print every good answer too


class Schema:
    """Element declarations and named types of a WSDL's inline schema and the shared XSD."""

    def __init__(self, wsdl_path, types_path=None):
        self.wsdl = ET.parse(wsdl_path).getroot()
        self.tns = self.wsdl.get("targetNamespace")
        types = ET.parse(types_path or wsdl_path).getroot()
        self.types_ns = types.get("targetNamespace")
        # named complex and simple types, by local name, with the namespace their local
        # elements are qualified with (elementFormDefault="qualified" in every schema here)
        self.named = {}
        for t in types:
            if t.tag in ("{%s}complexType" % XS, "{%s}simpleType" % XS):
                self.named[t.get("name")] = (t, self.types_ns)
        self.elements = {}
        for schema in self.wsdl.iter("{%s}schema" % XS):
            for e in schema.findall("{%s}element" % XS):
                self.elements[e.get("name")] = e

    def operations(self):
        """[(operation name, request element name)] in the order of the portType."""
        messages = {}
        for m in self.wsdl.findall("{%s}message" % WSDL):
            part = m.find("{%s}part" % WSDL)
            messages[m.get("name")] = part.get("element").split(":")[-1]
        ops = []
        for pt in self.wsdl.findall("{%s}portType" % WSDL):
            for op in pt.findall("{%s}operation" % WSDL):
                msg = op.find("{%s}input" % WSDL).get("message").split(":")[-1]
                ops.append((op.get("name"), messages[msg]))
        return ops

    def sample(self, decl, ns, depth=0):
        """A tree for element declaration decl: {"name", "ns", "required", "text" or
        "children"}. Every declared child is present, a repeated one twice."""
        node = {"name": decl.get("name"), "ns": ns,
                "required": decl.get("minOccurs", "1") != "0" and decl.get("nillable") != "true"}
        typename = decl.get("type")
        inline = decl.find("{%s}complexType" % XS)
        if inline is not None:
            node["children"] = self.sequence(inline, ns, depth)
            return node
        local = typename.split(":")[-1]
        if typename.split(":")[0] in ("xs", "xsd"):
            node["text"] = builtin_sample(local, decl.get("name"))
            return node
        t, tns = self.named[local]
        node["is_name"] = local == "Name"
        if t.tag == "{%s}simpleType" % XS:
            enum = t.find(".//{%s}enumeration" % XS)
            node["text"] = enum.get("value") if enum is not None else "nil-test"
        else:
            node["children"] = self.sequence(t, tns, depth)
        return node

    def sequence(self, complex_type, ns, depth):
        """The members of complex_type's sequence; a repeated one twice, so that one
        occurrence can be nil while another is not."""
        children = []
        if depth > 8:  # no type here is recursive; a bound all the same
            return children
        for seq in complex_type.findall("{%s}sequence" % XS):
            for d in seq.findall("{%s}element" % XS):
                repeated = d.get("maxOccurs", "1") not in ("0", "1")
                children.extend(self.sample(d, ns, depth + 1) for _ in range(2 if repeated else 1))
        return children


def builtin_sample(xs_type, name):
    if xs_type == "boolean":
        return "true"
    if xs_type == "base64Binary":
        return "eA=="
    if xs_type in ("int", "long", "short", "unsignedShort", "unsignedInt", "integer"):
        # zero waits nowhere (timeouts); everything else 1, a valid port and count
        return "0" if "timeout" in name.lower() else "1"
    return "nil-test"


def paths(node, prefix=()):
    """Every element below the root as a path of child indexes, with its required flag."""
    out = []
    for i, c in enumerate(node.get("children", [])):
        p = prefix + (i,)
        out.append((p, c["required"]))
        out.extend(paths(c, p))
    return out


def node_at(root, path):
    for i in path:
        root = root["children"][i]
    return root


def render(node, prefixes, change=None, path=()):
    """XML text of node; change = (path, "nil"|"missing"|"control") alters one element."""
    tag = "%s:%s" % (prefixes[node["ns"]], node["name"])
    if change and change[0] == path:
        if change[1] == "missing":
            return ""
        if change[1] == "control":
            return "<%s>%s</%s>" % (tag, CONTROL_NAME, tag)
        return '<%s xsi:nil="true"/>' % tag
    if "children" in node:
        inner = "".join(render(c, prefixes, change, path + (i,))
                        for i, c in enumerate(node["children"]))
    else:
        inner = node["text"]
    return "<%s>%s</%s>" % (tag, inner, tag)


def envelope(schema, body):
    return ('<?xml version="1.0" encoding="UTF-8"?>'
            '<SOAP-ENV:Envelope xmlns:SOAP-ENV="%s" xmlns:xsi="%s" xmlns:s="%s" xmlns:qcg="%s">'
            '<SOAP-ENV:Body>%s</SOAP-ENV:Body></SOAP-ENV:Envelope>'
            % (SOAP_ENV, XSI, schema.tns, schema.types_ns, body)).encode()


MISSING = "a required element was nil or missing"
CONTROL = "a name held control characters"


def variants(schema, element):
    """[(label, body, why a Fault is required or None)] for one request element."""
    root = schema.sample(schema.elements[element], schema.tns)
    prefixes = {schema.tns: "s", schema.types_ns: "qcg"}
    wrapper = MISSING if any(c["required"] for c in root.get("children", [])) else None
    out = [("wrapper-nil", '<s:%s xsi:nil="true"/>' % element, wrapper),
           ("wrapper-empty", "<s:%s/>" % element, wrapper),
           ("full", render(root, prefixes), None)]
    for p, required in paths(root):
        label = path_label(root, p)
        for how in ("nil", "missing"):
            out.append(("%s:%s" % (how, label), render(root, prefixes, (p, how)),
                        MISSING if required else None))
        if node_at(root, p).get("is_name"):
            out.append(("control:%s" % label, render(root, prefixes, (p, "control")), CONTROL))
    return out


def path_label(root, path):
    parts, node = [], root
    for i in path:
        kids = node["children"]
        node = kids[i]
        same = [j for j, k in enumerate(kids) if k["name"] == node["name"]]
        parts.append(node["name"] + ("#%d" % same.index(i) if len(same) > 1 else ""))
    return ".".join(parts)


def send(host, port, ca_dir, cert, key, body):
    """(status line, body bytes) or (None, reason)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.load_verify_locations(capath=ca_dir)
    ctx.check_hostname = False
    ctx.load_cert_chain(cert, key)
    request = (f"POST / HTTP/1.1\r\nHost: {host}:{port}\r\n"
               f"Content-Type: text/xml; charset=utf-8\r\nContent-Length: {len(body)}\r\n"
               f"Connection: close\r\n\r\n").encode() + body
    try:
        with socket.create_connection((host, int(port)), timeout=TIMEOUT) as raw:
            with ctx.wrap_socket(raw, server_hostname=host) as tls:
                tls.sendall(request)
                answer = b""
                while True:
                    chunk = tls.recv(65536)
                    if not chunk:
                        break
                    answer += chunk
    except (ssl.SSLError, OSError) as e:
        return None, f"{type(e).__name__}: {e}"
    if not answer:
        return None, "closed without an answer"
    head, _, rest = answer.partition(b"\r\n\r\n")
    if b"transfer-encoding: chunked" in head.lower():
        rest = dechunk(rest)
    return head.split(b"\r\n")[0].decode(errors="replace"), rest


def dechunk(data):
    out = b""
    while data:
        size, _, data = data.partition(b"\r\n")
        n = int(size.split(b";")[0] or b"0", 16)
        if n == 0:
            break
        out += data[:n]
        data = data[n + 2:]
    return out


def judge(status, body, op_response, must_refuse):
    """None when the answer is good, else why not."""
    if status is None:
        return "no answer (%s)" % body
    if not status.startswith("HTTP/1."):
        return "not HTTP: %r" % status
    try:
        env = ET.fromstring(body)
    except ET.ParseError as e:
        return "%s with a body that is not XML (%s): %r" % (status, e, body[:200])
    soap_body = env.find("{%s}Body" % SOAP_ENV)
    if env.tag != "{%s}Envelope" % SOAP_ENV or soap_body is None or len(soap_body) == 0:
        return "%s without a SOAP body: %r" % (status, body[:200])
    first = soap_body[0]
    if first.tag == "{%s}Fault" % SOAP_ENV:
        return None
    if first.tag.split("}")[-1] != op_response:
        return "%s holding <%s>, neither a Fault nor %s" % (status, first.tag, op_response)
    if must_refuse:
        return "accepted (%s) although %s" % (status, must_refuse)
    return None


def summary(body):
    """The fault string of a good answer, or "answered"."""
    if b"<faultstring>" in body:
        return "fault: " + body.split(b"<faultstring>")[1].split(b"</faultstring>")[0].decode(
            errors="replace")
    return "answered"


def alive(pid):
    """The daemon runs (a crashed child stays a zombie until the shell reaps it)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def main(argv):
    if len(argv) == 3 and argv[1] == "ops":
        schema = Schema(argv[2])
        for op, _ in schema.operations():
            print(op)
        return 0
    if len(argv) < 11 or argv[1] != "send":
        print(__doc__, file=sys.stderr)
        return 2
    wsdl, types, op, host, port, ca_dir, pid, probe_op = argv[2:10]
    who = []
    for spec in argv[10:]:
        name, _, files = spec.partition("=")
        cert, _, key = files.partition(",")
        who.append((name, cert, key))
    schema = Schema(wsdl, types)
    ops = dict(schema.operations())
    if op not in ops or probe_op not in ops:
        print("%s: no operation %s or %s" % (wsdl, op, probe_op), file=sys.stderr)
        return 2
    probe_body = envelope(schema, variants(schema, ops[probe_op])[2][1])
    requests = failures = 0
    for label, body, must_refuse in variants(schema, ops[op]):
        for name, cert, key in who:
            requests += 1
            status, answer = send(host, port, ca_dir, cert, key, envelope(schema, body))
            why = judge(status, answer, op + "Response", must_refuse)
            if VERBOSE and not why:
                print("ok   %s %s as %s: %s" % (op, label, name, summary(answer)))
            if why:
                failures += 1
                print("FAIL %s %s as %s: %s" % (op, label, name, why))
            if status is None:  # a dying process closes first, then leaves /proc
                for _ in range(20):
                    if not alive(int(pid)):
                        break
                    time.sleep(0.05)
            if not alive(int(pid)):
                print("FAIL %s %s as %s: the daemon died" % (op, label, name))
                print("%s requests=%d failures=%d died=yes" % (op, requests, failures + 1))
                return 1
            pstatus, panswer = send(host, port, ca_dir, who[0][1], who[0][2], probe_body)
            probe_why = judge(pstatus, panswer, probe_op + "Response", None)
            if probe_why:
                failures += 1
                print("FAIL %s %s as %s: afterwards %s is not answered well: %s" % (
                    op, label, name, probe_op, probe_why))
    print("%s requests=%d failures=%d died=no" % (op, requests, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

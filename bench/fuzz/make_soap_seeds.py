#!/usr/bin/env python3
"""make_soap_seeds.py: write seed inputs for the SOAP fuzz targets (tests/fuzz/fuzz_soap.h).

For every operation of a service, from gSOAP's sample requests (soapcpp2 without -x writes
BINDING.OPERATION.req.xml), three seeds: the sample as a mapped caller would send it, the
same from an unknown DN, and the request element sent as xsi:nil. The first byte of a seed
chooses the caller (fuzz_soap_<service>.c lists them); the rest is an HTTP/1.0 POST that ends
where the input ends, so mutations need not keep a Content-Length right.

usage: make_soap_seeds.py SAMPLE_DIR OUT_ROOT   (writes OUT_ROOT/corpus_soap_<service>/)
Regenerate samples with: soapcpp2 -c -s -w -L -I/usr/share/gsoap/import -d SAMPLE_DIR gen/qcg.h
"""
import os
import re
import sys

# binding -> (service, identity byte of a caller that may use it, of an unknown caller)
SERVICES = {
    "BrokerBinding": ("broker", 1, 4),
    "FrontendBinding": ("frontend", 0, 3),
    "HelperBinding": ("helper", 0, 2),
    "ProxyBinding": ("proxy", 0, 2),
}
# a caller other than the first for operations that belong to another role
CALLER = {
    "broker": {"RegisterProxy": 2, "UnregisterProxy": 2, "ListJobs": 3, "GetJob": 3,
               "RecordJob": 3, "SetJobState": 3, "GetHealth": 3},
    "frontend": {op: 1 for op in ("Reserve", "Commit", "Release", "Launch", "ReadOutput",
                                  "Signal")},
}


# values the target's state knows, so that seeds get past "no such node" to the work
KNOWN = {
    "frontend": [(rb"(<q[a-z]+:(?:node|fromNode)>)X<", rb"\1n01<"),
                 (rb"(<qcg:cluster>)X<", rb"\1site-a<")],
}


def post(body, action):
    head = ("POST / HTTP/1.0\r\nHost: localhost\r\nContent-Type: text/xml; charset=utf-8\r\n"
            f"SOAPAction: \"{action}\"\r\n\r\n")
    return head.encode() + body


def main():
    samples, out_root = sys.argv[1], sys.argv[2]
    for name in sorted(os.listdir(samples)):
        m = re.fullmatch(r"(\w+Binding)\.(\w+)\.req\.xml", name)
        if not m or m.group(1) not in SERVICES:
            continue
        service, mapped, unknown = SERVICES[m.group(1)]
        op = m.group(2)
        mapped = CALLER.get(service, {}).get(op, mapped)
        body = open(os.path.join(samples, name), "rb").read()
        # gSOAP's samples hold 0 for every number: 1 passes more "must be positive" checks
        for pattern, value in KNOWN.get(service, []) + [(rb">0<", rb">1<")]:
            body = re.sub(pattern, value, body)
        out = os.path.join(out_root, f"corpus_soap_{service}")
        os.makedirs(out, exist_ok=True)
        nil = re.sub(rb"<(q[bfhp]:" + op.encode() + rb")>.*</\1>",
                     rb'<\1 xsi:nil="true"/>', body, flags=re.S)
        for tag, who, data in (("mapped", mapped, body), ("unknown", unknown, body),
                               ("nil", mapped, nil)):
            with open(os.path.join(out, f"{op}_{tag}"), "wb") as f:
                f.write(bytes([who]) + post(data, op))


if __name__ == "__main__":
    main()

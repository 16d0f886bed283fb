#!/usr/bin/python3
"""zeep_query.py: an independent SOAP client (Debian's python3-zeep) that knows the broker only
through its WSDL file and a client certificate, and lists the registered clusters.

    zeep_query.py WSDL URL CERT KEY CA_DIR

Prints one cluster name per line; exits non-zero on any failure.
"""
import sys

import requests
from zeep import Client
from zeep.transports import Transport


def main():
    wsdl, url, cert, key, ca_dir = sys.argv[1:6]
    session = requests.Session()
    session.cert = (cert, key)
    session.verify = ca_dir  # a hashed CA directory, as OpenSSL's CApath
    # REQUESTS_CA_BUNDLE in the environment would silently replace the grid CA: trust only ours.
    session.trust_env = False
    client = Client(wsdl, transport=Transport(session=session, timeout=10))
    service = client.create_service("{urn:qcg-ompi:broker:1}BrokerBinding", url)
    clusters = service.ListClusters()
    for cluster in clusters or []:
        print(f"{cluster.name} {cluster.policy}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""make_expired_proxy.py CERT KEY OUT: write OUT, an RFC 3820 proxy of CERT/KEY that expired an
hour ago (cert, key, signer), so that tests can see expired proxies refused. Made with Debian's
python3-cryptography, independently of qcg-proxy-init."""
import datetime
import sys

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID

# proxyCertInfo (1.3.6.1.5.5.7.1.14): SEQUENCE { SEQUENCE { OID id-ppl-inheritAll } }
PCI_OID = x509.ObjectIdentifier("1.3.6.1.5.5.7.1.14")
PCI_INHERIT_ALL = bytes.fromhex("300c300a06082b06010505071501")

cert_path, key_path, out = sys.argv[1:4]
signer = x509.load_pem_x509_certificate(open(cert_path, "rb").read())
signer_key = serialization.load_pem_private_key(open(key_path, "rb").read(), None)
key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
serial = x509.random_serial_number() >> 96
now = datetime.datetime.utcnow()
subject = x509.Name(list(signer.subject) + [x509.NameAttribute(NameOID.COMMON_NAME, str(serial))])
proxy = (x509.CertificateBuilder().subject_name(subject).issuer_name(signer.subject)
         .public_key(key.public_key()).serial_number(serial)
         .not_valid_before(now - datetime.timedelta(hours=3))
         .not_valid_after(now - datetime.timedelta(hours=1))
         .add_extension(x509.UnrecognizedExtension(PCI_OID, PCI_INHERIT_ALL), critical=True)
         .sign(signer_key, hashes.SHA256()))
with open(out, "wb") as f:
    f.write(proxy.public_bytes(serialization.Encoding.PEM))
    f.write(key.private_bytes(serialization.Encoding.PEM,
                              serialization.PrivateFormat.TraditionalOpenSSL,
                              serialization.NoEncryption()))
    f.write(signer.public_bytes(serialization.Encoding.PEM))

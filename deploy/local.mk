# deploy/: admin scripts.

# qcg-ca: the grid certificate authority (CA, host/user certificates, CRL, RFC 3820 proxies).
dist_sbin_SCRIPTS += deploy/qcg-ca
TESTS += tests/integration/test_qcg_ca.sh
EXTRA_DIST += tests/integration/test_qcg_ca.sh
dist_man_MANS += doc/qcg-ca.1

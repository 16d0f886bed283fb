#!/bin/bash
# test_identity.sh: make a fresh grid CA, a user certificate, a proxy, a proxy of that proxy and
# a host certificate with deploy/qcg-ca, then run tests/unit/test_identity on them: it checks
# that a peer's identity is the end-entity DN of the verified chain in the Globus form.
set -u

QCG_CA=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/deploy/qcg-ca
PROGRAM=${top_builddir:-.}/tests/unit/test_identity
if ! command -v openssl >/dev/null; then echo "SKIP: the openssl command is not installed"; exit 77; fi
[[ -x "$QCG_CA" ]] || { echo "FAIL: $QCG_CA is missing or not executable"; exit 1; }
[[ -x "$PROGRAM" ]] || { echo "FAIL: $PROGRAM is not built (make check builds it)"; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/test_identity.XXXXXX") || exit 1
trap 'rm -rf -- "$WORK"' EXIT

# make WHAT ARGS...: run qcg-ca; its output goes to a log shown only when it fails.
make_cred() {
	if ! "$QCG_CA" "$@" >>"$WORK/qcg-ca.log" 2>&1; then
		echo "FAIL: qcg-ca $* failed:"; cat "$WORK/qcg-ca.log"; exit 1
	fi
}
make_cred init --dir "$WORK/ca"
make_cred user --dir "$WORK/ca" --name "Jane Doe" --out "$WORK/jane"
make_cred proxy --cert "$WORK/jane-cert.pem" --key "$WORK/jane-key.pem" --out "$WORK/proxy1"
make_cred proxy --cert "$WORK/proxy1" --key "$WORK/proxy1" --out "$WORK/proxy2"
make_cred host --dir "$WORK/ca" --name gw-a --out "$WORK/gw-a"
mkdir "$WORK/scratch" || exit 1

"$PROGRAM" "$WORK/ca/certificates" "$WORK/ca/ca-cert.pem" "$WORK/jane-cert.pem" \
	"$WORK/proxy1" "$WORK/proxy2" "$WORK/gw-a-cert.pem" "$WORK/scratch"

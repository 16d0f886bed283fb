#!/bin/bash
# test_qcg_proxy_init.sh: qcg-proxy-init makes RFC 3820 proxies (mode 0600, lifetime and key
# size as asked) that Globus's grid-proxy-info reads and our services accept with the user's DN;
# a grid-proxy-init proxy is accepted by our tools; expired certificates and proxies, and keys
# that do not match, get a clear error.
. "$top_srcdir/tests/integration/grid_fixture.sh"
INIT="$top_builddir/launcher/qcg-proxy-init"
QCG_RSH="$top_builddir/launcher/qcg-rsh"
D=$FIXTURE_DIR
JANE_DN="/O=Grid/OU=qcg-ompi/CN=Jane Doe"
command -v grid-proxy-info >/dev/null || { echo "SKIP: globus-proxy-utils is not installed"; exit 77; }

fixture_init
ca user --dir "$D/ca" --name "Old Timer" --out "$D/old" --not-before 20200101000000Z --not-after 20210101000000Z
export X509_CERT_DIR=$D/ca/certificates
unset X509_USER_PROXY
init_jane() { X509_USER_CERT=$D/jane-cert.pem X509_USER_KEY=$D/jane-key.pem "$INIT" "$@"; }

out=$(init_jane -hours 2 -bits 3072 -out "$D/p1" 2>&1)
info=$(grid-proxy-info -f "$D/p1" 2>&1)
mode=$(stat -c %a "$D/p1" 2>/dev/null)
left=$(grid-proxy-info -f "$D/p1" -timeleft 2>/dev/null)
if [ "$mode" = 600 ] && echo "$info" | grep -q "type *: RFC 3820 compliant impersonation proxy" &&
	echo "$info" | grep -q "identity *: $JANE_DN" && echo "$info" | grep -q "strength *: 3072 bits" &&
	[ "${left:-0}" -gt 7000 ] && [ "${left:-0}" -le 7200 ]; then
	pass grid_proxy_info_reads_our_proxy_as_rfc3820_with_asked_lifetime_and_bits
else
	fail grid_proxy_info_reads_our_proxy_as_rfc3820_with_asked_lifetime_and_bits "mode=$mode left=$left; $out; $info"
fi
openssl verify -CApath "$X509_CERT_DIR" -allow_proxy_certs -untrusted "$D/p1" "$D/p1" 2>&1 | grep -q ': OK$' &&
	pass openssl_verifies_our_proxy_chain || fail openssl_verifies_our_proxy_chain "$(openssl verify -CApath "$X509_CERT_DIR" -allow_proxy_certs -untrusted "$D/p1" "$D/p1" 2>&1)"

X509_USER_PROXY=$D/p-env init_jane -q >/dev/null 2>&1
[ -s "$D/p-env" ] && [ "$(grid-proxy-info -f "$D/p-env" -timeleft)" -gt 43000 ] &&
	pass default_output_is_x509_user_proxy_and_default_lifetime_12_hours ||
	fail default_output_is_x509_user_proxy_and_default_lifetime_12_hours "$(ls -l "$D/p-env" 2>&1)"

broker_start
health() { X509_USER_PROXY=$1 "$QCG_QUERY" --broker "$BROKER_URL" --timeout 10 health 2>&1; }
out=$(health "$D/p1")
echo "$out" | grep -q "you are $JANE_DN\$" && pass our_proxy_is_accepted_with_the_users_dn ||
	fail our_proxy_is_accepted_with_the_users_dn "$out"

grid-proxy-init -q -cert "$D/jane-cert.pem" -key "$D/jane-key.pem" -out "$D/globus-proxy" >"$D/gpi.log" 2>&1 ||
	fail setup "grid-proxy-init failed: $(cat "$D/gpi.log")"
out=$(health "$D/globus-proxy")
echo "$out" | grep -q "you are $JANE_DN\$" && pass grid_proxy_init_proxy_is_accepted_with_the_users_dn ||
	fail grid_proxy_init_proxy_is_accepted_with_the_users_dn "$out"

/usr/bin/python3 "$top_srcdir/tests/launcher/make_expired_proxy.py" "$D/jane-cert.pem" "$D/jane-key.pem" "$D/expired"
echo "b1 https://127.0.0.1:1/ r" >"$D/map"
out=$(X509_USER_PROXY=$D/expired QCG_RSH_MAP=$D/map "$QCG_RSH" b1 true 2>&1); rc=$?
[ $rc = 255 ] && echo "$out" | grep -q "$D/expired: proxy certificate 1 expired at .*make a new proxy with qcg-proxy-init" &&
	pass expired_proxy_is_refused_before_any_call_with_a_clear_error ||
	fail expired_proxy_is_refused_before_any_call_with_a_clear_error "rc=$rc $out"

out=$(X509_USER_CERT=$D/old-cert.pem X509_USER_KEY=$D/old-key.pem "$INIT" -out "$D/p-old" 2>&1); rc=$?
[ $rc = 1 ] && [ ! -e "$D/p-old" ] && echo "$out" | grep -q "old-cert.pem: certificate 1 expired at 2021-01-01T00:00:00Z" &&
	pass expired_user_certificate_makes_no_proxy_and_says_when || fail expired_user_certificate_makes_no_proxy_and_says_when "rc=$rc $out"

out=$(X509_USER_CERT=$D/jane-cert.pem X509_USER_KEY=$D/bob-key.pem "$INIT" -out "$D/p-mix" 2>&1); rc=$?
[ $rc = 1 ] && [ ! -e "$D/p-mix" ] && echo "$out" | grep -q "private key does not belong to the certificate" &&
	pass foreign_key_is_refused || fail foreign_key_is_refused "rc=$rc $out"

out=$(init_jane -bits 1024 -out "$D/p-bad" 2>&1); rc=$?
[ $rc = 2 ] && echo "$out" | grep -q "bad option or value: -bits 1024" && pass bad_bits_is_a_usage_error ||
	fail bad_bits_is_a_usage_error "rc=$rc $out"
fixture_exit

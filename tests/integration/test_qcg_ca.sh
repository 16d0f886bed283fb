#!/bin/bash
# Integration test of deploy/qcg-ca, the grid CA tool: every certificate it makes is checked with
# `openssl verify` against the CApath directory the services use as their only trust store, and
# every failure (expiry, revocation, bad arguments) must fail for the stated reason.
set -u

QCG_CA=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/deploy/qcg-ca
if ! command -v openssl >/dev/null; then echo "SKIP: the openssl command is not installed"; exit 77; fi
[[ -x "$QCG_CA" ]] || { echo "FAIL: $QCG_CA is missing or not executable"; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/test_qcg_ca.XXXXXX") || exit 1
trap 'rm -rf -- "$WORK"' EXIT
cd "$WORK" || exit 1
CA=$WORK/ca
TRUST=$CA/certificates
ORG=/O=Grid/OU=qcg-ompi

passed=0 failed=0 skipped=0
# run_case NAME: run the function NAME in a subshell, so that `why` can end it; exit 77 skips.
run_case() {
	local rc=0
	( "$1" ) || rc=$?
	case $rc in
	0) echo "PASS: $1"; passed=$((passed + 1)) ;;
	77) echo "SKIP: $1"; skipped=$((skipped + 1)) ;;
	*) echo "FAIL: $1"; failed=$((failed + 1)) ;;
	esac
}
# why MESSAGE: explain a failure and end the case (each case runs in its own subshell).
why() { echo "  $*" >&2; exit 1; }

ca() { "$QCG_CA" "$@" 2>>"$WORK/qcg-ca.log"; }
verify() { openssl verify -CApath "$TRUST" "$@" 2>&1; }
subject_of() { openssl x509 -in "$1" -noout -subject -nameopt compat | sed 's/^subject=//'; }
mode_of() { stat -c %a "$1"; }
# pem_kinds FILE: the kinds of PEM blocks in FILE, in order, e.g. "CERTIFICATE RSA PRIVATE KEY".
pem_kinds() { sed -n 's/^-----BEGIN \(.*\)-----$/\1/p' "$1" | tr '\n' ';'; }
# nth_cert FILE N OUT: write the Nth certificate (from 1) of FILE to OUT.
nth_cert() {
	awk -v want="$2" '/^-----BEGIN CERTIFICATE-----/ { n++ } n == want && !done { print }
		/^-----END CERTIFICATE-----/ && n == want { done = 1 }' "$1" >"$3"
}
same_public_key() {
	cmp -s <(openssl x509 -in "$1" -noout -pubkey) <(openssl pkey -in "$2" -pubout 2>/dev/null)
}
serial_decimal() {
	local hex
	hex=$(openssl x509 -in "$1" -noout -serial | sed 's/^serial=//')
	echo $((16#$hex))
}

init_makes_ca_database_and_capath_trust_store() {
	ca init --dir "$CA" || why "init failed"
	local hash
	hash=$(openssl x509 -in "$CA/ca-cert.pem" -noout -hash)
	for f in index.txt serial crlnumber crl.pem private/ca-key.pem; do
		[[ -e "$CA/$f" ]] || why "$CA/$f missing"
	done
	[[ $(mode_of "$CA/private/ca-key.pem") == 600 ]] || why "CA key mode is $(mode_of "$CA/private/ca-key.pem")"
	cmp -s "$CA/ca-cert.pem" "$TRUST/$hash.0" || why "$TRUST/$hash.0 is not the CA certificate"
	openssl crl -in "$TRUST/$hash.r0" -noout -CAfile "$CA/ca-cert.pem" 2>/dev/null || why "$hash.r0 is no CRL of the CA"
	# The names must be those `openssl rehash` gives the same two objects.
	mkdir "$WORK/rehash" && cp "$CA/ca-cert.pem" "$CA/crl.pem" "$WORK/rehash/"
	openssl rehash "$WORK/rehash" 2>/dev/null || why "openssl rehash failed"
	[[ -L "$WORK/rehash/$hash.0" && -L "$WORK/rehash/$hash.r0" ]] || why "rehash names differ: $(ls "$WORK/rehash")"
	[[ $(subject_of "$CA/ca-cert.pem") == "$ORG/CN=qcg-ompi CA" ]] || why "CA subject $(subject_of "$CA/ca-cert.pem")"
	openssl x509 -in "$CA/ca-cert.pem" -noout -ext basicConstraints | grep -q 'CA:TRUE' || why "CA cert is not a CA"
}

init_refuses_to_overwrite_an_existing_ca() {
	local before
	before=$(cat "$CA/ca-cert.pem")
	if "$QCG_CA" init --dir "$CA" 2>"$WORK/err"; then why "second init succeeded"; fi
	grep -q 'already holds a CA' "$WORK/err" || why "message: $(cat "$WORK/err")"
	[[ "$(cat "$CA/ca-cert.pem")" == "$before" ]] || why "the CA certificate changed"
}

host_cert_verifies_as_server_and_client_with_dns_san() {
	ca host --dir "$CA" --name node1.example.org --out "$WORK/node1" || why "host failed"
	[[ $(mode_of "$WORK/node1-key.pem") == 600 ]] || why "host key mode $(mode_of "$WORK/node1-key.pem")"
	same_public_key "$WORK/node1-cert.pem" "$WORK/node1-key.pem" || why "key does not match cert"
	verify -purpose sslserver -verify_hostname node1.example.org "$WORK/node1-cert.pem" | grep -q ': OK$' ||
		why "$(verify -purpose sslserver -verify_hostname node1.example.org "$WORK/node1-cert.pem")"
	verify -purpose sslclient "$WORK/node1-cert.pem" | grep -q ': OK$' || why "not a client cert"
	# OpenSSL 3 writes the / inside CN=host/NAME as \/ in its one-line form.
	[[ $(subject_of "$WORK/node1-cert.pem") == "$ORG/CN=host\\/node1.example.org" ]] ||
		why "subject $(subject_of "$WORK/node1-cert.pem")"
	! verify -verify_hostname other.example.org "$WORK/node1-cert.pem" | grep -q ': OK$' ||
		why "the certificate also matched another host name"
}

host_cert_named_by_address_gets_ip_san() {
	ca host --dir "$CA" --name 127.0.0.1 --ip ::1 --out "$WORK/lo" || why "host failed"
	local san
	san=$(openssl x509 -in "$WORK/lo-cert.pem" -noout -ext subjectAltName)
	[[ $san == *"IP Address:127.0.0.1"* && $san == *"IP Address:0:0:0:0:0:0:0:1"* ]] || why "SAN: $san"
	verify -verify_ip 127.0.0.1 "$WORK/lo-cert.pem" | grep -q ': OK$' || why "not valid for 127.0.0.1"
	verify -verify_ip ::1 "$WORK/lo-cert.pem" | grep -q ': OK$' || why "not valid for ::1"
}

user_cert_verifies_as_client_but_not_as_server() {
	ca user --dir "$CA" --name "Jan Kowalski" --out "$WORK/jan" || why "user failed"
	[[ $(mode_of "$WORK/jan-key.pem") == 600 ]] || why "user key mode $(mode_of "$WORK/jan-key.pem")"
	[[ $(subject_of "$WORK/jan-cert.pem") == "$ORG/CN=Jan Kowalski" ]] || why "subject $(subject_of "$WORK/jan-cert.pem")"
	verify -purpose sslclient "$WORK/jan-cert.pem" | grep -q ': OK$' || why "not a client cert"
	! verify -purpose sslserver "$WORK/jan-cert.pem" | grep -q ': OK$' || why "a user cert passed as a server cert"
}

expired_cert_fails_verify_with_expiry_reason() {
	ca user --dir "$CA" --name "Old User" --out "$WORK/old" \
		--not-before 20200101000000Z --not-after 20210101000000Z || why "user with dates failed"
	openssl x509 -in "$WORK/old-cert.pem" -noout -enddate | grep -q 'Jan  1 00:00:00 2021 GMT' ||
		why "$(openssl x509 -in "$WORK/old-cert.pem" -noout -enddate)"
	local out
	out=$(verify "$WORK/old-cert.pem") && why "an expired certificate verified"
	grep -q 'certificate has expired' <<<"$out" || why "reason: $out"
}

revoked_cert_fails_crl_check_with_revoked_reason() {
	ca host --dir "$CA" --name doomed.example.org --out "$WORK/doomed" || why "host failed"
	verify -crl_check "$WORK/doomed-cert.pem" | grep -q ': OK$' || why "fails before revocation"
	ca revoke --dir "$CA" "$WORK/doomed-cert.pem" || why "revoke failed"
	local out hash
	out=$(verify -crl_check "$WORK/doomed-cert.pem") && why "a revoked certificate verified"
	grep -q 'certificate revoked' <<<"$out" || why "reason: $out"
	verify -crl_check "$WORK/node1-cert.pem" | grep -q ': OK$' || why "revocation hit another certificate"
	hash=$(openssl x509 -in "$CA/ca-cert.pem" -noout -hash)
	cmp -s "$CA/crl.pem" "$TRUST/$hash.r0" || why "crl.pem and $hash.r0 differ"
	if "$QCG_CA" revoke --dir "$CA" "$WORK/doomed-cert.pem" 2>"$WORK/err"; then why "revoked twice"; fi
	grep -q 'Already revoked' "$WORK/err" || why "message: $(cat "$WORK/err")"
}

crl_command_renews_the_crl() {
	local before after
	before=$(openssl crl -in "$CA/crl.pem" -noout -crlnumber)
	ca crl --dir "$CA" --days 7 || why "crl failed"
	after=$(openssl crl -in "$CA/crl.pem" -noout -crlnumber)
	[[ "$before" != "$after" ]] || why "CRL number did not change ($after)"
	verify -crl_check "$WORK/doomed-cert.pem" | grep -q 'certificate revoked' || why "renewed CRL lost the revocation"
}

revoke_refuses_a_certificate_of_another_ca() {
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$WORK/alien-key.pem" -out "$WORK/alien.pem" \
		-subj "$ORG/CN=Alien" -days 1 2>/dev/null || why "cannot make the alien certificate"
	if "$QCG_CA" revoke --dir "$CA" "$WORK/alien.pem" 2>"$WORK/err"; then why "revoked a stranger"; fi
	grep -q 'issued by this CA' "$WORK/err" || why "message: $(cat "$WORK/err")"
	! grep -q 'Alien' "$CA/index.txt" || why "the stranger entered the CA database"
}

proxy_verifies_and_its_subject_is_user_dn_plus_cn_serial() {
	ca proxy --cert "$WORK/jan-cert.pem" --key "$WORK/jan-key.pem" --out "$WORK/x509up" || why "proxy failed"
	local want
	want="$ORG/CN=Jan Kowalski/CN=$(serial_decimal "$WORK/x509up")"
	[[ $(subject_of "$WORK/x509up") == "$want" ]] || why "subject $(subject_of "$WORK/x509up") != $want"
	verify -allow_proxy_certs -untrusted "$WORK/x509up" "$WORK/x509up" | grep -q ': OK$' ||
		why "$(verify -allow_proxy_certs -untrusted "$WORK/x509up" "$WORK/x509up")"
	! verify -untrusted "$WORK/x509up" "$WORK/x509up" | grep -q ': OK$' ||
		why "verified without -allow_proxy_certs: not marked as a proxy"
	openssl x509 -in "$WORK/x509up" -noout -ext proxyCertInfo | grep -q 'Inherit all' || why "not inheritAll"
	openssl x509 -in "$WORK/x509up" -noout -ext keyUsage | grep -q 'critical' || why "keyUsage not critical"
}

proxy_file_is_0600_and_holds_cert_key_usercert() {
	[[ $(mode_of "$WORK/x509up") == 600 ]] || why "mode $(mode_of "$WORK/x509up")"
	[[ $(pem_kinds "$WORK/x509up") == "CERTIFICATE;RSA PRIVATE KEY;CERTIFICATE;" ]] ||
		why "blocks: $(pem_kinds "$WORK/x509up")"
	nth_cert "$WORK/x509up" 2 "$WORK/second.pem"
	cmp -s <(openssl x509 -in "$WORK/second.pem") <(openssl x509 -in "$WORK/jan-cert.pem") ||
		why "the third block is not the user certificate"
	same_public_key "$WORK/x509up" "$WORK/x509up" || why "the key in the file is not the proxy's"
}

proxy_of_proxy_verifies_and_chain_is_proxy2_key2_proxy1_usercert() {
	ca proxy --cert "$WORK/x509up" --key "$WORK/x509up" --out "$WORK/x509up2" --hours 1 || why "proxy failed"
	[[ $(pem_kinds "$WORK/x509up2") == "CERTIFICATE;RSA PRIVATE KEY;CERTIFICATE;CERTIFICATE;" ]] ||
		why "blocks: $(pem_kinds "$WORK/x509up2")"
	local want
	want="$(subject_of "$WORK/x509up")/CN=$(serial_decimal "$WORK/x509up2")"
	[[ $(subject_of "$WORK/x509up2") == "$want" ]] || why "subject $(subject_of "$WORK/x509up2") != $want"
	nth_cert "$WORK/x509up2" 2 "$WORK/p2-second.pem"; nth_cert "$WORK/x509up2" 3 "$WORK/p2-third.pem"
	cmp -s <(openssl x509 -in "$WORK/p2-second.pem") <(openssl x509 -in "$WORK/x509up") || why "2nd cert is not proxy1"
	cmp -s <(openssl x509 -in "$WORK/p2-third.pem") <(openssl x509 -in "$WORK/jan-cert.pem") || why "3rd cert is not the user's"
	[[ $(mode_of "$WORK/x509up2") == 600 ]] || why "mode $(mode_of "$WORK/x509up2")"
	verify -allow_proxy_certs -untrusted "$WORK/x509up2" "$WORK/x509up2" | grep -q ': OK$' ||
		why "$(verify -allow_proxy_certs -untrusted "$WORK/x509up2" "$WORK/x509up2")"
	# The proxy may not outlive its signer, nor be made longer than asked.
	local end
	end=$(date -u -d "$(openssl x509 -in "$WORK/x509up2" -noout -enddate | sed 's/notAfter=//')" +%s)
	(( end <= $(date -u +%s) + 3600 + 60 )) || why "a 1-hour proxy ends at $end"
}

proxy_refreshed_in_place_keeps_a_valid_chain() {
	cp "$WORK/x509up" "$WORK/inplace"
	ca proxy --cert "$WORK/inplace" --key "$WORK/inplace" --out "$WORK/inplace" || why "proxy failed"
	[[ $(pem_kinds "$WORK/inplace") == "CERTIFICATE;RSA PRIVATE KEY;CERTIFICATE;CERTIFICATE;" ]] ||
		why "blocks: $(pem_kinds "$WORK/inplace")"
	verify -allow_proxy_certs -untrusted "$WORK/inplace" "$WORK/inplace" | grep -q ': OK$' || why "does not verify"
}

limited_proxy_uses_globus_oid_and_stays_limited_below() {
	ca proxy --cert "$WORK/jan-cert.pem" --key "$WORK/jan-key.pem" --out "$WORK/limited" --limited || why "proxy failed"
	openssl x509 -in "$WORK/limited" -noout -ext proxyCertInfo | grep -q '1.3.6.1.4.1.3536.1.1.1.9' ||
		why "no limited-proxy language"
	ca proxy --cert "$WORK/limited" --key "$WORK/limited" --out "$WORK/limited2" || why "proxy of limited failed"
	openssl x509 -in "$WORK/limited2" -noout -ext proxyCertInfo | grep -q '1.3.6.1.4.1.3536.1.1.1.9' ||
		why "a proxy of a limited proxy is not limited"
	verify -allow_proxy_certs -untrusted "$WORK/limited2" "$WORK/limited2" | grep -q ': OK$' || why "does not verify"
}

proxy_of_revoked_user_fails_crl_check_all() {
	ca user --dir "$CA" --name "Eve Revoked" --out "$WORK/eve" || why "user failed"
	ca proxy --cert "$WORK/eve-cert.pem" --key "$WORK/eve-key.pem" --out "$WORK/eveproxy" || why "proxy failed"
	verify -crl_check_all -allow_proxy_certs -untrusted "$WORK/eveproxy" "$WORK/eveproxy" | grep -q ': OK$' ||
		why "fails before revocation"
	ca revoke --dir "$CA" "$WORK/eve-cert.pem" || why "revoke failed"
	local out
	out=$(verify -crl_check_all -allow_proxy_certs -untrusted "$WORK/eveproxy" "$WORK/eveproxy") &&
		why "the proxy of a revoked user verified"
	grep -q 'certificate revoked' <<<"$out" || why "reason: $out"
}

proxy_from_encrypted_key_with_passin() {
	openssl pkey -in "$WORK/jan-key.pem" -aes256 -passout pass:s3cret -out "$WORK/jan-key-enc.pem" || why "cannot encrypt"
	ca proxy --cert "$WORK/jan-cert.pem" --key "$WORK/jan-key-enc.pem" --passin pass:s3cret \
		--out "$WORK/encproxy" || why "proxy with --passin failed"
	verify -allow_proxy_certs -untrusted "$WORK/encproxy" "$WORK/encproxy" | grep -q ': OK$' || why "does not verify"
	if "$QCG_CA" proxy --cert "$WORK/jan-cert.pem" --key "$WORK/jan-key-enc.pem" --passin pass:wrong \
		--out "$WORK/badproxy" 2>"$WORK/err" </dev/null; then why "a wrong passphrase was accepted"; fi
	[[ ! -e "$WORK/badproxy" ]] || why "a failed run left $WORK/badproxy"
}

proxy_is_refused_for_expired_signer_or_foreign_key() {
	if "$QCG_CA" proxy --cert "$WORK/old-cert.pem" --key "$WORK/old-key.pem" --out "$WORK/p" 2>"$WORK/err"; then
		why "made a proxy from an expired certificate"
	fi
	grep -q 'expired' "$WORK/err" || why "message: $(cat "$WORK/err")"
	if "$QCG_CA" proxy --cert "$WORK/jan-cert.pem" --key "$WORK/eve-key.pem" --out "$WORK/p" 2>"$WORK/err"; then
		why "signed with somebody else's key"
	fi
	grep -q 'does not belong' "$WORK/err" || why "message: $(cat "$WORK/err")"
	[[ ! -e "$WORK/p" ]] || why "a refused proxy was written"
}

grid_mapfile_line_quotes_the_end_entity_dn() {
	local line
	line=$("$QCG_CA" grid-mapfile-line "$WORK/jan-cert.pem" jan) || why "failed"
	[[ "$line" == "\"$ORG/CN=Jan Kowalski\" jan" ]] || why "line: $line"
	line=$("$QCG_CA" grid-mapfile-line "$WORK/x509up2" jan) || why "failed on a proxy file"
	[[ "$line" == "\"$ORG/CN=Jan Kowalski\" jan" ]] || why "proxy file line: $line"
}

# Interoperability with the standard grid tools (Debian's globus-proxy-utils), when installed.
proxies_interoperate_with_globus_grid_proxy_tools() {
	if ! command -v grid-proxy-init >/dev/null || ! command -v grid-proxy-info >/dev/null; then
		echo "  grid-proxy-init/grid-proxy-info not installed (Debian: globus-proxy-utils)"
		exit 77
	fi
	export X509_CERT_DIR=$TRUST
	local info
	info=$(grid-proxy-info -f "$WORK/x509up2" -all 2>&1) || why "grid-proxy-info rejects our proxy: $info"
	grep -q "identity : $ORG/CN=Jan Kowalski" <<<"$info" || why "grid-proxy-info: $info"
	grep -q 'RFC 3820 compliant impersonation proxy' <<<"$info" || why "grid-proxy-info: $info"
	grid-proxy-info -f "$WORK/limited2" -type 2>&1 | grep -q 'limited proxy' || why "limited proxy not seen as limited"
	# grid-proxy-init -verify checks our user certificate against the CA directory (signing policy too).
	grid-proxy-init -cert "$WORK/jan-cert.pem" -key "$WORK/jan-key.pem" -out "$WORK/globus" -verify \
		</dev/null >"$WORK/gpi.log" 2>&1 || why "grid-proxy-init failed: $(tail -3 "$WORK/gpi.log")"
	grid-proxy-init -cert "$WORK/x509up" -key "$WORK/x509up" -out "$WORK/globus-on-ours" -verify \
		</dev/null >"$WORK/gpi.log" 2>&1 || why "grid-proxy-init on our proxy failed: $(tail -3 "$WORK/gpi.log")"
	ca proxy --cert "$WORK/globus" --key "$WORK/globus" --out "$WORK/ours-on-globus" || why "proxy of a Globus proxy failed"
	for f in globus globus-on-ours ours-on-globus; do
		verify -allow_proxy_certs -untrusted "$WORK/$f" "$WORK/$f" | grep -q ': OK$' || why "$f does not verify"
	done
	grid-proxy-info -f "$WORK/ours-on-globus" -identity 2>&1 | grep -qx "$ORG/CN=Jan Kowalski" ||
		why "grid-proxy-info on our proxy of a Globus proxy: $(grid-proxy-info -f "$WORK/ours-on-globus" 2>&1)"
}

# expect_usage_error MESSAGE-PATTERN ARGS...: qcg-ca ARGS must exit non-zero and say MESSAGE-PATTERN.
expect_usage_error() {
	local pattern=$1; shift
	if "$QCG_CA" "$@" >"$WORK/out" 2>"$WORK/err"; then why "'qcg-ca $*' succeeded"; fi
	grep -q -- "$pattern" "$WORK/err" || why "'qcg-ca $*' said: $(cat "$WORK/err")"
}

bad_arguments_exit_nonzero_with_a_message() {
	expect_usage_error "unknown command 'frobnicate'" frobnicate
	expect_usage_error "a command is required"
	expect_usage_error "--dir is required" host --name n1.example.org
	expect_usage_error "--dir is required" user --name "A B"
	expect_usage_error "--dir is required" init
	expect_usage_error "--dir is required" crl
	expect_usage_error "option --dir needs a value" revoke --dir
	expect_usage_error "not a qcg-ca directory" user --dir "$WORK/nowhere" --name "A B"
	expect_usage_error "unknown argument '--colour'" user --dir "$CA" --name "A B" --colour red
	expect_usage_error "must not contain" user --dir "$CA" --name "A/B"
	expect_usage_error "DNS host name" host --dir "$CA" --name "bad_host!"
	expect_usage_error "--days must be between" user --dir "$CA" --name "A B" --days 0
	expect_usage_error "YYYYMMDDHHMMSSZ" user --dir "$CA" --name "A B" --not-after 2021-01-01
	expect_usage_error "not a valid time" user --dir "$CA" --name "A B" --not-after 20210230000000Z
	expect_usage_error "later than" user --dir "$CA" --name "A B" \
		--not-before 20210101000000Z --not-after 20200101000000Z
	expect_usage_error "--out is required" proxy --cert "$WORK/jan-cert.pem" --key "$WORK/jan-key.pem"
	expect_usage_error "--hours must be between" proxy --cert a --key b --out c --hours 0
	expect_usage_error "takes CERTFILE ACCOUNT" grid-mapfile-line "$WORK/jan-cert.pem"
	expect_usage_error "account names" grid-mapfile-line "$WORK/jan-cert.pem" "two words"
}

help_prints_usage() {
	"$QCG_CA" --help | grep -q '^Usage: qcg-ca COMMAND' || why "no usage text"
}

run_case init_makes_ca_database_and_capath_trust_store
if (( failed > 0 )); then echo "init failed; the other cases need a CA"; cat "$WORK/qcg-ca.log"; exit 1; fi
run_case init_refuses_to_overwrite_an_existing_ca
run_case host_cert_verifies_as_server_and_client_with_dns_san
run_case host_cert_named_by_address_gets_ip_san
run_case user_cert_verifies_as_client_but_not_as_server
run_case expired_cert_fails_verify_with_expiry_reason
run_case revoked_cert_fails_crl_check_with_revoked_reason
run_case crl_command_renews_the_crl
run_case revoke_refuses_a_certificate_of_another_ca
run_case proxy_verifies_and_its_subject_is_user_dn_plus_cn_serial
run_case proxy_file_is_0600_and_holds_cert_key_usercert
run_case proxy_of_proxy_verifies_and_chain_is_proxy2_key2_proxy1_usercert
run_case proxy_refreshed_in_place_keeps_a_valid_chain
run_case limited_proxy_uses_globus_oid_and_stays_limited_below
run_case proxy_of_revoked_user_fails_crl_check_all
run_case proxy_from_encrypted_key_with_passin
run_case proxy_is_refused_for_expired_signer_or_foreign_key
run_case grid_mapfile_line_quotes_the_end_entity_dn
run_case proxies_interoperate_with_globus_grid_proxy_tools
run_case bad_arguments_exit_nonzero_with_a_message
run_case help_prints_usage

if (( failed > 0 )); then
	echo "--- qcg-ca messages ---"; cat "$WORK/qcg-ca.log"
fi
echo "$passed passed, $failed failed, $skipped skipped"
(( failed == 0 ))

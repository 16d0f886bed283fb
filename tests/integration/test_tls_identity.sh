#!/bin/bash
# test_tls_identity.sh: who a certificate is, on a broker on loopback with a CA made fresh for
# the run (issue 17, "Identity" and the grid-mapfile findings):
#  - a value that hides RDNs (OU="qcg-ompi/CN=Grid Admin") is not the admin;
#  - a CA's signing_policy is enforced: a second CA in the trust directory cannot issue the
#    first one's host names, and a CA without a policy signs nothing;
#  - RFC 3820: a limited proxy may query but not record a job, an independent proxy is not its
#    issuer, an unknown policy language is refused;
#  - a DN over 511 bytes gets an authentication fault, not EOF;
#  - grid-mapfile lines with openssl's \xHH escapes match, and an over-long line does not stop
#    the broker.
. "$top_srcdir/tests/integration/grid_fixture.sh"
. "$top_srcdir/tests/integration/cert_forge.sh"
D=$FIXTURE_DIR

fixture_init
ca user --dir "$D/ca" --name "Grid Admin" --out "$D/admin"
echo 'admin       "/O=Grid/OU=qcg-ompi/CN=Grid Admin"' >>"$D/broker.acl"
# O=Grid, OU="qcg-ompi/CN=Grid Admin": printed without escapes, exactly the admin's DN.
forge_from_ca hidden-admin '/O=Grid/OU=qcg-ompi\/CN=Grid Admin'
# The issue's certificate: O="Grid/OU=qcg-ompi", CN="Grid Admin".
forge_from_ca issue-admin '/O=Grid\/OU=qcg-ompi/CN=Grid Admin'
# A second CA whose policy allows /O=Elsewhere/* only, and one with no policy at all.
foreign_ca "$D/fca" "/O=Elsewhere/CN=Foreign CA" "/O=Elsewhere/*"
forge_from_foreign "$D/fca" foreign-gw '/O=Grid/OU=qcg-ompi/CN=host\/gw-a'
forge_from_foreign "$D/fca" foreign-user '/O=Elsewhere/CN=Some One'
foreign_ca "$D/nca" "/O=Nowhere/CN=Policyless CA"
forge_from_foreign "$D/nca" policyless-user '/O=Nowhere/CN=Any One'
# Proxies of jane: limited (qcg-ca), independent and unknown-language (openssl).
ca proxy --limited --cert "$D/jane-cert.pem" --key "$D/jane-key.pem" --out "$D/limited-cert.pem"
ca proxy --cert "$D/jane-cert.pem" --key "$D/jane-key.pem" --out "$D/full-cert.pem"
ln -s limited-cert.pem "$D/limited-key.pem" && ln -s full-cert.pem "$D/full-key.pem"
forge_proxy independent jane id-ppl-independent
forge_proxy unknownlang jane 1.3.6.1.4.1.99999.1
# 10 OUs of 60 characters: a DN of about 700 bytes, over the services' 511.
long_subject=/O=Grid
for i in 0 1 2 3 4 5 6 7 8 9; do long_subject+="/OU=$i$(printf 'x%.0s' {1..59})"; done
forge_from_ca longdn "$long_subject/CN=Long Name"
# Zoe is mapped by a line in the old qcg-ca form (UTF-8 as openssl's \xHH escapes), Ulla by
# qcg-ca's line of today; a line over the line limit sits between them.
ca user --dir "$D/ca" --name "Zoë Ünal" --out "$D/zoe"
ca user --dir "$D/ca" --name "Ulla Ärö" --out "$D/ulla"
echo '"/O=Grid/OU=qcg-ompi/CN=Zo\xC3\xAB \xC3\x9Cnal" zoe' >>"$D/grid-mapfile"
printf '"/O=Grid/CN=%s" nobody\n' "$(printf 'y%.0s' {1..5000})" >>"$D/grid-mapfile"
"$QCG_CA" grid-mapfile-line "$D/ulla-cert.pem" ulla >>"$D/grid-mapfile"
broker_start

# expect_auth_refusal NAME CREDENTIAL REASON: an authentication fault naming REASON.
expect_auth_refusal() {
	if query_as "$2" health >/dev/null 2>"$D/err"; then
		fail "$1" "the broker answered"
	elif ! grep -q 'authentication failed' "$D/err"; then
		fail "$1" "no authentication fault: $(cat "$D/err")"
	else
		grep -q -- "$3" "$D/err" && pass "$1" || fail "$1" "reason lacks '$3': $(cat "$D/err")"
	fi
}
# expect_identity NAME CREDENTIAL DN: the caller authenticates and the broker names it DN (in
# its answer, or in the authorization fault of a DN it does not map).
expect_identity() {
	local out
	out=$(query_as "$2" health 2>&1)
	if echo "$out" | grep -qxF "you are $3" || echo "$out" | grep -qF "not authorized: $3 is "; then
		pass "$1"
	else
		fail "$1" "got: $out"
	fi
}

# --- escaping -------------------------------------------------------------------------------
expect_identity hidden_rdns_are_escaped_in_the_identity hidden-admin \
	'/O=Grid/OU=qcg-ompi/CN\=Grid Admin'
if call_as hidden-admin register-cluster site-x open 1.2.3.4 1.2.3.0/24 >/dev/null 2>"$D/err"; then
	fail hidden_admin_is_not_the_admin "the forged certificate acted as admin"
else
	grep -q 'not authorized' "$D/err" && pass hidden_admin_is_not_the_admin ||
		fail hidden_admin_is_not_the_admin "$(cat "$D/err")"
fi
call_as admin register-cluster site-x open 1.2.3.4 1.2.3.0/24 >/dev/null 2>"$D/err" &&
	pass real_admin_is_the_admin || fail real_admin_is_the_admin "$(cat "$D/err")"
expect_auth_refusal issue_forged_admin_is_refused issue-admin 'may not sign'

# --- signing policies -----------------------------------------------------------------------
expect_auth_refusal second_ca_cannot_issue_our_host_names foreign-gw 'may not sign'
expect_identity second_ca_may_issue_its_own_names foreign-user '/O=Elsewhere/CN=Some One'
expect_auth_refusal ca_without_signing_policy_signs_nothing policyless-user 'no signing policy'

# --- proxies --------------------------------------------------------------------------------
expect_identity limited_proxy_may_query limited '/O=Grid/OU=qcg-ompi/CN=Jane Doe'
if call_as limited record-job job-limited >/dev/null 2>"$D/err"; then
	fail limited_proxy_may_not_record_a_job "the broker recorded it"
else
	grep -q 'limited proxy' "$D/err" && pass limited_proxy_may_not_record_a_job ||
		fail limited_proxy_may_not_record_a_job "$(cat "$D/err")"
fi
call_as full record-job job-full >/dev/null 2>"$D/err" && pass full_proxy_records_a_job ||
	fail full_proxy_records_a_job "$(cat "$D/err")"
ind_dn=$(openssl x509 -in "$D/independent.pem" -noout -subject -nameopt compat | sed -e 's/^subject=//' -e 's,\\/,/,g')
expect_identity independent_proxy_is_not_its_issuer independent "$ind_dn"
call_as independent record-job job-ind >/dev/null 2>"$D/err" &&
	fail independent_proxy_may_not_act_as_issuer "the broker recorded it" ||
	pass independent_proxy_may_not_act_as_issuer
expect_auth_refusal unknown_proxy_language_is_refused unknownlang 'unknown policy language'

# --- long DN, grid-mapfile lines --------------------------------------------------------------
expect_auth_refusal dn_over_511_bytes_gets_an_authentication_fault longdn 'longer than 511'
grep -q 'line longer than 4095 bytes, ignored' "$D/broker.log" &&
	pass overlong_gridmap_line_is_logged_and_skipped ||
	fail overlong_gridmap_line_is_logged_and_skipped "nothing logged"
call_as zoe record-job job-zoe >/dev/null 2>"$D/err" && pass gridmap_hex_escaped_line_maps_utf8_dn ||
	fail gridmap_hex_escaped_line_maps_utf8_dn "$(cat "$D/err")"
call_as ulla record-job job-ulla >/dev/null 2>"$D/err" && pass qcg_ca_gridmap_line_maps_utf8_dn ||
	fail qcg_ca_gridmap_line_maps_utf8_dn "$(cat "$D/err")"
query_as jane health >/dev/null && pass broker_still_serves || fail broker_still_serves "no answer"

fixture_exit

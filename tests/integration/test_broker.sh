#!/bin/bash
# test_broker.sh: qcg-broker on loopback with a CA made fresh for the run: registration and
# queries, every refusal the issue lists, proxy certificates, surviving kill -9, bad requests,
# and an independent SOAP client (python3-zeep) driven only by the WSDL.
. "$top_srcdir/tests/integration/grid_fixture.sh"
D=$FIXTURE_DIR

fixture_init
# Extra credentials for the refusal cases.
ca user --dir "$D/ca" --name "Old Timer" --out "$D/expired" \
	--not-before 20200101000000Z --not-after 20200102000000Z
ca user --dir "$D/ca" --name "Revoked Person" --out "$D/revoked"
ca revoke --dir "$D/ca" "$D/revoked-cert.pem"
ca init --dir "$D/otherca" --subject "/O=Elsewhere/CN=Other CA"
ca user --dir "$D/otherca" --name "Jane Doe" --out "$D/stranger"
ca proxy --cert "$D/jane-cert.pem" --key "$D/jane-key.pem" --out "$D/janeproxy-cert.pem"
ca proxy --cert "$D/janeproxy-cert.pem" --key "$D/janeproxy-cert.pem" --out "$D/janeproxy2-cert.pem"
broker_start

# --- registration and queries --------------------------------------------------------------
call_as gw-a register-cluster site-a open 172.31.0.2 10.1.0.0/24 >/dev/null &&
	call_as gw-b register-cluster site-b port-range 172.31.0.3 10.2.0.0/24 30000 30100 >/dev/null &&
	call_as proxy-1 register-proxy 172.31.0.9:7000 0.0.0.0/0 >/dev/null &&
	call_as jane record-job job-1 >/dev/null ||
	fail setup "registrations failed"

out=$(query_as jane clusters)
if echo "$out" | grep -q '^site-a  *open ' && echo "$out" | grep -q '^site-b  *port-range  *30000-30100 '; then
	pass query_lists_registered_clusters
else
	fail query_lists_registered_clusters "got: $out"
fi
out=$(query_as jane --json proxies)
case $out in
*'"endpoint":"172.31.0.9:7000"'*'"networks":"0.0.0.0/0"'*) pass query_lists_registered_proxies_as_json ;;
*) fail query_lists_registered_proxies_as_json "got: $out" ;;
esac
out=$(query_as jane job job-1)
echo "$out" | grep -q '^job-1  *pending .*CN=Jane Doe$' && pass query_shows_job_with_owner ||
	fail query_shows_job_with_owner "got: $out"

# A front-end may not take over another front-end's cluster.
if call_as gw-b register-cluster site-a closed 172.31.0.2 10.1.0.0/24 2>"$D/err" >/dev/null; then
	fail cluster_takeover_refused "gw-b replaced site-a"
else
	grep -q 'owned by another identity' "$D/err" && pass cluster_takeover_refused ||
		fail cluster_takeover_refused "$(cat "$D/err")"
fi

# --- refusals ------------------------------------------------------------------------------
expect_auth_refusal() { # NAME CREDENTIAL
	if query_as "$2" health >/dev/null 2>"$D/err"; then
		fail "$1" "the broker answered"
	elif [ "$?" -ne 3 ]; then
		fail "$1" "exit code was not 3 (authentication): $(cat "$D/err")"
	else
		grep -q 'authentication failed' "$D/err" && pass "$1" || fail "$1" "$(cat "$D/err")"
	fi
}
expect_auth_refusal refuses_certificate_of_another_ca stranger
expect_auth_refusal refuses_expired_certificate expired
expect_auth_refusal refuses_revoked_certificate revoked
grep -q 'certificate revoked' "$D/broker.log" && pass broker_logs_revocation_reason ||
	fail broker_logs_revocation_reason "no 'certificate revoked' in the broker log"

out=$(/usr/bin/python3 "$top_srcdir/tests/integration/soap_raw.py" 127.0.0.1 "$BROKER_PORT" \
	"$D/jane-cert.pem" "$D/jane-key.pem" "$D/ca/certificates" no-cert)
case $out in
refused=*) pass refuses_client_without_certificate ;;
*) fail refuses_client_without_certificate "got: $out" ;;
esac

if query_as bob clusters >/dev/null 2>"$D/err"; then
	fail refuses_unmapped_user "bob was answered"
else
	grep -q 'neither in the grid-mapfile' "$D/err" && pass refuses_unmapped_user || fail refuses_unmapped_user "$(cat "$D/err")"
fi
call_as bob record-job job-bob >/dev/null 2>&1 && fail refuses_unmapped_user_operation "bob recorded a job" ||
	pass refuses_unmapped_user_operation
call_as jane register-cluster site-j open 1.2.3.4 1.2.3.0/24 >/dev/null 2>&1 &&
	fail refuses_user_acting_as_frontend "a user registered a cluster" || pass refuses_user_acting_as_frontend

# --- proxy certificates ----------------------------------------------------------------------
for p in janeproxy janeproxy2; do
	out=$(query_as "$p" health)
	echo "$out" | grep -qx 'you are /O=Grid/OU=qcg-ompi/CN=Jane Doe' && pass "accepts_${p}_as_jane" ||
		fail "accepts_${p}_as_jane" "got: $out"
done

# --- malformed, oversized, unknown; the broker keeps serving -----------------------------------
for mode in malformed oversized unknown-op; do
	out=$(/usr/bin/python3 "$top_srcdir/tests/integration/soap_raw.py" 127.0.0.1 "$BROKER_PORT" \
		"$D/jane-cert.pem" "$D/jane-key.pem" "$D/ca/certificates" "$mode")
	case $out in
	*fault=yes*) pass "answers_${mode}_with_soap_fault" ;;
	*) fail "answers_${mode}_with_soap_fault" "got: $out" ;;
	esac
	query_as jane health >/dev/null && pass "keeps_serving_after_$mode" || fail "keeps_serving_after_$mode" "no answer"
done

# --- an independent client: python3-zeep with only the WSDL ----------------------------------
if /usr/bin/python3 -c 'import zeep' 2>/dev/null; then
	out=$(/usr/bin/python3 "$top_srcdir/tests/integration/zeep_query.py" "$top_srcdir/wsdl/broker.wsdl" \
		"$BROKER_URL" "$D/jane-cert.pem" "$D/jane-key.pem" "$D/ca/certificates" 2>&1)
	echo "$out" | grep -qx 'site-a open' && echo "$out" | grep -qx 'site-b port-range' &&
		pass zeep_lists_clusters_from_wsdl || fail zeep_lists_clusters_from_wsdl "got: $out"
else
	fail zeep_lists_clusters_from_wsdl "python3-zeep is not installed for /usr/bin/python3"
fi

# --- kill -9 and restart: the registry survives -------------------------------------------------
broker_kill9
broker_start
out=$(query_as jane clusters; query_as jane proxies; query_as jane jobs)
echo "$out" | grep -q '^site-a ' && echo "$out" | grep -q '^site-b ' &&
	echo "$out" | grep -q '^172.31.0.9:7000 ' && echo "$out" | grep -q '^job-1 ' &&
	pass registry_survives_kill9_and_restart || fail registry_survives_kill9_and_restart "got: $out"

fixture_exit

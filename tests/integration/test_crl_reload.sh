#!/bin/bash
# test_crl_reload.sh: a running broker sees its CA directory change (issue 17, "revocation is
# read once"), and SIGHUP reloads instead of killing it:
#  - a user revoked with qcg-ca while the broker runs is refused within a minute, while another
#    user is still served;
#  - past its CRL's nextUpdate the broker refuses ("CRL has expired"), and once qcg-ca crl has
#    renewed the CRL it serves again, without a restart;
#  - SIGHUP reloads the grid-mapfile (a newly mapped user is served) and keeps the broker up.
. "$top_srcdir/tests/integration/grid_fixture.sh"
D=$FIXTURE_DIR

fixture_init
ca user --dir "$D/ca" --name "Rev Oked" --out "$D/rev"
"$QCG_CA" grid-mapfile-line "$D/rev-cert.pem" rev >>"$D/grid-mapfile"
broker_start

# The clients trust a copy of the CA directory taken now: what the broker does with the changed
# directory is under test, and a client reading the short-lived CRL itself would refuse the
# broker's certificate before the broker saw the client's.
cp -r "$D/ca/certificates" "$D/client-trust"
health_as() {
	local key="$D/$1-key.pem"
	"$QCG_QUERY" --broker "$BROKER_URL" --cert "$D/$1-cert.pem" --key "$key" \
		--ca-dir "$D/client-trust" --timeout 10 health
}
served() { health_as "$1" >/dev/null 2>&1; }
# refused WHO REASON: the broker's authentication fault, naming REASON.
refused() {
	! health_as "$1" >/dev/null 2>"$D/err.$1" && grep -q -- "authentication failed: $2" "$D/err.$1"
}

# --- revocation while running -----------------------------------------------------------------
served rev && pass revoked_user_served_before_revocation ||
	fail revoked_user_served_before_revocation "$(health_as rev 2>&1)"
start=$SECONDS
ca revoke --dir "$D/ca" "$D/rev-cert.pem"
# 60 s: the directory is compared every 5 s; the rest is margin for a loaded machine.
if wait_until 600 refused rev 'certificate revoked' && [ $((SECONDS - start)) -le 60 ]; then
	pass revoked_while_running_is_refused_within_a_minute
	echo "     (refused $((SECONDS - start)) s after qcg-ca revoke)"
else
	fail revoked_while_running_is_refused_within_a_minute \
		"after $((SECONDS - start)) s: $(cat "$D/err.rev" 2>/dev/null)"
fi
served jane && pass other_user_still_served || fail other_user_still_served "$(health_as jane 2>&1)"
grep -q 'CA directory .* changed, re-read' "$D/broker.log" && pass broker_logs_ca_directory_reload ||
	fail broker_logs_ca_directory_reload "nothing logged"

# --- a CRL past its nextUpdate, then renewed ---------------------------------------------------
# openssl ca itself, for a CRL valid 8 seconds (qcg-ca crl counts in days); installed the way
# qcg-ca installs it (rename over <hash>.r0).
hash=$(openssl x509 -in "$D/ca/ca-cert.pem" -noout -hash)
QCG_CA_DIR="$D/ca" openssl ca -config "$D/ca/openssl.cnf" -batch -gencrl -crlsec 8 \
	-out "$D/short-crl.pem" >>"$D/ca.log" 2>&1 || { echo "openssl ca -gencrl failed"; exit 99; }
cp "$D/short-crl.pem" "$D/ca/certificates/.short" && mv -f "$D/ca/certificates/.short" "$D/ca/certificates/$hash.r0"
if wait_until 600 refused jane 'CRL has expired'; then
	pass broker_sees_the_expired_crl
else
	fail broker_sees_the_expired_crl "$(cat "$D/err.jane" 2>/dev/null)"
fi
start=$SECONDS
ca crl --dir "$D/ca"
if wait_until 600 served jane && [ $((SECONDS - start)) -le 60 ]; then
	pass renewed_crl_serves_again_without_restart
	echo "     (served $((SECONDS - start)) s after qcg-ca crl)"
else
	fail renewed_crl_serves_again_without_restart "$(health_as jane 2>&1)"
fi
refused rev 'certificate revoked' && pass revoked_user_still_refused_after_renewal ||
	fail revoked_user_still_refused_after_renewal "$(cat "$D/err.rev")"

# --- SIGHUP -------------------------------------------------------------------------------------
call_as bob record-job job-bob >/dev/null 2>&1 && fail bob_unmapped_before_sighup "bob recorded a job" ||
	pass bob_unmapped_before_sighup
"$QCG_CA" grid-mapfile-line "$D/bob-cert.pem" bob >>"$D/grid-mapfile"
kill -HUP "$BROKER_PID"
if wait_for_log "$D/broker.log" 'reloaded .* users from' 30; then
	pass sighup_reloads_and_logs
else
	fail sighup_reloads_and_logs "no reload logged"
fi
kill -0 "$BROKER_PID" 2>/dev/null && pass broker_survives_sighup || fail broker_survives_sighup "it died"
call_as bob record-job job-bob >/dev/null 2>"$D/err" && pass sighup_maps_new_user ||
	fail sighup_maps_new_user "$(cat "$D/err")"
# A grid-mapfile broken on purpose: the reload is refused and the old mapping stays.
echo '"/O=Grid/CN=broken' >>"$D/grid-mapfile"
kill -HUP "$BROKER_PID"
if wait_for_log "$D/broker.log" 'reload: .*unterminated' 30 && served jane &&
	call_as bob record-job job-bob2 >/dev/null 2>&1; then
	pass broken_gridmap_on_sighup_keeps_the_old_one
else
	fail broken_gridmap_on_sighup_keeps_the_old_one "$(tail -3 "$D/broker.log")"
fi

fixture_exit

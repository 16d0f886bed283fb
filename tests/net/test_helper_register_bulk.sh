#!/bin/bash
# test_helper_register_bulk.sh: a node's REGISTERs in bulk (issue 15). Real qcg-broker,
# qcg-frontend and qcg-helper on loopback (fresh CA); the helper's batch window is widened to
# 1.5 s so that six processes registering at once surely share it, even on a loaded machine.
# Proves: every REGISTER is answered ok and listed by the broker with its node; the broker got
# fewer registration calls than registrations (RegisterAccessPoints carried them); a lone
# REGISTER still works.
. "$top_srcdir/tests/integration/grid_fixture.sh"
if [ ! -x "$QCG_FRONTEND" ] || [ ! -x "$HELPER_LOCAL" ]; then
	echo "SKIP: qcg-frontend or helper_local is not built"
	exit 77
fi
D=$FIXTURE_DIR
TOKEN=0123456789abcdef0123456789abcdef
ME=$(id -un)
export BROKER_LOG_LEVEL=debug # the broker logs each registration call at debug

fixture_init
broker_start
call_as jane record-job job-1 >/dev/null || { echo "record-job failed"; exit 99; }
"$QCG_CA" grid-mapfile-line "$D/jane-cert.pem" nobody >"$D/fe-grid-mapfile"
trap 'frontend_stop_all; helper_cleanup; fixture_cleanup' EXIT
ca host --dir "$D/ca" --name gw-sa --ip 127.0.0.1 --out "$D/gw-sa"
echo 'helper "/O=Grid/OU=qcg-ompi/CN=host/a1"' >"$D/fe-a.acl"
port=$(free_port)
write_frontend_conf "$D/fe-a.conf" gw-sa site-a open "$D/fe-a.acl" "$D/fe-grid-mapfile" \
	"a1 = https://127.0.0.1:$port/ 8"
frontend_start "$D/fe-a.conf" "$D/fe-a.log"
helper_start a1 127.0.0.2 "$FRONTEND_URL" -s "helper.listen=127.0.0.1:$port" \
	-s helper.register_window_ms=1500
echo "job-1 $TOKEN $ME" >>"$HELPER_TOKENS"
wait_for_log "$D/fe-a.log" 'registered' || { echo "site-a did not register"; exit 99; }

pids=""
for p in 41001 41002 41003 41004 41005 41006; do
	helper_local_as job-1 "$TOKEN" register 127.0.0.2 "$p" >"$D/reg-$p.out" 2>&1 &
	pids="$pids $!"
done
all_ok=1
for pid in $pids; do wait "$pid" || all_ok=0; done
contacts=$(query_as jane contacts job-1 2>&1)
listed=0
for p in 41001 41002 41003 41004 41005 41006; do
	grep -qx ok "$D/reg-$p.out" || all_ok=0
	grep -Eq "site-a +a1 +127.0.0.2 +$p\b" <<<"$contacts" && listed=$((listed + 1))
done
if [ "$all_ok" = 1 ] && [ "$listed" = 6 ]; then
	pass concurrent_registers_are_each_answered_and_listed
else
	fail concurrent_registers_are_each_answered_and_listed "$(cat "$D"/reg-*.out) / $contacts"
fi
bulk=$(grep -c 'RegisterAccessPoints: [0-9]* access points of job job-1' "$D/broker.log")
single=$(grep -Ec 'job job-1: site-a/a1 listens on 127.0.0.2:4100[1-6]$' "$D/broker.log")
if [ "$bulk" -ge 1 ] && [ $((bulk + single)) -lt 6 ]; then
	pass concurrent_registers_reach_the_broker_in_fewer_calls
else
	fail concurrent_registers_reach_the_broker_in_fewer_calls "bulk calls $bulk, single $single"
fi
out=$(helper_local_as job-1 "$TOKEN" register 127.0.0.2 41007 2>&1)
if [ "$out" = ok ] && query_as jane contacts job-1 2>&1 | grep -Eq "site-a +a1 +127.0.0.2 +41007\b"; then
	pass a_lone_register_still_works
else
	fail a_lone_register_still_works "$out"
fi
fixture_exit

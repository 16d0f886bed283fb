#!/bin/bash
# test_helper_frontend.sh: qcg-helper with the real qcg-frontend and qcg-broker on loopback
# (fresh CA). Two clusters: site-a (open) with node a1 on 127.0.0.2, site-b (nat) with node b1
# on 127.0.0.3, one front-end and one helper each. MPI processes are played by helper_local.
#  - REGISTER on b1 reaches the broker through the front-end;
#  - RESOLVE on a1 of b1's listener makes the round trip helper -> front-end -> broker and
#    returns the decision: reversal (site-b takes nothing unsolicited). The broker's event goes
#    through site-b's front-end to b1's helper, which connects out to a1's rendezvous; both
#    processes get the two ends of one working TCP connection;
#  - REPORT reaches the broker's connection log; RESOLVE of a1's listener from b1 is direct.
# Skipped when qcg-frontend is not built.
. "$top_srcdir/tests/integration/grid_fixture.sh"
QCG_FRONTEND=${QCG_FRONTEND:-$top_builddir/services/frontend/qcg-frontend}
if [ ! -x "$QCG_FRONTEND" ] || ! declare -f write_frontend_conf >/dev/null; then
	echo "SKIP: $QCG_FRONTEND or the fixture's front-end functions are missing"
	exit 77
fi
D=$FIXTURE_DIR
TOKEN=0123456789abcdef0123456789abcdef

fixture_init
broker_start
call_as jane record-job job-1 >/dev/null || { echo "record-job failed"; exit 99; }
for n in a1 b1 gw-sa gw-sb; do ca host --dir "$D/ca" --name "$n" --ip 127.0.0.1 --out "$D/$n"; done
"$QCG_CA" grid-mapfile-line "$D/jane-cert.pem" nobody >"$D/fe-grid-mapfile"
echo 'helper "/O=Grid/OU=qcg-ompi/CN=host/a1"' >"$D/fe-a.acl"
echo 'helper "/O=Grid/OU=qcg-ompi/CN=host/b1"' >"$D/fe-b.acl"
PA=$(free_port)
PB=$(free_port)
write_frontend_conf "$D/fe-a.conf" gw-sa site-a open "$D/fe-a.acl" "$D/fe-grid-mapfile" \
	"a1 = https://127.0.0.1:$PA/ 2"
frontend_start "$D/fe-a.conf" "$D/fe-a.log"
FE_A=$FRONTEND_URL
write_frontend_conf "$D/fe-b.conf" gw-sb site-b nat "$D/fe-b.acl" "$D/fe-grid-mapfile" \
	"b1 = https://127.0.0.1:$PB/ 2"
frontend_start "$D/fe-b.conf" "$D/fe-b.log"
FE_B=$FRONTEND_URL
trap 'frontend_stop_all; helper_cleanup; fixture_cleanup' EXIT

HELPER_CLUSTER=site-a helper_start a1 127.0.0.2 "$FE_A" -s "helper.listen=127.0.0.1:$PA"
SOCK_A=$HELPER_SOCKET
echo "job-1 $TOKEN root" >>"$HELPER_TOKENS"
HELPER_CLUSTER=site-b helper_start b1 127.0.0.3 "$FE_B" -s "helper.listen=127.0.0.1:$PB"
SOCK_B=$HELPER_SOCKET
echo "job-1 $TOKEN root" >>"$HELPER_TOKENS"
# both front-ends have registered their clusters once they log it
for log in "$D/fe-a.log" "$D/fe-b.log"; do
	wait_for_log "$log" 'registered' || { echo "front-end did not register: $(cat "$log")"; exit 99; }
done

on() { local sock=$1; shift; "$HELPER_LOCAL" "$sock" job-1 "$TOKEN" "$@"; }

# --- registration ---------------------------------------------------------------------------
out=$(on "$SOCK_B" register 127.0.0.3 40000 2>&1)
[ "$out" = ok ] || fail register_through_frontend "$out"
out=$(on "$SOCK_A" register 127.0.0.2 40100 2>&1)
[ "$out" = ok ] || fail register_through_frontend "$out"
out=$(query_as jane contacts job-1 2>&1)
if echo "$out" | grep -q 'site-b.*b1.*127.0.0.3.*40000' && echo "$out" | grep -q 'site-a.*a1.*127.0.0.2.*40100'; then
	pass register_reaches_the_broker_with_cluster_and_node
else
	fail register_reaches_the_broker_with_cluster_and_node "$out"
fi

# --- reversal round trip --------------------------------------------------------------------
"$HELPER_LOCAL" "$SOCK_B" job-1 "$TOKEN" wait 40000 1 >"$D/wait.out" 2>&1 &
WAITER=$!
wait_for_log "$D/wait.out" '^waiting' || fail setup "the waiting process did not start: $(cat "$D/wait.out")"
start=$(date +%s%N)
out=$(on "$SOCK_A" resolve 127.0.0.3 40000 2>&1)
ms=$((($(date +%s%N) - start) / 1000000))
case $out in
"method=2 target=127.0.0.3:40000 "*"handoff=1"*) pass resolve_round_trip_returns_the_decision ;;
*) fail resolve_round_trip_returns_the_decision "$out" ;;
esac
case $out in
*"got=echo:ping"*) pass reversal_gives_both_processes_one_connection
	echo "reversal set-up through front-ends and broker, resolve to data: ${ms} ms" ;;
*) fail reversal_gives_both_processes_one_connection "$out / $(cat "$D/wait.out")" ;;
esac
wait "$WAITER"
grep -q '^handoff method=2 peer=127.0.0.2:' "$D/wait.out" && pass target_sees_the_initiators_address ||
	fail target_sees_the_initiators_address "$(cat "$D/wait.out")"

# --- report: the same connection resolves, connects and reports; the broker logs it ---------
"$HELPER_LOCAL" "$SOCK_B" job-1 "$TOKEN" wait 40000 1 >"$D/wait2.out" 2>&1 &
WAITER=$!
wait_for_log "$D/wait2.out" '^waiting' || fail setup "the waiting process did not start: $(cat "$D/wait2.out")"
out=$(on "$SOCK_A" connect 127.0.0.3 40000 2>&1)
case $out in *"reported method=2 ok"*) ;; *) fail report_through_frontend "$out" ;; esac
wait "$WAITER"
out=$(query_as jane connections job-1 2>&1)
echo "$out" | grep -q 'reversal' && pass report_reaches_the_brokers_connection_log ||
	fail report_reaches_the_brokers_connection_log "$out"

# direct: site-a is open, so b1 reaches a1's listener straight
out=$(on "$SOCK_B" resolve 127.0.0.2 40100 2>&1)
case $out in "method=0 target=127.0.0.2:40100 proxies=0 handoff=0") pass resolve_of_an_open_cluster_is_direct ;;
*) fail resolve_of_an_open_cluster_is_direct "$out" ;; esac

out=$(on "$SOCK_A" resolve 127.0.0.9 4 2>&1)
case $out in *"no process listens on 127.0.0.9:4"*) pass resolve_of_an_unknown_listener_says_so ;;
*) fail resolve_of_an_unknown_listener_says_so "$out" ;; esac
# The broker's fault kind (NoAccessPoint) crosses the front-end: the process gets NOT_FOUND (3),
# on which libqcgnet connects plainly without a word, not REMOTE (4).
case $out in *"error code 3"*) pass unknown_listener_is_not_found_not_a_remote_failure ;;
*) fail unknown_listener_is_not_found_not_a_remote_failure "$out" ;; esac
# After direct failed, nothing else connects nat site-b to open site-a here (no proxy): the
# broker's NoMethod kind reaches the process as NO_METHOD, on which libqcgnet gives up.
out=$(on "$SOCK_B" resolve 127.0.0.2 40100 0 2>&1)
case $out in *"no further method connects"*"error code 8"*|*"error code 8"*"no further method"*)
	pass exhausted_methods_are_no_method_not_a_remote_failure ;;
*) fail exhausted_methods_are_no_method_not_a_remote_failure "$out" ;; esac

# SIGHUP reloads the helper's ACL and CA directory (issue 17); it goes on serving.
kill -HUP "$HELPER_PID"
wait_for_log "$D/helper-b1.log" 'reloaded .* ACL rules' && kill -0 "$HELPER_PID" &&
	pass sighup_reloads_the_helper || fail sighup_reloads_the_helper "no reload logged, or it died"
out=$(on "$SOCK_B" resolve 127.0.0.9 4 2>&1)
case $out in *"no process listens on 127.0.0.9:4"*) pass helper_serves_after_sighup ;;
*) fail helper_serves_after_sighup "$out" ;; esac
fixture_exit

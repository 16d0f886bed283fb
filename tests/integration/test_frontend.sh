#!/bin/bash
# test_frontend.sh: qcg-frontend on loopback with a fresh CA and a real qcg-broker: it declares
# its cluster, forwards helpers' requests (and refuses helpers acting for other nodes), caches
# and drops resolutions, routes broker events to the right node's helper, comes back after the
# broker is killed (kill -9) and restarted on the same port, answers bad requests with faults
# and keeps serving, and reserves slots for mapped users only, within capacity, with expiry.
# Cases that need a running qcg-helper are in test_frontend_helper.sh.
. "$top_srcdir/tests/integration/grid_fixture.sh"
trap 'frontend_stop_all; fixture_cleanup' EXIT
D=$FIXTURE_DIR

fixture_init
host_cert gw-f                       # the front-end under test (cluster site-f, NAT)
host_cert b1                         # helpers of its nodes b1 and b2
host_cert b2
host_cert stray                      # a helper of no node of site-f
ca user --dir "$D/ca" --name "Ann Other" --out "$D/ann"
"$QCG_CA" grid-mapfile-line "$D/jane-cert.pem" nobody >"$D/fe-grid-mapfile"
"$QCG_CA" grid-mapfile-line "$D/ann-cert.pem" nobody >>"$D/fe-grid-mapfile"
cat >"$D/fe.acl" <<-ACL
helper "/O=Grid/OU=qcg-ompi/CN=host/b*"
helper "/O=Grid/OU=qcg-ompi/CN=host/stray"
ACL
broker_start
# Helpers b1 and b2 are not running until the reservations: nobody listens on their ports.
P1=$(free_port); P2=$(free_port)
write_frontend_conf "$D/fe.conf" gw-f site-f nat "$D/fe.acl" "$D/fe-grid-mapfile" \
	"b1 = https://127.0.0.1:$P1/ 4
	b2 = https://127.0.0.1:$P2/ 4" "reservation_timeout = 60"
frontend_start "$D/fe.conf" "$D/fe.log"
FELOG=$D/fe.log

# --- registration with the broker ------------------------------------------------------------
if wait_for_log "$FELOG" 'cluster site-f registered with the broker'; then
	out=$(query_as jane clusters)
	echo "$out" | grep -q "^site-f  *nat .*https://127.0.0.1:$FRONTEND_PORT/" &&
		pass frontend_registers_its_cluster_at_start ||
		fail frontend_registers_its_cluster_at_start "clusters: $out"
else
	fail frontend_registers_its_cluster_at_start "no registration in the log: $(tail -5 "$FELOG")"
fi

# --- helper requests -------------------------------------------------------------------------
call_as jane record-job job-1 >/dev/null || fail setup "recording job-1 failed"
out=$(frontend_as b1 register-ap job-1 b1 127.0.0.11 5001 rank-0 2>&1)
contacts=$(query_as jane contacts job-1 2>&1)
if [ "$out" = ok ] && echo "$contacts" | grep -q 'site-f.*b1.*127.0.0.11.*5001'; then
	pass register_access_point_reaches_the_broker_with_cluster_and_node
else
	fail register_access_point_reaches_the_broker_with_cluster_and_node "call: $out; contacts: $contacts"
fi

out=$(frontend_as b1 register-ap job-1 b2 127.0.0.12 5002 2>&1)
case $out in
*'helper of node b1 may not act for node b2'*) pass helper_may_not_register_for_another_node ;;
*) fail helper_may_not_register_for_another_node "got: $out" ;;
esac
out=$(frontend_as stray register-ap job-1 stray 127.0.0.13 5003 2>&1)
case $out in
*'not the helper of any node of cluster site-f'*) pass helper_of_no_configured_node_refused ;;
*) fail helper_of_no_configured_node_refused "got: $out" ;;
esac
out=$(frontend_as jane register-ap job-1 b1 127.0.0.14 5004 2>&1)
case $out in
*"is not a helper in the front-end's ACL"*) pass user_certificate_refused_for_helper_operations ;;
*) fail user_certificate_refused_for_helper_operations "got: $out" ;;
esac

# A second cluster, open, played by broker_call: site-f's nodes reach it directly.
call_as gw-a register-cluster site-a open 127.0.0.1 10.1.0.0/24 >/dev/null &&
	call_as gw-a register-ap job-1 site-a a1 10.1.0.5 6000 >/dev/null ||
	fail setup "site-a registration failed"
via_fe=$(frontend_as b1 resolve job-1 b1 10.1.0.5 6000 2>&1)
at_broker=$(call_as gw-f resolve job-1 site-f b1 10.1.0.5 6000 2>&1)
if [ "$via_fe" = "$at_broker" ] && [ "$via_fe" = "method=direct target=site-a/a1/10.1.0.5:6000" ]; then
	pass resolve_through_frontend_returns_the_broker_decision
else
	fail resolve_through_frontend_returns_the_broker_decision "front-end: $via_fe; broker: $at_broker"
fi
again=$(frontend_as b2 resolve job-1 b2 10.1.0.5 6000 2>&1)
if [ "$again" = "$via_fe" ] && grep -q 'job job-1: b2 -> 10.1.0.5:6000 by direct (cached)' "$FELOG"; then
	pass second_resolve_is_answered_from_the_job_cache
else
	fail second_resolve_is_answered_from_the_job_cache "got: $again; log: $(grep 'job-1: b2' "$FELOG")"
fi
out=$(frontend_as b1 resolve job-1 b2 10.1.0.5 6000 2>&1)
case $out in
*'may not act for node b2'*) pass helper_may_not_resolve_for_another_node ;;
*) fail helper_may_not_resolve_for_another_node "got: $out" ;;
esac
out=$(frontend_as b1 report job-1 b1 site-a a1 6000 direct ok 120 2>&1)
conns=$(query_as jane connections job-1 2>&1)
if [ "$out" = ok ] && echo "$conns" | grep -q 'site-f.*b1.*site-a.*a1.*direct'; then
	pass report_outcome_reaches_the_broker
else
	fail report_outcome_reaches_the_broker "call: $out; connections: $conns"
fi

# --- broker events ---------------------------------------------------------------------------
# site-a (open) connecting to site-f (NAT): reversal, so the broker tells site-f's node b1.
ev=$(call_as gw-a resolve job-1 site-a a1 127.0.0.11 5001 2>&1)
if echo "$ev" | grep -q '^method=reversal' &&
	wait_for_log "$FELOG" 'connect event [0-9]*: job job-1, node b1 port 5001' &&
	wait_for_log "$FELOG" 'delivering connect event [0-9]* to node b1 failed'; then
	pass connect_event_is_routed_to_the_target_nodes_helper
else
	fail connect_event_is_routed_to_the_target_nodes_helper "resolve: $ev; log: $(grep -i 'event' "$FELOG" | tail -5)"
fi
call_as jane remove-aps job-1 >/dev/null ||
	fail setup "ending job-1 failed"
if wait_for_log "$FELOG" 'job job-1 ended: 1 cached answers dropped' &&
	wait_for_log "$FELOG" 'delivering job-ended event [0-9]* to node b1' &&
	wait_for_log "$FELOG" 'delivering job-ended event [0-9]* to node b2'; then
	pass job_ended_drops_the_cache_and_goes_to_every_helper
else
	fail job_ended_drops_the_cache_and_goes_to_every_helper "log: $(grep -i 'job-1\|job-ended' "$FELOG" | tail -5)"
fi
# Only now, with a later event of the same stream delivered, can b1's connect event no longer
# reach b2 afterwards: checked right after b1's delivery it would pass whatever happened next.
if ! wait_for_log "$FELOG" 'delivering job-ended event [0-9]* to node b2'; then
	fail connect_event_goes_to_no_other_node "no later event reached b2 to compare with"
elif grep -q 'delivering connect event [0-9]* to node b2' "$FELOG"; then
	fail connect_event_goes_to_no_other_node "b2 got b1's event"
else
	pass connect_event_goes_to_no_other_node
fi
out=$(frontend_as b1 resolve job-1 b1 10.1.0.5 6000 2>&1)
case $out in
*'no process listens on 10.1.0.5:6000'*) pass resolve_after_job_end_asks_the_broker_again ;;
*) fail resolve_after_job_end_asks_the_broker_again "got: $out" ;;
esac

# --- the broker dies and comes back ----------------------------------------------------------
broker_kill9
rm -f "$D/broker.db" # a fresh registry: only a new registration can bring site-f back
sleep 1
broker_restart_same_port
if wait_for_log "$FELOG" 'cluster site-f registered with the broker at .* (registration 2)' &&
	query_as jane clusters | grep -q '^site-f '; then
	pass frontend_registers_again_after_broker_kill9_and_restart
else
	fail frontend_registers_again_after_broker_kill9_and_restart "log: $(tail -5 "$FELOG")"
fi
call_as jane record-job job-2 >/dev/null && call_as jane remove-aps job-2 >/dev/null &&
	call_as jane record-job job-3 >/dev/null || fail setup "job-2 or job-3 failed"
wait_for_log "$FELOG" 'job job-2 ended' && pass events_resume_after_broker_restart ||
	fail events_resume_after_broker_restart "log: $(tail -5 "$FELOG")"
out=$(frontend_as b1 register-ap job-3 b1 127.0.0.11 5001 2>&1)
[ "$out" = ok ] && pass helper_requests_work_after_broker_restart ||
	fail helper_requests_work_after_broker_restart "got: $out"

# --- bad requests ----------------------------------------------------------------------------
raw() { /usr/bin/python3 "$top_srcdir/tests/integration/soap_raw.py" 127.0.0.1 "$FRONTEND_PORT" \
	"$D/b1-cert.pem" "$D/b1-key.pem" "$D/ca/certificates" "$1"; }
for mode in malformed oversized unknown-op; do
	out=$(raw $mode)
	case $out in
	*'fault=yes'*) pass "${mode}_request_gets_a_soap_fault" ;;
	*) fail "${mode}_request_gets_a_soap_fault" "got: $out" ;;
	esac
done
case $(raw no-cert) in
refused=*) pass client_without_certificate_refused ;;
*) fail client_without_certificate_refused "it was answered" ;;
esac
out=$(frontend_as b1 register-ap job-3 b1 127.0.0.11 5002 2>&1)
[ "$out" = ok ] && kill -0 "$FRONTEND_PID" && pass frontend_keeps_serving_after_bad_requests ||
	fail frontend_keeps_serving_after_bad_requests "got: $out"

# --- reservations ----------------------------------------------------------------------------
# Reserve grants only nodes whose helper answers (helper_probe.h): from here on they run.
trap 'frontend_stop_all; helper_cleanup; fixture_cleanup' EXIT
site_helper_start b1 "$P1" site-f "$FRONTEND_URL"
site_helper_start b2 "$P2" site-f "$FRONTEND_URL"
out=$(frontend_as bob reserve job-r 1 10 2>&1)
case $out in
*"not in the front-end's grid-mapfile"*) pass unmapped_user_refused_reserve ;;
*) fail unmapped_user_refused_reserve "got: $out" ;;
esac
out=$(frontend_as jane reserve job-r 9 10 2>&1)
case $out in
*'not enough free slots: 9 requested, 8 free'*) pass reservation_over_capacity_refused ;;
*) fail reservation_over_capacity_refused "got: $out" ;;
esac
out=$(frontend_as jane reserve job-r 4 10 2 b2 b1 2>&1)
if echo "$out" | grep -q '^slot=b2:2$' && echo "$out" | grep -q '^slot=b1:2$'; then
	pass reserve_honours_requested_nodes_and_processes_per_node
else
	fail reserve_honours_requested_nodes_and_processes_per_node "got: $out"
fi
R=$(echo "$out" | sed -n 's/^reservation=//p')
out=$(frontend_as jane reserve job-r 1 10 1 nowhere 2>&1)
case $out in
*"unknown node 'nowhere'"*) pass reserve_on_unknown_node_refused ;;
*) fail reserve_on_unknown_node_refused "got: $out" ;;
esac
out=$(frontend_as ann commit "$R" 2>&1)
case $out in
*'belongs to another user'*) pass another_user_may_not_commit_a_reservation ;;
*) fail another_user_may_not_commit_a_reservation "got: $out" ;;
esac
out=$(frontend_as jane launch "$R" b1 /bin/true 2>&1)
case $out in
*'is not committed yet'*) pass launch_before_commit_refused ;;
*) fail launch_before_commit_refused "got: $out" ;;
esac
frontend_as jane commit "$R" >/dev/null && frontend_as jane release "$R" >/dev/null &&
	pass commit_then_release || fail commit_then_release "commit or release failed"
out=$(frontend_as jane release "$R" 2>&1)
case $out in
*"no reservation $R"*) pass released_reservation_is_gone ;;
*) fail released_reservation_is_gone "got: $out" ;;
esac

# Expiry: all 8 slots for 5 s, uncommitted. The check while held races the clock: 5 s leaves a
# loaded machine room for the one TLS call it needs. Then wait (bounded) until the slots are
# free again rather than sleeping past the expiry.
out=$(frontend_as jane reserve job-e 8 5 2>&1)
E=$(echo "$out" | sed -n 's/^reservation=//p')
full=$(frontend_as ann reserve job-x 1 10 2>&1)
after_reserved() { after=$(frontend_as ann reserve job-x 8 10 2>&1) && [[ $after == *reservation=* ]]; }
wait_until 300 after_reserved
late=$(frontend_as jane commit "$E" 2>&1)
if [ -n "$E" ] && echo "$full" | grep -q 'not enough free slots' &&
	echo "$after" | grep -q '^reservation=' && echo "$late" | grep -q 'expired before it was committed'; then
	pass uncommitted_reservation_expires_and_frees_its_slots
else
	fail uncommitted_reservation_expires_and_frees_its_slots "reserve: $out; while held: $full; after: $after; commit: $late"
fi

# --- issue 17: limited proxies may not reserve; SIGHUP reloads the grid-mapfile ------------------
ca proxy --limited --cert "$D/jane-cert.pem" --key "$D/jane-key.pem" --out "$D/janelim-cert.pem"
ln -s janelim-cert.pem "$D/janelim-key.pem"
out=$(frontend_as janelim reserve job-l 1 10 2>&1)
case $out in
*'limited proxy may not reserve or launch'*) pass limited_proxy_refused_reserve ;;
*) fail limited_proxy_refused_reserve "got: $out" ;;
esac
"$QCG_CA" grid-mapfile-line "$D/bob-cert.pem" nobody >>"$D/fe-grid-mapfile"
kill -HUP "$FRONTEND_PID"
wait_for_log "$FELOG" 'reloaded .* users from' && kill -0 "$FRONTEND_PID" 2>/dev/null &&
	pass sighup_reloads_the_frontend || fail sighup_reloads_the_frontend "no reload logged, or it died"
# Bob is mapped now: whatever the slots say, it is not the grid-mapfile that refuses him.
out=$(frontend_as bob reserve job-b 1 10 2>&1)
case $out in
*reservation=*|*'not enough free slots'*) pass sighup_maps_new_user_on_the_frontend ;;
*) fail sighup_maps_new_user_on_the_frontend "got: $out" ;;
esac

# --- stop ------------------------------------------------------------------------------------
kill -TERM "$FRONTEND_PID"
for _ in $(seq 1 100); do kill -0 "$FRONTEND_PID" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$FRONTEND_PID" 2>/dev/null; then
	fail sigterm_stops_the_frontend "still running after 10 s"
else
	wait "$FRONTEND_PID"; rc=$?
	[ "$rc" -eq 0 ] && grep -q 'stopping' "$FELOG" && pass sigterm_stops_the_frontend ||
		fail sigterm_stops_the_frontend "exit code $rc"
fi
fixture_exit

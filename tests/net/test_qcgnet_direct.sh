#!/bin/bash
# test_qcgnet_direct.sh: connects inside a cluster are decided on the node (issue 15), with
# libqcgnet.so preloaded into qcgnet_probe and the real qcg-broker, qcg-frontend and
# qcg-helper on loopback (fresh CA). Two clusters:
#   site-a open, two nodes a1 (127.0.0.2) and a2 (127.0.0.6),
#          frontend.direct_networks = 127.0.0.2/32,127.0.0.6/32 (its own nodes; connects there
#          to the job's listeners in site-a, as the front-end lists them, are decided on the node)
#   site-b nat, one node b1 (127.0.0.3), no direct networks (every connect is resolved)
# Proves: a2 -> a1 connects with no Resolve at the front-end or the broker (their debug logs
# name every Resolve they answer, and do name the inter-cluster ones below); the connection
# is still in the broker's connection log as direct, from a batch; a2 -> b1 and a1 -> b1 are
# still resolved at the broker and get the method they always got (direct to the open site,
# reversal to the NAT site); a connect inside the direct networks to a socket that is not the
# job's is not decided on the node (it would get the origin preamble): it is plain and never
# logged.
export BROKER_LOG_LEVEL=debug # the broker logs each Resolve it answers at debug
. "$top_srcdir/tests/net/probe_grid.sh"
probe_grid_need "$QCG_FRONTEND"
probe_grid_start

probe_grid_nodes_site a open 127.0.0.2 "direct_networks = 127.0.0.2/32,127.0.0.6/32" "a1 127.0.0.2" "a2 127.0.0.6"
probe_grid_nodes_site b nat 127.0.0.3 "traversal_allowed = no" "b1 127.0.0.3"

# Resolves of PORT the broker answered, and those the front-end of site-a answered
broker_resolves() { grep -c -- "-> site-[ab]/[ab][12]:$1 by" "$D/broker.log"; }
fe_resolves() { grep -c -- "-> 127\.0\.0\.[0-9]*:$1 by" "$D/fe-a.log"; }

# --- intra-cluster: a2 -> a1, decided on a2 -------------------------------------------------
serve a1 "$D/a1.out" 127.0.0.2 1 poll
PA=$PORT A_PID=$LISTENER
out=$(on a2 "$PROBE" connect 127.0.0.2 "$PA" 2>>"$ERR")
case $out in "connect=0 getpeername=127.0.0.2:$PA got=echo:ping") pass intra_cluster_connect_works ;;
*) fail intra_cluster_connect_works "$out / $(cat "$ERR")" ;; esac
wait "$A_PID"
if grep -q "127.0.0.2:$PA is direct, decided here" "$D/helper-a2.log"; then
	pass intra_cluster_connect_is_decided_on_the_node
else
	fail intra_cluster_connect_is_decided_on_the_node "$(tail -n 20 "$D/helper-a2.log")"
fi
# (b) listed, from a batch: wait for it (bounded; batches leave within 200 ms)
if wait_until 100 logged a2 a1 "$PA" direct ok; then
	pass intra_cluster_connection_is_listed_as_direct
else
	fail intra_cluster_connection_is_listed_as_direct "$(conn_log)"
fi
grep -q "ReportOutcomes: 1 of 1 connections recorded" "$D/broker.log" &&
	pass intra_cluster_record_reaches_the_broker_in_a_batch ||
	fail intra_cluster_record_reaches_the_broker_in_a_batch "$(grep ReportOutcome "$D/broker.log")"

# --- inter-cluster: resolved at the broker, with the methods of before -----------------------
serve b1 "$D/b1.out" 127.0.0.3 2 epoll
PB=$PORT B_PID=$LISTENER
out=$(on a1 "$PROBE" connect 127.0.0.3 "$PB" 2>>"$ERR")
case $out in "connect=0 getpeername=127.0.0.3:$PB got=echo:ping") ;;
*) fail inter_cluster_connect_works "$out / $(cat "$ERR")" ;; esac
out=$(on a2 "$PROBE" connect 127.0.0.3 "$PB" 2>>"$ERR")
case $out in "connect=0 getpeername=127.0.0.3:$PB got=echo:ping") ;;
*) fail inter_cluster_connect_works "$out / $(cat "$ERR")" ;; esac
wait "$B_PID"
if logged a1 b1 "$PB" reversal ok && logged a2 b1 "$PB" reversal ok &&
	[ "$(broker_resolves "$PB")" -ge 2 ]; then
	pass inter_cluster_connect_to_a_nat_site_is_still_resolved_to_reversal
else
	fail inter_cluster_connect_to_a_nat_site_is_still_resolved_to_reversal \
		"$(conn_log) / broker resolves of $PB: $(broker_resolves "$PB")"
fi
serve a1 "$D/a1b.out" 127.0.0.2 1 block
PA2=$PORT A2_PID=$LISTENER
out=$(on b1 "$PROBE" connect 127.0.0.2 "$PA2" 2>>"$ERR")
case $out in "connect=0 getpeername=127.0.0.2:$PA2 got=echo:ping") ;;
*) fail inter_cluster_connect_works "$out / $(cat "$ERR")" ;; esac
wait "$A2_PID"
if wait_until 100 logged b1 a1 "$PA2" direct ok && [ "$(broker_resolves "$PA2")" -ge 1 ]; then
	pass inter_cluster_connect_to_an_open_site_is_still_resolved_to_direct
else
	fail inter_cluster_connect_to_an_open_site_is_still_resolved_to_direct \
		"$(conn_log) / broker resolves of $PA2: $(broker_resolves "$PA2")"
fi
# ... and its record came in a batch like the intra-cluster one (a direct connection that worked
# needs the broker only for its log), where the reversals above were reported one by one
batched_records() {
	awk '/ReportOutcomes: [0-9]+ of [0-9]+ connections recorded/ {
		for (i = 1; i <= NF; i++) if ($i == "ReportOutcomes:") n += $(i + 1) } END { print n + 0 }' \
		"$D/broker.log"
}
if wait_until 100 test "$(batched_records)" -ge 2; then
	pass inter_cluster_direct_record_reaches_the_broker_in_a_batch
else
	fail inter_cluster_direct_record_reaches_the_broker_in_a_batch \
		"$(grep ReportOutcome "$D/broker.log")"
fi

# (a) the broker and the front-end logged the Resolves above (so their logs do show each one)
# but none of a2 -> a1
if [ "$(broker_resolves "$PA")" -eq 0 ] && [ "$(fe_resolves "$PA")" -eq 0 ] &&
	[ "$(fe_resolves "$PB")" -ge 2 ]; then
	pass intra_cluster_connect_makes_no_resolve_at_frontend_or_broker
else
	fail intra_cluster_connect_makes_no_resolve_at_frontend_or_broker \
		"broker: $(grep -- ":$PA by" "$D/broker.log") / front-end: $(grep -- ":$PA by" "$D/fe-a.log")"
fi

# --- inside the direct networks, a socket that is not the job's: not decided here (it would
# get libqcgnet's origin preamble), but resolved, found no job peer, and connected plainly ----
serve_plain 127.0.0.6 "$D/plain.out"
PP=$PORT P_PID=$LISTENER
out=$(on a1 "$PROBE" connect 127.0.0.6 "$PP" 2>>"$ERR")
wait "$P_PID"
if [ "$out" = "connect=0 getpeername=127.0.0.6:$PP got=echo:ping" ] &&
	! grep -q "127.0.0.6:$PP is direct, decided here" "$D/helper-a1.log"; then
	pass non_job_socket_inside_the_direct_networks_gets_a_plain_connect
else
	fail non_job_socket_inside_the_direct_networks_gets_a_plain_connect \
		"$out / $(grep -- "$PP" "$D/helper-a1.log")"
fi
if conn_log | grep -q "^FROM" && ! conn_log | grep -q ":$PP "; then
	pass non_job_connect_inside_the_direct_networks_is_not_logged
else
	fail non_job_connect_inside_the_direct_networks_is_not_logged "$(conn_log)"
fi
[ "$FAILURES" -eq 0 ] || { echo "--- probes' stderr:"; tail -n 40 "$ERR"; }
fixture_exit

#!/bin/bash
# test_qcgnet_paircache.sh: the front-end's decision per cluster pair kept on the node (issue
# 15, services/helper/helper_paircache.h), with libqcgnet.so preloaded into qcgnet_probe and
# the real qcg-broker, qcg-frontend and qcg-helper on loopback (fresh CA). Two open sites,
# a (node a1, 127.0.0.2) and b (node b1, 127.0.0.3); four listeners of job-1 on b1.
# Proves: a1's first connect to b1 asks its front-end, whose answer names b1's listeners; a
# second connect to another of them makes no front-end request (the front-end's debug log names
# every Resolve it answers); a connect by a kept decision that fails (its listener is gone)
# drops the pair, so the next connect asks the front-end again and works; a policy change of
# site-b reaches the helper as an event and drops the pair, so the next connect asks again and
# gets the new method; qcg-query connections lists every connection that worked.
export BROKER_LOG_LEVEL=debug
export FRONTEND_LOG_LEVEL=debug
export HELPER_LOG_LEVEL=debug
PROBE_HANDOFF_TIMEOUT_MS=3000 # the failing connect's fallback waits this long at most
. "$top_srcdir/tests/net/probe_grid.sh"
probe_grid_need "$QCG_FRONTEND"
probe_grid_start
probe_grid_site a open a1 127.0.0.2 no
probe_grid_site b open b1 127.0.0.3 no
HLOG=$D/helper-a1.log
# fe_resolves PORT: the Resolves of connects to PORT that site-a's front-end answered
fe_resolves() { grep -c -- "-> 127\.0\.0\.3:$1 by" "$D/fe-a.log"; }
# connect PORT: a1 connects to b1's listener at PORT; true when the echo came back
connect() {
	local out
	out=$(on a1 "$PROBE" connect 127.0.0.3 "$1" 2>>"$ERR")
	[ "$out" = "connect=0 getpeername=127.0.0.3:$1 got=echo:ping" ]
}

serve b1 "$D/l1.out" 127.0.0.3 1 poll; P1=$PORT L1=$LISTENER
serve b1 "$D/l2.out" 127.0.0.3 1 poll; P2=$PORT
serve b1 "$D/l3.out" 127.0.0.3 2 poll; P3=$PORT
serve b1 "$D/l4.out" 127.0.0.3 1 poll; P4=$PORT

# --- a first connect asks, a second one to another listener of the pair does not -------------
if connect "$P1" && [ "$(fe_resolves "$P1")" -eq 1 ] &&
	grep -q "direct to cluster site-b kept on the node for 4 listeners" "$HLOG"; then
	pass first_connect_asks_the_frontend_and_the_pair_is_kept
else
	fail first_connect_asks_the_frontend_and_the_pair_is_kept \
		"front-end: $(grep -- "-> 127.0.0.3" "$D/fe-a.log") / helper: $(grep -i kept "$HLOG")"
fi
if connect "$P2" && [ "$(fe_resolves "$P2")" -eq 0 ] &&
	grep -q "127.0.0.3:$P2 by direct, the node's kept decision for cluster site-b" "$HLOG"; then
	pass second_connect_of_the_pair_makes_no_frontend_request
else
	fail second_connect_of_the_pair_makes_no_frontend_request \
		"front-end Resolves of $P2: $(fe_resolves "$P2") / $(tail -n 20 "$HLOG")"
fi

# --- a kept decision whose connect fails: dropped, the next connect asks ---------------------
wait_gone 100 "$L1" || { echo "the first listener did not end"; exit 99; }
on a1 "$PROBE" connect-fail 127.0.0.3 "$P1" >"$D/stale.out" 2>>"$ERR"
# (nothing of the job listens there now: whether the next method still gets a socket depends
# on it; what matters is that the failure led to the next method, asked of the front-end)
if grep -q "127.0.0.3:$P1: direct failed .*; trying the next method" "$ERR" &&
	grep -q "a connect to cluster site-b by the node's kept decision failed: dropped" "$HLOG" &&
	[ "$(fe_resolves "$P1")" -ge 2 ]; then
	pass failed_connect_by_a_kept_decision_drops_the_pair_and_falls_back
else
	fail failed_connect_by_a_kept_decision_drops_the_pair_and_falls_back \
		"$(cat "$D/stale.out") / front-end: $(grep -- "-> 127.0.0.3:$P1" "$D/fe-a.log") / $(tail -n 20 "$HLOG")"
fi
if connect "$P3" && [ "$(fe_resolves "$P3")" -eq 1 ]; then
	pass after_a_failed_kept_decision_the_next_connect_asks_and_works
else
	fail after_a_failed_kept_decision_the_next_connect_asks_and_works \
		"front-end Resolves of $P3: $(fe_resolves "$P3") / $(cat "$ERR")"
fi

# --- a policy change reaches the helper and drops the pair -----------------------------------
nets=$(sed -n 's/.*cluster site-b registered.*networks \([^ ,;)]*\).*/\1/p' "$D/broker.log" | head -n 1)
call_as gw-sb register-cluster site-b port-range 127.0.0.3 "${nets:-127.0.0.3/32}" 1024 65535 \
	>/dev/null || { echo "register-cluster failed"; exit 99; }
if wait_for_log "$HLOG" 'policy of cluster site-b changed: 1 decisions kept on the node dropped'; then
	pass policy_change_event_drops_the_nodes_pair
else
	fail policy_change_event_drops_the_nodes_pair "$(grep -i policy "$HLOG" "$D/fe-a.log")"
fi
if connect "$P3" && [ "$(fe_resolves "$P3")" -eq 2 ] &&
	grep -q -- "-> 127.0.0.3:$P3 by port-range" "$D/fe-a.log"; then
	pass after_a_policy_change_the_next_connect_asks_and_gets_the_new_method
else
	fail after_a_policy_change_the_next_connect_asks_and_gets_the_new_method \
		"$(grep -- "-> 127.0.0.3:$P3" "$D/fe-a.log")"
fi

# --- every connection that worked is listed ---------------------------------------------------
if wait_until 100 logged a1 b1 "$P1" direct ok && wait_until 100 logged a1 b1 "$P2" direct ok &&
	wait_until 100 logged a1 b1 "$P3" direct ok &&
	wait_until 100 logged a1 b1 "$P3" port-range ok; then
	pass qcg_query_lists_every_connection
else
	fail qcg_query_lists_every_connection "$(conn_log)"
fi
[ "$FAILURES" -eq 0 ] || { echo "--- probes' stderr:"; tail -n 40 "$ERR"; }
fixture_exit

#!/bin/bash
# test_qcgnet_first_burst.sh: a node's burst of first connects to a cluster it has no decision
# for asks its front-end a bounded number of Resolves at once (services/helper/helper_resolve.c,
# FIRST_RESOLVES_AT_ONCE = 8), and the rest find the answer in the node's pair cache (issue
# 15). libqcgnet.so preloaded into qcgnet_probe, the real qcg-broker, qcg-frontend and
# qcg-helper on loopback (fresh CA). Two open sites, a (node a1, 127.0.0.2) and b (node b1,
# 127.0.0.3); one listener of job-1 on b1.
# Site a's front-end is stopped (SIGSTOP) while 24 processes on a1 connect to that listener at
# once, so that every one of them is in its RESOLVE before any answer comes back: without the
# bound all 24 reached the front-end (bench/scale at P = 1024: 128 TLS connections per helper,
# Resolves timed out). Proves: 16 of them wait for a place; once the front-end runs again every
# connect works; the front-end answered at most 8 Resolves for them; qcg-query lists all 24.
export BROKER_LOG_LEVEL=debug
export FRONTEND_LOG_LEVEL=debug
export HELPER_LOG_LEVEL=debug
BURST=24
AT_ONCE=8
. "$top_srcdir/tests/net/probe_grid.sh"
probe_grid_need "$QCG_FRONTEND"
probe_grid_start
probe_grid_site a open a1 127.0.0.2 no
FE_A=$FRONTEND_PID
probe_grid_site b open b1 127.0.0.3 no
HLOG=$D/helper-a1.log
# probe_grid_start's cleanup, after letting a stopped front-end go on (so that it can stop)
trap 'kill -CONT "$FE_A" 2>/dev/null; for p in $PIDS; do kill $p 2>/dev/null; done;
	proxy_stop_all; frontend_stop_all; helper_cleanup; fixture_cleanup' EXIT
# echoed OUTPUT ADDRESS PORT: a probe's output says its connect to ADDRESS:PORT was echoed
echoed() { [ "$1" = "connect=0 getpeername=$2:$3 got=echo:ping" ]; }

serve b1 "$D/listener.out" 127.0.0.3 "$BURST" poll
P=$PORT
# A first connect of the node fetches its front-end's direct networks, once, and every other
# first connect waits for that answer (helper_direct.c): done before the burst, by a connect
# inside site a, so that the burst's connects wait where this test looks.
serve a1 "$D/warm.out" 127.0.0.2 1 poll
echoed "$(on a1 "$PROBE" connect 127.0.0.2 "$PORT" 2>>"$ERR")" 127.0.0.2 "$PORT" ||
	{ echo "the warm-up connect failed"; exit 99; }

waiting() {
	[ "$(grep -c "first Resolves at the front-end already; waiting for a place" "$HLOG")" \
		-ge $((BURST - AT_ONCE)) ]
}
kill -STOP "$FE_A"
burst=""
for ((i = 1; i <= BURST; i++)); do
	on a1 "$PROBE" connect 127.0.0.3 "$P" >"$D/c$i.out" 2>>"$ERR" &
	burst="$burst $!"
done
if wait_until 600 waiting; then
	pass burst_beyond_the_bound_waits_for_a_place
else
	fail burst_beyond_the_bound_waits_for_a_place \
		"$(grep -c "waiting for a place" "$HLOG") waiting, $((BURST - AT_ONCE)) expected"
fi
kill -CONT "$FE_A"
# shellcheck disable=SC2086 # a list of pids
wait_gone 600 $burst ||
	fail burst_connects_end "some connect still runs 60 s after the front-end came back"

worked=0
for ((i = 1; i <= BURST; i++)); do
	echoed "$(cat "$D/c$i.out")" 127.0.0.3 "$P" && worked=$((worked + 1))
done
if [ "$worked" -eq "$BURST" ]; then
	pass every_connect_of_the_burst_works
else
	fail every_connect_of_the_burst_works "$worked of $BURST; $(tail -n 20 "$ERR")"
fi
asked=$(grep -c -- "-> 127\.0\.0\.3:$P by" "$D/fe-a.log")
echo "the front-end answered $asked Resolves of the burst of $BURST"
if [ "$asked" -ge 1 ] && [ "$asked" -le "$AT_ONCE" ]; then
	pass the_frontend_answered_at_most_the_bound
else
	fail the_frontend_answered_at_most_the_bound "$asked Resolves of the burst at the front-end"
fi
# every connect of the burst, listed by the broker (the records come in the helper's batches)
all_logged() { [ "$(conn_log | grep -Ec "^site-a/a1 +site-b/b1:$P +direct +ok")" -eq "$BURST" ]; }
if wait_until 100 all_logged; then
	pass qcg_query_lists_every_connection
else
	fail qcg_query_lists_every_connection "$(conn_log)"
fi
[ "$FAILURES" -eq 0 ] || { echo "--- probes' stderr:"; tail -n 40 "$ERR"; }
fixture_exit

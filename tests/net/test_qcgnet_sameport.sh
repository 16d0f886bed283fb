#!/bin/bash
# test_qcgnet_sameport.sh: listeners of one job on the same port on different nodes are different
# access points (issue 15; db/migrations/008). With libqcgnet.so preloaded into qcgnet_probe and
# the real qcg-broker, qcg-frontend and qcg-helper on loopback (fresh CA): site-a with node a1
# (127.0.0.2), the initiator; site-b with nodes b1 (127.0.0.3) and b2 (127.0.0.4); site-c with
# node c1 (127.0.0.5). b1, b2 and c1 each listen on the same port P.
# Proves: the broker keeps all three registrations (before 008 each replaced the one before, as
# (job, port) was the key, and connects to the replaced ones failed: "no process listens");
# a1 reaches each of them, the one it named (the echo says which); the connection log names
# the right node for each.
export BROKER_LOG_LEVEL=debug
. "$top_srcdir/tests/net/probe_grid.sh"
probe_grid_need "$QCG_FRONTEND"
probe_grid_start
probe_grid_nodes_site a open 127.0.0.2 "" "a1 127.0.0.2"
probe_grid_nodes_site b open 127.0.0.3 "" "b1 127.0.0.3" "b2 127.0.0.4"
probe_grid_nodes_site c open 127.0.0.5 "" "c1 127.0.0.5"

serve b1 "$D/b1.out" 127.0.0.3 1 poll
P=$PORT
SERVE_PORT=$P serve b2 "$D/b2.out" 127.0.0.4 1 poll
SERVE_PORT=$P serve c1 "$D/c1.out" 127.0.0.5 1 poll
[ "$PORT" = "$P" ] || { echo "c1 listens on $PORT, not $P"; exit 99; }

# contacts ADDRESS: the broker lists job-1's listener at ADDRESS:P
contact() { query_as jane contacts job-1 2>&1 | grep -Eq " $1 +$P "; }
if wait_until 100 contact 127.0.0.3 && wait_until 100 contact 127.0.0.4 &&
	wait_until 100 contact 127.0.0.5; then
	pass three_listeners_on_one_port_are_three_access_points
else
	fail three_listeners_on_one_port_are_three_access_points "$(query_as jane contacts job-1 2>&1) / $(grep -i "access point" "$D/broker.log" "$D"/fe-*.log | tail -n 8)"
fi

# connect NODE-ADDRESS: a1 connects to the listener at NODE-ADDRESS:P and gets its echo
connect() {
	local out
	out=$(on a1 "$PROBE" connect "$1" "$P" 2>>"$ERR")
	[ "$out" = "connect=0 getpeername=$1:$P got=echo:ping" ] ||
		{ echo "$1:$P: $out" >>"$ERR"; return 1; }
}
for t in "b1 127.0.0.3" "b2 127.0.0.4" "c1 127.0.0.5"; do
	node=${t% *} addr=${t#* }
	if connect "$addr" && grep -q "^accepted" "$D/$node.out"; then
		pass "a1_reaches_${node}_on_the_shared_port"
	else
		fail "a1_reaches_${node}_on_the_shared_port" "$(tail -n 5 "$ERR") / $(cat "$D/$node.out")"
	fi
done
if wait_until 100 logged a1 b1 "$P" direct ok && wait_until 100 logged a1 b2 "$P" direct ok &&
	wait_until 100 logged a1 c1 "$P" direct ok; then
	pass connection_log_names_each_target_node
else
	fail connection_log_names_each_target_node "$(conn_log)"
fi
[ "$FAILURES" -eq 0 ] || { echo "--- probes' stderr:"; tail -n 40 "$ERR"; }
fixture_exit

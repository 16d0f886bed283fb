#!/bin/bash
# test_broker_prune.sh: the broker's connection log does not grow forever. With
# broker.connection_log_max_age = 1000 s and a 1 s prune interval, a record 5000 s old is gone
# within seconds while a fresh one stays; with max_age = 0 nothing is pruned; a bad value stops
# the broker with an error naming the key.
. "$top_srcdir/tests/integration/grid_fixture.sh"
D=$FIXTURE_DIR

fixture_init

# A bad value is refused at start, naming the key.
if timeout 10 "$QCG_BROKER" -c "$D/broker.conf" -s broker.connection_log_max_age=-5 \
	>"$D/bad.log" 2>&1; then
	fail refuses_negative_max_age "qcg-broker started"
else
	grep -q 'connection_log_max_age' "$D/bad.log" && pass refuses_negative_max_age ||
		fail refuses_negative_max_age "$(cat "$D/bad.log")"
fi

broker_start -s broker.connection_log_max_age=1000 -s broker.connection_log_prune_interval=1
call_as gw-a register-cluster site-a open 172.31.0.2 10.1.0.0/24 >/dev/null &&
	call_as jane record-job job-p >/dev/null ||
	{ fail setup "registrations failed"; fixture_exit; exit 1; }

# report FROM-NODE WHEN: one connection record of job-p from site-a/FROM-NODE at unix time WHEN.
report() {
	call_as gw-a report job-p site-a "$1" site-a a2 5000 direct ok 120 "$2" >/dev/null ||
		fail setup "report $1 failed"
}
now=$(date +%s)
report old-node $((now - 5000))
report new-node "$now"

pruned=no
# pruned_now: the broker answered, and without the old record (a failed query proves nothing).
pruned_now() { out=$(query_as jane connections job-p) && ! grep -q 'site-a/old-node' <<<"$out"; }
wait_until 300 pruned_now && pruned=yes
[ $pruned = yes ] && pass old_record_pruned_on_timer || fail old_record_pruned_on_timer "still listed: $out"
grep -q 'site-a/new-node' <<<"$out" && pass recent_record_kept || fail recent_record_kept "got: $out"
grep -q 'connection log: pruned 1 records older than 1000 s' "$D/broker.log" &&
	pass prune_is_logged || fail prune_is_logged "no prune line in the broker log"

# max_age = 0 keeps everything (same database, restarted broker).
fixture_stop "$BROKER_PID"
BROKER_PID=""
broker_start -s broker.connection_log_max_age=0 -s broker.connection_log_prune_interval=1
report ancient-node $((now - 100000000))
# Kept means no pruner runs: the broker says so at start. The 2.5 s after the report are for a
# pruner that ran anyway (every 1 s) to show itself.
sleep 2.5
out=$(query_as jane connections job-p)
grep -q 'connection log: kept forever' "$D/broker.log" && grep -q 'site-a/ancient-node' <<<"$out" &&
	pass max_age_zero_keeps_every_record ||
	fail max_age_zero_keeps_every_record "got: $out"

fixture_exit

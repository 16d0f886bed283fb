#!/bin/bash
# test_qcg_submit_wait.sh: qcg-submit waits its turn for busy nodes, on loopback with a real
# broker and two sites (front-ends and helpers; mpirun is a stand-in that holds the job's
# nodes until the test lets it end). A job that wants nodes another job holds is queued
# (qcg-status says so) and runs once they are released, within its reserve timeout; one whose
# timeout (from the description) runs out fails, exit 4, naming the cluster and how many were
# free; one that could never fit fails at once; qcg-cancel ends a wait (exit 143); and two jobs
# with crossed requests submitted together both run, one after the other, in 5 of 5 rounds.
. "$top_srcdir/tests/integration/grid_fixture.sh"
SUBMIT="$top_builddir/launcher/qcg-submit"
STATUS="$top_builddir/launcher/qcg-status"
D=$FIXTURE_DIR

fixture_init
broker_start
site_start sa open 2 sa1 sa2
URL_A=$SITE_URL
site_start sb open 2 sb1 sb2
URL_B=$SITE_URL
export QCG_FRONTEND_URL_sa=$URL_A QCG_FRONTEND_URL_sb=$URL_B QCG_MPIRUN=/bin/true
# The stand-ins for mpirun run here (--mpirun-here), where they can hold a file to wait on.
submit() { as_user jane "$SUBMIT" --broker "$BROKER_URL" --mpirun-here "$@"; }
status_of() { as_user jane "$STATUS" --broker "$BROKER_URL" "$1" 2>&1; }
queued_id() { sed -n 's/^qcg-submit: job \([^ ]*\) queued: .*/\1/p' "$1" | head -1; }
job_dirs=()
trap 'frontend_stop_all; helper_cleanup; for j in "${job_dirs[@]}"; do rm -rf "/tmp/qcg-jobs-$(id -u)/$j"; done; fixture_cleanup' EXIT

# The stand-in mpirun: logs its start, holds the job's nodes until $D/release exists (at most
# 60 s), logs its end. Times in nanoseconds, to tell whether two jobs overlapped.
printf '#!/bin/bash\necho "start $(date +%%s%%N)" >>"$1"\nfor ((i = 0; i < 600; i++)); do [ -e %s/release ] && break; sleep 0.1; done\necho "end $(date +%%s%%N)" >>"$1"\n' "$D" >"$D/hold"
chmod +x "$D/hold"
for j in a b; do printf '#!/bin/sh\nexec %s/hold %s/ran-%s\n' "$D" "$D" "$j" >"$D/mpirun-$j"; chmod +x "$D/mpirun-$j"; done

# --- busy, then free: the second job is queued and runs once the first ends -------------------
printf '#QCG executable=/bin/true\n#QCG host=sa\n#QCG procs=4\n' >"$D/all-sa.qcg"
printf '#QCG executable=/bin/true\n#QCG host=sa\n#QCG procs=2\n' >"$D/two-sa.qcg"
rm -f "$D/release"
QCG_MPIRUN=$D/mpirun-a submit "$D/all-sa.qcg" >"$D/holder.log" 2>&1 &
holder=$!
wait_for_log "$D/holder.log" 'processes on' 60 || fail busy_setup "the holder did not start: $(cat "$D/holder.log")"
start=$(date +%s)
submit --reserve-timeout 120 "$D/two-sa.qcg" >"$D/waiter.log" 2>&1 &
waiter=$!
wait_for_log "$D/waiter.log" ' queued: cluster sa is busy' 60
id=$(queued_id "$D/waiter.log")
queued_state() { status_of "$id" | grep -q 'state *queued'; }
if [ -n "$id" ] && wait_until 300 queued_state && grep -q "not enough free slots: 2 requested, 0 free" "$D/waiter.log" &&
	query_as jane job "$id" | grep -q " queued "; then
	pass busy_job_is_queued_and_qcg_status_and_qcg_query_show_it
else
	fail busy_job_is_queued_and_qcg_status_and_qcg_query_show_it "$(cat "$D/waiter.log"); $(status_of "$id"); $(query_as jane job "$id" 2>&1)"
fi
touch "$D/release"
released=$(date +%s%N)
wait_gone 600 $holder $waiter
after=$((($(date +%s%N) - released) / 1000000)) # the holder's end, the pause, the waiter's run
wait $holder; hrc=$?
wait $waiter; wrc=$?
elapsed=$(($(date +%s) - start))
wid=$(sed -n 's/.*job \([^ ]*\): 2 processes.*/\1/p' "$D/waiter.log")
job_dirs+=("$id" "$(sed -n 's/.*job \([^ ]*\): 4 processes.*/\1/p' "$D/holder.log")")
if [ $hrc = 0 ] && [ $wrc = 0 ] && [ "$wid" = "$id" ] && [ $elapsed -lt 120 ] &&
	status_of "$id" | grep -q 'state *done'; then
	echo "  the queued job was done $after ms after the release"
	pass queued_job_runs_once_the_nodes_are_released_within_its_timeout
else
	fail queued_job_runs_once_the_nodes_are_released_within_its_timeout "holder rc=$hrc, waiter rc=$wrc after ${elapsed}s: $(cat "$D/waiter.log")"
fi

# --- the description's reserve timeout runs out: exit 4, the cluster and what was free --------
# The last holder's log goes first: the check below must not read it before the shell truncates.
rm -f "$D/release" "$D/holder.log"
QCG_MPIRUN=$D/mpirun-a submit "$D/all-sa.qcg" >"$D/holder.log" 2>&1 &
holder=$!
wait_for_log "$D/holder.log" 'processes on' 60 || fail timeout_setup "the holder did not start: $(cat "$D/holder.log")"
printf '#QCG executable=/bin/true\n#QCG host=sa\n#QCG procs=2\n#QCG reserve-timeout=PT3S\n' >"$D/short.qcg"
start=$(date +%s%N)
out=$(submit "$D/short.qcg" 2>&1); rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
id=$(echo "$out" | sed -n 's/^qcg-submit: job \([^ ]*\) queued: .*/\1/p')
# at least the 3 s it waited; 60 s bounds "no hang" under any load
if [ $rc = 4 ] && [ $ms -ge 3000 ] && [ $ms -lt 60000 ] &&
	echo "$out" | grep -q "cluster sa (https://127.0.0.1:[0-9]*/) is still busy after waiting 3 s (the reserve timeout): not enough free slots: 2 requested, 0 free on the cluster's nodes; the others are held by other reservations; nothing was started" &&
	status_of "$id" | grep -q 'state *failed'; then
	echo "  the reserve timeout of 3 s failed the job after $ms ms"
	pass reserve_timeout_from_the_description_fails_exit_4_naming_the_cluster_and_its_free_slots
else
	fail reserve_timeout_from_the_description_fails_exit_4_naming_the_cluster_and_its_free_slots "rc=$rc after $ms ms: $out; $(status_of "$id"); the holder: $(cat "$D/holder.log" "$D/ran-a")"
fi

# --- a request that could never fit fails at once, however long it may wait -------------------
printf '#QCG executable=/bin/true\n#QCG host=sa\n#QCG procs=5\n' >"$D/never.qcg"
start=$(date +%s%N)
out=$(submit --reserve-timeout 600 "$D/never.qcg" 2>&1); rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
if [ $rc = 4 ] && ! echo "$out" | grep -q queued && [ $ms -lt 30000 ] &&
	echo "$out" | grep -q "refused the reservation of 5 processes: .*not enough free slots: 5 requested, 0 free on the cluster's nodes; never enough, even with nothing reserved"; then
	pass impossible_request_fails_at_once_not_queued "$ms ms"
else
	fail impossible_request_fails_at_once_not_queued "rc=$rc after $ms ms: $out"
fi
touch "$D/release"
wait_gone 600 $holder
wait $holder || fail timeout_holder "the holder failed: $(cat "$D/holder.log")"
job_dirs+=("$(sed -n 's/.*job \([^ ]*\): 4 processes.*/\1/p' "$D/holder.log")")

# --- qcg-cancel while queued: the wait ends, exit 143, state cancelled ---------------------------
rm -f "$D/release" "$D/holder.log" "$D/cq.log"
QCG_MPIRUN=$D/mpirun-a submit "$D/all-sa.qcg" >"$D/holder.log" 2>&1 &
holder=$!
wait_for_log "$D/holder.log" 'processes on' 60 || fail cancel_setup "the holder did not start: $(cat "$D/holder.log")"
submit --reserve-timeout 600 "$D/two-sa.qcg" >"$D/cq.log" 2>&1 &
cq=$!
wait_for_log "$D/cq.log" ' queued: ' 60
id=$(queued_id "$D/cq.log")
start=$(date +%s%N)
[ -n "$id" ] && as_user jane "$top_builddir/launcher/qcg-cancel" --broker "$BROKER_URL" "$id" >/dev/null 2>&1
wait_gone 600 $cq
pid_alive $cq && kill $cq # 60 s after the cancel: let the check below say so
wait $cq; rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
if [ -n "$id" ] && [ $rc = 143 ] && grep -q "cancelled (qcg-cancel) while queued; nothing was started" "$D/cq.log" &&
	status_of "$id" | grep -q 'state *cancelled'; then
	echo "  qcg-cancel ended the wait after $ms ms"
	pass qcg_cancel_while_queued_ends_the_wait_exit_143
else
	fail qcg_cancel_while_queued_ends_the_wait_exit_143 "rc=$rc after $ms ms: $(cat "$D/cq.log"); $(status_of "$id")"
fi
touch "$D/release"
wait_gone 600 $holder
wait $holder || fail cancel_holder "the holder failed: $(cat "$D/holder.log")"
job_dirs+=("$(sed -n 's/.*job \([^ ]*\): 4 processes.*/\1/p' "$D/holder.log")")

# --- crossed requests submitted together: both run, one after the other ------------------------
# P wants all of sa, then 1 on sb; Q all of sb, then 1 on sa. Each holds its nodes until the
# other is queued (then the test lets it end), so the one that comes second always meets busy
# nodes: neither may fail, deadlock or overlap the other.
printf '#QCG executable=/bin/true\n#QCG host=sa\n#QCG procs=4\n#QCG host=sb\n#QCG procs=1\n' >"$D/p.qcg"
printf '#QCG executable=/bin/true\n#QCG host=sb\n#QCG procs=4\n#QCG host=sa\n#QCG procs=1\n' >"$D/q.qcg"
good=0
for round in 1 2 3 4 5; do
	# The last round's logs go too: one_queued must not read them before the shell truncates.
	rm -f "$D/release" "$D/ran-a" "$D/ran-b" "$D/p.log" "$D/q.log"
	QCG_MPIRUN=$D/mpirun-a submit --reserve-timeout 120 "$D/p.qcg" >"$D/p.log" 2>&1 &
	p=$!
	QCG_MPIRUN=$D/mpirun-b submit --reserve-timeout 120 "$D/q.qcg" >"$D/q.log" 2>&1 &
	q=$!
	one_queued() { grep -qs ' queued: ' "$D/p.log" "$D/q.log"; }
	wait_until 600 one_queued
	id=$(queued_id "$D/p.log")
	[ -n "$id" ] || id=$(queued_id "$D/q.log")
	shown=no
	[ -n "$id" ] && wait_until 300 queued_state && shown=yes
	touch "$D/release"
	wait_gone 1200 $p $q
	wait $p; prc=$?
	wait $q; qrc=$?
	read -r _ ps < <(grep start "$D/ran-a"); read -r _ pe < <(grep end "$D/ran-a")
	read -r _ qs < <(grep start "$D/ran-b"); read -r _ qe < <(grep end "$D/ran-b")
	for f in p q; do job_dirs+=("$(sed -n 's/.*job \([^ ]*\): 5 processes.*/\1/p' "$D/$f.log")"); done
	if [ $prc = 0 ] && [ $qrc = 0 ] && [ $shown = yes ] && [ -n "$ps" ] && [ -n "$qe" ] &&
		{ [ "$pe" -le "$qs" ] || [ "$qe" -le "$ps" ]; }; then
		good=$((good + 1))
	else
		echo "round $round: P rc=$prc, Q rc=$qrc, queued shown: $shown; P ran $ps-$pe, Q ran $qs-$qe"
		cat "$D/p.log" "$D/q.log"
	fi
done
[ $good = 5 ] && pass crossed_requests_both_run_one_after_the_other_5_of_5 ||
	fail crossed_requests_both_run_one_after_the_other_5_of_5 "$good of 5"
fixture_exit

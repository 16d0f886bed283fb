#!/bin/bash
# timeline.sh [BUILD-DIR]: where a 24-rank qcg-submit start-up spends its time (issue 15). The
# testbed of run.sh (3 sites x 2 nodes x 4 slots, WAN delay 2 ms, launcher on host user); REPS
# rounds of the VARIANTS, alternated:
#   submit   BUILD-DIR's qcg-submit
#   base     launcher/qcg-submit-base in BUILD-DIR, if present (a copy of an earlier build, for
#            a side-by-side of a launcher change; not built by make)
#   mpirun   plain mpirun as in run.sh
# For each qcg-submit run, milliseconds from just before the launcher started to: the job
# recorded at the broker, the first and last Reserve and Commit at the front-ends, the job
# "running" at the broker, the first and last orted launch at the front-ends, the first and last
# rank out of MPI_Init (the services' info logs carry millisecond timestamps; the namespaces
# share the clock). LAUNCH_ENV as in run.sh (OMPI_MCA_coll=^qcg: without coll/qcg's probe).
# Raw outputs and logs stay in TL (default $TB/run/bench/timeline). Holds the testbed lock; run
# it under /tmp/qcg-heavy.lock.
set -euo pipefail
POLICIES=${POLICIES:-open,open,open}
# shellcheck source=bench/launch/common.sh
. "$(dirname "$0")/common.sh" "${1:-.}"
bench_need timeline.sh "$PROG" "$B/launcher/qcg-submit" "$B/services/broker/qcg-broker"
bench_up timeline.sh /var/tmp/qcg-tb-launch-timeline --sites 3 --nodes 2 --policies "$POLICIES" \
	--frontend-proxy --wan-delay 2
np=24 per=4 f=$OUT/job.qcg
TL=${TL:-$OUT/timeline}
mkdir -p "$TL"
printf '#QCG name=bench%s\n#QCG executable=%s\n' "$np" "$PROG" >"$f"
printf '#QCG host=%s\n#QCG nodes=2:4:%s\n' a "$per" b "$per" c "$per" >>"$f"

# secs HH:MM:SS.mmm...: seconds since midnight
secs() { awk -F'[:.]' '{ printf "%.3f\n", $1 * 3600 + $2 * 60 + $3 + ("0." $4) }'; }
# stamps PATTERN: the sorted timestamps of the services' log lines matching PATTERN
stamps() { grep -h -- "$1" "$TB"/log/*.log | awk '{ print $1 }' | sort; }
# timeline T0 OUT: the qcg-submit run's events, ms after T0 (unix seconds)
timeline() {
	local t0=$1 out=$2 job base res c l
	job=$(sed -n 's/.*job \([^ ]*\): [0-9]* processes.*/\1/p' "$out" | head -n 1)
	base=$(date -d "@${t0%.*}" +%H:%M:%S).${t0#*.}
	base=$(echo "${base:0:12}" | secs)
	res=$(grep -h -- "reservation [0-9a-f]*: job $job," "$TB"/log/*.log | awk '{ print $4 }' | tr -d :)
	c=$(for r in $res; do stamps "reservation $r committed"; done | sort)
	l=$(for r in $res; do stamps "(reservation $r,"; done | sort)
	ms() { awk -v b="$base" '{ printf "%.0f", ($1 - b) * 1000 }' <<<"$(secs)"; }
	printf 'recorded %s reserve %s-%s commit %s-%s running %s launch %s-%s' \
		"$(stamps "job $job recorded" | head -n 1 | ms)" \
		"$(stamps "reservation .*: job $job," | head -n 1 | ms)" \
		"$(stamps "reservation .*: job $job," | tail -n 1 | ms)" \
		"$(head -n 1 <<<"$c" | ms)" "$(tail -n 1 <<<"$c" | ms)" \
		"$(stamps "job $job is now running" | head -n 1 | ms)" \
		"$(head -n 1 <<<"$l" | ms)" "$(tail -n 1 <<<"$l" | ms)"
}

printf 'testbed: 3 sites (%s), 24 ranks, %s rounds; load %s%s\n' "$POLICIES" "$REPS" \
	"$(cut -d' ' -f1-3 /proc/loadavg)" "${LAUNCH_ENV:+; $LAUNCH_ENV}"
for ((r = 1; r <= REPS; r++)); do
	for v in ${VARIANTS:-submit mpirun}; do
		t0=$(date +%s.%N)
		case $v in
		submit | base)
			exe=$B/launcher/qcg-submit
			[[ $v == base ]] && exe=$B/launcher/qcg-submit-base
			on_user "$exe" "$f" >"$OUT/out" 2>&1 || cat "$OUT/out" >&2 ;;
		mpirun)
			on_user mpirun --allow-run-as-root --oversubscribe -np "$np" \
				--host "a1:$per,a2:$per,b1:$per,b2:$per,c1:$per,c2:$per" \
				--mca plm_rsh_agent "$QTB rsh --dir $TB" --mca plm_rsh_no_tree_spawn 1 \
				--mca pml ob1 --mca btl self,vader,tcp --bind-to none "$PROG" \
				>"$OUT/out" 2>&1 || cat "$OUT/out" >&2 ;;
		*) echo "timeline.sh: no variant $v" >&2; exit 2 ;;
		esac
		cp "$OUT/out" "$TL/out-$r-$v"
		first=$(awk -v t0="$t0" '$1 == "init" { if (m == "" || $4 < m) m = $4 }
			END { printf "%.0f", (m - t0) * 1000 }' "$OUT/out")
		last=$(last_init "$t0" "$OUT/out" "$np" | awk '{ printf "%.0f", $1 * 1000 }')
		[[ -n $last ]] || last=fail
		events=""
		[[ $v == mpirun ]] || events=$(timeline "$t0" "$OUT/out")
		printf '%s %-6s %s first_init %s last_init %s load %s\n' "$r" "$v" "$events" "$first" \
			"$last" "$(cut -d' ' -f1 /proc/loadavg)"
	done
done
cp -r "$TB/log" "$TL/"

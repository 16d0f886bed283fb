#!/bin/bash
# in_job.sh [BUILD-DIR]: the startup figure with mpirun inside the grid (issue 12). On a testbed
# of 3 open sites x 2 nodes (4 slots each; WAN delay 2 ms) whose host user is a workstation
# (qcg-testbed up --workstation: no qcg service there, nothing connects in), for 6, 12 and 24
# ranks (1, 2, 4 per node):
#   in-job   qcg-submit on host user: co-allocation on the 3 front-ends, the job directory on
#            every node, the delegated proxy, hostfile and hosts map staged to a1, mpirun
#            launched on a1 through its front-end and helper, orted through qcg-rsh there,
#            libqcgnet.so in every process, output streamed back to user
#   mpirun   plain Open MPI started on a1 itself (the same HNP host), orted by `qcg-testbed
#            rsh` (a namespace switch: an ssh that costs nothing), no shim
# Time: from just before the launcher starts to the last rank's return from MPI_Init
# (init-time prints its wall clock; the namespaces share it). REPS runs each (default 5),
# alternated; the median, then the ratio in-job / mpirun. Holds the testbed lock (run it under
# /tmp/qcg-heavy.lock too); its testbed is always brought down.
set -euo pipefail
# shellcheck source=bench/launch/common.sh
. "$(dirname "$0")/common.sh" "${1:-.}"
bench_need in_job.sh "$PROG" "$B/launcher/qcg-submit" "$B/services/broker/qcg-broker"
bench_up in_job.sh /var/tmp/qcg-tb-launch-injob --sites 3 --nodes 2 --policies open,open,open \
	--frontend-proxy --wan-delay 2 --workstation

run_in_job() {
	local np=$1 per=$(($1 / 6)) f=$OUT/job-$1.qcg t0
	printf '#QCG name=injob%s\n#QCG executable=%s\n' "$np" "$PROG" >"$f"
	printf '#QCG host=%s\n#QCG nodes=2:4:%s\n' a "$per" b "$per" c "$per" >>"$f"
	t0=$(date +%s.%N)
	on_user "$B/launcher/qcg-submit" --mpirun-in-job "$f" >"$OUT/out" 2>&1 ||
		{ cat "$OUT/out" >&2; return 1; }
	grep -q "mpirun runs on a1" "$OUT/out" || { cat "$OUT/out" >&2; return 1; }
	last_init "$t0" "$OUT/out" "$np"
}

run_mpirun_on_a1() {
	local np=$1 per=$(($1 / 6)) t0
	t0=$(date +%s.%N)
	"$QTB" --dir "$TB" exec a1 -- env OMPI_MCA_mpi_yield_when_idle=1 timeout 120 \
		mpirun --allow-run-as-root --oversubscribe -np "$np" \
		--host "a1:$per,a2:$per,b1:$per,b2:$per,c1:$per,c2:$per" \
		--mca plm_rsh_agent "$QTB rsh --dir $TB" --mca plm_rsh_no_tree_spawn 1 \
		--mca pml ob1 --mca btl self,vader,tcp --bind-to none "$PROG" >"$OUT/out" 2>&1 8>&- ||
		{ cat "$OUT/out" >&2; return 1; }
	last_init "$t0" "$OUT/out" "$np"
}

printf 'testbed: 3 open sites x 2 nodes x 4 slots, WAN delay 2 ms, host user a workstation; '
printf '%s runs each; load %s\n' "$REPS" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %-34s %-34s %s\n' ranks "in-job qcg-submit median (runs) s" \
	"mpirun on a1 median (runs) s" ratio
for np in ${NPS:-6 12 24}; do # NPS="24": only those
	qs=() ms=()
	for ((r = 0; r < REPS; r++)); do
		qs+=("$(run_in_job "$np")")
		ms+=("$(run_mpirun_on_a1 "$np")")
	done
	q=$(printf '%s\n' "${qs[@]}" | median)
	m=$(printf '%s\n' "${ms[@]}" | median)
	printf '%-6s %-34s %-34s %.2f\n' "$np" "$q (${qs[*]})" "$m (${ms[*]})" \
		"$(echo "$q / $m" | bc -l)"
done

#!/bin/bash
# run.sh [BUILD-DIR]: the launcher's startup figure. On a testbed of 3 open sites x 2 nodes
# (4 slots each; WAN delay 2 ms), from host user, for 6, 12 and 24 ranks (1, 2, 4 per node):
#   qcg-submit   co-allocation on the 3 front-ends, orted through qcg-rsh and the helpers,
#                libqcgnet.so in every process (the whole launcher)
#   mpirun       plain Open MPI on the same nodes, orted started by `qcg-testbed rsh` (a
#                namespace switch: an ssh that costs nothing), no shim
# Time: from just before the launcher starts to the last rank's return from MPI_Init
# (bench/launch/init-time prints its wall clock; the namespaces share it). REPS runs each,
# alternated; the median is reported, then the ratio qcg-submit / mpirun. Open sites, because
# plain mpirun cannot cross the nat and closed sites' firewalls; with POLICIES=open,nat,closed
# only qcg-submit runs. Holds the testbed lock; its testbed is always brought down.
# LAUNCH_ENV="OMPI_MCA_coll=^qcg" runs both launchers without coll/qcg (common.sh); NPS="24"
# runs only those rank counts (multiples of 6).
set -euo pipefail
POLICIES=${POLICIES:-open,open,open}
# shellcheck source=bench/launch/common.sh
. "$(dirname "$0")/common.sh" "${1:-.}"
bench_need run.sh "$PROG" "$B/launcher/qcg-submit" "$B/services/broker/qcg-broker"
bench_up run.sh /var/tmp/qcg-tb-launch-bench --sites 3 --nodes 2 --policies "$POLICIES" \
	--frontend-proxy --wan-delay 2

run_mpirun() {
	local np=$1 per=$(($1 / 6)) t0
	t0=$(date +%s.%N)
	on_user mpirun --allow-run-as-root --oversubscribe -np "$np" \
		--host "a1:$per,a2:$per,b1:$per,b2:$per,c1:$per,c2:$per" \
		--mca plm_rsh_agent "$QTB rsh --dir $TB" --mca plm_rsh_no_tree_spawn 1 \
		--mca pml ob1 --mca btl self,vader,tcp --bind-to none "$PROG" >"$OUT/out" 2>&1 ||
		{ cat "$OUT/out" >&2; return 1; }
	last_init "$t0" "$OUT/out" "$np"
}

printf 'testbed: 3 sites (%s) x 2 nodes x 4 slots, WAN delay 2 ms; %s runs each; load %s%s\n' \
	"$POLICIES" "$REPS" "$(cut -d' ' -f1-3 /proc/loadavg)" "${LAUNCH_ENV:+; $LAUNCH_ENV}"
printf '%-6s %-28s %-28s %s\n' ranks "qcg-submit median (runs) s" "mpirun median (runs) s" ratio
for np in ${NPS:-6 12 24}; do
	qs=() ms=()
	for ((r = 0; r < REPS; r++)); do
		qs+=("$(run_submit "$np")")
		[[ $POLICIES != open,open,open ]] || ms+=("$(run_mpirun "$np")")
	done
	q=$(printf '%s\n' "${qs[@]}" | median)
	if ((${#ms[@]})); then
		m=$(printf '%s\n' "${ms[@]}" | median)
		printf '%-6s %-28s %-28s %.2f\n' "$np" "$q (${qs[*]})" "$m (${ms[*]})" \
			"$(echo "$q / $m" | bc -l)"
	else
		printf '%-6s %-28s %-28s -\n' "$np" "$q (${qs[*]})" "-"
	fi
done

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
set -euo pipefail
B=$(realpath "${1:-.}")
S=$(cd "$(dirname "$0")/../.." && pwd)
QTB=$S/deploy/qcg-testbed
REPS=${REPS:-5}
POLICIES=${POLICIES:-open,open,open}
PROG=$B/bench/launch/init-time
TB=/var/tmp/qcg-tb-launch-bench
for p in "$PROG" "$B/launcher/qcg-submit" "$B/services/broker/qcg-broker"; do
	[[ -x $p ]] || { echo "run.sh: $p is not built" >&2; exit 1; }
done
export QCG_TESTBED_BIN=$B

exec 8>/run/qcg-testbed-tests.lock
flock -w 900 8 || { echo "run.sh: the testbed lock stayed busy" >&2; exit 1; }
trap '"$QTB" --dir "$TB" down >/dev/null 2>&1 8>&-' EXIT
"$QTB" --dir "$TB" up --sites 3 --nodes 2 --policies "$POLICIES" --frontend-proxy --wan-delay 2 \
	8>&- >/dev/null
# shellcheck source=/dev/null
. "$TB/env"
OUT=$TB/run/bench
mkdir -p "$OUT"
on_user() {
	# mpirun forwards OMPI_MCA_* to every rank: ranks done with MPI_Init yield the CPU.
	"$QTB" --dir "$TB" exec user -- env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
		OMPI_MCA_mpi_yield_when_idle=1 QCG_NODE_HELPER_SOCKET="$TB/run/helper-%h.sock" timeout 120 "$@" 8>&-
}

# Seconds from $1 (date +%s.%N) to the latest "init" line of file $2 with $3 lines expected.
last_init() {
	awk -v t0="$1" -v n="$3" '$1 == "init" { c++; if ($4 > m) m = $4 }
		END { if (c != n) exit 1; printf "%.3f\n", m - t0 }' "$2"
}

run_submit() {
	local np=$1 per=$(($1 / 6)) f=$OUT/job-$1.qcg t0
	printf '#QCG name=bench%s\n#QCG executable=%s\n' "$np" "$PROG" >"$f"
	printf '#QCG host=%s\n#QCG nodes=2:4:%s\n' a "$per" b "$per" c "$per" >>"$f"
	t0=$(date +%s.%N)
	on_user "$B/launcher/qcg-submit" "$f" >"$OUT/out" 2>&1 || { cat "$OUT/out" >&2; return 1; }
	last_init "$t0" "$OUT/out" "$np"
}

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

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

printf 'testbed: 3 sites (%s) x 2 nodes x 4 slots, WAN delay 2 ms; %s runs each; load %s\n' \
	"$POLICIES" "$REPS" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %-28s %-28s %s\n' ranks "qcg-submit median (runs) s" "mpirun median (runs) s" ratio
for np in 6 12 24; do
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

#!/bin/bash
# pingpong.sh [BUILD-DIR]: small-message latency between two ranks of one site, started by
# qcg-submit against plain mpirun on the same nodes (issue #19 part 1: qcg-submit's rankfile
# had pinned every rank to CPU 0). One open site of 2 nodes x 4 slots on a testbed (WAN delay
# 2 ms, services on), launcher on host user. Two pairs:
#   nodes   one rank on a1, one on a2 (TCP between the namespaces)
#   node    both ranks on a1 (shared memory, vader)
# and three launchers, alternated REPS times on the same testbed:
#   qcg-submit        the whole launcher, default binding (none), libqcgnet preloaded
#   mpirun            plain Open MPI, --bind-to none, orted by `qcg-testbed rsh`
#   mpirun slot=*     the same with the rankfile qcg-submit used to write ("rank N=HOST slot=*"),
#                     i.e. what qcg-submit gave before
# The program is bench/net/net_bench pingpong: latency = half the median 1-byte round trip of
# ITERS. Reported: the median latency over REPS per launcher and pair, the ratio qcg-submit /
# mpirun. Not a test; holds the testbed lock; its testbed is always brought down.
set -euo pipefail
B=$(realpath "${1:-.}")
S=$(cd "$(dirname "$0")/../.." && pwd)
QTB=$S/deploy/qcg-testbed
REPS=${REPS:-5}
ITERS=${ITERS:-2000}
PROG=$B/bench/net/net_bench
TB=/var/tmp/qcg-tb-pingpong-bench
for p in "$PROG" "$B/launcher/qcg-submit" "$B/services/broker/qcg-broker"; do
	[[ -x $p ]] || { echo "pingpong.sh: $p is not built" >&2; exit 1; }
done
export QCG_TESTBED_BIN=$B

exec 8>/run/qcg-testbed-tests.lock
flock -w 900 8 || { echo "pingpong.sh: the testbed lock stayed busy" >&2; exit 1; }
trap '"$QTB" --dir "$TB" down >/dev/null 2>&1 8>&-' EXIT
"$QTB" --dir "$TB" up --sites 1 --nodes 2 --policies open --wan-delay 2 8>&- >/dev/null
# shellcheck source=/dev/null
. "$TB/env"
OUT=$TB/run/bench
mkdir -p "$OUT"
on_user() {
	"$QTB" --dir "$TB" exec user -- env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
		QCG_NODE_HELPER_SOCKET="$TB/run/helper-%h.sock" timeout 120 "$@" 8>&-
}

# The latency (us) of the run whose output is $1.
lat_of() { sed -n 's/^pingpong .* lat_us=\([0-9.]*\) .*/\1/p' "$1" | grep . || { cat "$1" >&2; return 1; }; }

# nodes: 2 nodes x 1 rank; node: 1 node x 2 ranks.
run_submit() {
	local f=$OUT/pp-$1.qcg
	printf '#QCG name=pingpong\n#QCG executable=%s\n#QCG argument=pingpong\n' "$PROG" >"$f"
	printf '#QCG argument=%s\n' "$ITERS" 1024 2 >>"$f"
	if [[ $1 == nodes ]]; then printf '#QCG host=a\n#QCG nodes=2:1\n'; else
		printf '#QCG host=a\n#QCG nodes=1:2\n'; fi >>"$f"
	on_user "$B/launcher/qcg-submit" "$f" >"$OUT/out" 2>&1 || { cat "$OUT/out" >&2; return 1; }
	lat_of "$OUT/out"
}

run_mpirun() {
	local hosts=a1:1,a2:1 place
	[[ $1 == nodes ]] || hosts=a1:2
	if [[ $2 == rankfile ]]; then
		if [[ $1 == nodes ]]; then printf 'rank 0=a1 slot=*\nrank 1=a2 slot=*\n'; else
			printf 'rank 0=a1 slot=*\nrank 1=a1 slot=*\n'; fi >"$OUT/rankfile"
		place=(--rankfile "$OUT/rankfile")
	else
		place=(--host "$hosts")
	fi
	on_user mpirun --allow-run-as-root -np 2 "${place[@]}" --bind-to none \
		--mca plm_rsh_agent "$QTB rsh --dir $TB" --mca plm_rsh_no_tree_spawn 1 \
		--mca pml ob1 --mca btl self,vader,tcp "$PROG" pingpong "$ITERS" 1024 2 >"$OUT/out" 2>&1 ||
		{ cat "$OUT/out" >&2; return 1; }
	lat_of "$OUT/out"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

printf 'testbed: 1 open site x 2 nodes x 4 slots, WAN delay 2 ms; %s runs each, %s round trips a run; load %s\n' \
	"$REPS" "$ITERS" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %-30s %-30s %-30s %s\n' pair "qcg-submit us: median (runs)" \
	"mpirun us: median (runs)" "mpirun slot=* us: median (runs)" "qcg-submit/mpirun"
for pair in nodes node; do
	qs=() ms=() rs=()
	for ((r = 0; r < REPS; r++)); do
		qs+=("$(run_submit "$pair")")
		ms+=("$(run_mpirun "$pair" host)")
		rs+=("$(run_mpirun "$pair" rankfile)")
	done
	q=$(printf '%s\n' "${qs[@]}" | median)
	m=$(printf '%s\n' "${ms[@]}" | median)
	k=$(printf '%s\n' "${rs[@]}" | median)
	printf '%-6s %-30s %-30s %-30s %.2f\n' "$pair" "$q (${qs[*]})" "$m (${ms[*]})" \
		"$k (${rs[*]})" "$(echo "$q / $m" | bc -l)"
done

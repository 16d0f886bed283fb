# common.sh: what the launch benchmarks (run.sh, slurm.sh) share. Sourced by them after
# `set -euo pipefail`, with the build directory as its argument; it sets
#   B, S, QTB    the build tree, the source tree, deploy/qcg-testbed
#   REPS         runs per figure (environment, default 5)
#   PROG         bench/launch/init-time, which prints each rank's wall clock after MPI_Init
# and gives
#   bench_need NAME PATH...   exit naming NAME's missing program unless every PATH is built
#   bench_up NAME TB ARGS...  take the testbed lock, bring up testbed TB with ARGS (always
#                             brought down at exit), source its env; OUT is TB's bench folder
#   on_user CMD...            CMD on host user with the job environment (and LAUNCH_ENV)
#   last_init T0 FILE N       seconds from T0 to the latest of FILE's N "init" lines
#   median                    the median of the numbers on stdin
#   run_submit N              seconds qcg-submit takes to start N ranks (a multiple of 6) on
#                             run.sh's testbed of 3 sites x 2 nodes, N/6 per node
B=$(realpath "${1:-.}")
S=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
QTB=$S/deploy/qcg-testbed
REPS=${REPS:-5}
PROG=$B/bench/launch/init-time
export QCG_TESTBED_BIN=$B

bench_need() {
	local name=$1 p
	shift
	for p in "$@"; do
		[[ -x $p ]] || { echo "$name: $p is not built" >&2; exit 1; }
	done
}

bench_up() {
	local name=$1
	TB=$2
	shift 2
	exec 8>/run/qcg-testbed-tests.lock
	flock -w 900 8 || { echo "$name: the testbed lock stayed busy" >&2; exit 1; }
	# KEEP_OUT=DIR: the jobs' outputs (descriptions, qcg-submit's output, staged-back files) are
	# copied there before the testbed goes
	trap '[[ -z ${KEEP_OUT:-} ]] || cp -r "$OUT/." "$KEEP_OUT/"; "$QTB" --dir "$TB" down >/dev/null 2>&1 8>&-' EXIT
	"$QTB" --dir "$TB" up "$@" 8>&- >/dev/null
	# shellcheck source=/dev/null
	. "$TB/env"
	OUT=$TB/run/bench
	mkdir -p "$OUT"
}

on_user() {
	# mpirun forwards OMPI_MCA_* to every rank: ranks done with MPI_Init yield the CPU.
	# LAUNCH_ENV: more VAR=VALUE words for every launcher alike (e.g. OMPI_MCA_coll=^qcg, to
	# measure without coll/qcg's link probe in MPI_Init).
	# shellcheck disable=SC2086 # words on purpose
	"$QTB" --dir "$TB" exec user -- env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
		OMPI_MCA_mpi_yield_when_idle=1 QCG_NODE_HELPER_SOCKET="$TB/run/helper-%h.sock" \
		${LAUNCH_ENV:-} timeout 120 "$@" 8>&-
}

last_init() {
	awk -v t0="$1" -v n="$3" '$1 == "init" { c++; if ($4 > m) m = $4 }
		END { if (c != n) exit 1; printf "%.3f\n", m - t0 }' "$2"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

run_submit() {
	local np=$1 per=$(($1 / 6)) f=$OUT/job-$1.qcg t0
	printf '#QCG name=bench%s\n#QCG executable=%s\n' "$np" "$PROG" >"$f"
	printf '#QCG host=%s\n#QCG nodes=2:4:%s\n' a "$per" b "$per" c "$per" >>"$f"
	t0=$(date +%s.%N)
	on_user "$B/launcher/qcg-submit" "$f" >"$OUT/out" 2>&1 || { cat "$OUT/out" >&2; return 1; }
	last_init "$t0" "$OUT/out" "$np"
}

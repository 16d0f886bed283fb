#!/bin/bash
# slurm.sh [BUILD-DIR]: co-allocation through Slurm against the builtin allocator (issue 16).
# One testbed of 4 open sites x 2 nodes x 4 slots (WAN delay 2 ms, services on); sites a and
# b allocate from their builtin [nodes] lists, c and d through a real Slurm (`up --slurm c,d`).
# Two jobs of the same shape, alternated REPS times, from host user:
#   builtin   init-time on a and b, 2 nodes x 2 ranks each (8 ranks)
#   slurm     init-time on c and d, the same (Reserve = salloc --no-shell, orted = srun step)
# Time: from just before qcg-submit starts to the last rank's return from MPI_Init (the
# namespaces share the clock; bench/launch/init-time prints it). Reported: the median per
# allocator over the runs that succeeded, every run, and the ratio slurm / builtin. Not a test; holds the testbed lock;
# its testbed is always brought down. Run it under the heavy lock:
#   flock /tmp/qcg-heavy.lock bench/launch/slurm.sh BUILD-DIR
# What it prints is kept in bench/launch/results/slurm-UTCDATE.txt (RESULTS=FILE names another).
set -euo pipefail
# shellcheck source=bench/launch/common.sh
. "$(dirname "$0")/common.sh" "${1:-.}"
RESULTS=${RESULTS:-$S/bench/launch/results/slurm-$(date -u +%Y%m%d-%H%M).txt}
mkdir -p "$(dirname "$RESULTS")"
exec > >(tee "$RESULTS")
bench_need slurm.sh "$PROG" "$B/launcher/qcg-submit" "$B/services/broker/qcg-broker"
command -v slurmctld >/dev/null || { echo "slurm.sh: Slurm is not installed" >&2; exit 1; }
bench_up slurm.sh /var/tmp/qcg-tb-slurm-bench --sites 4 --nodes 2 --policies open --proxies 1 \
	--wan-delay 2 --slurm c,d

# The job on sites $2 and $3, named $1; prints its co-allocation-to-MPI_Init time.
run_job() {
	local f=$OUT/$1.qcg t0
	printf '#QCG name=%s\n#QCG executable=%s\n' "$1" "$PROG" >"$f"
	printf '#QCG host=%s\n#QCG nodes=2:2\n' "$2" "$3" >>"$f"
	t0=$(date +%s.%N)
	# A failed run (on this shared machine: a start-up timeout under load) is reported as
	# "failed" with its output, and left out of the median, rather than ending the benchmark.
	if ! on_user "$B/launcher/qcg-submit" "$f" >"$OUT/out" 2>&1; then
		tail -n 3 "$OUT/out" >&2
		echo failed
		return 0
	fi
	last_init "$t0" "$OUT/out" 8
}

printf 'bench/launch/slurm.sh, %s\n' "$(date -u +%FT%TZ)"
printf 'testbed: 4 open sites x 2 nodes x 4 slots (a, b builtin; c, d Slurm), WAN delay 2 ms;\n'
printf '8 ranks on 2 sites, %s runs each, alternated; load %s\n' "$REPS" "$(cut -d' ' -f1-3 /proc/loadavg)"
bs=() ss=()
for ((r = 0; r < REPS; r++)); do
	bs+=("$(run_job builtin a b)")
	ss+=("$(run_job slurm c d)")
done
b=$(printf '%s\n' "${bs[@]}" | grep -v failed | median)
s=$(printf '%s\n' "${ss[@]}" | grep -v failed | median)
printf '%-8s %-40s\n' allocator "submit to last MPI_Init: median (runs) s"
printf '%-8s %-40s\n' builtin "$b (${bs[*]})" slurm "$s (${ss[*]})"
printf 'ratio slurm / builtin: %.2f\n' "$(echo "$s / $b" | bc -l)"

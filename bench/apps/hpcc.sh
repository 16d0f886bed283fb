#!/bin/bash
# hpcc.sh [BUILD-DIR]: an application, not a micro-benchmark (issue 20). HPC Challenge (Debian's
# hpcc, built against Open MPI) through qcg-submit on the testbed's open, nat and closed sites
# (a, b, c; 2 nodes each, one rank per node: HPL's grid is 2 x 3), the user host a workstation
# and the hosts sharing no files; mpirun runs inside the job. The same job twice per round,
# alternated: "qcg" (coll/qcg selects itself on communicators that span clusters; its verbose
# line proves it on every rank) and "tuned" (coll/qcg excluded: Open MPI's default). The input
# file is staged in and hpcc's output staged back. Each run must pass hpcc's own checks (HPL's
# residual, PTRANS's residual, MPIFFT's error, RandomAccess's error fraction) or the bench fails.
# Prints a table: hpcc's figures per variant (median over REPS rounds, default 1) and qcg/tuned.
#   WAN_DELAY=5 REPS=1 bench/apps/hpcc.sh     # from the build tree, after make
# APP_ENV="K=V ..." adds environment to both variants' jobs; KEEP_OUT=DIR keeps the jobs' outputs.
# Takes /tmp/qcg-heavy.lock (the machine is shared) unless QCG_HEAVY_LOCKED=1, and the testbed
# lock; its testbed is always brought down.
set -euo pipefail
if [ "${QCG_HEAVY_LOCKED:-0}" != 1 ]; then
	exec env QCG_HEAVY_LOCKED=1 flock /tmp/qcg-heavy.lock "$0" "$@"
fi
# shellcheck source=bench/launch/common.sh
. "$(dirname "$0")/../launch/common.sh" "${1:-.}"
# shellcheck source=bench/apps/lib.sh
. "$(dirname "$0")/lib.sh"
HPCC=${HPCC:-/usr/bin/hpcc}
[[ -x $HPCC ]] || { echo "hpcc.sh: no $HPCC (apt-get install hpcc; deploy/install-deps does)" >&2; exit 1; }
bench_need hpcc.sh "$B/launcher/qcg-submit" "$B/services/broker/qcg-broker"
REPS=${REPS:-1}
WAN_DELAY=${WAN_DELAY:-5}
HERE=$(cd "$(dirname "$0")" && pwd)
echo "hpcc.sh: $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg), WAN ${WAN_DELAY} ms, $REPS round(s)"
bench_up hpcc.sh /var/tmp/qcg-tb-hpcc --sites 3 --nodes 2 --policies open,nat,closed \
	--frontend-proxy --wan-delay "$WAN_DELAY" --workstation --separate-fs
cp "$HERE/hpccinf.txt" "$OUT/hpccinf.txt"

# job VARIANT ROUND: the description (DIR is seen by every host, user included).
job() {
	local f=$OUT/hpcc-$1-$2.qcg env
	env=$(app_variant_env "$1")
	{
		printf '#QCG name=hpcc-%s-%s\n#QCG executable=%s\n#QCG walltime=PT30M\n' "$1" "$2" "$HPCC"
		printf '#QCG environment=%s\n' "$env"
		# APP_ENV="K=V ...": more environment for both variants (an experiment's MCA
		# parameters, e.g. OMPI_MCA_mpi_preconnect_mpi=1)
		for e in ${APP_ENV:-}; do printf '#QCG environment=%s\n' "$e"; done
		printf '#QCG stage-in-file=%s -> hpccinf.txt\n' "$OUT/hpccinf.txt"
		printf '#QCG stage-out-file=hpccoutf.txt -> %s\n' "$OUT/hpccoutf-$1-$2.txt"
		printf '#QCG host=%s\n#QCG nodes=2:1\n' a b c
	} >"$f"
	echo "$f"
}

# summary KEY FILE: hpcc's summary value of KEY.
summary() { sed -n "s/^$1=//p" "$2" | head -n 1; }

# run VARIANT ROUND: submit from user, check hpcc's own verdicts, print "VARIANT wall figures...".
run() {
	local v=$1 r=$2 f out t0 t1 o
	f=$(job "$v" "$r")
	out=$OUT/submit-$v-$r.out
	t0=$(date +%s.%N)
	app_submit hpcc.sh "$v" "$r" "$f" "$out" || return 1
	t1=$(date +%s.%N)
	o=$OUT/hpccoutf-$v-$r.txt
	[[ -s $o ]] || { echo "hpcc.sh: $v round $r: no hpccoutf.txt came back" >&2; return 1; }
	grep -q 'PASSED' "$o" && ! grep -q 'FAILED' "$o" ||
		{ echo "hpcc.sh: $v round $r: HPL's residual check did not pass" >&2; return 1; }
	awk -v p="$(summary PTRANS_residual "$o")" -v e="$(summary MPIFFT_maxErr "$o")" \
		-v r="$(summary MPIRandomAccess_ErrorsFraction "$o")" \
		'BEGIN { exit !(p != "" && p + 0 < 1e-6 && e != "" && e + 0 < 1e-8 && r != "" && r + 0 <= 0.01) }' ||
		{ echo "hpcc.sh: $v round $r: a residual is out of bounds" >&2; return 1; }
	printf '%s %.1f' "$v" "$(echo "$t1 - $t0" | bc)"
	local k
	for k in HPL_Tflops PTRANS_GBs MPIFFT_Gflops MPIRandomAccess_GUPs \
		RandomlyOrderedRingLatency_usec RandomlyOrderedRingBandwidth_GBytes; do
		printf ' %s' "$(summary "$k" "$o")"
	done
	printf '\n'
}

rows=$OUT/rows
: >"$rows"
for ((r = 1; r <= REPS; r++)); do
	for v in qcg tuned; do
		run "$v" "$r" | tee -a "$rows"
	done
done
# Every figure but the wall time and the latency is "more is better".
awk '
function med(v, k,   n, i, j, t, a) {
	n = cnt[v]; for (i = 1; i <= n; i++) a[i] = val[v, k, i]
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ c = ++cnt[$1]; for (k = 2; k <= NF; k++) val[$1, k, c] = $k }
END {
	split("wall_s HPL_Gflops PTRANS_GBs MPIFFT_Gflops MPIRandomAccess_GUPs RingLatency_us RingBandwidth_GBs", name, " ")
	printf "| figure | qcg | tuned | qcg/tuned |\n|---|---|---|---|\n"
	for (k = 2; k <= 8; k++) {
		q = med("qcg", k); t = med("tuned", k)
		if (k == 3) { q *= 1000; t *= 1000 }
		printf "| %s | %.4g | %.4g | %.2f |\n", name[k - 1], q, t, (t > 0) ? q / t : 0
	}
}' "$rows"
echo "hpcc.sh: done, load $(cut -d' ' -f1-3 /proc/loadavg)"

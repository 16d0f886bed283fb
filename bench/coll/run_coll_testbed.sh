#!/bin/bash
# run_coll_testbed.sh: the collectives benchmark on the network-namespace testbed (issue 7):
# 3 open sites x 2 nodes x 2 ranks, 5 ms one-way WAN delay, qcg (topology discovered, no file)
# vs tuned vs han (priority 100) vs the lower bound, in one job. Root only. Not part of make
# check: it takes a few minutes.
#
#   bench/coll/run_coll_testbed.sh [-r REPETITIONS] [-o OUTDIR] [-c COLL,COLL...]
#       [-d WAN_DELAY_MS] [-C CLUSTERS_PER_SITE -S SITE_DELAY_MS] [-- extra mpirun args]
#   (run from the build directory; -c keeps only those collectives; -d the one-way WAN delay,
#   default 5, e.g. 0.2 for a metro grid; -C 2 -S 0.5: 2 sites of 2 clusters each, 0.5 ms
#   apart inside a site (qcg-testbed up --clusters-per-site), 2 nodes per cluster)
#   REPETITIONS: timed calls per root and setting, the fastest kept (default 3; README.md says
#   why); each line of the table is printed as soon as it is measured (OUTDIR/coll_bench.log).
#   About 25 minutes with the default on this machine.
#
# The testbed's 6 nodes share this machine's cores but each claims 2 slots, so Open MPI does
# not see the oversubscription and would let waiting ranks spin on the CPU the ranks with work
# need: mpi_yield_when_idle makes them yield (the same for all three communicators).
#
# Brings up its own testbed in a fresh directory and always takes it down; holds the testbed
# tests' lock meanwhile, so that no testbed test shares the CPUs with the measurement. Writes
# OUTDIR/coll_bench.txt (the table), OUTDIR/coll_bench.log (the whole output) and, when gnuplot
# is installed, OUTDIR/coll_bench.png (ratios to the bound).
set -euo pipefail
top_builddir=${top_builddir:-$(pwd)}
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
reps=3 outdir=$(pwd)/coll-bench-out only=bcast,reduce,allreduce,barrier,gather,scatter,allgather,alltoall
delay=5 clusters_per_site=1 site_delay=0.5
while getopts r:o:c:d:C:S: opt; do
	case $opt in
	r) reps=$OPTARG ;;
	o) outdir=$OPTARG ;;
	c) only=$OPTARG ;;
	d) delay=$OPTARG ;;
	C) clusters_per_site=$OPTARG ;;
	S) site_delay=$OPTARG ;;
	*) echo "usage: $0 [-r REPETITIONS] [-o OUTDIR] [-c COLL,COLL...] [-d WAN_DELAY_MS]" \
	    "[-- extra mpirun args]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[[ ${1:-} == -- ]] && shift
[[ $delay =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "$0: -d wants milliseconds, e.g. 0.2" >&2; exit 2; }
[[ $clusters_per_site =~ ^[1-4]$ ]] || { echo "$0: -C wants 1 to 4 clusters per site" >&2; exit 2; }
# One cluster per site: 3 sites. Several: 2 sites of them; coll_bench then sees each site's
# clusters as its nodes (its lower bound has WAN, LAN and node hops only: timing the site
# network as the LAN would only lower it, so it stays a bound).
if ((clusters_per_site == 1)); then readonly SITES=3; else readonly SITES=2; fi
readonly NODES=2 PER_NODE=2 DELAY_MS=$delay MPI_TIMEOUT=2700
readonly LOCK=/run/qcg-testbed-tests.lock LOCK_WAIT=900
[[ $EUID == 0 ]] || { echo "$0: needs root (network namespaces)" >&2; exit 1; }
bench=$top_builddir/bench/coll/coll_bench
so=$top_builddir/mpi-glue/coll/.libs/mca_coll_qcg.so
QTB=$top_srcdir/deploy/qcg-testbed
for f in "$bench" "$so" "$QTB" "$top_builddir/deploy/qcg-delayline"; do
	[[ -e $f ]] || { echo "$0: $f is missing (run make in $top_builddir)" >&2; exit 1; }
done
mkdir -p "$outdir"
exec 8>"$LOCK"
flock -w "$LOCK_WAIT" 8 || { echo "$0: $LOCK held for ${LOCK_WAIT}s by a testbed test" >&2; exit 1; }
tbdir=$(mktemp -d /tmp/qcg-coll-bench-tb.XXXXXX)
export QCG_TESTBED_BIN=$top_builddir
tb() { "$QTB" --dir "$tbdir" "$@" 8>&-; }
cleanup() { tb down >/dev/null || true; rm -rf "$tbdir"; }
trap cleanup EXIT
tb up --no-services --sites "$SITES" --nodes "$NODES" --policies open --proxies 0 \
    --wan-delay "$DELAY_MS" --clusters-per-site "$clusters_per_site" --site-delay "$site_delay"
mkdir "$tbdir/components"
ln -s "$so" "$tbdir/components/"
pkglibdir=$(ompi_info --path pkglibdir --parsable | sed -n 's/^path:pkglibdir://p')
hosts=
for s in $(tb hosts | awk -F'\t' '$2 == "gw" { print $3 }'); do
	for ((n = 1; n <= NODES; n++)); do hosts+="$s$n:$PER_NODE,"; done
done
readonly CLUSTERS=$((SITES * clusters_per_site))
log=$outdir/coll_bench.log
tb exec a1 -- env -u QCG_TOPOLOGY_COLORS -u QCG_TOPOLOGY_FILE \
    -u OMPI_MCA_coll_qcg_topology_file OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    timeout "$MPI_TIMEOUT" mpirun --oversubscribe -np $((CLUSTERS * NODES * PER_NODE)) \
    --host "${hosts%,}" --mca plm_rsh_agent "$QTB rsh --dir $tbdir" --mca pml ob1 \
    --mca btl self,vader,tcp --mca mca_base_component_path "$tbdir/components:$pkglibdir" \
    --mca coll_han_priority 100 --mca coll_base_verbose 9 --mca coll_qcg_verbose 10 \
    --mca mpi_yield_when_idle 1 "$@" \
    "$bench" "$SITES" $((NODES * clusters_per_site)) "$PER_NODE" "$reps" "$only" >"$log" 2>&1 ||
	{ tail -40 "$log"; echo "$0: the benchmark failed (log: $log)" >&2; exit 1; }
table=$outdir/coll_bench.txt
{
	echo "# coll_bench on the testbed: $SITES sites x $clusters_per_site clusters x $NODES nodes" \
	    "x $PER_NODE ranks, ${DELAY_MS} ms one-way WAN delay$( ((clusters_per_site > 1)) &&
	    echo ", ${site_delay} ms between the clusters of a site"), per-call latency, $reps repetition(s)," \
	    "$(date -u '+%F %H:%M') UTC"
	# no discovery lines when a topology is given (sed, not grep: pipefail)
	sed -n '/coll:qcg: discovery: [0-9]* ranks/s/^.*coll:qcg: /# /p' "$log"
	sed -n '/coll:qcg: discovery: rank 0: /s/^.*coll:qcg: /# /p' "$log"
	# none when every collective's algorithm is forced (the probe runs only for a choice)
	sed -n '/coll:qcg: links: /s/^.*coll:qcg: /# /p' "$log"
	# what qcg chose per collective and size class on MPI_COMM_WORLD's duplicates, and why
	# (none from a build before issue 22: sed again)
	sed -n '/coll:qcg: choice: /s/^.*coll:qcg: /# /p' "$log"
	[[ $# -gt 0 ]] && echo "# extra mpirun arguments: $*"
	echo "# qcg selected on $(grep -c 'coll:qcg: .*selected:' "$log") (rank, communicator)" \
	    "pairs; han enabled on $(grep -c 'selecting \+han, priority \+[0-9]*, Enabled' "$log")"
	grep -v 'coll:\|disqualifying myself\|^\[' "$log"
} >"$table"
cat "$table"
if ((clusters_per_site == 1)); then
	layout="$SITES sites x $NODES nodes x $PER_NODE ranks"
else
	layout="$SITES sites x $clusters_per_site clusters x $NODES nodes x $PER_NODE ranks, site network $site_delay ms"
fi
if command -v gnuplot >/dev/null; then
	awk '!/^#/ && NR > 1 && $1 != "coll" { printf "%s-%s %s %s %s\n", $1, $2, $9, $10, $11 }' \
	    "$table" >"$tbdir/ratios.dat"
	gnuplot <<-EOF
		set terminal png size 1100,500 noenhanced
		set output "$outdir/coll_bench.png"
		set style data histograms
		set style fill solid border -1
		set logscale y
		set ylabel "time / lower bound"
		set xtics rotate by -45
		set title "coll_bench: $layout, $DELAY_MS ms WAN"
		plot "$tbdir/ratios.dat" using 2:xtic(1) title "qcg", '' using 3 title "tuned", \
		    '' using 4 title "han"
	EOF
	echo "plot: $outdir/coll_bench.png"
fi

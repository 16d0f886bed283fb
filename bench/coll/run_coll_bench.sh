#!/bin/sh
# run_coll_bench.sh: qcg vs tuned vs han on one job (bench/coll/coll_bench), with the uninstalled
# component from the build tree and a synthetic topology.
#
#   bench/coll/run_coll_bench.sh [-n NP] [-t TOPOLOGY_FILE] [-r REPETITIONS] [-c COLL,COLL...]
#       [-- extra mpirun args]           (-c keeps only those collectives)
#   (REPETITIONS: timed calls per root and setting, the fastest kept; see README.md)
#
# Run from the build directory (or set top_builddir). Default: 8 ranks on loopback, 2 sites x
# 2 nodes. On loopback every "site" is the same host: there is no WAN to save, so the ratios
# measure qcg's overhead, not its benefit; the real numbers come from the network-namespace
# testbed (DESIGN.md section 6). han steps aside on single-host communicators, so on loopback its
# column is tuned again; the script says so when it sees it.
set -eu
top_builddir=${top_builddir:-$(pwd)}
np=8 topo= rounds=3 only=bcast,reduce,allreduce,barrier,gather,scatter,allgather,alltoall
while getopts n:t:r:c: opt; do
	case $opt in
	n) np=$OPTARG ;;
	t) topo=$OPTARG ;;
	r) rounds=$OPTARG ;;
	c) only=$OPTARG ;;
	*) echo "usage: $0 [-n NP] [-t TOPOLOGY_FILE] [-r REPETITIONS] [-c COLL,...] [-- mpirun args]" >&2
	   exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift
bench=$top_builddir/bench/coll/coll_bench
so=$top_builddir/mpi-glue/coll/.libs/mca_coll_qcg.so
for f in "$bench" "$so"; do
	[ -e "$f" ] || { echo "$0: $f is not built (run make in $top_builddir)" >&2; exit 1; }
done
work=$(mktemp -d /tmp/qcg-coll-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir "$work/components"
ln -s "$so" "$work/components/"
if [ $((np % 4)) -ne 0 ] || [ "$np" -lt 8 ]; then
	echo "$0: -n must be a multiple of 4, at least 8 (2 sites x 2 nodes x 2+ ranks)" >&2
	exit 2
fi
if [ -z "$topo" ]; then
	topo=$work/topology
	# 2 sites x 2 nodes, ranks spread evenly (np must be a multiple of 4 for equal nodes)
	r=0
	while [ "$r" -lt "$np" ]; do
		echo "$r $((r * 2 / np)) 0 $((r * 4 / np % 2))"
		r=$((r + 1))
	done >"$topo"
fi
pkglibdir=$(ompi_info --path pkglibdir --parsable | sed -n 's/^path:pkglibdir://p')
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
timeout 1200 mpirun -np "$np" --oversubscribe --mca btl self,vader,tcp \
    --mca mca_base_component_path "$work/components:$pkglibdir" \
    --mca coll_qcg_topology_file "$topo" --mca coll_han_priority 100 \
    --mca coll_base_verbose 9 --mca coll_qcg_verbose 10 "$@" \
    "$bench" 2 2 $((np / 4)) "$rounds" "$only" >"$work/out" 2>&1 || { cat "$work/out"; exit 1; }
echo "# coll_bench: $np ranks, topology $(tr '\n' ';' <"$topo" | cut -c1-120)"
echo "# qcg selected on $(grep -c 'coll:qcg: .*selected:' "$work/out") (rank, communicator) pairs;" \
    "han enabled on $(grep -c 'selecting \+han, priority \+[0-9]*, Enabled' "$work/out")"
if ! grep -q 'selecting \+han, priority \+[0-9]*, Enabled' "$work/out"; then
	echo "# han was not selected (it steps aside when all ranks share one host): the han column is tuned"
fi
echo "# LOOPBACK unless run on the testbed: no WAN, ratios show qcg's overhead, not its benefit"
# the links qcg measured and, per communicator, collective and size class, its choice
grep 'coll:qcg: links: ' "$work/out" | sed 's/^.*coll:qcg: /# /'
grep 'coll:qcg: choice: ' "$work/out" | sed 's/^.*coll:qcg: /# /'
grep -v 'coll:\|disqualifying myself' "$work/out"

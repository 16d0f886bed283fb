#!/bin/bash
# mcast_run.sh: bcast time vs number of processes for the multicast broadcast (coll_qcg_mcast=on)
# against Open MPI's tuned bcast and qcg's own tree (coll_qcg_mcast=off), on one job, in a
# network namespace of its own (unshare -n: loopback with multicast, 239.0.0.0/8 routed there),
# so no datagram leaves it. Prints one table with the ratios.
#
#   bench/coll/mcast_run.sh [-p "2 4 8 12"] [-s "8 4096 65536"] [-i ITERATIONS] [-r ROUNDS]
#       [-- extra mpirun args]
#
# P processes form the multicast cluster (one per "node" of a synthetic topology); one more
# process is a second site, without which qcg steps aside (it never selects itself inside one
# cluster): a job of P+1 ranks, all on this host, oversubscribed. Rounds run the three
# components in turn (interleaved, so a busy moment hits all three) and the table shows each
# figure's median over the rounds (see mcast_bench.c for what each sample is).
# Run from the build directory (or set top_builddir); needs root for the namespace.
set -eu
top_builddir=${top_builddir:-$(pwd)}
procs="2 4 8 12" sizes="8 4096 65536" iters=200 rounds=3
while getopts p:s:i:r: opt; do
	case $opt in
	p) procs=$OPTARG ;;
	s) sizes=$OPTARG ;;
	i) iters=$OPTARG ;;
	r) rounds=$OPTARG ;;
	*) echo "usage: $0 [-p PROCS] [-s SIZES] [-i ITERATIONS] [-r ROUNDS] [-- mpirun args]" >&2
	   exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift
if [ "$(id -u)" != 0 ]; then
	echo "$0: needs root for its own network namespace (unshare -n)" >&2
	exit 2
fi
if [ "${QCG_MCAST_IN_NETNS:-}" != 1 ]; then
	QCG_MCAST_IN_NETNS=1 exec unshare -n -- bash "$0" -p "$procs" -s "$sizes" -i "$iters" \
	    -r "$rounds" -- "$@"
fi
ip link set lo up multicast on
ip route add 239.0.0.0/8 dev lo
bench=$top_builddir/bench/coll/mcast_bench
so=$top_builddir/mpi-glue/coll/.libs/mca_coll_qcg.so
for f in "$bench" "$so"; do
	[ -e "$f" ] || { echo "$0: $f is not built (run make in $top_builddir)" >&2; exit 1; }
done
work=$(mktemp -d /tmp/qcg-mcast-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir "$work/components"
ln -s "$so" "$work/components/"
pkglib=$(ompi_info --path pkglibdir --parsable | sed -n 's/^path:pkglibdir://p')
export OMPI_MCA_mca_base_component_path="$work/components:$pkglib"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

declare -A mode_args=(
	[tuned]="--mca coll_qcg_priority 0"
	[tree]="--mca coll_qcg_mcast off"
	[mcast]="--mca coll_qcg_mcast on --mca coll_qcg_mcast_max_bytes 1048576 --mca coll_qcg_verbose 10"
)
for p in $procs; do
	topo=$work/topo-$p
	: >"$topo"
	for r in $(seq 0 $((p - 1))); do echo "$r 0 0 $r" >>"$topo"; done
	echo "$p 1 1 $p" >>"$topo"
	for round in $(seq 1 "$rounds"); do
		for mode in tuned tree mcast; do
			out=$work/$mode-$p-$round.out
			# shellcheck disable=SC2086 # the mode's words
			timeout 600 mpirun -np $((p + 1)) --oversubscribe --mca btl self,vader,tcp \
			    --mca coll_qcg_topology_file "$topo" ${mode_args[$mode]} "$@" \
			    "$bench" "$iters" $sizes >"$out" 2>&1 ||
			    { echo "$0: $mode with $p failed:"; tail -20 "$out"; exit 1; }
		done
		# the multicast runs must really have multicast: their counters say so
		mc=$(sed -n 's/.*mcast: [0-9]* broadcasts: \([0-9]*\) fragments by multicast.*/\1/p' \
		    "$work/mcast-$p-$round.out" | awk '{ s += $1 } END { print s + 0 }')
		[ "$p" -lt 2 ] || [ "$mc" -gt 0 ] ||
		    { echo "$0: no fragment went by multicast with $p processes"; exit 1; }
		echo "$p processes, round $round: done ($mc fragments by multicast)" >&2
	done
done

# median FIELD FILES...: per size, the median over the files of mcast_bench's field FIELD.
median() {
	local s f=$1
	shift
	for s in $sizes; do
		awk -v s="$s" -v f="$f" '/^mcast_bench:/ && $3 == s { print $f }' "$@" | sort -g |
		    awk -v s="$s" '{ v[NR] = $1 } END { print s, v[int((NR + 1) / 2)] }'
	done
}
# table FIELD TITLE: one table of medians of FIELD with the ratios.
table() {
	echo "$2"
	printf '%-6s %-6s %10s %10s %10s %12s %12s\n' procs bytes tuned_us tree_us mcast_us \
	    mcast/tuned mcast/tree
	for p in $procs; do
		for mode in tuned tree mcast; do median "$1" "$work/$mode-$p-"*.out >"$work/$mode-$p.med"; done
		for s in $sizes; do
			t=$(awk -v s="$s" '$1 == s { print $2 }' "$work/tuned-$p.med")
			q=$(awk -v s="$s" '$1 == s { print $2 }' "$work/tree-$p.med")
			m=$(awk -v s="$s" '$1 == s { print $2 }' "$work/mcast-$p.med")
			awk -v p="$p" -v s="$s" -v t="$t" -v q="$q" -v m="$m" 'BEGIN {
				printf "%-6s %-6s %10.1f %10.1f %10.1f %12.2f %12.2f\n", p, s, t, q, m, m / t, m / q }'
		done
	done
}
table 9 "complete_us: the slowest receiver's median time from the root's start to its answer"
table 11 "mean_us: the mean over receivers of that median"

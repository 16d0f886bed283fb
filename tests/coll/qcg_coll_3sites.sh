#!/bin/sh
# 3 sites of uneven size (7 ranks): once with contiguous ranks from a file, once with ranks
# interleaved over the sites (non-commutative reductions must then defer to the previous
# component and still be right), once with the per-rank $QCG_TOPOLOGY_COLORS a launcher sets.
. "$top_srcdir/tests/coll/lib.sh"
check=$top_builddir/tests/coll/coll_check
topo=$qcg_work/uneven
printf '%s\n' "0 0 0 0" "1 0 0 0" "2 0 1 0" "3 1 0 0" "4 2 0 0" "5 2 0 1" "6 2 0 1" >"$topo"
out=$qcg_work/uneven.out
qcg_mpirun 7 --mca coll_qcg_topology_file "$topo" --mca coll_qcg_verbose 10 "$check" quick \
    >"$out" 2>&1
expect_count 7 "MPI_COMM_WORLD (cid 0): selected: 3 sites, 4 clusters, 5 nodes, contiguous" "$out"
expect_clean "$out"

topo=$qcg_work/interleaved
printf '%s\n' "0 0 0 0" "1 1 0 0" "2 2 0 0" "3 0 0 1" "4 1 0 0" "5 2 1 0" "6 0 0 0" >"$topo"
out=$qcg_work/interleaved.out
QCG_TOPOLOGY_FILE=$topo qcg_mpirun 7 -x QCG_TOPOLOGY_FILE --mca coll_qcg_verbose 10 \
    "$check" quick >"$out" 2>&1
expect_count 7 "MPI_COMM_WORLD (cid 0): selected: 3 sites, 4 clusters, 5 nodes, interleaved" "$out"
expect_clean "$out"

# Per-rank colors: ranks 0-2 site 0, 3-4 site 1, 5 site 2; two nodes in site 0.
out=$qcg_work/env.out
qcg_mpirun 6 --mca coll_qcg_verbose 10 sh -c '
	r=$OMPI_COMM_WORLD_RANK
	if [ "$r" -lt 3 ]; then s=0; elif [ "$r" -lt 5 ]; then s=1; else s=2; fi
	QCG_TOPOLOGY_COLORS="$s,0,$((r / 2))" exec "$0" quick' "$check" >"$out" 2>&1
expect_count 6 "MPI_COMM_WORLD (cid 0): selected: 3 sites, 3 clusters, 5 nodes, contiguous" "$out"
expect_clean "$out"
grep -h "^coll_check:" "$qcg_work"/*.out

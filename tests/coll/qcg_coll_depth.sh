#!/bin/sh
# Topologies deeper than three levels (MPICH-G2's any depth): a 4-level file (site, cluster,
# rack, node: 8 ranks) and per-rank $QCG_TOPOLOGY_COLORS of depths 4 and 2 in one job. The
# levels between the site and the node fold into the cluster level, so every rack is a unit of
# its own; the correctness suite must match the point-to-point reference. A description of 17
# levels is refused with a clear error on every rank, and qcg steps aside.
. "$top_srcdir/tests/coll/lib.sh"
check=$top_builddir/tests/coll/coll_check
topo=$qcg_work/depth4
printf '%s\n' "# rank site cluster rack node" "0 0 0 0 0" "1 0 0 0 1" "2 0 0 1 0" "3 0 1 0 0" \
    "4 1 0 0 0" "5 1 0 0 0" "6 1 0 1 0" "7 1 0 1 1" >"$topo"
out=$qcg_work/depth4.out
qcg_mpirun 8 --mca coll_qcg_topology_file "$topo" --mca coll_qcg_verbose 10 "$check" quick \
    >"$out" 2>&1
expect_count 8 "MPI_COMM_WORLD (cid 0): paths of up to 4 levels, folded" "$out"
expect_count 8 "MPI_COMM_WORLD (cid 0): selected: 2 sites, 5 clusters, 7 nodes, contiguous" "$out"
expect_clean "$out"

# Depths differ per process: ranks 0-2 give site,cluster,rack,node; ranks 3-5 site,node.
out=$qcg_work/mixed.out
qcg_mpirun 6 --mca coll_qcg_verbose 10 sh -c '
	r=$OMPI_COMM_WORLD_RANK
	if [ "$r" -lt 3 ]; then c="0,0,$((r % 2)),$r"; else c="1,$r"; fi
	QCG_TOPOLOGY_COLORS=$c exec "$0" quick' "$check" >"$out" 2>&1
expect_count 6 "MPI_COMM_WORLD (cid 0): selected: 2 sites, 3 clusters, 6 nodes, interleaved" "$out"
expect_clean "$out"

# 17 levels: every rank says why, nobody selects qcg, the job still runs (tuned).
printf '%s\n' "0 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16" "1 0 0" >"$qcg_work/deep"
out=$qcg_work/deep.out
qcg_mpirun 2 --mca coll_qcg_topology_file "$qcg_work/deep" --mca coll_qcg_verbose 10 \
    "$check" smoke >"$out" 2>&1
expect_count 2 "topology file $qcg_work/deep line 1: want 'rank site ... node' (2 to 16 levels)" "$out"
expect_count 0 "selected:" "$out"
expect_clean "$out"
grep -h "^coll_check:" "$qcg_work"/*.out

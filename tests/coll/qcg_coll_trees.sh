#!/bin/sh
# Tree shapes: 2 sites of 5 and 4 single-rank nodes (9 ranks), so that the node level has
# enough holders for the trees to differ; the suite must match the reference with every level
# k-nomial of radix 3 and with the node holders' tree flat (and the WAN binomial). Non-
# commutative reductions and scans check that every shape folds in rank order.
. "$top_srcdir/tests/coll/lib.sh"
check=$top_builddir/tests/coll/coll_check
topo=$qcg_work/trees
printf '%s\n' "0 0 0 0" "1 0 0 1" "2 0 0 2" "3 0 0 3" "4 0 0 4" \
    "5 1 0 0" "6 1 0 1" "7 1 0 2" "8 1 0 3" >"$topo"
out=$qcg_work/knomial.out
qcg_mpirun 9 --mca coll_qcg_topology_file "$topo" --mca coll_qcg_verbose 10 \
    --mca coll_qcg_level0_algorithm knomial --mca coll_qcg_level1_algorithm knomial \
    --mca coll_qcg_level2_algorithm knomial --mca coll_qcg_knomial_radix 3 \
    "$check" quick >"$out" 2>&1
expect_count 9 "MPI_COMM_WORLD (cid 0): selected: 2 sites, 2 clusters, 9 nodes, contiguous" "$out"
expect_clean "$out"
out=$qcg_work/flat.out
qcg_mpirun 9 --mca coll_qcg_topology_file "$topo" --mca coll_qcg_verbose 10 \
    --mca coll_qcg_level0_algorithm binomial --mca coll_qcg_level2_algorithm flat \
    "$check" quick >"$out" 2>&1
expect_count 9 "MPI_COMM_WORLD (cid 0): selected: 2 sites, 2 clusters, 9 nodes, contiguous" "$out"
expect_clean "$out"
grep -h "^coll_check:" "$qcg_work"/*.out

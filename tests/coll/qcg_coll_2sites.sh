#!/bin/sh
# 2 sites x 2 nodes (8 ranks, a topology file): qcg is selected on MPI_COMM_WORLD and every
# collective it implements matches the point-to-point reference, 1 MiB cases included.
. "$top_srcdir/tests/coll/lib.sh"
qcg_topology_2x2
out=$qcg_work/out
qcg_mpirun 8 --mca coll_qcg_topology_file "$topo" --mca coll_qcg_verbose 10 \
    "$top_builddir/tests/coll/coll_check" >"$out" 2>&1
expect_count 8 "MPI_COMM_WORLD (cid 0): selected: 2 sites, 2 clusters, 4 nodes, contiguous" "$out"
expect_clean "$out"
grep "^coll_check:" "$out"

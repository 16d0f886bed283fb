#!/bin/sh
# Hidden communicators of one-member units (coll_qcg_subcomms.c): a level whose every unit the
# split would make has one member is not split, each member takes MPI_COMM_SELF, and the
# choice is the same on every member that would call the split, or the job hangs.
#   nodes: 4 ranks, 2 sites of 2 nodes of 1 rank: no node split, one cluster split;
#   mixed: 5 ranks, site 0 = cluster 0 (ranks 0 and 1 on one node) + cluster 1 (rank 2),
#          site 1 = 2 nodes of 1 rank: cluster 0 splits its node, the others take self.
# The correctness suite must match the point-to-point reference in both.
. "$top_srcdir/tests/coll/lib.sh"
check=$top_builddir/tests/coll/coll_check
printf '%s\n' "# rank site cluster node" "0 0 0 0" "1 0 0 1" "2 1 0 0" "3 1 0 1" \
    >"$qcg_work/nodes"
printf '%s\n' "# rank site cluster node" "0 0 0 0" "1 0 0 0" "2 0 1 0" "3 1 0 0" "4 1 0 1" \
    >"$qcg_work/mixed"
for layout in nodes:4 mixed:5; do
	name=${layout%%:*} np=${layout##*:}
	out=$qcg_work/$name.out
	qcg_mpirun "$np" --mca coll_qcg_topology_file "$qcg_work/$name" --mca coll_qcg_verbose 20 \
	    "$check" >"$out" 2>&1 || { echo "FAIL: $name: mpirun exited $?"; tail -20 "$out"; exit 1; }
	expect_clean "$out"
	grep "^coll_check:" "$out"
done
# world: every rank's node is self; the cluster comm is split (2 members)
expect_count 4 "MPI_COMM_WORLD (cid 0): hidden node comm of 1 (self, no split), cluster comm of 2$" \
    "$qcg_work/nodes.out"
# world: ranks 0 and 1 split their node; rank 2 (alone in cluster 1) and ranks 3, 4 take self
expect_count 2 "MPI_COMM_WORLD (cid 0): hidden node comm of 2, cluster comm of 2$" "$qcg_work/mixed.out"
expect_count 1 "MPI_COMM_WORLD (cid 0): hidden node comm of 1 (self, no split), cluster comm of 1$" \
    "$qcg_work/mixed.out"
expect_count 2 "MPI_COMM_WORLD (cid 0): hidden node comm of 1 (self, no split), cluster comm of 2$" \
    "$qcg_work/mixed.out"
echo "PASS: one-member units take MPI_COMM_SELF without a split, and the results match"

#!/bin/sh
# One site, one cluster, three nodes: qcg must step aside on every communicator (tuned keeps
# them) and the results must still be right. A broken topology file must be reported with its
# line number, and qcg must then step aside everywhere. With no topology at all, discovery finds
# one host (nothing to measure) and qcg steps aside; with a topology on some ranks only, nobody
# discovers (that would hang the ranks that do not) and qcg steps aside.
. "$top_srcdir/tests/coll/lib.sh"
check=$top_builddir/tests/coll/coll_check
topo=$qcg_work/one-site
printf '%s\n' "0 0 0 0" "1 0 0 0" "2 0 0 1" "3 0 0 1" "4 0 0 2" "5 0 0 2" >"$topo"
out=$qcg_work/one-site.out
qcg_mpirun 6 --mca coll_qcg_topology_file "$topo" --mca coll_qcg_verbose 10 "$check" quick \
    >"$out" 2>&1
expect_count 6 "MPI_COMM_WORLD (cid 0): stepping aside: single cluster (3 nodes)" "$out"
expect_count 0 "selected:" "$out"
expect_clean "$out"

broken=$qcg_work/broken
printf '%s\n' "0 0 0 0" "1 1 zero 0" "2 1 0 0" "3 1 0 0" >"$broken"
out=$qcg_work/broken.out
qcg_mpirun 4 --mca coll_qcg_topology_file "$broken" --mca coll_qcg_verbose 10 "$check" quick \
    >"$out" 2>&1
expect_count 4 "topology file $broken line 2: want 'rank site ... node' (2 to 16 levels)" "$out"
expect_count 0 "selected:" "$out"
expect_clean "$out"
out=$qcg_work/discovered.out
env -u QCG_TOPOLOGY_FILE -u QCG_TOPOLOGY_COLORS -u OMPI_MCA_coll_qcg_topology_file \
    sh -c '. "$top_srcdir/tests/coll/lib.sh"; qcg_mpirun 4 --mca coll_qcg_verbose 10 "$0" quick' \
    "$check" >"$out" 2>&1
expect_count 1 "discovery: 4 ranks on 1 nodes: 0 levels above the node" "$out"
expect_count 4 "MPI_COMM_WORLD (cid 0): stepping aside: single cluster (1 node)" "$out"
expect_clean "$out"

out=$qcg_work/mixed.out
qcg_mpirun 4 --mca coll_qcg_verbose 10 sh -c '
	[ "$OMPI_COMM_WORLD_RANK" -lt 2 ] && export QCG_TOPOLOGY_COLORS="$OMPI_COMM_WORLD_RANK,0,0"
	exec "$0" quick' "$check" >"$out" 2>&1
expect_count 2 "2 rank(s) have a topology configured and this one has none: not discovering" "$out"
expect_count 0 "discovery:" "$out"
expect_count 0 "selected:" "$out"
expect_clean "$out"
grep -h "^coll_check:" "$qcg_work"/*.out

#!/bin/sh
# A job whose launcher gave it a topology (QCG_TOPOLOGY_REQUIRED=1, as qcg-submit sets for every
# rank): with every rank's colors in its environment (2 sites), qcg is selected on every rank;
# when one rank's colors did not arrive, that rank says so at verbosity 0 (no coll_qcg_verbose),
# nobody discovers, qcg steps aside everywhere, and the results are still right.
. "$top_srcdir/tests/coll/lib.sh"
check=$top_builddir/tests/coll/coll_check

out=$qcg_work/required-all.out
qcg_mpirun 4 -x QCG_TOPOLOGY_REQUIRED=1 --mca coll_qcg_verbose 10 sh -c '
	export QCG_TOPOLOGY_COLORS="$((OMPI_COMM_WORLD_RANK / 2)),0,0"
	exec "$0" quick' "$check" >"$out" 2>&1
expect_count 4 "MPI_COMM_WORLD (cid 0): selected: 2 sites, 2 clusters" "$out"
expect_count 0 "has no topology" "$out"
expect_clean "$out"

out=$qcg_work/required-lost.out
qcg_mpirun 4 -x QCG_TOPOLOGY_REQUIRED=1 sh -c '
	[ "$OMPI_COMM_WORLD_RANK" -lt 3 ] &&
		export QCG_TOPOLOGY_COLORS="$((OMPI_COMM_WORLD_RANK / 2)),0,0"
	exec "$0" quick' "$check" >"$out" 2>&1
expect_count 1 "coll:qcg: rank 3 has no topology (QCG_TOPOLOGY_COLORS unset, no topology file) though its launcher gave the job one (QCG_TOPOLOGY_REQUIRED=1)" "$out"
expect_count 0 "selected:" "$out"
expect_count 0 "discovery:" "$out"
expect_clean "$out"
grep -h "has no topology" "$qcg_work/required-lost.out"
grep -h "^coll_check:" "$qcg_work"/required-*.out

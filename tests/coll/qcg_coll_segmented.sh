#!/bin/sh
# The segmented algorithms of issue 20, forced by coll_qcg_<coll>_algorithm: allreduce
# (reduce-scatter + allgather between the site masters, mpi-glue/coll/coll_qcg_allreduce_seg.c)
# and allgather (one overlapped stream of pieces, coll_qcg_allgather_seg.c). Exact results
# against the point-to-point reference (coll_check segmented: counts 0 .. 1 MiB + 5 that no
# number of sites divides; allreduce: ints with sum, max and min, a commutative user operation
# on a type with gaps, the non-commutative one that must take another path; allgather: int,
# vector and struct types, blocks up to 128 KiB + 3 elements; MPI_IN_PLACE; world, a dup and
# split communicators) on 3 uneven sites with contiguous and with interleaved ranks, and on
# 2 sites x 2 nodes. The verbose lines of the algorithms (level 30) prove they ran. Then the
# same runs with both forced to spread (the WAN stage on every member: allgather, every rank's
# block on its own WAN connection, sites of unequal sizes mapping members j -> j mod |site|;
# allreduce, coll_qcg_allreduce_spread.c, on the 2x2 layout, the one of equal sites).
. "$top_srcdir/tests/coll/lib.sh"
export OMPI_MCA_coll_qcg_allreduce_algorithm=segmented
export OMPI_MCA_coll_qcg_allgather_algorithm=segmented
check=$top_builddir/tests/coll/coll_check

# run NAME SITES TOPOLOGY: one job on that topology file, whose world spans SITES sites
run() {
	out=$qcg_work/$1.out
	np=$(grep -cv '^#' "$3")
	qcg_mpirun "$np" --mca coll_qcg_topology_file "$3" --mca coll_qcg_verbose 30 \
	    "$check" segmented >"$out" 2>&1
	expect_clean "$out"
	# the spread allreduce needs sites of equal size: elsewhere multilevel runs (no line)
	case $OMPI_MCA_coll_qcg_allreduce_algorithm/$1 in
	segmented/*) want="allreduce: segmented, [0-9]* elements in [0-9]* segments over $2 site" ;;
	spread/2x2*) want="allreduce: spread, [0-9]* elements in [0-9]* slices, $2 sites" ;;
	*) want= ;;
	esac
	if [ -n "$want" ] && ! grep -q "$want" "$out"; then
		echo "FAIL: $1: the $OMPI_MCA_coll_qcg_allreduce_algorithm allreduce did not run over $2 sites"
		grep -v "coll:qcg:" "$out" | head -20
		exit 1
	fi
	if ! grep -q "allgather: $OMPI_MCA_coll_qcg_allgather_algorithm, [0-9]* B blocks.*, $2 sites" \
	    "$out"; then
		echo "FAIL: $1: the $OMPI_MCA_coll_qcg_allgather_algorithm allgather did not run over $2 sites"
		grep -v "coll:qcg:" "$out" | head -20
		exit 1
	fi
	grep "^coll_check:" "$out"
}

topo=$qcg_work/uneven
printf '%s\n' "0 0 0 0" "1 0 0 0" "2 0 1 0" "3 1 0 0" "4 2 0 0" "5 2 0 1" "6 2 0 1" >"$topo"
run uneven 3 "$topo"
topo=$qcg_work/interleaved
printf '%s\n' "0 0 0 0" "1 1 0 0" "2 2 0 0" "3 0 0 1" "4 1 0 0" "5 2 1 0" "6 0 0 0" >"$topo"
run interleaved 3 "$topo"
qcg_topology_2x2
run 2x2 2 "$topo"

export OMPI_MCA_coll_qcg_allgather_algorithm=spread OMPI_MCA_coll_qcg_allreduce_algorithm=spread
printf '%s\n' "0 0 0 0" "1 0 0 0" "2 0 1 0" "3 1 0 0" "4 2 0 0" "5 2 0 1" "6 2 0 1" >"$topo"
run uneven-spread 3 "$topo"
printf '%s\n' "0 0 0 0" "1 1 0 0" "2 2 0 0" "3 0 0 1" "4 1 0 0" "5 2 1 0" "6 0 0 0" >"$topo"
run interleaved-spread 3 "$topo"
qcg_topology_2x2
run 2x2-spread 2 "$topo"

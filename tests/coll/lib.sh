# lib.sh: sourced by the coll tests. Skips (77) without mpirun, stages the uninstalled component
# in a private directory (so that Open MPI does not trip over libtool's .o files in .libs), and
# points Open MPI at it ahead of its own component directory.
if ! command -v mpirun >/dev/null 2>&1 || ! command -v ompi_info >/dev/null 2>&1; then
	echo "SKIP: mpirun/ompi_info not found (Debian: apt-get install openmpi-bin)"
	exit 77
fi
: "${top_builddir:?top_builddir must be set (run through make check)}"
: "${top_srcdir:?top_srcdir must be set (run through make check)}"
qcg_so=$top_builddir/mpi-glue/coll/.libs/mca_coll_qcg.so
if [ ! -f "$qcg_so" ]; then
	echo "FAIL: $qcg_so is not built"
	exit 1
fi
qcg_work=$(mktemp -d /tmp/qcg-coll-test.XXXXXX)
trap 'rm -rf "$qcg_work"' EXIT
mkdir "$qcg_work/components"
ln -s "$qcg_so" "$qcg_work/components/"
ompi_pkglibdir=$(ompi_info --path pkglibdir --parsable | sed -n 's/^path:pkglibdir://p')
export OMPI_MCA_mca_base_component_path="$qcg_work/components:$ompi_pkglibdir"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# The correctness tests check qcg's own algorithms: on loopback the links are all alike and
# the automatic choice (issue 22) would hand every call to tuned. A test of that choice
# (qcg_coll_choice.sh) unsets these.
qcg_colls="bcast reduce allreduce barrier gather scatter allgather alltoall reduce_scatter scan
gatherv scatterv allgatherv alltoallv"
for qcg_c in $qcg_colls; do
	export "OMPI_MCA_coll_qcg_${qcg_c}_algorithm=multilevel"
done

# qcg_mpirun NP ARGS...: a loopback job, bounded in time.
qcg_mpirun() {
	qcg_np=$1
	shift
	timeout 240 mpirun -np "$qcg_np" --oversubscribe --mca btl self,vader,tcp "$@"
}

# expect_count WANT PATTERN FILE: fail unless PATTERN occurs exactly WANT times in FILE.
expect_count() {
	got=$(grep -c -- "$2" "$3")
	if [ "$got" != "$1" ]; then
		echo "FAIL: want $1 lines matching '$2' in $3, got $got"
		sed 's/^/    /' "$3" | head -40
		exit 1
	fi
}

# expect_clean FILE: the coll_check summary says 0 failures.
expect_clean() {
	if ! grep -q "^coll_check: [1-9][0-9]* checks on .* ranks, 0 failures" "$1"; then
		echo "FAIL: coll_check reported failures or did not finish:"
		grep -v "coll:qcg:" "$1" | head -40
		exit 1
	fi
}

# qcg_topology_2x2: writes bench/coll's loopback layout, 2 sites x 2 nodes x 2 ranks (8 ranks),
# as a topology file and sets $topo to its path.
qcg_topology_2x2() {
	topo=$qcg_work/topology
	printf '%s\n' "# rank site cluster node" "0 0 0 0" "1 0 0 0" "2 0 0 1" "3 0 0 1" \
	    "4 1 0 0" "5 1 0 0" "6 1 0 1" "7 1 0 1" >"$topo"
}

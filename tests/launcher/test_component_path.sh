#!/bin/sh
# test_component_path.sh: the mpirun command line of qcg-submit names mca_coll_qcg's directory
# ahead of Open MPI's own default path (launcher/submit_run.c), and Open MPI, given that path,
# finds both coll/qcg and its own components. From the build tree the directory is the build's
# mpi-glue/coll/components; from anywhere else it is the installed one configure chose.
set -eu
: "${top_builddir:?top_builddir must be set (run through make check)}"
if ! command -v ompi_info >/dev/null 2>&1; then
	echo "SKIP: ompi_info not found (Debian: apt-get install openmpi-bin)"
	exit 77
fi
prog=$top_builddir/tests/launcher/mpirun_argv
fail() { echo "FAIL: $*"; exit 1; }
pkglibdir=$(ompi_info --path pkglibdir --parsable | sed -n 's/^path:pkglibdir://p')
[ -n "$pkglibdir" ] || fail "ompi_info printed no pkglibdir"

# component_path SELF_DIR [ENV...]: the value after "--mca mca_base_component_path", or nothing.
component_path() {
	self=$1
	shift
	env "$@" "$prog" "$self" | awk 'prev2 == "--mca" && prev == "mca_base_component_path" \
		{ print; exit } { prev2 = prev; prev = $0 }'
}

# From the build tree, with the submitting user's HOME.
got=$(component_path "$top_builddir/launcher" HOME=/home/someone)
want="$top_builddir/launcher/../mpi-glue/coll/components:$pkglibdir:/home/someone/.openmpi/components"
[ "$got" = "$want" ] || fail "build tree: component path '$got', want '$want'"
[ -f "$top_builddir/mpi-glue/coll/components/mca_coll_qcg.so" ] ||
	fail "$top_builddir/mpi-glue/coll/components/mca_coll_qcg.so is not built"

# Open MPI given that path loads coll/qcg once and still finds its own components.
out=$(OMPI_MCA_mca_base_component_path=$got ompi_info 2>&1) || fail "ompi_info failed: $out"
n=$(printf '%s\n' "$out" | grep -c "MCA coll: qcg (") || true
[ "$n" = 1 ] || fail "ompi_info lists coll qcg $n times with '$got'"
for own in "MCA coll: tuned (" "MCA btl: tcp (" "MCA pml: ob1 ("; do
	printf '%s\n' "$out" | grep -q "$own" || fail "Open MPI's own '$own' is lost with '$got'"
done

# Without HOME, the user's part of Open MPI's default is left out rather than made up.
got=$(component_path "$top_builddir/launcher" -u HOME)
want="$top_builddir/launcher/../mpi-glue/coll/components:$pkglibdir"
[ "$got" = "$want" ] || fail "no HOME: component path '$got', want '$want'"

# From anywhere but the build tree: the installed directory (when that is Open MPI's own,
# Open MPI's default path already covers it and the parameter is left out).
installed=$("$prog" /nonexistent | sed -n 's/^installed-component-dir=//p')
got=$(component_path /nonexistent HOME=/home/someone)
if [ "$installed" = "$pkglibdir" ]; then
	[ -z "$got" ] || fail "installed among Open MPI's own, yet the path is set: '$got'"
else
	want="$installed:$pkglibdir:/home/someone/.openmpi/components"
	[ "$got" = "$want" ] || fail "installed: component path '$got', want '$want'"
fi
echo "PASS: qcg-submit's mca_base_component_path finds coll/qcg and Open MPI's own components"

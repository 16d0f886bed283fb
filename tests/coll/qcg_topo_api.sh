#!/bin/sh
# libqcgtopo: attributes, dup and split by level on a 3-site interleaved topology, then on
# one of mixed depths (4, 2 and 3 levels).
. "$top_srcdir/tests/coll/lib.sh"
topo=$qcg_work/topology
printf '%s\n' "0 0 0 0" "1 1 0 0" "2 2 0 0" "3 0 0 1" "4 1 0 0" "5 2 1 0" "6 0 0 0" >"$topo"
out=$qcg_work/out
QCG_TOPOLOGY_FILE=$topo qcg_mpirun 7 -x QCG_TOPOLOGY_FILE \
    "$top_builddir/tests/coll/topo_check" >"$out" 2>&1
if ! grep -q "^topo_check: 7 ranks, 0 failures" "$out"; then
	echo "FAIL:"
	cat "$out"
	exit 1
fi
expect_count 7 "level 3 is not 0..2" "$out"
grep "^topo_check:" "$out"

# Any depth: site, cluster, rack, node beside ranks that give only site,node or three levels.
printf '%s\n' "0 0 0 0 0" "1 0 0 1 0" "2 0 0 1 1" "3 0 1 0 0" "4 1 7" "5 1 7" "6 1 8" \
    "7 1 0 0" >"$topo"
QCG_TOPOLOGY_FILE=$topo qcg_mpirun 8 -x QCG_TOPOLOGY_FILE \
    "$top_builddir/tests/coll/topo_check" >"$out" 2>&1
if ! grep -q "^topo_check: 8 ranks, 0 failures" "$out"; then
	echo "FAIL (any depth):"
	cat "$out"
	exit 1
fi
grep "^topo_check:" "$out"

#!/bin/sh
# bench/coll's common clock on loopback: offsets within their error bound of the true 0, one
# kernel recognised, waits that end at the start (tests/coll/clock_check.c).
. "$top_srcdir/tests/coll/lib.sh"
out=$qcg_work/out
if ! qcg_mpirun 4 "$top_builddir/tests/coll/clock_check" >"$out" 2>&1; then
	echo "FAIL:"
	cat "$out"
	exit 1
fi
expect_count 1 "^clock_check: .* 0 failures" "$out"
grep "^clock_check:" "$out"

#!/bin/bash
# test_qcgnet_setpgid.sh: under libqcgnet.so, the parent's setpgid(pid, pid) after the child
# has put itself in its own group and exec'd succeeds (plm_rsh then prints no warning for every
# daemon it starts); without the library the same call fails with EACCES, so the race is really
# played; and a child left in the parent's group still gets EACCES under the library, so the
# wrapper hides nothing but the race.
: "${top_builddir:?}"
LIB=$top_builddir/mpi-glue/net/.libs/libqcgnet.so
RACE=$top_builddir/tests/net/setpgid_race
[ -f "$LIB" ] || { echo "SKIP: $LIB is not built"; exit 77; }
failures=0

# expect WHAT WANT MODE [VAR=VALUE...]: run the race in MODE with the variables set, and
# compare its line with WANT.
expect() {
	local what=$1 want=$2 mode=$3 got
	shift 3
	got=$(env "$@" "$RACE" "$mode" 2>&1 | tail -1)
	if [ "$got" = "$want" ]; then
		echo "ok   $what: $got"
	else
		echo "FAIL $what: got '$got', want '$want'"
		failures=$((failures + 1))
	fi
}

expect "without the library, after exec" "rc=-1 errno=EACCES" own-group
expect "with the library, child in its own group" "rc=0 errno=0" own-group LD_PRELOAD="$LIB"
expect "with the library, child in our group" "rc=-1 errno=EACCES" same-group LD_PRELOAD="$LIB"
exit $((failures > 0))

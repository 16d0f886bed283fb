# lib.sh: what every testbed test shares. Source it; it skips (exit 77) when the machine cannot
# run a testbed, and gives each test its own testbed directory, always torn down on exit.
#
# Tests run one at a time (a lock), so timing measurements do not share the CPUs with another
# testbed test under `make -j`.

: "${top_srcdir:?run through make check, or set top_srcdir and top_builddir}"
: "${top_builddir:?run through make check, or set top_srcdir and top_builddir}"
. "$top_srcdir/tests/wait.sh"
QTB="$top_srcdir/deploy/qcg-testbed"
TBTOOL="$top_srcdir/tests/testbed/tbtool.py"
PY=/usr/bin/python3
export QCG_TESTBED_BIN="$top_builddir"
readonly TEST_LOCK=/run/qcg-testbed-tests.lock
readonly TEST_LOCK_WAIT=600

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
# check NAME EXPR: one checked line of a test that goes on after a failure ("ok   NAME" or
# "FAIL NAME"); EXPR is evaluated; a failure sets bad=1 for the test's exit status.
bad=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; bad=1; fi; }

[[ $EUID == 0 ]] || skip "testbed tests need root (network namespaces)"
ip netns list >/dev/null 2>&1 || skip "ip netns is not available"
command -v ethtool >/dev/null || skip "ethtool is not installed (apt-get install ethtool)"
[[ -x $PY ]] || skip "$PY is not installed"
[[ -x $top_builddir/deploy/qcg-delayline ]] || fail "qcg-delayline is not built"

exec 8>"$TEST_LOCK"
flock -w "$TEST_LOCK_WAIT" 8 || fail "another testbed test held $TEST_LOCK for ${TEST_LOCK_WAIT}s"
# The wait is not the test's own time: say it, so that the log tells them apart.
echo "testbed lock taken after ${SECONDS}s"

TB_DIR=$(mktemp -d /tmp/qcg-testbed-test.XXXXXX)
tb() { "$QTB" --dir "$TB_DIR" "$@" 8>&-; }
tbx() { local h=$1; shift; tb exec "$h" -- "$@"; }

tb_test_cleanup() {
	local rc=$?
	# Our own background jobs first (they are in the namespaces too, but wait needs them gone).
	kill $(jobs -p) 2>/dev/null || true
	# QCG_TEST_KEEP=DIR keeps the daemons' logs and the test's files for a post-mortem.
	if [[ -n ${QCG_TEST_KEEP:-} ]]; then
		mkdir -p "$QCG_TEST_KEEP" && cp -r "$TB_DIR/log" "$TB_DIR/jobs" "$QCG_TEST_KEEP/" 2>/dev/null
	fi
	tb down >/dev/null || rc=1
	wait 2>/dev/null || true
	rm -rf "$TB_DIR"
	exit "$rc"
}
trap tb_test_cleanup EXIT

# Start the testbed's network with the given options, failing the test if it cannot. The qcg
# services stay off: these tests are about the network, whatever state the services are in.
tb_up() {
	tb up --no-services "$@" || fail "qcg-testbed up $* failed"
}

# Field $2 (wan_addr, lan_addr, role, site, policy) of host $1.
tb_field() {
	awk -F'\t' -v h="$1" -v f="$2" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i == "# name" ? "name" : $i] = i; next }
		$1 == h { print $col[f] }' "$TB_DIR/hosts"
}

# Measuring endpoints run at a raised CFS priority: on a machine busy with other work they would
# otherwise measure their own wait for a CPU rather than the emulated network.
MEASURE=(nice -n -15 "$PY" "$TBTOOL")

# Start the tbtool listener on host $1 on ports $2 (comma-separated), in the background.
tb_listen() { tbx "$1" "${MEASURE[@]}" serve "$2" >/dev/null 2>&1 & }

# Wait until host $1 answers on port $3 at address $2 from host $4 (bounded).
tb_wait_listener() { wait_until 300 tb_answers "$@" || fail "listener on $1 ($2:$3) did not come up"; }
tb_answers() { [[ $(tbx "$4" "$PY" "$TBTOOL" probe 1 "$2:$3") == *" $1" ]]; }

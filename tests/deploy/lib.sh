# lib.sh: sourced by the tests of deploy/qcg-deploy. A private temporary directory, one line per
# check (ok / FAIL), and cleanup of every daemon a test starts (each names a file inside the
# directory on its command line, so leftovers are found by that).
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
. "$top_srcdir/tests/wait.sh"

QCG_DEPLOY="$top_srcdir/deploy/qcg-deploy"
# The daemons qcg-deploy runs with -n on what it writes: this build's.
export QCG_DEPLOY_DAEMONS="$top_builddir"
QCG_CA="$top_srcdir/deploy/qcg-ca"
T=$(mktemp -d /tmp/qcg-deploy-test.XXXXXX)
FAILURES=0
PIDS=""

deploy_cleanup() {
	local pid pids
	for pid in $PIDS; do kill "$pid" 2>/dev/null; done
	for pid in $PIDS; do wait "$pid" 2>/dev/null; done
	if pids=$(pgrep -f -- "$T/"); then
		kill $pids 2>/dev/null
		wait_gone 20 $pids || kill -9 $pids 2>/dev/null
		# The directory goes next: nothing of ours may still have a file open in it.
		wait_gone 300 $pids || echo "note: processes $pids outlived SIGKILL for 30 s"
	fi
	rm -rf "$T"
}
trap deploy_cleanup EXIT

pass() { echo "ok   $1"; }
fail() {
	echo "FAIL $1: $2"
	FAILURES=$((FAILURES + 1))
}
deploy_exit() {
	echo "$FAILURES failed"
	[ "$FAILURES" -eq 0 ]
}

# free_port: a TCP port of 127.0.0.1 that is free now.
free_port() {
	/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

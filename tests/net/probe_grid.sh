# probe_grid.sh: what the loopback libqcgnet tests that drive qcgnet_probe share
# (test_qcgnet_loopback.sh, test_qcgnet_direct.sh): the grid fixture with the broker up and
# job-1 recorded for jane, and the helpers to run a probe as a process of job-1 on a node and
# to read the broker's connection log. Sourced after the test's own variables (e.g.
# BROKER_LOG_LEVEL); a test defines its sites itself.
. "$top_srcdir/tests/integration/grid_fixture.sh"
LIB=$top_builddir/mpi-glue/net/.libs/libqcgnet.so
PROBE=$top_builddir/tests/net/qcgnet_probe
# probe_grid_need DAEMON...: skip (77) unless these daemons (paths) and libqcgnet.so are built.
probe_grid_need() {
	local b
	for b in "$@"; do
		[ -x "$b" ] || { echo "SKIP: $b is not built"; exit 77; }
	done
	[ -f "$LIB" ] || { echo "SKIP: libqcgnet.so is not built"; exit 77; }
}
D=$FIXTURE_DIR
TOKEN=0123456789abcdef0123456789abcdef
ME=$(id -un)
ERR=$D/probe-stderr.log

# probe_grid_start: the broker, job-1 recorded for jane, the front-ends' grid-mapfile; every
# process the test starts (PIDS, proxies, front-ends, helpers) goes at exit.
probe_grid_start() {
	fixture_init
	broker_start
	call_as jane record-job job-1 >/dev/null || { echo "record-job failed"; exit 99; }
	"$QCG_CA" grid-mapfile-line "$D/jane-cert.pem" nobody >"$D/fe-grid-mapfile"
	PIDS=""
	trap 'for p in $PIDS; do kill $p 2>/dev/null; done; proxy_stop_all; frontend_stop_all; helper_cleanup; fixture_cleanup' EXIT
}

# on NODE CMD...: run CMD as a process of job-1 on NODE, with the shim active
on() {
	local sock_var="SOCK_$1"; shift
	env LD_PRELOAD="$LIB" QCG_NET=1 QCG_NET_LOOPBACK=1 QCG_HELPER_SOCKET="${!sock_var}" \
		QCG_JOB_ID=job-1 QCG_JOB_TOKEN="$TOKEN" QCG_NET_CONNECT_TIMEOUT_MS=2000 \
		QCG_NET_HANDOFF_TIMEOUT_MS=10000 "$@"
}
# serve NODE OUT ADDR COUNT MODE [env...]: a listening probe in the background; sets PORT and
# LISTENER (its pid)
serve() {
	local node=$1 out=$2 addr=$3 count=$4 mode=$5; shift 5
	on "$node" env "$@" "$PROBE" listen "$addr" 0 "$count" "$mode" >"$out" 2>&1 &
	PIDS="$PIDS $!"
	LISTENER=$!
	wait_for_log "$out" '^listening' || { echo "probe did not listen: $(cat "$out")"; exit 99; }
	PORT=$(sed -n 's/^listening //p' "$out")
}
# serve_plain ADDR OUT: a listening probe without the shim (a socket that is not the job's), in
# the background, for one connection; sets PORT and LISTENER
serve_plain() {
	"$PROBE" listen "$1" 0 1 block >"$2" 2>&1 &
	PIDS="$PIDS $!"
	LISTENER=$!
	wait_for_log "$2" '^listening' || { echo "probe did not listen: $(cat "$2")"; exit 99; }
	PORT=$(sed -n 's/^listening //p' "$2")
}
conn_log() { query_as jane connections job-1 2>&1; }
# logged FROM TO PORT METHOD OUTCOME: the broker's connection log has that line (a node's
# cluster is site-<its name without the last character>: a1 and a2 are in site-a)
logged() { conn_log | grep -Eq "^site-${1%?}/$1 +site-${2%?}/$2:$3 +$4 +$5"; }

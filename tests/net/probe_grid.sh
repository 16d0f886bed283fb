# probe_grid.sh: what the loopback libqcgnet tests that drive a probe program share
# (test_qcgnet_loopback.sh, test_qcgnet_direct.sh, test_qcgnet_resume.sh): the grid fixture with
# the broker up and job-1 recorded for jane, one-node sites (probe_grid_site), and the helpers
# to run a probe as a process of job-1 on a node and to read the broker's connection log.
# Sourced after the test's own variables (e.g. BROKER_LOG_LEVEL, PROBE_CONNECT_TIMEOUT_MS).
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

# probe_grid_start [BROKER-ARGS...]: the broker (started with those arguments), job-1 recorded
# for jane, the front-ends' grid-mapfile; every process the test starts (PIDS, proxies,
# front-ends, helpers) goes at exit.
probe_grid_start() {
	fixture_init
	broker_start "$@"
	call_as jane record-job job-1 >/dev/null || { echo "record-job failed"; exit 99; }
	"$QCG_CA" grid-mapfile-line "$D/jane-cert.pem" nobody >"$D/fe-grid-mapfile"
	PIDS=""
	trap 'for p in $PIDS; do kill $p 2>/dev/null; done; proxy_stop_all; frontend_stop_all; helper_cleanup; fixture_cleanup' EXIT
}

# probe_grid_site NAME POLICY NODE ADDRESS TRAVERSAL: cluster site-NAME, a front-end of that
# policy whose public address is its node's (so that traversal's simultaneous open meets on
# loopback), traversal_allowed TRAVERSAL, and node NODE's helper at ADDRESS, trusting job-1's
# token; sets SOCK_<NODE> and returns once the front-end has registered.
probe_grid_site() {
	local s=$1 policy=$2 node=$3 addr=$4 trav=$5 port
	ca host --dir "$D/ca" --name "gw-s$s" --ip 127.0.0.1 --out "$D/gw-s$s"
	echo "helper \"/O=Grid/OU=qcg-ompi/CN=host/$node\"" >"$D/fe-$s.acl"
	port=$(free_port)
	write_frontend_conf "$D/fe-$s.conf" "gw-s$s" "site-$s" "$policy" "$D/fe-$s.acl" \
		"$D/fe-grid-mapfile" "$node = https://127.0.0.1:$port/ 2" "traversal_allowed = $trav"
	frontend_start "$D/fe-$s.conf" "$D/fe-$s.log" -s "frontend.public_address=$addr"
	HELPER_CLUSTER=site-$s helper_start "$node" "$addr" "$FRONTEND_URL" \
		-s "helper.listen=127.0.0.1:$port"
	echo "job-1 $TOKEN $ME" >>"$HELPER_TOKENS"
	eval "SOCK_$node=\$HELPER_SOCKET"
	wait_for_log "$D/fe-$s.log" 'registered' || { echo "site-$s did not register"; exit 99; }
}

# probe_grid_nodes_site NAME POLICY PUBLIC-ADDRESS EXTRA "NODE ADDRESS"...: cluster site-NAME
# of several nodes: a front-end (EXTRA: more lines of its configuration) and one helper per
# node, trusting job-1's token; sets SOCK_<NODE>, returns once the front-end has registered.
probe_grid_nodes_site() {
	local s=$1 policy=$2 public=$3 extra=$4 n lines="" acl="" node addr
	shift 4
	for n in "$@"; do
		node=${n% *}
		eval "PORT_$node=\$(free_port)"
		lines="$lines$node = https://127.0.0.1:$(eval echo "\$PORT_$node")/ 2"$'\n'
		acl="${acl}helper \"/O=Grid/OU=qcg-ompi/CN=host/$node\""$'\n'
	done
	ca host --dir "$D/ca" --name "gw-s$s" --ip 127.0.0.1 --out "$D/gw-s$s"
	printf '%s' "$acl" >"$D/fe-$s.acl"
	write_frontend_conf "$D/fe-$s.conf" "gw-s$s" "site-$s" "$policy" "$D/fe-$s.acl" \
		"$D/fe-grid-mapfile" "$lines" "$extra"
	frontend_start "$D/fe-$s.conf" "$D/fe-$s.log" -s "frontend.public_address=$public"
	for n in "$@"; do
		node=${n% *} addr=${n#* }
		HELPER_CLUSTER=site-$s helper_start "$node" "$addr" "$FRONTEND_URL" \
			-s "helper.listen=127.0.0.1:$(eval echo "\$PORT_$node")"
		echo "job-1 $TOKEN $ME" >>"$HELPER_TOKENS"
		eval "SOCK_$node=\$HELPER_SOCKET"
	done
	wait_for_log "$D/fe-$s.log" 'registered' || { echo "site-$s did not register"; exit 99; }
}
# on NODE [VAR=VALUE...] CMD...: run CMD as a process of job-1 on NODE, with the shim active;
# connects and hand-offs bounded by PROBE_CONNECT_TIMEOUT_MS and PROBE_HANDOFF_TIMEOUT_MS
on() {
	local sock_var="SOCK_$1"; shift
	env LD_PRELOAD="$LIB" QCG_NET=1 QCG_NET_LOOPBACK=1 QCG_HELPER_SOCKET="${!sock_var}" \
		QCG_JOB_ID=job-1 QCG_JOB_TOKEN="$TOKEN" \
		QCG_NET_CONNECT_TIMEOUT_MS="${PROBE_CONNECT_TIMEOUT_MS:-2000}" \
		QCG_NET_HANDOFF_TIMEOUT_MS="${PROBE_HANDOFF_TIMEOUT_MS:-10000}" "$@"
}
# serve NODE OUT ADDR COUNT MODE [env...]: a listening probe in the background, on port
# SERVE_PORT (default 0: any); sets PORT and LISTENER (its pid)
serve() {
	local node=$1 out=$2 addr=$3 count=$4 mode=$5; shift 5
	on "$node" env "$@" "$PROBE" listen "$addr" "${SERVE_PORT:-0}" "$count" "$mode" >"$out" 2>&1 &
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

# grid_fixture.sh: sourced by integration tests. Makes a fresh CA and credentials in a private
# temporary directory, writes a broker configuration, starts and stops qcg-broker on a free
# loopback port, and cleans everything up when the test exits.
#
#   . "$top_srcdir/tests/integration/grid_fixture.sh"
#   fixture_init              # CA, broker/front-end/proxy host certs, users jane (mapped) and bob
#   broker_start              # sets BROKER_URL, BROKER_PID
#   as_frontend_a register-cluster ...   # broker_call as the front-end of site a
#   query_as jane clusters    # qcg-query with jane's certificate

set -u
: "${top_srcdir:?}" "${top_builddir:?}"

QCG_CA="$top_srcdir/deploy/qcg-ca"
QCG_BROKER="$top_builddir/services/broker/qcg-broker"
QCG_QUERY="$top_builddir/launcher/qcg-query"
BROKER_CALL="$top_builddir/tests/integration/broker_call"

. "$top_srcdir/tests/wait.sh"
# The one configuration generator (qcg-deploy and qcg-testbed use it too): the daemons' keys
# are spelled once, there.
declare -F genconf_broker >/dev/null || . "$top_srcdir/deploy/qcg-genconf.sh"

FIXTURE_DIR=$(mktemp -d /tmp/qcg-test.XXXXXX)
BROKER_PID=""
FAILURES=0

fixture_cleanup() {
	if [ -n "$BROKER_PID" ]; then
		kill "$BROKER_PID" 2>/dev/null
		wait "$BROKER_PID" 2>/dev/null
	fi
	fixture_kill_leftovers
	rm -rf "$FIXTURE_DIR"
}

# Every process the fixture starts names a file inside FIXTURE_DIR on its command line. Whatever
# a test's own bookkeeping missed (a daemon started in a subshell, whose PID list the test never
# saw) is found that way: TERM, a moment to exit, then KILL.
fixture_kill_leftovers() {
	local pids
	pids=$(pgrep -f -- "$FIXTURE_DIR/") || return 0
	kill $pids 2>/dev/null
	wait_gone 20 $pids && return 0
	kill -9 $pids 2>/dev/null
	# The directory goes next: nothing of ours may still have a file open in it.
	wait_gone 300 $pids || echo "note: processes $pids outlived SIGKILL for 30 s"
	return 0
}
trap fixture_cleanup EXIT

# pass NAME / fail NAME REASON: one line per check, like the unit tests.
pass() { echo "ok   $1"; }
fail() {
	echo "FAIL $1: $2"
	FAILURES=$((FAILURES + 1))
}
fixture_exit() {
	echo "$FAILURES failed"
	[ "$FAILURES" -eq 0 ]
}

# fixture_wait_ready NAME PID FILE LOG: wait (up to 30 s: a TLS service starts slowly on a
# loaded machine) until daemon PID has written FILE (its port or ready file); exit 99 with its
# log if it dies first or never does.
fixture_wait_ready() {
	local name=$1 pid=$2 file=$3 log=$4
	wait_until 300 fixture_ready_or_dead "$file" "$pid"
	[ -s "$file" ] && return 0
	kill -0 "$pid" 2>/dev/null || { echo "$name died:"; cat "$log"; exit 99; }
	echo "$name did not start within 30 s:"; cat "$log"
	exit 99
}
fixture_ready_or_dead() { [ -s "$1" ] || ! kill -0 "$2" 2>/dev/null; }

# fixture_stop PID...: stop these daemons and reap them.
fixture_stop() {
	local pid
	for pid in "$@"; do
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
}

# fixture_tls WHO: the client options for credential prefix WHO (in the array TLS_ARGS).
fixture_tls() {
	TLS_ARGS=(--cert "$FIXTURE_DIR/$1-cert.pem" --key "$FIXTURE_DIR/$1-key.pem"
		--ca-dir "$FIXTURE_DIR/ca/certificates")
}

ca() { "$QCG_CA" "$@" >>"$FIXTURE_DIR/ca.log" 2>&1 || { echo "qcg-ca $* failed:"; cat "$FIXTURE_DIR/ca.log"; exit 99; }; }

fixture_init() {
	local d=$FIXTURE_DIR
	ca init --dir "$d/ca"
	ca host --dir "$d/ca" --name localhost --ip 127.0.0.1 --out "$d/broker"
	ca host --dir "$d/ca" --name gw-a --out "$d/gw-a"
	ca host --dir "$d/ca" --name gw-b --out "$d/gw-b"
	ca host --dir "$d/ca" --name proxy-1 --out "$d/proxy-1"
	ca user --dir "$d/ca" --name "Jane Doe" --out "$d/jane"
	ca user --dir "$d/ca" --name "Bob Unmapped" --out "$d/bob"
	"$QCG_CA" grid-mapfile-line "$d/jane-cert.pem" jane >"$d/grid-mapfile"
	cat >"$d/broker.acl" <<-ACL
	# role      DN pattern
	frontend    "/O=Grid/OU=qcg-ompi/CN=host/gw-*"
	proxy       "/O=Grid/OU=qcg-ompi/CN=host/proxy-*"
	ACL
	write_broker_conf 127.0.0.1:0
}

write_broker_conf() {
	local d=$FIXTURE_DIR
	{
		genconf_broker "$1" 8 "$d/broker.db" "$d/broker.acl" "$d/grid-mapfile"
		genconf_soap_tunables "" 10 1048576
		genconf_log_level "${BROKER_LOG_LEVEL:-info}"
		genconf_tls "$d/broker-cert.pem" "$d/broker-key.pem" "$d/ca/certificates"
	} >"$d/broker.conf"
}

# broker_start [extra qcg-broker args]: start and wait until it listens.
broker_start() {
	rm -f "$FIXTURE_DIR/port"
	"$QCG_BROKER" -c "$FIXTURE_DIR/broker.conf" --port-file "$FIXTURE_DIR/port" "$@" \
		>>"$FIXTURE_DIR/broker.log" 2>&1 &
	BROKER_PID=$!
	fixture_wait_ready qcg-broker "$BROKER_PID" "$FIXTURE_DIR/port" "$FIXTURE_DIR/broker.log"
	BROKER_PORT=$(cat "$FIXTURE_DIR/port")
	BROKER_URL="https://localhost:$BROKER_PORT/"
}

broker_kill9() {
	kill -9 "$BROKER_PID"
	wait "$BROKER_PID" 2>/dev/null
	BROKER_PID=""
}

# call_as CREDENTIAL-PREFIX OP ARGS...: broker_call with that certificate.
call_as() {
	fixture_tls "$1"; shift
	"$BROKER_CALL" --broker "$BROKER_URL" "${TLS_ARGS[@]}" "$@"
}

# query_as CREDENTIAL-PREFIX QUERY...: qcg-query with that certificate (key defaults to the
# certificate file, which suits proxy files).
query_as() {
	local who=$1; shift
	local key="$FIXTURE_DIR/$who-key.pem"
	[ -f "$key" ] || key="$FIXTURE_DIR/$who-cert.pem"
	"$QCG_QUERY" --broker "$BROKER_URL" --cert "$FIXTURE_DIR/$who-cert.pem" --key "$key" \
		--ca-dir "$FIXTURE_DIR/ca/certificates" --timeout 10 "$@"
}

# --- front-ends (services/frontend) ------------------------------------------------------------
# A test that starts front-ends sets its own trap: trap 'frontend_stop_all; fixture_cleanup' EXIT
QCG_FRONTEND="$top_builddir/services/frontend/qcg-frontend"
FRONTEND_CALL="$top_builddir/tests/integration/frontend_call"
FRONTEND_PIDS=""

# free_port: a TCP port of 127.0.0.1 that is free now (for a service whose URL others must know
# before it starts, such as a helper in a front-end's [nodes]).
free_port() {
	/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# host_cert NAME: a host certificate /CN=host/NAME that also names 127.0.0.1, so that clients
# can reach its service as https://127.0.0.1:PORT/ (gSOAP checks the name).
host_cert() {
	ca host --dir "$FIXTURE_DIR/ca" --name "$1" --ip 127.0.0.1 --out "$FIXTURE_DIR/$1"
}

# broker_restart_same_port: after broker_kill9, start qcg-broker again on the port (and with the
# database) it had, so that clients configured with BROKER_URL find it again.
broker_restart_same_port() {
	write_broker_conf "127.0.0.1:$BROKER_PORT"
	broker_start
}

# write_frontend_conf FILE CERT-PREFIX CLUSTER POLICY ACL GRIDMAP NODE-LINES [EXTRA-LINES]:
# a qcg-frontend configuration on 127.0.0.1 (port 0) pointing at BROKER_URL. NODE-LINES are the
# [nodes] body ("b1 = https://127.0.0.1:PORT/ 4"), EXTRA-LINES more [frontend] settings.
write_frontend_conf() {
	local d=$FIXTURE_DIR
	{
		genconf_frontend 127.0.0.1:0 "" "$BROKER_URL"
		genconf_frontend_cluster "$3" "$4" 127.0.0.0/8 127.0.0.1 ""
		genconf_frontend_access "$5" "$6"
		genconf_soap_tunables 8 10 1048576
		genconf_log_level "${FRONTEND_LOG_LEVEL:-debug}"
		[ -z "${8:-}" ] || printf '%s\n' "$8"
		genconf_frontend_nodes
		printf '%s\n' "$7"
		genconf_tls "$d/$2-cert.pem" "$d/$2-key.pem" "$d/ca/certificates"
	} >"$1"
}

# frontend_start CONF LOG [extra qcg-frontend args]: start and wait until it listens; sets
# FRONTEND_PID, FRONTEND_PORT and FRONTEND_URL (https://127.0.0.1:PORT/).
frontend_start() {
	local conf=$1 log=$2; shift 2
	rm -f "$conf.port"
	"$QCG_FRONTEND" -c "$conf" --port-file "$conf.port" "$@" >>"$log" 2>&1 &
	FRONTEND_PID=$!
	FRONTEND_PIDS="$FRONTEND_PIDS $FRONTEND_PID"
	fixture_wait_ready qcg-frontend "$FRONTEND_PID" "$conf.port" "$log"
	FRONTEND_PORT=$(cat "$conf.port")
	FRONTEND_URL="https://127.0.0.1:$FRONTEND_PORT/"
}

frontend_stop_all() {
	# shellcheck disable=SC2086 # a list of pids
	fixture_stop $FRONTEND_PIDS
	FRONTEND_PIDS=""
}

# frontend_as CREDENTIAL-PREFIX OP ARGS...: frontend_call against FRONTEND_URL with that
# certificate (options such as --env go before OP).
frontend_as() {
	fixture_tls "$1"; shift
	"$FRONTEND_CALL" --url "$FRONTEND_URL" "${TLS_ARGS[@]}" "$@"
}

# wait_for_log FILE PATTERN [SECONDS]: wait until a line of FILE matches the grep pattern.
log_has() { grep -q -- "$2" "$1" 2>/dev/null; }
wait_for_log() { wait_until $((${3:-30} * 10)) log_has "$1" "$2"; }

# --- qcg-helper (services/helper) ----------------------------------------------------------
#   helper_start NAME ADDRESS FRONTEND-URL [qcg-helper args]  # node NAME; sets HELPER_PID,
#                              HELPER_URL, HELPER_SOCKET, HELPER_TOKENS for it
#   helper_as CREDENTIAL-PREFIX OP ARGS...   # helper_call against HELPER_URL (e.g. as gw-a)
#   helper_local_as JOB TOKEN OP ARGS...     # helper_local on HELPER_SOCKET (an MPI process)
# Each helper's files are $FIXTURE_DIR/helper-NAME.{conf,acl,log,port,tokens}; its socket lives
# in a directory others may traverse (the local API serves job accounts), removed at exit with
# the helpers themselves.
QCG_HELPER="$top_builddir/services/helper/qcg-helper"
HELPER_CALL="$top_builddir/tests/integration/helper_call"
HELPER_LOCAL="$top_builddir/tests/integration/helper_local"
HELPER_PIDS=""
HELPER_SOCKET_DIR=""

helper_cleanup() {
	# shellcheck disable=SC2086 # a list of pids
	fixture_stop $HELPER_PIDS
	HELPER_PIDS=""
	[ -n "$HELPER_SOCKET_DIR" ] && rm -rf "$HELPER_SOCKET_DIR"
}

# write_helper_conf NAME ADDRESS FRONTEND-URL: configuration, ACL (the gw-* certificates are
# front-ends) and an empty token file; a host certificate for NAME (DNS NAME, IP 127.0.0.1).
write_helper_conf() {
	local d=$FIXTURE_DIR name=$1
	[ -f "$d/$name-cert.pem" ] || ca host --dir "$d/ca" --name "$name" --ip 127.0.0.1 --out "$d/$name"
	if [ -z "$HELPER_SOCKET_DIR" ]; then
		HELPER_SOCKET_DIR=$(mktemp -d /tmp/qcg-helper-sock.XXXXXX)
		chmod 0711 "$HELPER_SOCKET_DIR"
	fi
	printf 'frontend "/O=Grid/OU=qcg-ompi/CN=host/gw-*"\n' >"$d/helper-$name.acl"
	: >"$d/helper-$name.tokens"
	{
		genconf_helper "$name" "${HELPER_CLUSTER:-site-a}" "$2" "$3" "$d/helper-$name.acl" \
			127.0.0.1:0 "$HELPER_SOCKET_DIR/$name.sock" "$d/helper-$name.tokens" no ""
		genconf_soap_tunables "" 10 1048576
		genconf_helper_local 0666 5 5
		genconf_log_level "${HELPER_LOG_LEVEL:-debug}"
		genconf_tls "$d/$name-cert.pem" "$d/$name-key.pem" "$d/ca/certificates"
	} >"$d/helper-$name.conf"
	[ -z "${HELPER_SERVICE_USER:-}" ] || helper_conf_privsep "$name"
}

# With HELPER_SERVICE_USER=ACCOUNT, helpers started as root are privilege-separated: the
# network half drops to ACCOUNT and a launcher keeps root, starting only nobody (the account
# the tests launch as, in the helper's own grid-mapfile). ACCOUNT must reach its credentials,
# token file and socket directory, as a deployed helper's service account must.
helper_conf_privsep() {
	local d=$FIXTURE_DIR name=$1
	printf '"/O=Grid/OU=qcg-ompi/CN=privsep test user" nobody\n' >"$d/helper-$name.grid-mapfile"
	chmod 0711 "$d"
	chown "$HELPER_SERVICE_USER" "$d/$name-key.pem"
	# as systemd's RuntimeDirectory would be: the helper removes its socket when it stops
	chown "$HELPER_SERVICE_USER" "$HELPER_SOCKET_DIR"
	sed -i "/^\[tls\]/i user = $HELPER_SERVICE_USER\ngrid_mapfile = $d/helper-$name.grid-mapfile" \
		"$d/helper-$name.conf"
}

helper_start() {
	local d=$FIXTURE_DIR name=$1 address=$2 frontend=$3
	shift 3
	write_helper_conf "$name" "$address" "$frontend"
	rm -f "$d/helper-$name.port"
	"$QCG_HELPER" -c "$d/helper-$name.conf" --port-file "$d/helper-$name.port" "$@" \
		>>"$d/helper-$name.log" 2>&1 &
	HELPER_PID=$!
	[ -z "$HELPER_PIDS" ] && trap 'helper_cleanup; fixture_cleanup' EXIT
	HELPER_PIDS="$HELPER_PIDS $HELPER_PID"
	fixture_wait_ready qcg-helper "$HELPER_PID" "$d/helper-$name.port" "$d/helper-$name.log"
	HELPER_URL="https://127.0.0.1:$(cat "$d/helper-$name.port")/"
	HELPER_SOCKET="$HELPER_SOCKET_DIR/$name.sock"
	HELPER_TOKENS="$d/helper-$name.tokens"
}

# proc_status_field PID FIELD: the first word after "FIELD:" in /proc/PID/status.
proc_status_field() {
	awk -v f="$2:" '$1 == f { print $2; exit }' "/proc/$1/status" 2>/dev/null
}

# helper_check_privsep PID: the helper PID privilege-separated as HELPER_SERVICE_USER: it runs
# as that account (real, effective, saved) with no effective capability and no_new_privs, and
# its one child, qcg-launcher, is root. Passes or fails the three checks.
helper_check_privsep() {
	local pid=$1 uid launcher
	uid=$(id -u "$HELPER_SERVICE_USER")
	# its port file comes just before the drop: wait for the drop itself
	wait_until 100 eval '[ "$(proc_status_field "$pid" Uid)" = "$uid" ]'
	[ "$(awk '$1 == "Uid:" { print $2, $3, $4 }' "/proc/$pid/status")" = "$uid $uid $uid" ] &&
		[ "$(proc_status_field "$pid" CapEff)" = 0000000000000000 ] &&
		[ "$(proc_status_field "$pid" NoNewPrivs)" = 1 ] &&
		pass helper_network_half_runs_as_service_user_without_capabilities ||
		fail helper_network_half_runs_as_service_user_without_capabilities \
			"$(grep -E '^(Uid|CapEff|NoNewPrivs):' "/proc/$pid/status" | tr '\n' ' ')"
	launcher=$(pgrep -P "$pid" -x qcg-launcher)
	[ -n "$launcher" ] && [ "$(proc_status_field "$launcher" Uid)" = 0 ] &&
		pass helper_launcher_alone_keeps_root ||
		fail helper_launcher_alone_keeps_root "launcher '$launcher': $(ps -o pid,user,comm --ppid "$pid")"
	[ "$(ps -o user= --ppid "$pid" | grep -cx root)" -le 1 ] &&
		pass helper_has_no_other_root_child ||
		fail helper_has_no_other_root_child "$(ps -o pid,user,comm --ppid "$pid")"
}

helper_as() {
	fixture_tls "$1"; shift
	"$HELPER_CALL" --url "$HELPER_URL" "${TLS_ARGS[@]}" "$@"
}

helper_local_as() {
	"$HELPER_LOCAL" "$HELPER_SOCKET" "$@"
}

# --- proxies (services/proxy) ------------------------------------------------------------------
# A test that starts proxies sets its own trap: trap 'proxy_stop_all; fixture_cleanup' EXIT
QCG_PROXY="$top_builddir/services/proxy/qcg-proxy"
PROXY_LEGS="$top_builddir/tests/integration/proxy_legs"
PROXY_CALL="$top_builddir/tests/integration/proxy_call"
PROXY_PIDS=""

# write_proxy_conf FILE CERT-PREFIX NETWORKS CLUSTER [EXTRA-LINES]: a qcg-proxy whose relay and
# SOAP control ports are free ports of 127.0.0.1, registered with BROKER_URL as serving NETWORKS
# for CLUSTER ("" for the WAN); statistics readers: the fixture's grid-mapfile and the broker's
# ACL; a local control socket FILE.ctl; the port file FILE.ready.
write_proxy_conf() {
	local d=$FIXTURE_DIR
	{
		genconf_proxy 127.0.0.1:0 "$1.ready" "$BROKER_URL" 127.0.0.1 "$3" "$4" 127.0.0.1:0 \
			"$d/broker.acl" "$d/grid-mapfile"
		genconf_proxy_local "$1.ctl" 2 0
		genconf_log_level "${PROXY_LOG_LEVEL:-debug}"
		[ -z "${5:-}" ] || printf '%s\n' "$5"
		genconf_proxy_control "" 10 1048576
		genconf_tls "$d/$2-cert.pem" "$d/$2-key.pem" "$d/ca/certificates"
	} >"$1"
}

# proxy_start CONF LOG: start qcg-proxy and wait until it listens; sets PROXY_PID,
# PROXY_ENDPOINT (127.0.0.1:PORT, what it registers) and PROXY_CONTROL_URL.
proxy_start() {
	local conf=$1 log=$2
	rm -f "$conf.ready"
	"$QCG_PROXY" --config "$conf" >>"$log" 2>&1 &
	PROXY_PID=$!
	PROXY_PIDS="$PROXY_PIDS $PROXY_PID"
	fixture_wait_ready qcg-proxy "$PROXY_PID" "$conf.ready" "$log"
	PROXY_ENDPOINT=$(head -n 1 "$conf.ready")
	PROXY_CONTROL_URL=$(sed -n 's/^control //p' "$conf.ready")
}

proxy_stop_all() {
	# shellcheck disable=SC2086 # a list of pids
	fixture_stop $PROXY_PIDS
	PROXY_PIDS=""
}

# proxy_stats_as CREDENTIAL-PREFIX URL: GetStatistics on a proxy's control service.
proxy_stats_as() {
	fixture_tls "$1"
	"$PROXY_CALL" --url "$2" "${TLS_ARGS[@]}"
}

# --- launcher (launcher/): whole sites and user credentials ------------------------------------
#   site_start SITE POLICY SLOTS NODE...  # front-end gw-SITE for cluster SITE with one qcg-helper
#                              per NODE (SLOTS each); sets SITE_URL; users map to 'nobody'
#   user_proxy_file WHO         # prints a file holding WHO's certificate and key (a proxy-style
#                              credential file for X509_USER_PROXY)
#   as_user WHO CMD ARGS...     # run CMD with WHO's credentials and the fixture's CA only
# Site files: $FIXTURE_DIR/site-SITE.{conf,log,acl,gridmap}; helpers as in helper_start.
site_start() {
	local d=$FIXTURE_DIR site=$1 policy=$2 slots=$3 node port nodes="" ports=""
	shift 3
	host_cert "gw-$site" # names 127.0.0.1, which fixture_init's gw-a and gw-b do not
	: >"$d/site-$site.acl"
	for node in "$@"; do
		port=$(free_port)
		ports="$ports $node:$port"
		nodes="$nodes$node = https://127.0.0.1:$port/ $slots
	"
		echo "helper \"/O=Grid/OU=qcg-ompi/CN=host/$node\"" >>"$d/site-$site.acl"
	done
	"$QCG_CA" grid-mapfile-line "$d/jane-cert.pem" nobody >"$d/site-$site.gridmap"
	write_frontend_conf "$d/site-$site.conf" "gw-$site" "$site" "$policy" "$d/site-$site.acl" \
		"$d/site-$site.gridmap" "$nodes"
	frontend_start "$d/site-$site.conf" "$d/site-$site.log"
	SITE_URL=$FRONTEND_URL
	[ -z "$HELPER_PIDS" ] && [ -z "${SITE_TRAP_SET:-}" ] &&
		trap 'frontend_stop_all; helper_cleanup; fixture_cleanup' EXIT
	SITE_TRAP_SET=1
	for node in $ports; do
		site_helper_start "${node%%:*}" "${node##*:}" "$site" "$SITE_URL"
	done
	wait_for_log "$d/site-$site.log" "cluster $site registered" ||
		{ echo "front-end of $site did not register:"; cat "$d/site-$site.log"; exit 99; }
}

# site_helper_start NODE PORT SITE FRONTEND-URL: a qcg-helper for NODE listening on PORT.
site_helper_start() {
	local d=$FIXTURE_DIR name=$1 port=$2
	HELPER_CLUSTER=$3 write_helper_conf "$name" 127.0.0.1 "$4"
	sed -i "s/^listen = 127.0.0.1:0$/listen = 127.0.0.1:$port/" "$d/helper-$name.conf"
	"$QCG_HELPER" -c "$d/helper-$name.conf" >>"$d/helper-$name.log" 2>&1 &
	HELPER_PIDS="$HELPER_PIDS $!"
	fixture_wait_listening "qcg-helper $name" "$!" "$port" "$d/helper-$name.log"
}

# fixture_wait_listening NAME PID PORT LOG: like fixture_wait_ready, for a daemon with a fixed
# port and no port file: until 127.0.0.1:PORT accepts a connection.
fixture_wait_listening() {
	local name=$1 pid=$2 port=$3 log=$4
	wait_until 300 fixture_listening_or_dead "$port" "$pid"
	kill -0 "$pid" 2>/dev/null || { echo "$name died:"; cat "$log"; exit 99; }
	fixture_listening "$port" && return 0
	echo "$name did not listen on $port within 30 s:"; cat "$log"
	exit 99
}
fixture_listening() {
	/usr/bin/python3 -c "import socket; socket.create_connection(('127.0.0.1', $1), 1)" 2>/dev/null
}
fixture_listening_or_dead() { fixture_listening "$1" || ! kill -0 "$2" 2>/dev/null; }

user_proxy_file() {
	local f=$FIXTURE_DIR/$1-credential.pem
	[ -f "$f" ] || { cat "$FIXTURE_DIR/$1-cert.pem" "$FIXTURE_DIR/$1-key.pem" >"$f"; chmod 600 "$f"; }
	echo "$f"
}

as_user() {
	local who=$1; shift
	env -u X509_USER_CERT -u X509_USER_KEY X509_USER_PROXY="$(user_proxy_file "$who")" \
		X509_CERT_DIR="$FIXTURE_DIR/ca/certificates" "$@"
}

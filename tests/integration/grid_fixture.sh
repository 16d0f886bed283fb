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

FIXTURE_DIR=$(mktemp -d /tmp/qcg-test.XXXXXX)
BROKER_PID=""
FAILURES=0

fixture_cleanup() {
	if [ -n "$BROKER_PID" ]; then
		kill "$BROKER_PID" 2>/dev/null
		wait "$BROKER_PID" 2>/dev/null
	fi
	rm -rf "$FIXTURE_DIR"
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
	cat >"$d/broker.conf" <<-CONF
	[broker]
	listen = $1
	database = $d/broker.db
	acl = $d/broker.acl
	gridmap = $d/grid-mapfile
	workers = 8
	max_message = 1048576
	io_timeout = 10
	log_level = ${BROKER_LOG_LEVEL:-info}
	[tls]
	cert = $d/broker-cert.pem
	key = $d/broker-key.pem
	ca_dir = $d/ca/certificates
	CONF
}

# broker_start [extra qcg-broker args]: start and wait until it listens.
broker_start() {
	rm -f "$FIXTURE_DIR/port"
	"$QCG_BROKER" -c "$FIXTURE_DIR/broker.conf" --port-file "$FIXTURE_DIR/port" "$@" \
		>>"$FIXTURE_DIR/broker.log" 2>&1 &
	BROKER_PID=$!
	for _ in $(seq 1 100); do
		[ -s "$FIXTURE_DIR/port" ] && break
		kill -0 "$BROKER_PID" 2>/dev/null || { echo "qcg-broker died:"; cat "$FIXTURE_DIR/broker.log"; exit 99; }
		sleep 0.05
	done
	[ -s "$FIXTURE_DIR/port" ] || { echo "qcg-broker did not start"; exit 99; }
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
	local who=$1; shift
	"$BROKER_CALL" --broker "$BROKER_URL" --cert "$FIXTURE_DIR/$who-cert.pem" \
		--key "$FIXTURE_DIR/$who-key.pem" --ca-dir "$FIXTURE_DIR/ca/certificates" "$@"
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

# grid.sh: clients of a running testbed's services, as the user and the processes of a job use
# them. Sourced by tests/testbed/services.test and examples/demo-grid.sh, after setting
#   QTB           the qcg-testbed script
#   TB_DIR        the testbed's state directory (its services up, DIR/env written)
#   top_builddir  the build directory (launcher/qcg-query and the test programs below)
# Every call runs in a testbed host's namespaces, bounded by GRID_CALL_TIMEOUT seconds.
#
#   grid_env                        source DIR/env (the user's credentials, the URLs)
#   grid_query ARGS...              qcg-query on host user
#   grid_broker_call ARGS...        tests/integration/broker_call on host user, as the user
#   grid_fe SITE ARGS...            tests/integration/frontend_call at SITE's front-end, as the user
#   grid_job_token JOB TOKEN NODE...  let processes of JOB prove themselves with TOKEN on NODEs
#   grid_local NODE JOB TOKEN OP... tests/integration/helper_local on NODE's helper socket
#   grid_connect FROM TO ADDR PORT JOB TOKEN
#                                   a process on TO waits on PORT while tests/testbed/tb_connect
#                                   on FROM connects to ADDR:PORT; sets GRID_CONN (tb_connect's
#                                   output) and GRID_WAITED (the waiting process's)

: "${QTB:?}" "${TB_DIR:?}" "${top_builddir:?}"
# The bounded waits (wait_until): beside the test libraries, found from this file's own place
# because the demo sources grid.sh without them.
. "$(dirname "${BASH_SOURCE[0]}")/../wait.sh"
GRID_CALL_TIMEOUT=${GRID_CALL_TIMEOUT:-30}
GRID_QUERY=$top_builddir/launcher/qcg-query
GRID_FE_CALL=$top_builddir/tests/integration/frontend_call
GRID_BROKER_CALL=$top_builddir/tests/integration/broker_call
GRID_HELPER_LOCAL=$top_builddir/tests/integration/helper_local
GRID_TB_CONNECT=$top_builddir/tests/testbed/tb_connect
GRID_PROGRAMS=("$GRID_QUERY" "$GRID_FE_CALL" "$GRID_BROKER_CALL" "$GRID_HELPER_LOCAL" "$GRID_TB_CONNECT")

# Run CMD on testbed host $1 (fd 8, a test's lock, is not inherited).
grid_on() {
	local h=$1
	shift
	"$QTB" --dir "$TB_DIR" exec "$h" -- timeout "$GRID_CALL_TIMEOUT" "$@" 8>&-
}

grid_env() {
	# shellcheck source=/dev/null
	source "$TB_DIR/env"
	[[ -n ${QCG_BROKER_URL:-} ]] || { echo "grid.sh: $TB_DIR/env names no broker" >&2; return 1; }
}

grid_query() { grid_on user "$GRID_QUERY" --timeout 10 "$@"; }

grid_broker_call() {
	grid_on user "$GRID_BROKER_CALL" --broker "$QCG_BROKER_URL" --cert "$X509_USER_PROXY" \
		--key "$X509_USER_PROXY" --ca-dir "$X509_CERT_DIR" "$@"
}

grid_fe() {
	local url=QCG_FRONTEND_URL_$1
	shift
	grid_on user "$GRID_FE_CALL" --url "${!url}" --cert "$X509_USER_PROXY" \
		--key "$X509_USER_PROXY" --ca-dir "$X509_CERT_DIR" "$@"
}

# The helpers re-read their token files for jobs they do not know yet.
grid_job_token() {
	local job=$1 token=$2 n
	shift 2
	for n in "$@"; do printf '%s %s root\n' "$job" "$token" >>"$TB_DIR/etc/helper-$n.tokens"; done
}

grid_local() {
	local n=$1
	shift
	grid_on "$n" "$GRID_HELPER_LOCAL" "$TB_DIR/run/helper-$n.sock" "$@"
}

grid_connect() {
	local from=$1 to=$2 addr=$3 port=$4 job=$5 token=$6 i waiter
	grid_local "$to" "$job" "$token" wait "$port" 1 >"$TB_DIR/run/wait.out" 2>&1 &
	waiter=$!
	wait_until 300 grep -q '^waiting' "$TB_DIR/run/wait.out" # GRID_WAITED shows it if never
	GRID_CONN=$(grid_on "$from" "$GRID_TB_CONNECT" "$TB_DIR/run/helper-$from.sock" "$job" \
		"$token" "$addr" "$port" 2>&1 || true)
	wait "$waiter" || true
	GRID_WAITED=$(cat "$TB_DIR/run/wait.out")
}

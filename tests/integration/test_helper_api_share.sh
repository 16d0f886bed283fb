#!/bin/bash
# test_helper_api_share.sh: another local user cannot shut a node's helper API (the unix socket
# of qcg-helper) for the others (issue 17: 256 idle connections of one user blocked it, with
# nothing logged). One uid holds at most half of max_clients, the refusal says so and is logged
# once, root still gets in; a connection that sends nothing is closed after client_io_timeout
# and logged.
. "$top_srcdir/tests/integration/grid_fixture.sh"
D=$FIXTURE_DIR
TOKEN=0123456789abcdef0123456789abcdef
HOLD_PID=""
trap '[ -n "$HOLD_PID" ] && kill "$HOLD_PID" 2>/dev/null; helper_cleanup; fixture_cleanup' EXIT
command -v setpriv >/dev/null || { echo "SKIP: no setpriv"; exit 77; }
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root to connect as another uid"; exit 77; }

# hold_silent N SECONDS: uid 65534 opens N connections to the helper's socket and says nothing
hold_silent() {
	setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 -c '
import socket, sys, time
socks = []
for _ in range(int(sys.argv[2])):
    s = socket.socket(socket.AF_UNIX)
    s.connect(sys.argv[1])
    socks.append(s)
print("holding", flush=True)
time.sleep(float(sys.argv[3]))' "$HELPER_SOCKET" "$1" "$2" >"$D/hold.out" 2>&1 &
	HOLD_PID=$!
	wait_for_log "$D/hold.out" '^holding' || { echo "hold: $(cat "$D/hold.out")"; exit 99; }
}
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$HELPER_LOCAL" "$HELPER_SOCKET" "$@"; }

fixture_init
helper_start n1 127.0.0.1 https://127.0.0.1:9/ -s helper.max_clients=8 -s helper.client_io_timeout=120
echo "job-1 $TOKEN nobody" >>"$HELPER_TOKENS"
LOG=$D/helper-n1.log

hold_silent 8 120
wait_for_log "$LOG" 'uid 65534 holds 4 connections, its share of max_clients 8' &&
	pass one_uid_refused_beyond_half_of_max_clients_and_logged ||
	fail one_uid_refused_beyond_half_of_max_clients_and_logged "$(grep 'local API' "$LOG")"
[ "$(grep -c 'its share of max_clients' "$LOG")" -eq 1 ] && pass share_refusals_logged_once ||
	fail share_refusals_logged_once "$(grep -c 'its share of max_clients' "$LOG") lines"
out=$(helper_local_as job-1 "$TOKEN" hello 2>&1)
[ "$out" = ok ] && pass root_served_while_another_uid_holds_its_share ||
	fail root_served_while_another_uid_holds_its_share "$out"
out=$(as_nobody job-1 "$TOKEN" hello 2>&1)
case $out in *"connections of uid 65534 already"*) pass refused_uid_told_why ;;
*) fail refused_uid_told_why "$out" ;; esac
kill "$HOLD_PID"; wait "$HOLD_PID" 2>/dev/null; HOLD_PID=""
nobody_ok() { out=$(as_nobody job-1 "$TOKEN" hello 2>&1) && [ "$out" = ok ]; }
wait_until 300 nobody_ok && pass uid_served_again_after_closing ||
	fail uid_served_again_after_closing "$out"

helper_start n2 127.0.0.1 https://127.0.0.1:9/ -s helper.client_io_timeout=1
LOG=$D/helper-n2.log
hold_silent 2 60
wait_for_log "$LOG" 'uid 65534 sent nothing within 1000 ms: closing' &&
	pass silent_connection_closed_after_client_io_timeout_and_logged ||
	fail silent_connection_closed_after_client_io_timeout_and_logged "$(grep 'local API' "$LOG")"
fixture_exit

#!/bin/bash
# test_soap_idle.sh: lib/soap_server keeps idle kept-alive connections off its workers. A broker
# with 2 workers serves 6 clients that each keep their connection open and idle, a 7th that
# comes meanwhile, and a second request on each of the 6 (a service holding a worker per idle
# connection answers only 2 of them and the 7th after keep_alive_idle); an idle connection is
# closed after keep_alive_idle; with max_idle = 2 the others are closed after their answer; and
# the last answer a connection gets under max_keep_alive says "Connection: close" (a server
# that closes a connection it announced as kept alive resets the request already sent on it).
. "$top_srcdir/tests/integration/grid_fixture.sh"
D=$FIXTURE_DIR
fixture_init

probe() {
	/usr/bin/python3 "$top_srcdir/tests/integration/keepalive_probe.py" 127.0.0.1 "$BROKER_PORT" \
		"$D/jane-cert.pem" "$D/jane-key.pem" "$D/ca/certificates" "$@"
}

broker_start -s broker.workers=2 -s broker.keep_alive_idle=60
out=$(probe hold 6)
[[ $out == "first=6 extra=ok second=6" ]] && pass idle_connections_hold_no_worker ||
	fail idle_connections_hold_no_worker "$out (2 workers, 6 idle clients)"
fixture_stop qcg-broker "$BROKER_PID"

broker_start -s broker.workers=2 -s broker.keep_alive_idle=1
out=$(probe expire 3 3)
[[ $out == "closed=3" ]] && pass idle_connection_closed_after_keep_alive_idle ||
	fail idle_connection_closed_after_keep_alive_idle "$out (keep_alive_idle 1 s, 3 s silent)"
fixture_stop qcg-broker "$BROKER_PID"

broker_start -s broker.workers=2 -s broker.max_keep_alive=3
out=$(probe burst 10)
[[ $out == "answered=10 reconnects=3" ]] && pass last_kept_alive_answer_says_close ||
	fail last_kept_alive_answer_says_close "$out (max_keep_alive 3, 10 requests back to back)"
fixture_stop qcg-broker "$BROKER_PID"

broker_start -s broker.workers=2 -s broker.keep_alive_idle=60 -s broker.max_idle=2
out=$(probe expire 4 1)
[[ $out == "closed=2" ]] && pass max_idle_bounds_waiting_connections ||
	fail max_idle_bounds_waiting_connections "$out (max_idle 2, 4 clients)"
fixture_exit

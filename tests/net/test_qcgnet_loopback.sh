#!/bin/bash
# test_qcgnet_loopback.sh: libqcgnet.so preloaded into a plain-sockets program (qcgnet_probe),
# with the real qcg-broker, qcg-frontend, qcg-helper and qcg-proxy on loopback (fresh CA).
# Four one-node clusters:
#   site-a open  (node a1, 127.0.0.2)         site-b nat, traversal allowed (b1, 127.0.0.3)
#   site-c nat, traversal allowed (c1, .4)    site-d nat, no traversal      (d1, 127.0.0.5)
# and one WAN proxy. Each front-end declares its node's address as its public address, so that
# traversal's simultaneous open meets on loopback. Proves: listen() registers; connect() gets
# direct (b1 -> a1), reversal (a1 -> b1, accept() returns the handed socket with the
# initiator's published address), traversal (b1 -> c1), relay through the proxy (b1 -> d1);
# non-blocking connect + poll; accept readiness through poll, epoll and select; fall-through
# when direct fails (REPORT failed, then the next method); listeners inside QCG_NET_PORTS;
# sockets that are not the job's are untouched; the connection log holds every method; and
# during a broker outage connect() asks again, bounded, then fails naming the cause (no plain
# connect), or succeeds when the broker is back in time.
. "$top_srcdir/tests/net/probe_grid.sh"
probe_grid_need "$QCG_FRONTEND" "$QCG_PROXY"
probe_grid_start

probe_grid_site a open a1 127.0.0.2 no
probe_grid_site b nat b1 127.0.0.3 yes
probe_grid_site c nat c1 127.0.0.4 yes
probe_grid_site d nat d1 127.0.0.5 no
write_proxy_conf "$D/pw.conf" proxy-1 0.0.0.0/0 ""
proxy_start "$D/pw.conf" "$D/pw.log"

contacts() { query_as jane contacts job-1 2>&1; }
# not_logged PORT / not_contact PORT: the broker answered, and nothing with PORT (a failed query,
# which prints no record, proves nothing).
not_logged() { local out; out=$(query_as jane connections job-1 2>/dev/null) && ! grep -q ":$1 " <<<"$out"; }
not_contact() { local out; out=$(query_as jane contacts job-1 2>/dev/null) && ! grep -q " $1\b" <<<"$out"; }

# --- registration on listen() ----------------------------------------------------------------
serve a1 "$D/a.out" 127.0.0.2 1 poll
PA=$PORT A_PID=$LISTENER
if contacts | grep -Eq "site-a +a1 +127.0.0.2 +$PA\b"; then
	pass listen_registers_the_access_point_through_helper_and_frontend
else
	fail listen_registers_the_access_point_through_helper_and_frontend "$(contacts)"
fi

# --- direct: site-a is open -------------------------------------------------------------------
out=$(on b1 "$PROBE" connect 127.0.0.2 "$PA" 2>>"$ERR")
case $out in "connect=0 getpeername=127.0.0.2:$PA got=echo:ping") pass connect_to_an_open_site_is_direct ;;
*) fail connect_to_an_open_site_is_direct "$out" ;; esac
# (a connection that worked by a method the broker coordinated nothing for is reported in the
# helper's next batch, within about 200 ms)
wait_until 100 logged b1 a1 "$PA" direct ok || fail direct_is_reported "$(conn_log)"

# --- reversal: a1 -> b1 (nat); accept() returns the handed socket ------------------------------
serve b1 "$D/b.out" 127.0.0.3 2 epoll
PB=$PORT B_PID=$LISTENER
out=$(on a1 "$PROBE" connect 127.0.0.3 "$PB" 2>>"$ERR")
case $out in "connect=0 getpeername=127.0.0.3:$PB got=echo:ping") pass reversal_connects_the_initiator ;;
*) fail reversal_connects_the_initiator "$out" ;; esac
if grep -Eq '^accepted peer=127.0.0.2:[0-9]+ getpeername=127.0.0.2:[0-9]+$' "$D/b.out"; then
	pass reversal_accept_and_getpeername_show_the_initiators_published_address
else
	fail reversal_accept_and_getpeername_show_the_initiators_published_address "$(cat "$D/b.out")"
fi
logged a1 b1 "$PB" reversal ok && pass reversal_is_reported || fail reversal_is_reported "$(conn_log)"

# --- non-blocking connect + poll (reversal again), listener woken through epoll ---------------
out=$(on a1 "$PROBE" connect 127.0.0.3 "$PB" nonblock 2>>"$ERR")
case $out in "connect="*" getpeername=127.0.0.3:$PB got=echo:ping")
	pass nonblocking_connect_then_poll_gives_a_working_socket ;;
*) fail nonblocking_connect_then_poll_gives_a_working_socket "$out" ;; esac
wait "$B_PID" && pass listener_woken_through_epoll_twice || fail listener_woken_through_epoll_twice "$(cat "$D/b.out")"

# --- relay through the WAN proxy: b1 -> d1 (nat, no traversal) --------------------------------
serve d1 "$D/d.out" 127.0.0.5 1 select
PD=$PORT D_PID=$LISTENER
out=$(on b1 "$PROBE" connect 127.0.0.5 "$PD" 2>>"$ERR")
case $out in "connect=0 getpeername=127.0.0.5:$PD got=echo:ping") pass relay_through_a_real_proxy ;;
*) fail relay_through_a_real_proxy "$out / $(cat "$D/d.out")" ;; esac
grep -Eq '^accepted peer=127.0.0.3:[0-9]+ getpeername=127.0.0.3:' "$D/d.out" &&
	pass relay_target_sees_the_initiators_address || fail relay_target_sees_the_initiators_address "$(cat "$D/d.out")"
logged b1 d1 "$PD" relay ok && pass relay_is_reported || fail relay_is_reported "$(conn_log)"
wait "$D_PID"

# --- traversal: b1 -> c1, both nat with traversal allowed -------------------------------------
serve c1 "$D/c.out" 127.0.0.4 1 poll
PC=$PORT C_PID=$LISTENER
# On loopback a SYN to a port nobody listens on is refused at once, so the two SYNs of a
# simultaneous open rarely cross: traversal may fail here, and then the relay must follow.
# (The testbed's NATs are where traversal proper is shown.)
out=$(on b1 "$PROBE" connect 127.0.0.4 "$PC" 2>>"$ERR")
case $out in "connect=0 getpeername=127.0.0.4:$PC got=echo:ping") ;;
*) fail traversal_pair_connects "$out / $(cat "$D/c.out")" ;; esac
if logged b1 c1 "$PC" traversal ok; then
	pass nat_pair_with_traversal_allowed_uses_traversal_first; echo "     (the simultaneous open met)"
elif logged b1 c1 "$PC" traversal failed && logged b1 c1 "$PC" relay ok; then
	pass nat_pair_with_traversal_allowed_uses_traversal_first; echo "     (it failed on loopback; the relay followed)"
else
	fail nat_pair_with_traversal_allowed_uses_traversal_first "$(conn_log)"
fi
wait "$C_PID"

# --- fall-through: a1's listener registered under an address where nothing listens -----------
serve a1 "$D/a2.out" 127.0.0.2 1 block QCG_NET_ADDRESS=127.0.0.9
PF=$PORT F_PID=$LISTENER
out=$(on b1 "$PROBE" connect 127.0.0.9 "$PF" 2>>"$ERR")
case $out in "connect=0 getpeername=127.0.0.9:$PF got=echo:ping") ;;
*) fail fall_through "$out / $(cat "$ERR")" ;; esac
if logged b1 a1 "$PF" direct failed && logged b1 a1 "$PF" relay ok; then
	pass failed_direct_is_reported_and_falls_through_to_relay
else
	fail failed_direct_is_reported_and_falls_through_to_relay "$(conn_log)"
fi
wait "$F_PID"

# --- the job's port window ------------------------------------------------------------------
WMIN=47200 WMAX=47209
out=$(on a1 env QCG_NET_PORTS=$WMIN-$WMAX "$PROBE" bind-explicit 0.0.0.0 1024 2>>"$ERR")
p=${out#listening }
if [ "$p" -ge $WMIN ] 2>/dev/null && [ "$p" -le $WMAX ]; then
	pass explicit_port_listener_lands_in_the_window
else
	fail explicit_port_listener_lands_in_the_window "$out"
fi
out=$(on a1 env QCG_NET_PORTS=$WMIN-$WMAX "$PROBE" bind-explicit 0.0.0.0 0 2>>"$ERR")
p=${out#listening }
if [ "$p" -ge $WMIN ] 2>/dev/null && [ "$p" -le $WMAX ]; then
	pass port_zero_listener_lands_in_the_window
else
	fail port_zero_listener_lands_in_the_window "$out"
fi

# --- sockets that are not the job's ----------------------------------------------------------
out=$(on a1 env -u QCG_NET_LOOPBACK "$PROBE" local 2>>"$ERR")
case $out in "local ok tcp-peer=127.0.0.1:"*) pass unix_udp_and_loopback_tcp_are_untouched ;;
*) fail unix_udp_and_loopback_tcp_are_untouched "$out" ;; esac
serve_plain 127.0.0.7 "$D/plain.out"
PP=$PORT P_PID=$LISTENER
out=$(on b1 "$PROBE" connect 127.0.0.7 "$PP" 2>>"$ERR")
wait "$P_PID"
if [ "$out" = "connect=0 getpeername=127.0.0.7:$PP got=echo:ping" ] &&
	grep -q "^accepted peer=127.0.0.1:" "$D/plain.out"; then
	pass connect_to_a_non_job_peer_is_a_plain_connect
else
	fail connect_to_a_non_job_peer_is_a_plain_connect "$out / $(cat "$D/plain.out")"
fi
not_logged "$PP" || fail non_job_connect_is_not_reported "$(conn_log)"

# --- inert without QCG_NET ---------------------------------------------------------------------
on a1 env -u QCG_NET "$PROBE" listen 127.0.0.2 0 1 poll >"$D/inert.out" 2>&1 &
PIDS="$PIDS $!"
I_PID=$!
wait_for_log "$D/inert.out" '^listening'
PI=$(sed -n 's/^listening //p' "$D/inert.out")
out=$(on b1 env -u QCG_NET "$PROBE" connect 127.0.0.2 "$PI" 2>>"$ERR")
wait "$I_PID"
if [ "$out" = "connect=0 getpeername=127.0.0.2:$PI got=echo:ping" ] && not_contact "$PI" &&
	not_logged "$PI"; then
	pass without_QCG_NET_the_shim_is_inert
else
	fail without_QCG_NET_the_shim_is_inert "$out / $(contacts) / $(conn_log)"
fi
wait "$A_PID" 2>/dev/null

# --- a broker outage: RESOLVE is asked again, bounded; then connect() fails, naming the cause,
# and never falls back to a plain connect (from a NAT site that reaches nothing, or comes from
# the gateway's address, and the job hung until its wall time) -------------------------------
serve a1 "$D/outage.out" 127.0.0.2 1 block
PO=$PORT O_PID=$LISTENER # registered while the broker lives; nobody has resolved it yet
broker_kill9
out=$(on b1 env QCG_NET_RESOLVE_WAIT_MS=3000 "$PROBE" connect-fail 127.0.0.2 "$PO" \
	2>"$D/outage.err")
if [ "$out" = "failed errno=ETIMEDOUT" ] && grep -q "asking again for up to 3000 ms" "$D/outage.err" &&
	grep -Eq "connect to 127.0.0.2:$PO failed: .*broker.*\(asked [0-9]+ times over [0-9]+ ms\)" \
	"$D/outage.err"; then
	pass resolve_during_a_broker_outage_is_retried_then_fails_naming_the_broker
else
	fail resolve_during_a_broker_outage_is_retried_then_fails_naming_the_broker \
		"$out / $(cat "$D/outage.err")"
fi
grep -q '^accepted' "$D/outage.out" &&
	fail no_plain_connect_after_a_failed_resolve "$(cat "$D/outage.out")" ||
	pass no_plain_connect_after_a_failed_resolve
# The broker comes back while a connect() is asking again: that connect() succeeds.
on b1 env QCG_NET_RESOLVE_WAIT_MS=60000 "$PROBE" connect 127.0.0.2 "$PO" >"$D/back.out" \
	2>"$D/back.err" &
BACK_PID=$!
PIDS="$PIDS $BACK_PID"
wait_for_log "$D/back.err" 'asking again' 30 || fail connect_during_the_outage_is_waiting "$(cat "$D/back.err")"
broker_restart_same_port
wait "$BACK_PID"
case $(cat "$D/back.out") in "connect=0 getpeername=127.0.0.2:$PO got=echo:ping")
	pass connect_waiting_through_a_broker_restart_succeeds ;;
*) fail connect_waiting_through_a_broker_restart_succeeds "$(cat "$D/back.out" "$D/back.err")" ;; esac
wait "$O_PID" 2>/dev/null
[ "$FAILURES" -eq 0 ] || { echo "--- probes' stderr:"; tail -n 40 "$ERR"; }
fixture_exit

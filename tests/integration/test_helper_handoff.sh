#!/bin/bash
# test_helper_handoff.sh: the target side of a connection on loopback with a fresh CA. An "MPI
# process" (helper_local) waits for inbound sockets on the local API; the front-end's Deliver
# (helper_call, front-end certificate) tells qcg-helper to connect out to an endpoint the test
# opens (a reversal rendezvous, a relay proxy, a traversal peer); the waiting process gets a
# working socket through SCM_RIGHTS, and the helper keeps no copy of it.
. "$top_srcdir/tests/integration/grid_fixture.sh"
D=$FIXTURE_DIR
PY=/usr/bin/python3
TOKEN=0123456789abcdef0123456789abcdef
ID=00112233445566778899aabbccddeeff

fixture_init
helper_start n1 127.0.0.1 https://127.0.0.1:9/
echo "job-1 $TOKEN root" >>"$HELPER_TOKENS"

# wait_for FILE PATTERN: the fixture's wait_for_log (30 s).
wait_for() { wait_for_log "$1" "$2"; }

# peer_endpoint MODE PORTFILE OUTFILE [BIND-ADDRESS]: a one-shot TCP endpoint playing the other
# side. MODE rendezvous/proxy: listen, accept, expect the 24-byte hello with $ID; traversal:
# also answer with our own hello. Then send "ping", expect "echo:ping", hold the socket 1.5 s.
peer_endpoint() {
	"$PY" - "$1" "$2" "$3" "$ID" "${4:-127.0.0.1}" <<-'PY' &
	import socket, sys, time
	mode, portfile, outfile, rid, bind = sys.argv[1:6]
	out = open(outfile, "w")
	hello = b"QCGR\x01\x00\x00\x00" + bytes.fromhex(rid)
	ls = socket.socket()
	ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
	ls.bind((bind, 0))
	ls.listen(4)
	open(portfile + ".tmp", "w").write(str(ls.getsockname()[1]))
	import os; os.rename(portfile + ".tmp", portfile)
	ls.settimeout(10)
	c, peer = ls.accept()
	c.settimeout(10)
	got = b""
	while len(got) < 24:
	    chunk = c.recv(24 - len(got))
	    if not chunk:
	        break
	    got += chunk
	out.write("from=%s:%d hello=%s\n" % (peer[0], peer[1], "good" if got == hello else "bad"))
	if mode == "traversal":
	    c.sendall(hello)
	c.sendall(b"ping\n")
	reply = b""
	while not reply.endswith(b"\n"):
	    chunk = c.recv(64)
	    if not chunk:
	        break
	    reply += chunk
	out.write("reply=%s\n" % reply.decode(errors="replace").strip())
	out.flush()
	time.sleep(1.5)
	c.close()
	PY
}

socket_fds() { ls -l "/proc/$HELPER_PID/fd" 2>/dev/null | grep -c 'socket:'; }

# --- reversal: the helper connects out to the rendezvous and hands the socket over ----------
helper_local_as job-1 "$TOKEN" wait 40000 1 >"$D/wait1.out" 2>&1 &
WAITER=$!
wait_for "$D/wait1.out" '^waiting' || fail reversal_setup "helper_local did not start: $(cat "$D/wait1.out")"
sockets_before=$(socket_fds)
peer_endpoint rendezvous "$D/rdv.port" "$D/rdv.out"
PEER=$!
wait_for "$D/rdv.port" . || fail reversal_setup "rendezvous listener did not start"
RDV_PORT=$(cat "$D/rdv.port")
start_ns=$(date +%s%N)
out=$(helper_as gw-a deliver-connect job-1 n1 40000 reversal "$ID" 127.0.0.1 "$RDV_PORT" 2>&1)
[ "$out" = ok ] || fail deliver_reversal_accepted "$out"
if wait_for "$D/wait1.out" '^handoff'; then
	handoff_ms=$((($(date +%s%N) - start_ns) / 1000000))
	line=$(grep '^handoff' "$D/wait1.out")
	inode=${line##*inode=}
	case $line in
	*"peer=127.0.0.1:$RDV_PORT "*) pass handoff_carries_the_initiators_endpoint ;;
	*) fail handoff_carries_the_initiators_endpoint "$line" ;;
	esac
	# While the process holds the socket, the helper must hold no descriptor for it. It closes
	# its copy after sending, which the receiver may see first: wait for the close (a leak stays).
	helper_has_inode() { ls -l "/proc/$HELPER_PID/fd" | grep -q "socket:\[$inode\]"; }
	if ! wait_while 300 helper_has_inode; then
		fail helper_keeps_no_copy_of_the_handed_socket "socket:[$inode] is among the helper's fds"
	else
		pass helper_keeps_no_copy_of_the_handed_socket
	fi
	socket_count_back() { [ "$(socket_fds)" -eq "$sockets_before" ]; }
	same=no
	wait_until 300 socket_count_back && same=yes
	[ $same = yes ] && pass helper_socket_count_unchanged_after_handoff ||
		fail helper_socket_count_unchanged_after_handoff "before $sockets_before, now $(socket_fds)"
	echo "reversal hand-off: Deliver to handed socket in ${handoff_ms} ms"
else
	fail reversal_hands_a_socket_to_the_waiting_process "no hand-off: $(cat "$D/wait1.out")"
fi
wait "$PEER"
if grep -q '^from=127.0.0.1:.* hello=good' "$D/rdv.out" && grep -q '^reply=echo:ping' "$D/rdv.out"; then
	pass reversal_socket_carries_data_both_ways
else
	fail reversal_socket_carries_data_both_ways "$(cat "$D/rdv.out" 2>/dev/null)"
fi
wait "$WAITER" || fail reversal_waiter_exits_cleanly "$(cat "$D/wait1.out")"

# --- relay: the target's leg goes to the proxy with the hello -------------------------------
peer_endpoint proxy "$D/proxy.port" "$D/proxy.out"
PEER=$!
wait_for "$D/proxy.port" . || fail relay_setup "proxy stand-in did not start"
helper_local_as job-1 "$TOKEN" wait 40001 1 >"$D/wait2.out" 2>&1 &
WAITER=$!
wait_for "$D/wait2.out" '^waiting'
out=$(helper_as gw-a deliver-connect job-1 n1 40001 relay "$ID" 127.0.0.1 1 - "127.0.0.1:$(cat "$D/proxy.port")" 2>&1)
[ "$out" = ok ] || fail deliver_relay_accepted "$out"
wait "$PEER"
if grep -q 'hello=good' "$D/proxy.out" && grep -q '^reply=echo:ping' "$D/proxy.out"; then
	pass relay_leg_presents_the_proxy_hello_and_is_handed_over
else
	fail relay_leg_presents_the_proxy_hello_and_is_handed_over "$(cat "$D/proxy.out" "$D/wait2.out")"
fi
wait "$WAITER"

# --- a socket set up before the process waits is parked, then handed over -------------------
peer_endpoint rendezvous "$D/rdv3.port" "$D/rdv3.out"
PEER=$!
wait_for "$D/rdv3.port" .
helper_as gw-a deliver-connect job-1 n1 40002 reversal "$ID" 127.0.0.1 "$(cat "$D/rdv3.port")" >/dev/null 2>&1
# Deliver only starts the set-up: wait until the socket is parked, or the case tests nothing.
wait_for "$D/helper-n1.log" 'reversal socket for port 40002 handed over' ||
	fail socket_parked_until_the_process_waits "the helper never parked the socket: $(tail -3 "$D/helper-n1.log")"
helper_local_as job-1 "$TOKEN" wait 40002 1 >"$D/wait3.out" 2>&1 &
WAITER=$!
wait "$PEER"
grep -q '^reply=echo:ping' "$D/rdv3.out" && grep -q '^handoff' "$D/wait3.out" &&
	pass socket_parked_until_the_process_waits ||
	fail socket_parked_until_the_process_waits "$(cat "$D/rdv3.out" "$D/wait3.out")"
wait "$WAITER"

# --- traversal, target side: bind the same port P and connect to the initiator's P -----------
# (A true simultaneous open needs two NATs and the testbed; here the initiator listens.)
peer_endpoint traversal "$D/trav.port" "$D/trav.out" 127.0.0.2
PEER=$!
wait_for "$D/trav.port" .
P=$(cat "$D/trav.port")
helper_local_as job-1 "$TOKEN" wait 40003 1 >"$D/wait4.out" 2>&1 &
WAITER=$!
wait_for "$D/wait4.out" '^waiting'
helper_as gw-a deliver-connect job-1 n1 40003 traversal "$ID" 127.0.0.2 "$P" >/dev/null 2>&1
wait "$PEER"
if grep -q "^from=127.0.0.1:$P hello=good" "$D/trav.out" && grep -q '^reply=echo:ping' "$D/trav.out"; then
	pass traversal_connects_from_the_same_port_and_exchanges_hellos
else
	fail traversal_connects_from_the_same_port_and_exchanges_hellos "$(cat "$D/trav.out" "$D/wait4.out")"
fi
wait "$WAITER"

# --- a second waiter on the same port is refused; job-ended drops the job -------------------
helper_local_as job-1 "$TOKEN" wait 40005 1 >"$D/wait5.out" 2>&1 &
WAITER=$!
wait_for "$D/wait5.out" '^waiting'
helper_local_as job-1 "$TOKEN" wait 40005 1 >"$D/dup.out" 2>&1
grep -q 'already waits on port 40005' "$D/dup.out" && pass second_waiter_on_a_port_refused ||
	fail second_waiter_on_a_port_refused "$(cat "$D/dup.out")"
helper_as gw-a deliver-job-ended job-1 >/dev/null
wait "$WAITER"
grep -q 'closed the connection' "$D/wait5.out" && pass job_ended_closes_its_waiters ||
	fail job_ended_closes_its_waiters "$(cat "$D/wait5.out")"
sed -i '/^job-1 /d' "$HELPER_TOKENS"
if helper_local_as job-1 "$TOKEN" hello >"$D/after.out" 2>&1; then
	fail job_ended_forgets_the_token "HELLO still accepted"
else
	pass job_ended_forgets_the_token
fi

# --- bad events get faults ------------------------------------------------------------------
out=$(helper_as gw-a deliver-connect job-1 n2 40000 reversal "$ID" 127.0.0.1 1 2>&1)
case $out in *"delivered to node n1"*) pass event_for_another_node_refused ;;
*) fail event_for_another_node_refused "$out" ;; esac
out=$(helper_as gw-a deliver-connect job-1 n1 40000 reversal nothex 127.0.0.1 1 2>&1)
case $out in *"relayId must be 32 hex digits"*) pass bad_relay_id_refused ;;
*) fail bad_relay_id_refused "$out" ;; esac
out=$(helper_as gw-a deliver-connect job-1 n1 40000 direct "$ID" 127.0.0.1 1 2>&1)
case $out in *"nothing for the target side"*) pass direct_event_refused ;;
*) fail direct_event_refused "$out" ;; esac
out=$(helper_as jane deliver-job-ended job-1 2>&1)
case $out in *"not a frontend in the helper's ACL"*) pass deliver_from_a_non_frontend_refused ;;
*) fail deliver_from_a_non_frontend_refused "$out" ;; esac

kill -0 "$HELPER_PID" 2>/dev/null && pass helper_still_running || fail helper_still_running "it died"
fixture_exit

#!/bin/bash
# test_proxy_soap.sh: qcg-proxy's control side with a real qcg-broker and a fresh CA: it
# registers (qcg-query proxies lists it with live statistics), relays the broker decides work
# end to end (one proxy; a chain of two gateway proxies of closed clusters), an id the broker
# never handed out is refused, the proxy registers again by itself after the broker is killed
# with -9 and restarted on its port with an empty registry, and its SOAP control port answers
# bad requests with faults, refuses other CAs and unauthorized callers, and keeps serving; a
# proxy restarted on its endpoint never announces what was decided for its earlier incarnation.
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
for prog in services/proxy/qcg-proxy services/broker/qcg-broker launcher/qcg-query \
	tests/integration/broker_call tests/integration/proxy_legs tests/integration/proxy_call; do
	[ -x "$top_builddir/$prog" ] || { echo "SKIP: $prog not built"; exit 77; }
done
. "$top_srcdir/tests/integration/grid_fixture.sh"
trap 'proxy_stop_all; fixture_cleanup' EXIT
D=$FIXTURE_DIR
SOAP_RAW="/usr/bin/python3 $top_srcdir/tests/integration/soap_raw.py"

fixture_init
for p in proxy-w proxy-c proxy-d; do host_cert "$p"; done
broker_start

listed() { query_as jane proxies 2>/dev/null | grep -q "^$1 "; }
# unlisted ENDPOINT: the broker answered, and without ENDPOINT (a failed query proves nothing).
unlisted() { local out; out=$(query_as jane proxies 2>/dev/null) && ! grep -q "^$1 " <<<"$out"; }
proxies_listed() { [ "$(query_as jane --json proxies 2>/dev/null | grep -o '"endpoint"' | wc -l)" -eq "$1" ]; }
# field NAME LINE: the value of NAME=... in a broker_call answer line.
field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
# ctl_of ENDPOINT: the control socket of the proxy with that endpoint.
ctl_of() {
	local e
	for e in w c d r; do
		[ "$(head -n 1 "$D/p$e.conf.ready" 2>/dev/null)" = "$1" ] && { echo "$D/p$e.conf.ctl"; return; }
	done
}
# relay_through DECISION-LINE BYTES: wait until the decision's proxies know its id, then move
# BYTES each way between a leg on proxy0 and one on the last proxy.
relay_through() {
	local id p0 p1
	id=$(field relayId "$1"); p0=$(field proxy0 "$1"); p1=$(field proxy1 "$1")
	[ -n "$id" ] && [ -n "$p0" ] || { echo "no relay in '$1'"; return 1; }
	for p in $p0 $p1; do
		"$PROXY_LEGS" wait-stat "$(ctl_of "$p")" ids_expected 1 30000 >/dev/null ||
			{ echo "$p never heard of $id"; return 1; }
	done
	"$PROXY_LEGS" pair "$id" "$p0" "${p1:-$p0}" "$2"
}
register_nat_pair() {
	call_as gw-a register-cluster a nat 127.0.0.1 127.0.0.0/8 >/dev/null &&
		call_as gw-b register-cluster b nat 127.0.0.1 127.0.0.0/8 >/dev/null &&
		call_as jane record-job job-1 >/dev/null &&
		call_as gw-a register-ap job-1 a a1 127.0.0.2 5000 >/dev/null &&
		call_as gw-b register-ap job-1 b b1 127.0.0.3 6000 >/dev/null
}

# 1. A WAN proxy registers, with statistics. A leg of an unannounced id waits 300 ms for the
# announcement (5 s by default) before it is refused: the refusals below stay quick.
write_proxy_conf "$D/pw.conf" proxy-w 0.0.0.0/0 "" "unknown_id_wait_ms = 300"
proxy_start "$D/pw.conf" "$D/pw.log"
PW=$PROXY_ENDPOINT PW_URL=$PROXY_CONTROL_URL PW_PID=$PROXY_PID
if wait_until 300 listed "$PW"; then
	out=$(query_as jane proxies)
	if echo "$out" | grep "^$PW " | grep -Eq ' 0 +0 +0 +alive, seen'; then
		pass registers_and_qcg_query_shows_live_statistics
	else
		fail registers_and_qcg_query_shows_live_statistics "$out"
	fi
	json=$(query_as jane --json proxies)
	echo "$json" | grep -q '"statistics":{"legs":0' &&
		echo "$json" | grep -q "\"controlEndpoint\":\"$PW_URL\"" &&
		pass qcg_query_json_has_statistics_object || fail qcg_query_json_has_statistics_object "$json"
else
	fail registers_and_qcg_query_shows_live_statistics "$PW not listed: $(query_as jane proxies 2>&1)"
fi

# 2. A relay the broker decides (two NAT clusters, traversal off) works end to end.
register_nat_pair || fail relay_setup "could not register clusters/job/access points"
dec=$(call_as gw-a resolve job-1 a a1 127.0.0.3 6000)
if [ "$(field method "$dec")" = relay ] && [ "$(field proxy0 "$dec")" = "$PW" ] &&
	out=$(relay_through "$dec" 4194304); then
	pass broker_decided_relay_moves_4MiB_each_way "$out"
else
	fail broker_decided_relay_moves_4MiB_each_way "decision '$dec': $out"
fi
# The legs see the end before the proxy counts the relay completed: wait for the count.
relay_counted() { stats=$(proxy_stats_as jane "$PW_URL" 2>&1) && [[ $stats == *relaysCompleted=1\ * ]]; }
wait_until 300 relay_counted
case $stats in
*"relaysCompleted=1 bytesForwarded=8388608"*) pass getstatistics_counts_the_relay ;;
*) fail getstatistics_counts_the_relay "$stats" ;;
esac

# 3. An id the broker never handed out is closed at once; a used one is not accepted again.
if "$PROXY_LEGS" refused 0123456789abcdef0123456789abcdef "$PW" >/dev/null; then
	pass unknown_id_is_refused
else
	fail unknown_id_is_refused "a leg with an unannounced id stayed open"
fi
if "$PROXY_LEGS" refused "$(field relayId "$dec")" "$PW" >/dev/null; then
	pass used_id_is_refused
else
	fail used_id_is_refused "a leg with a used id stayed open"
fi

# 4. A chain of two gateway proxies between two closed clusters.
write_proxy_conf "$D/pc.conf" proxy-c 10.3.0.0/24,0.0.0.0/0 c
proxy_start "$D/pc.conf" "$D/pc.log"
PC=$PROXY_ENDPOINT
write_proxy_conf "$D/pd.conf" proxy-d 10.4.0.0/24,0.0.0.0/0 d
proxy_start "$D/pd.conf" "$D/pd.log"
PD=$PROXY_ENDPOINT
wait_until 300 listed "$PC" && wait_until 300 listed "$PD" || fail chain_setup "gateway proxies not listed"
call_as gw-a register-cluster c closed 127.0.0.1 10.3.0.0/24 >/dev/null &&
	call_as gw-b register-cluster d closed 127.0.0.1 10.4.0.0/24 >/dev/null &&
	call_as gw-a register-ap job-1 c c1 10.3.0.5 7000 >/dev/null &&
	call_as gw-b register-ap job-1 d d1 10.4.0.6 8000 >/dev/null ||
	fail chain_setup "could not register the closed clusters"
dec=$(call_as gw-a resolve job-1 c c1 10.4.0.6 8000)
if [ "$(field method "$dec")" = relay-chain ] && [ "$(field proxy0 "$dec")" = "$PC" ] &&
	[ "$(field proxy1 "$dec")" = "$PD" ] && out=$(relay_through "$dec" 1048576); then
	pass broker_decided_chain_through_two_gateway_proxies "$out"
else
	fail broker_decided_chain_through_two_gateway_proxies "decision '$dec': $out"
fi

# 5. The broker is killed, restarted on its port with an empty registry: every proxy
# registers again by itself, and a relay decided afterwards works.
broker_kill9
rm -f "$D"/broker.db*
broker_restart_same_port
if wait_until 300 proxies_listed 3; then
	pass proxies_register_again_after_broker_kill9_and_restart
else
	fail proxies_register_again_after_broker_kill9_and_restart "$(query_as jane proxies 2>&1)"
fi
register_nat_pair || fail relay_after_restart "could not register again"
dec=$(call_as gw-a resolve job-1 a a1 127.0.0.3 6000)
if [ "$(field method "$dec")" = relay ] && out=$(relay_through "$dec" 1048576); then
	pass relay_decided_after_broker_restart_works "$out"
else
	fail relay_decided_after_broker_restart_works "decision '$dec': $out"
fi

# 6. The control port: bad requests get faults, other CAs and strangers are refused, and it
# keeps serving.
port=${PW_URL##*:}; port=${port%/}
for mode in malformed oversized unknown-op; do
	out=$($SOAP_RAW 127.0.0.1 "$port" "$D/jane-cert.pem" "$D/jane-key.pem" "$D/ca/certificates" "$mode")
	case $out in
	*"fault=yes"*) pass "control_port_answers_${mode//-/_}_with_a_fault" ;;
	*) fail "control_port_answers_${mode//-/_}_with_a_fault" "$out" ;;
	esac
done
ca init --dir "$D/other-ca"
ca user --dir "$D/other-ca" --name "Jane Doe" --out "$D/mallory"
out=$(proxy_stats_as mallory "$PW_URL" 2>&1)
[ $? -eq 3 ] && pass certificate_of_another_ca_is_refused ||
	fail certificate_of_another_ca_is_refused "$out"
out=$(proxy_stats_as bob "$PW_URL" 2>&1)
case $out in
*"not authorized"*) pass caller_outside_acl_and_gridmap_is_refused ;;
*) fail caller_outside_acl_and_gridmap_is_refused "$out" ;;
esac
out=$(proxy_stats_as gw-a "$PW_URL" 2>&1) && pass acl_member_may_read ||
	fail acl_member_may_read "$out"
# SIGHUP reloads the readers and the CA directory (issue 17); the proxy goes on serving.
kill -HUP "$PW_PID"
wait_for_log "$D/pw.log" 'reloaded statistics readers' && pass sighup_reloads_the_proxy ||
	fail sighup_reloads_the_proxy "no reload logged"
kill -0 "$PW_PID" && proxy_stats_as jane "$PW_URL" >/dev/null &&
	pass control_port_keeps_serving || fail control_port_keeps_serving "proxy gone or silent"

# 7. A stopped proxy leaves the broker's list.
kill "$PW_PID"; wait "$PW_PID"
if unlisted "$PW"; then pass stopped_proxy_unregisters; else fail stopped_proxy_unregisters "$(query_as jane proxies 2>&1)"; fi

# 8. A proxy killed with -9 and started again on its endpoint does not announce a relay the
# broker decided for its earlier incarnation; relays decided afterwards work.
FP=$(free_port)
write_proxy_conf "$D/pr.conf" proxy-w 0.0.0.0/0 "" "listen = 127.0.0.1:$FP
unknown_id_wait_ms = 300" # the later listen wins
proxy_start "$D/pr.conf" "$D/pr.log"
PR=$PROXY_ENDPOINT
wait_until 300 listed "$PR" || fail restart_setup "$PR not listed"
# Stopped, not killed, while the relay is decided: a killed proxy's poll connection closes and
# the broker withdraws it at once, so no decision would name it (how soon the broker notices
# decided, under load, whether the test had an id at all). A stopped one stays listed; the
# event waits in the broker's ring for whoever drains the queue next.
kill -STOP "$PROXY_PID"
old=""
for _ in 1 2 3 4 5 6; do # round robin over pc, pd and this one
	dec=$(call_as gw-a resolve job-1 a a1 127.0.0.3 6000)
	[ "$(field proxy0 "$dec")" = "$PR" ] && { old=$(field relayId "$dec"); break; }
done
kill -9 "$PROXY_PID"; wait "$PROXY_PID" 2>/dev/null
proxy_start "$D/pr.conf" "$D/pr2.log"
if [ -n "$old" ] && wait_until 300 grep -q "skipping broker event" "$D/pr2.log" &&
	"$PROXY_LEGS" refused "$old" "$PR" >/dev/null; then
	pass restarted_proxy_skips_relays_decided_for_its_earlier_incarnation
else
	fail restarted_proxy_skips_relays_decided_for_its_earlier_incarnation "old id '$old'"
fi
new=""
for _ in 1 2 3 4 5 6; do
	dec=$(call_as gw-a resolve job-1 a a1 127.0.0.3 6000)
	[ "$(field proxy0 "$dec")" = "$PR" ] && { new=$dec; break; }
done
if [ -n "$new" ] && out=$(relay_through "$new" 65536); then
	pass restarted_proxy_relays_new_decisions
else
	fail restarted_proxy_relays_new_decisions "decision '$new': $out"
fi

fixture_exit

#!/bin/bash
# test_broker_proxy_owner.sh: a proxy's endpoint belongs to the certificate that registered it.
# Over real TLS with two proxy-role host certificates (proxy-1 = A, proxy-2 = B) and an admin:
# B can neither take over, unregister nor read the event queue (relay ids) of A's endpoint; A
# can; B never sees relay ids decided for A, even on A's endpoint after A left; an admin may act
# on any endpoint.
. "$top_srcdir/tests/integration/grid_fixture.sh"
D=$FIXTURE_DIR

fixture_init
ca host --dir "$D/ca" --name proxy-2 --out "$D/proxy-2"
ca user --dir "$D/ca" --name "Grid Admin" --out "$D/admin"
echo 'admin "/O=Grid/OU=qcg-ompi/CN=Grid Admin"' >>"$D/broker.acl"
broker_start

E1=172.31.0.9:7000 # A's endpoint
E2=172.31.0.10:7000 # B's endpoint

# expect_refused NAME PATTERN CREDENTIAL OP ARGS...: the call fails with a fault matching PATTERN.
expect_refused() {
	local name=$1 pattern=$2
	shift 2
	if call_as "$@" >"$D/out" 2>"$D/err"; then
		fail "$name" "the broker answered: $(cat "$D/out")"
	else
		grep -q -- "$pattern" "$D/err" && pass "$name" || fail "$name" "$(cat "$D/err")"
	fi
}

# Two NAT sites without traversal: the only way between them is a relay through a WAN proxy.
call_as gw-a register-cluster site-a nat 172.31.0.2 10.1.0.0/24 >/dev/null &&
	call_as gw-b register-cluster site-b nat 172.31.0.3 10.2.0.0/24 >/dev/null &&
	call_as jane record-job job-r >/dev/null &&
	call_as gw-b register-ap job-r site-b b1 10.2.0.5 5000 >/dev/null &&
	call_as proxy-1 register-proxy "$E1" 0.0.0.0/0 >/dev/null ||
	{ fail setup "registrations failed"; fixture_exit; exit 1; }

expect_refused other_proxy_cannot_take_over_endpoint 'owned by another identity' \
	proxy-2 register-proxy "$E1" 10.0.0.0/8
expect_refused other_proxy_cannot_unregister_endpoint 'owned by another identity' \
	proxy-2 unregister-proxy "$E1"
out=$(query_as jane --json proxies)
case $out in
*"\"endpoint\":\"$E1\""*'"networks":"0.0.0.0/0"'*) pass endpoint_unchanged_after_refusals ;;
*) fail endpoint_unchanged_after_refusals "got: $out" ;;
esac

# A relay through A's endpoint: A's queue gets its relay id.
res=$(call_as gw-a resolve job-r site-a a1 10.2.0.5 5000)
relay_id=$(sed -n 's/.* relayId=\([^ ]*\).*/\1/p' <<<"$res")
case $res in
method=relay*"proxy0=$E1"*) [ -n "$relay_id" ] && pass resolve_relays_through_a || fail resolve_relays_through_a "no relay id: $res" ;;
*) fail resolve_relays_through_a "got: $res" ;;
esac

expect_refused other_proxy_cannot_wait_on_owners_queue 'registered by another identity' \
	proxy-2 wait-events "proxy:$E1" 0 0
expect_refused frontend_cannot_wait_on_proxy_queue 'is not a proxy' \
	gw-a wait-events "proxy:$E1" 0 0
out=$(call_as proxy-1 wait-events "proxy:$E1" 0 0 2>&1)
case $out in
*"kind=relay job=job-r"*"relayId=$relay_id"*) pass owner_reads_its_relay_ids ;;
*) fail owner_reads_its_relay_ids "got: $out" ;;
esac
out=$(call_as admin wait-events "proxy:$E1" 0 0 2>&1)
case $out in
*"relayId=$relay_id"*) pass admin_reads_any_proxy_queue ;;
*) fail admin_reads_any_proxy_queue "got: $out" ;;
esac

# B registers its own endpoint; its queue does not show A's relays.
call_as proxy-2 register-proxy "$E2" 0.0.0.0/0 >/dev/null || fail setup "B's registration failed"
out=$(call_as proxy-2 wait-events "proxy:$E2" 0 0 2>&1)
[ -z "$out" ] && pass own_queue_holds_only_own_relays || fail own_queue_holds_only_own_relays "got: $out"

# A leaves: its endpoint is free, but the relay ids decided for A stay A's. B may wait on the
# unregistered queue (a proxy drains before it registers) and sees nothing of them.
out=$(call_as proxy-1 unregister-proxy "$E1" 2>&1)
[ "$out" = ok ] && pass owner_unregisters_its_endpoint || fail owner_unregisters_its_endpoint "got: $out"
out=$(call_as proxy-2 wait-events "proxy:$E1" 0 0 2>&1)
if [ $? -eq 0 ] && [ -z "$out" ]; then
	pass old_relay_ids_hidden_from_next_holder
else
	fail old_relay_ids_hidden_from_next_holder "got: $out"
fi
call_as proxy-2 register-proxy "$E1" 0.0.0.0/0 >/dev/null &&
	pass freed_endpoint_can_be_registered_by_another || fail freed_endpoint_can_be_registered_by_another "refused"
out=$(call_as proxy-2 wait-events "proxy:$E1" 0 0 2>&1)
[ -z "$out" ] && pass old_relay_ids_hidden_after_reregistration ||
	fail old_relay_ids_hidden_after_reregistration "got: $out"
expect_refused previous_owner_cannot_wait_on_taken_endpoint 'registered by another identity' \
	proxy-1 wait-events "proxy:$E1" 0 0

# An admin may remove anyone's endpoint.
out=$(call_as admin unregister-proxy "$E2" 2>&1)
[ "$out" = ok ] && pass admin_unregisters_any_endpoint || fail admin_unregisters_any_endpoint "got: $out"
expect_refused unregistering_unknown_endpoint_is_not_found 'not found' \
	proxy-2 unregister-proxy "$E2"

fixture_exit

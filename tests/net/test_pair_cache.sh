#!/bin/bash
# test_pair_cache.sh: decisions cached per (job, cluster pair) at the front-end (issue 15),
# with the real qcg-broker and qcg-frontend on loopback (fresh CA). The front-end of site-a
# (open; nodes a1, a2, whose helpers' certificates make the calls) resolves connects of job-1
# to two clusters its gateways registered at the broker:
#   site-b open:                 b1 10.2.0.1:5001, 10.2.0.1:5002, b2 10.2.0.2:5003
#   site-c port range 6000-6999: c1 10.3.0.1:6001, 10.3.0.1:7001, c2 10.3.0.2:6002
# Proves: a second connect of the pair (another node, another target) makes no broker Resolve
# and gets the same method, its own target named; a listener outside the port range is not
# covered by the pair's port-range decision (it goes to the broker); the connections are all
# in qcg-query connections with their methods; a policy change of site-b (an event from the
# broker) drops the pair, so the next connect goes to the broker and gets the new method; the
# job's end drops the job's pairs.
. "$top_srcdir/tests/integration/grid_fixture.sh"
trap 'frontend_stop_all; fixture_cleanup' EXIT
D=$FIXTURE_DIR
export BROKER_LOG_LEVEL=debug # the broker logs each Resolve it answers at debug

fixture_init
host_cert gw-a2 # site-a's front-end (gw-a, gw-b of the fixture stand for site-b and site-c)
host_cert a1
host_cert a2
"$QCG_CA" grid-mapfile-line "$D/jane-cert.pem" nobody >"$D/fe-grid-mapfile"
echo 'helper "/O=Grid/OU=qcg-ompi/CN=host/a*"' >"$D/fe.acl"
broker_start
call_as jane record-job job-1 >/dev/null || { echo "record-job failed"; exit 99; }
setup() { "$@" >/dev/null || { echo "setup failed: $*"; exit 99; }; }
setup call_as gw-a register-cluster site-b open 192.0.2.2 10.2.0.0/24
setup call_as gw-a register-ap job-1 site-b b1 10.2.0.1 5001 rank-1
setup call_as gw-a register-ap job-1 site-b b1 10.2.0.1 5002 rank-2
setup call_as gw-a register-ap job-1 site-b b2 10.2.0.2 5003 rank-3
setup call_as gw-b register-cluster site-c port-range 192.0.2.3 10.3.0.0/24 6000 6999
setup call_as gw-b register-ap job-1 site-c c1 10.3.0.1 6001 rank-4
setup call_as gw-b register-ap job-1 site-c c1 10.3.0.1 7001 rank-5
setup call_as gw-b register-ap job-1 site-c c2 10.3.0.2 6002 rank-6
P1=$(free_port); P2=$(free_port)
write_frontend_conf "$D/fe.conf" gw-a2 site-a open "$D/fe.acl" "$D/fe-grid-mapfile" \
	"a1 = https://127.0.0.1:$P1/ 2
	a2 = https://127.0.0.1:$P2/ 2"
frontend_start "$D/fe.conf" "$D/fe.log"
FELOG=$D/fe.log
wait_for_log "$FELOG" 'cluster site-a registered' || { echo "front-end did not register"; exit 99; }

# broker_resolves PORT: the Resolves of job-1 to PORT the broker answered
broker_resolves() { grep -c -- "job job-1: site-a/a[12] -> site-[bc]/[bc][12]:$1 by" "$D/broker.log"; }
# pair_cached PORT: the front-end's answers to PORT from a pair's decision
pair_cached() { grep -c -- "-> [0-9.]*:$1 by [a-z-]* (pair cached)" "$FELOG"; }

# --- one broker Resolve per pair -------------------------------------------------------------
first=$(frontend_as a1 resolve job-1 a1 10.2.0.1 5001 2>&1)
second=$(frontend_as a2 resolve job-1 a2 10.2.0.2 5003 2>&1)
third=$(frontend_as a2 resolve job-1 a2 10.2.0.1 5002 2>&1)
if [ "$first" = "method=direct target=site-b/b1/10.2.0.1:5001" ] &&
	[ "$second" = "method=direct target=site-b/b2/10.2.0.2:5003" ] &&
	[ "$third" = "method=direct target=site-b/b1/10.2.0.1:5002" ] &&
	[ "$(broker_resolves 5001)" -eq 1 ] && [ "$(broker_resolves 5003)" -eq 0 ] &&
	[ "$(broker_resolves 5002)" -eq 0 ] && [ "$(pair_cached 5003)" -eq 1 ]; then
	pass later_connects_of_a_pair_make_no_broker_resolve_and_get_the_same_method
else
	fail later_connects_of_a_pair_make_no_broker_resolve_and_get_the_same_method \
		"answers: $first / $second / $third; broker: $(grep -- '-> site-b' "$D/broker.log")"
fi

first=$(frontend_as a1 resolve job-1 a1 10.3.0.1 6001 2>&1)
second=$(frontend_as a2 resolve job-1 a2 10.3.0.2 6002 2>&1)
if [ "$first" = "method=port-range target=site-c/c1/10.3.0.1:6001" ] &&
	[ "$second" = "method=port-range target=site-c/c2/10.3.0.2:6002" ] &&
	[ "$(broker_resolves 6001)" -eq 1 ] && [ "$(broker_resolves 6002)" -eq 0 ]; then
	pass port_range_pair_answers_its_listeners_inside_the_range
else
	fail port_range_pair_answers_its_listeners_inside_the_range \
		"answers: $first / $second; broker: $(grep -- '-> site-c' "$D/broker.log")"
fi
# 7001 is outside site-c's range: the pair's port-range decision does not reach it. Reversal
# (site-a is open) needs site-c's side, whose front-end is not polling here: the broker then
# refuses it by name; either way it was asked, and the front-end did not answer by itself.
out=$(frontend_as a1 resolve job-1 a1 10.3.0.1 7001 2>&1)
case $out in
"method=reversal target=site-c/c1/10.3.0.1:7001 relayId="* | *"reversal to site-c/c1:7001 needs cluster site-c's front-end"*)
	if [ "$(pair_cached 7001)" -eq 0 ]; then
		pass listener_outside_the_port_range_goes_to_the_broker
	else
		fail listener_outside_the_port_range_goes_to_the_broker "answered from the pair: $out"
	fi ;;
*) fail listener_outside_the_port_range_goes_to_the_broker "got: $out" ;;
esac

# --- every connection is listed with its method --------------------------------------------
setup frontend_as a1 report job-1 a1 site-b b1 5001 direct ok 100
setup frontend_as a2 report job-1 a2 site-b b2 5003 direct ok 100
setup frontend_as a2 report job-1 a2 site-b b1 5002 direct ok 100
setup frontend_as a1 report job-1 a1 site-c c1 6001 port-range ok 100
setup frontend_as a2 report job-1 a2 site-c c2 6002 port-range ok 100
conns=$(query_as jane connections job-1 2>&1)
listed() { echo "$conns" | grep -Eq "^site-a/$1 +$2:$3 +$4 +ok"; }
if listed a1 site-b/b1 5001 direct && listed a2 site-b/b2 5003 direct &&
	listed a2 site-b/b1 5002 direct && listed a1 site-c/c1 6001 port-range &&
	listed a2 site-c/c2 6002 port-range; then
	pass qcg_query_lists_every_connection_with_its_method
else
	fail qcg_query_lists_every_connection_with_its_method "$conns"
fi

# --- a policy change invalidates the pair --------------------------------------------------
setup call_as gw-a register-cluster site-b port-range 192.0.2.2 10.2.0.0/24 5000 5001
if wait_for_log "$FELOG" 'policy of cluster site-b changed: 1 pair decisions'; then
	pass policy_change_event_drops_the_pairs_decision
else
	fail policy_change_event_drops_the_pairs_decision "$(grep -i policy "$FELOG")"
fi
out=$(frontend_as a2 resolve job-1 a2 10.2.0.2 5003 2>&1)
again=$(frontend_as a1 resolve job-1 a1 10.2.0.1 5001 2>&1)
case $out in
"method=reversal target=site-b/b2/10.2.0.2:5003 relayId="* | *"reversal to site-b/b2:5003 needs cluster site-b's front-end"*)
	if [ "$again" = "method=port-range target=site-b/b1/10.2.0.1:5001" ] &&
		[ "$(broker_resolves 5001)" -eq 2 ] && [ "$(pair_cached 5003)" -eq 1 ]; then
		pass after_a_policy_change_connects_go_to_the_broker_and_get_the_new_method
	else
		fail after_a_policy_change_connects_go_to_the_broker_and_get_the_new_method \
			"5001: $again, broker resolves of 5001: $(broker_resolves 5001)"
	fi ;;
*) fail after_a_policy_change_connects_go_to_the_broker_and_get_the_new_method "5003: $out" ;;
esac
# an unchanged registration (a front-end's restart) tells nobody
setup call_as gw-b register-cluster site-c port-range 192.0.2.3 10.3.0.0/24 6000 6999
out=$(frontend_as a1 resolve job-1 a1 10.3.0.2 6002 2>&1)
if [ "$out" = "method=port-range target=site-c/c2/10.3.0.2:6002" ] &&
	[ "$(broker_resolves 6002)" -eq 0 ] && ! grep -q 'cluster site-c changed' "$D/broker.log"; then
	pass unchanged_registration_keeps_the_pair
else
	fail unchanged_registration_keeps_the_pair "$out; $(grep 'changed' "$D/broker.log")"
fi

# --- the job's end drops its pairs ----------------------------------------------------------
setup call_as jane set-job-state job-1 done
if wait_for_log "$FELOG" 'job job-1 ended: [0-9]* cached answers dropped (and [1-9][0-9]* pair decisions)'; then
	pass job_end_drops_the_jobs_pair_decisions
else
	fail job_end_drops_the_jobs_pair_decisions "$(grep 'job-1 ended' "$FELOG")"
fi
# answered_here PORT: the front-end's answers to PORT from either cache
answered_here() { grep -c -- "-> [0-9.]*:$1 by [a-z-]* (.*cached)" "$FELOG"; }
before=$(answered_here 6002)
out=$(frontend_as a2 resolve job-1 a2 10.3.0.2 6002 2>&1)
if [ "$(answered_here 6002)" -eq "$before" ] &&
	{ [ "$(broker_resolves 6002)" -eq 1 ] || [[ $out == *"no process listens"* ]]; }; then
	pass after_the_jobs_end_its_connects_are_not_answered_from_its_pairs
else
	fail after_the_jobs_end_its_connects_are_not_answered_from_its_pairs "$out"
fi
fixture_exit

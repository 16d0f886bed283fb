#!/bin/bash
# test_pair_cache_proxy.sh: stopping a proxy while a job runs makes that job's new relays avoid
# it, with the front-ends' decision caches in place (issue 15: relays are never cached, so
# every relay is decided at the broker from the live proxies). On loopback, fresh CA, the real
# qcg-broker, qcg-frontend and two qcg-proxy on the WAN: the front-end of site-n (nat, no
# traversal; node n1) connects job-1 to two listeners of site-d (nat, registered by its
# gateway's certificate and kept alive by its polls). Every connect needs a relay.
# Proves: both proxies serve the job's relays while alive; each relay is a broker Resolve
# (none answered from a cache); after one proxy is killed (withdrawn at the broker), every
# new relay of the job goes through the other.
. "$top_srcdir/tests/integration/grid_fixture.sh"
POLLERS=""
trap 'kill $POLLERS 2>/dev/null; proxy_stop_all; frontend_stop_all; fixture_cleanup' EXIT
D=$FIXTURE_DIR
export BROKER_LOG_LEVEL=debug # the broker logs each Resolve it answers at debug

fixture_init
host_cert gw-n
host_cert n1
host_cert proxy-2
"$QCG_CA" grid-mapfile-line "$D/jane-cert.pem" nobody >"$D/fe-grid-mapfile"
echo 'helper "/O=Grid/OU=qcg-ompi/CN=host/n1"' >"$D/fe.acl"
broker_start -s broker.lease_grace=2
setup() { "$@" >/dev/null || { echo "setup failed: $*"; exit 99; }; }
setup call_as jane record-job job-1
setup call_as gw-a register-cluster site-d nat 192.0.2.4 10.4.0.0/24
setup call_as gw-a register-ap job-1 site-d d1 10.4.0.1 6000 rank-1
setup call_as gw-a register-ap job-1 site-d d1 10.4.0.1 6001 rank-2
# site-d has no qcg-frontend: poll for it as its front-end would, so that its lease never
# lapses (a relay needs the target side's front-end alive). Never on the test's output.
keep_polling() {
	while :; do call_as gw-a wait-events site-d 9000000000000000000 2 >/dev/null 2>&1 || sleep 0.2; done
}
keep_polling >/dev/null 2>&1 & POLLERS="$POLLERS $!"
write_proxy_conf "$D/p1.conf" proxy-1 0.0.0.0/0 "" "broker_wait = 2"
proxy_start "$D/p1.conf" "$D/p1.log"
P1=$PROXY_ENDPOINT P1_PID=$PROXY_PID
write_proxy_conf "$D/p2.conf" proxy-2 0.0.0.0/0 "" "broker_wait = 2"
proxy_start "$D/p2.conf" "$D/p2.log"
P2=$PROXY_ENDPOINT
PORT=$(free_port)
write_frontend_conf "$D/fe.conf" gw-n site-n nat "$D/fe.acl" "$D/fe-grid-mapfile" \
	"n1 = https://127.0.0.1:$PORT/ 2"
frontend_start "$D/fe.conf" "$D/fe.log" -s frontend.public_address=192.0.2.3
wait_for_log "$D/fe.log" 'cluster site-n registered' || { echo "front-end did not register"; exit 99; }

field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
proxy_state() { query_as jane proxies 2>/dev/null | awk -v e="$1" '$1 == e { sub(/.*  /, ""); print }'; }
proxy_is() { case $(proxy_state "$1") in "$2"*) return 0 ;; esac; return 1; }
both_alive() { proxy_is "$P1" alive && proxy_is "$P2" alive; }
broker_relays() { grep -c -- "job job-1: site-n/n1 -> site-d/d1:600[01] by relay" "$D/broker.log"; }
# relay_proxies N: the proxies of N relays of job-1 (alternating targets), one a line
relay_proxies() {
	local i out
	for ((i = 0; i < $1; i++)); do
		out=$(frontend_as n1 resolve job-1 n1 10.4.0.1 $((6000 + i % 2)) 2>&1)
		case $out in method=relay*) ;; *) echo "not a relay: $out"; continue ;; esac
		field proxy0 "$out"
	done
}
wait_until 100 both_alive || { echo "the proxies did not register: $(query_as jane proxies)"; exit 99; }

before=$(broker_relays)
used=$(relay_proxies 6)
if [ "$(echo "$used" | grep -cx "$P1")" -ge 1 ] && [ "$(echo "$used" | grep -cx "$P2")" -ge 1 ] &&
	[ "$(($(broker_relays) - before))" -eq 6 ]; then
	pass every_relay_is_decided_at_the_broker_over_both_live_proxies
else
	fail every_relay_is_decided_at_the_broker_over_both_live_proxies \
		"proxies used: $(echo "$used" | tr '\n' ' '); broker relays: $before -> $(broker_relays)"
fi

kill -9 "$P1_PID"
wait_until 100 proxy_is "$P1" withdrawn || fail setup "proxy $P1 not withdrawn: $(proxy_state "$P1")"
used=$(relay_proxies 6)
if [ "$(echo "$used" | grep -cx "$P2")" -eq 6 ]; then
	pass new_relays_of_the_job_avoid_the_stopped_proxy
else
	fail new_relays_of_the_job_avoid_the_stopped_proxy "proxies used: $(echo "$used" | tr '\n' ' ')"
fi
fixture_exit

#!/bin/bash
# test_broker_resume.sh: the broker's resume of a relay whose proxy died (issue 14), on
# loopback with a fresh CA, a real qcg-broker and SQLite file, and two real qcg-proxies:
# - the two ends of a relay (and nobody else) may resume it: a forged id, another job, another
#   node of the same cluster and another cluster's front-end are refused, each with its reason
#   in the broker's log;
# - a resume avoids the old proxy (and leaves it to other jobs while it is seen alive),
#   chooses the other one, mints a new relay id and announces it to the new proxy as a first
#   relay; the other end asking for the same relay gets the same new relay;
# - qcg-query connections shows the resume (when, from which proxy, to which);
# - with no other proxy alive the resume is refused at once, saying why;
# - a proxy that came back is chosen again, and a resume of a relay replaced twice over (a
#   replayed id) is refused.
# Every wait is bounded and polls for the state it needs.
. "$top_srcdir/tests/integration/grid_fixture.sh"
POLLERS=""
trap 'kill $POLLERS 2>/dev/null; proxy_stop_all; fixture_cleanup' EXIT
D=$FIXTURE_DIR

fixture_init
host_cert proxy-w1
host_cert proxy-w2
broker_start -s broker.lease_grace=2

field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
proxy_state() { query_as jane proxies | awk -v e="$1" '$1 == e { sub(/.*  /, ""); print }'; }
proxy_is() { case $(proxy_state "$1") in "$2"*) return 0 ;; esac; return 1; }

# --- two WAN proxies, two NAT clusters that need one of them ---------------------------------
write_proxy_conf "$D/p1.conf" proxy-w1 0.0.0.0/0 "" "broker_wait = 2"
proxy_start "$D/p1.conf" "$D/p1.log"
P1=$PROXY_ENDPOINT P1_PID=$PROXY_PID
sed -i "s/^listen = 127.0.0.1:0$/listen = $P1/" "$D/p1.conf" # a restart keeps the endpoint
write_proxy_conf "$D/p2.conf" proxy-w2 0.0.0.0/0 "" "broker_wait = 2"
proxy_start "$D/p2.conf" "$D/p2.log"
P2=$PROXY_ENDPOINT P2_PID=$PROXY_PID
sed -i "s/^listen = 127.0.0.1:0$/listen = $P2/" "$D/p2.conf"
call_as gw-a register-cluster a nat 127.0.0.1 127.0.0.0/8 >/dev/null &&
	call_as gw-b register-cluster b nat 127.0.0.1 127.0.0.0/8 >/dev/null &&
	call_as jane record-job job-1 >/dev/null &&
	call_as jane record-job job-2 >/dev/null &&
	call_as gw-b register-ap job-1 b b1 127.0.0.3 6000 >/dev/null ||
	{ echo "could not register clusters, jobs and access point"; exit 99; }
# The clusters have no qcg-frontend: poll for them as their front-ends would, so that their
# leases never lapse however slow the machine.
keep_polling() {
	while :; do call_as "$1" wait-events "$2" 9000000000000000000 2 >/dev/null 2>&1 || sleep 0.2; done
}
keep_polling gw-a a >/dev/null 2>&1 & POLLERS="$POLLERS $!"
keep_polling gw-b b >/dev/null 2>&1 & POLLERS="$POLLERS $!"
wait_until 100 proxy_is "$P1" alive && wait_until 100 proxy_is "$P2" alive ||
	{ echo "the proxies never came alive: $(query_as jane proxies)"; exit 99; }

out=$(call_as gw-a resolve job-1 a a1 127.0.0.3 6000 2>&1)
OLD=$(field relayId "$out") OLD_PROXY=$(field proxy0 "$out")
# OLD_N: the number of the proxy that carries the first relay (1 or 2)
case $OLD_PROXY in
"$P1") OTHER=$P2 OLD_N=1 OLD_PID=$P1_PID ;;
"$P2") OTHER=$P1 OLD_N=2 OLD_PID=$P2_PID ;;
*) echo "not relayed: $out"; exit 99 ;;
esac
[ ${#OLD} -eq 32 ] || { echo "no relay id: $out"; exit 99; }

# --- hostile resumes ---------------------------------------------------------------------------
refused() { # NAME EXPECTED-REASON CALLER ARGS...: the resume fails, naming the reason
	local name=$1 want=$2 out
	shift 2
	if out=$(call_as "$@" 2>&1); then
		fail "$name" "accepted: $out"
	elif [[ $out == *"$want"* ]]; then
		pass "$name"
	else
		fail "$name" "refused for another reason: $out"
	fi
}
refused forged_relay_id_refused "was never handed out" \
	gw-a resume-relay job-1 a a1 0123456789abcdef0123456789abcdef
refused malformed_relay_id_refused "relayId must be 32 hex digits" \
	gw-a resume-relay job-1 a a1 "zz${OLD:2}"
refused another_jobs_resume_of_the_id_refused "belongs to another job than job-2" \
	gw-a resume-relay job-2 a a1 "$OLD"
refused another_nodes_resume_of_the_id_refused "joins a/a1 and b/b1, not a/a9" \
	gw-a resume-relay job-1 a a9 "$OLD"
refused another_clusters_frontend_refused "not authorized" \
	gw-b resume-relay job-1 a a1 "$OLD"
log_has "$D/broker.log" "ResumeRelay refused for a/a1 of job job-2" &&
	log_has "$D/broker.log" "relay $OLD of job job-1 joins a/a1 and b/b1, not a/a9" &&
	pass refused_resumes_logged_with_their_reason ||
	fail refused_resumes_logged_with_their_reason "$(grep -i resume "$D/broker.log")"
proxy_is "$OLD_PROXY" alive && pass refused_resumes_leave_the_proxy_alone ||
	fail refused_resumes_leave_the_proxy_alone "$(proxy_state "$OLD_PROXY")"

# --- the initiator's end resumes: the other proxy, a fresh id, announced ----------------------
out=$(call_as gw-a resume-relay job-1 a a1 "$OLD" 2>&1)
NEW=$(field relayId "$out")
if [ "$(field proxy0 "$out")" = "$OTHER" ] && [ ${#NEW} -eq 32 ] && [ "$NEW" != "$OLD" ]; then
	pass resume_chooses_the_other_proxy_and_a_new_id
else
	fail resume_chooses_the_other_proxy_and_a_new_id "old $OLD via $OLD_PROXY: $out"
fi
# The old proxy still polls (only its relay is said broken, as when the peer process exits):
# this resume avoids it, but other jobs keep it.
proxy_is "$OLD_PROXY" alive && ! log_has "$D/broker.log" "proxy $OLD_PROXY withdrawn" &&
	pass live_old_proxy_avoided_but_not_withdrawn ||
	fail live_old_proxy_avoided_but_not_withdrawn "$(proxy_state "$OLD_PROXY"); $(grep -i withdrawn "$D/broker.log")"
NEW_LOG=$D/p$((3 - OLD_N)).log
wait_until 200 log_has "$NEW_LOG" "relay $NEW (job job-1)" &&
	pass new_relay_announced_to_the_new_proxy ||
	fail new_relay_announced_to_the_new_proxy "$(grep -c relay "$NEW_LOG") relay lines"

# --- the target's end asks for the same relay: the same answer --------------------------------
out=$(call_as gw-b resume-relay job-1 b b1 "$OLD" 2>&1)
[ "$(field relayId "$out")" = "$NEW" ] && [ "$(field proxy0 "$out")" = "$OTHER" ] &&
	pass both_ends_get_the_same_new_relay ||
	fail both_ends_get_the_same_new_relay "first $NEW via $OTHER, second: $out"
[ "$(grep -c "resumed as $NEW" "$D/broker.log")" = 1 ] &&
	pass the_new_relay_is_made_and_announced_once ||
	fail the_new_relay_is_made_and_announced_once "$(grep "resumed as" "$D/broker.log")"

# --- qcg-query connections shows it ---------------------------------------------------------
out=$(query_as jane connections job-1 2>&1)
if echo "$out" | grep -Eq "^resume [0-9T:-]+Z a/a1 -> b/b1:6000: relay $OLD via $OLD_PROXY -> $NEW via $OTHER, 0 bytes replayed$"; then
	pass qcg_query_connections_shows_the_resume
else
	fail qcg_query_connections_shows_the_resume "$out"
fi

# --- no other path: the old proxy is dead for good, the new one breaks too --------------------
kill -9 "$OLD_PID"
wait_until 200 proxy_is "$OLD_PROXY" withdrawn || { echo "$OLD_PROXY never withdrawn"; exit 99; }
start=$(date +%s%N)
out=$(call_as gw-a resume-relay job-1 a a1 "$NEW" 2>&1) && st=0 || st=$?
ms=$((($(date +%s%N) - start) / 1000000))
if [ $st -ne 0 ] && [[ $out == *"relay $NEW cannot be resumed: no other proxy serves a/a1 and b/b1"* ]]; then
	pass no_second_proxy_refused_at_once_saying_why "$ms ms"
else
	fail no_second_proxy_refused_at_once_saying_why "$out"
fi

# --- the dead proxy comes back on its endpoint: chosen again; a replayed id is refused --------
proxy_start "$D/p$OLD_N.conf" "$D/p$OLD_N.log"
wait_until 200 proxy_is "$OLD_PROXY" alive || { echo "not back: $(proxy_state "$OLD_PROXY")"; exit 99; }
out=$(call_as gw-a resume-relay job-1 a a1 "$NEW" 2>&1)
[ "$(field proxy0 "$out")" = "$OLD_PROXY" ] && pass proxy_back_is_chosen_again ||
	fail proxy_back_is_chosen_again "$out"
refused replayed_relay_id_refused "a replayed resume" gw-a resume-relay job-1 a a1 "$OLD"
fixture_exit

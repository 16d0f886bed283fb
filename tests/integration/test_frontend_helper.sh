#!/bin/bash
# test_frontend_helper.sh: qcg-frontend with real qcg-helpers on loopback (fresh CA, real
# qcg-broker): a launch through front-end -> helper runs a command and returns its output and
# exit code; the environment given is the one the command gets; signals and Release reach the
# process; a wall time, and a job's end at the broker, release the reservation and kill what ran
# under it; broker events reach the right node's helper. Skipped when qcg-helper is not built.
. "$top_srcdir/tests/integration/grid_fixture.sh"
QCG_HELPER="$top_builddir/services/helper/qcg-helper"
if [ ! -x "$QCG_HELPER" ]; then
	echo "SKIP: $QCG_HELPER is not built; these cases need a real helper"
	exit 77
fi
HELPER_PIDS=""
helpers_stop() {
	local pid
	for pid in $HELPER_PIDS; do kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done
}
trap 'frontend_stop_all; helpers_stop; fixture_cleanup' EXIT
D=$FIXTURE_DIR

fixture_init
host_cert gw-f
host_cert b1
host_cert b2
"$QCG_CA" grid-mapfile-line "$D/jane-cert.pem" nobody >"$D/fe-grid-mapfile"
echo 'helper "/O=Grid/OU=qcg-ompi/CN=host/b*"' >"$D/fe.acl"
echo 'frontend "/O=Grid/OU=qcg-ompi/CN=host/gw-f"' >"$D/helper.acl"
broker_start
P1=$(free_port); P2=$(free_port)
write_frontend_conf "$D/fe.conf" gw-f site-f nat "$D/fe.acl" "$D/fe-grid-mapfile" \
	"b1 = https://127.0.0.1:$P1/ 2
	b2 = https://127.0.0.1:$P2/ 2"
frontend_start "$D/fe.conf" "$D/fe.log" -s frontend.job_end_grace=2
FELOG=$D/fe.log

# helper_start NODE PORT: a qcg-helper for NODE on PORT, its log in $D/NODE.log.
helper_start() {
	{
		genconf_helper "$1" site-f 127.0.0.1 "$FRONTEND_URL" "$D/helper.acl" "127.0.0.1:$2" \
			"$D/$1.sock" "" no ""
		genconf_log_level debug
		genconf_tls "$D/$1-cert.pem" "$D/$1-key.pem" "$D/ca/certificates"
	} >"$D/$1.conf"
	"$QCG_HELPER" -c "$D/$1.conf" >>"$D/$1.log" 2>&1 &
	HELPER_PIDS="$HELPER_PIDS $!"
	fixture_wait_listening "qcg-helper $1" "$!" "$2" "$D/$1.log"
}
helper_start b1 "$P1"
helper_start b2 "$P2"
wait_for_log "$FELOG" 'cluster site-f registered' || { echo "front-end did not register"; exit 99; }

# --- launching -------------------------------------------------------------------------------
out=$(frontend_as jane reserve job-l 2 30 1 b1 b2)
R=$(echo "$out" | sed -n 's/^reservation=//p')
frontend_as jane commit "$R" >/dev/null || fail setup "commit failed"
frontend_as jane --wd /tmp run "$R" b1 /bin/sh -c 'echo to-stdout; echo to-stderr >&2; exit 3' \
	>"$D/run.out" 2>"$D/run.err"
if [ "$(cat "$D/run.out")" = "to-stdout
exit=3" ] && grep -qx 'to-stderr' "$D/run.err"; then
	pass launch_through_frontend_returns_output_and_exit_code
else
	fail launch_through_frontend_returns_output_and_exit_code "stdout: $(cat "$D/run.out"); stderr: $(cat "$D/run.err")"
fi

out=$(frontend_as jane --wd /tmp --env QCG_TEST_VALUE=42 --env PATH=/bin run "$R" b2 \
	/bin/sh -c 'echo "value=$QCG_TEST_VALUE home=${HOME:-unset} user=$(id -un)"' 2>&1)
case $out in
*'value=42 home=unset user=nobody'*) pass launch_gets_exactly_the_given_environment_as_the_mapped_account ;;
*) fail launch_gets_exactly_the_given_environment_as_the_mapped_account "got: $out" ;;
esac

out=$(frontend_as jane --wd /tmp launch "$R" b1 /bin/sleep 30)
L=$(echo "$out" | sed -n 's/^launch=//p')
sig=$(frontend_as jane signal "$L" 15 2>&1)
for _ in $(seq 1 20); do
	st=$(frontend_as jane read "$L" 0 0 1 2>&1)
	case $st in *signal=*|*exit=*) break ;; esac
done
if [ "$sig" = ok ] && echo "$st" | grep -q '^signal=15$'; then
	pass signal_reaches_the_launched_process
else
	fail signal_reaches_the_launched_process "signal: $sig; status: $st"
fi

out=$(frontend_as jane --wd /tmp launch "$R" b2 /bin/sleep 131.5)
L=$(echo "$out" | sed -n 's/^launch=//p')
pgrep -f 'sleep 131.5' >/dev/null || fail setup "sleep 131.5 did not start: $(frontend_as jane read "$L" 0 0 1 2>&1)"
frontend_as jane release "$R" >/dev/null
# Bounded well below the sleep's own 131.5 s: a sleep that ended by itself proves nothing.
wait_while 300 pgrep -f 'sleep 131.5' >/dev/null
pgrep -f 'sleep 131.5' >/dev/null && fail release_kills_what_ran_under_the_reservation "still running" ||
	pass release_kills_what_ran_under_the_reservation

# A wall time (2 s from the commit) is kept by the front-end itself, launcher or not: the
# reservation is released and what ran under it is killed.
out=$(frontend_as jane --walltime 2 reserve job-w 1 30 1 b1)
R=$(echo "$out" | sed -n 's/^reservation=//p')
frontend_as jane commit "$R" >/dev/null || fail setup "commit of the wall-time reservation failed"
out=$(frontend_as jane --wd /tmp launch "$R" b1 /bin/sleep 132.5)
pgrep -f 'sleep 132.5' >/dev/null || fail setup "sleep 132.5 did not start: $out"
wait_while 300 pgrep -f 'sleep 132.5' >/dev/null
gone=$(frontend_as jane launch "$R" b1 /bin/true 2>&1)
if pgrep -f 'sleep 132.5' >/dev/null; then
	fail walltime_releases_the_reservation_and_kills_its_launches "still running after 30 s"
elif [[ $gone != *"reached its wall time (2 s)"* ]]; then
	fail walltime_releases_the_reservation_and_kills_its_launches "launch afterwards: $gone"
else
	pass walltime_releases_the_reservation_and_kills_its_launches
fi
# A job the broker says has ended (qcg-cancel from any host, its launcher dead) loses its
# reservations after frontend.job_end_grace (2 s here), and what ran under them is killed.
call_as jane record-job job-c >/dev/null || fail setup "record-job job-c failed"
out=$(frontend_as jane reserve job-c 1 30 1 b2)
R=$(echo "$out" | sed -n 's/^reservation=//p')
frontend_as jane commit "$R" >/dev/null || fail setup "commit of job-c's reservation failed"
out=$(frontend_as jane --wd /tmp launch "$R" b2 /bin/sleep 133.5)
pgrep -f 'sleep 133.5' >/dev/null || fail setup "sleep 133.5 did not start: $out"
call_as jane set-job-state job-c cancelled >/dev/null || fail setup "set-job-state failed"
wait_while 300 pgrep -f 'sleep 133.5' >/dev/null
gone=$(frontend_as jane release "$R" 2>&1)
if pgrep -f 'sleep 133.5' >/dev/null; then
	fail ended_job_loses_its_reservations_after_the_grace "still running after 30 s"
elif [[ $gone != *"released by the front-end: its job job-c ended"* ]]; then
	fail ended_job_loses_its_reservations_after_the_grace "release afterwards: $gone"
else
	pass ended_job_loses_its_reservations_after_the_grace
fi

out=$(frontend_as jane --walltime 99999999 reserve job-w 1 30 2>&1)
[[ $out == *"wall time must be 0-"* ]] && pass walltime_beyond_a_year_is_refused ||
	fail walltime_beyond_a_year_is_refused "got: $out"

# --- events ----------------------------------------------------------------------------------
call_as jane record-job job-e >/dev/null && frontend_as b1 register-ap job-e b1 127.0.0.1 5001 >/dev/null ||
	fail setup "job-e registration failed"
call_as gw-a register-cluster site-a open 127.0.0.1 10.1.0.0/24 >/dev/null || fail setup "site-a"
# site-a (open) -> site-f (NAT): reversal; the broker's connect event names node b1.
call_as gw-a resolve job-e site-a a1 127.0.0.1 5001 >/dev/null || fail setup "resolve failed"
# broker_call gives no rendezvous address, so b1's helper refuses the event, in its own words:
# either way the front-end's log shows which helper answered.
if wait_for_log "$FELOG" 'helper of node b1 refused connect event [0-9]* (job job-e): .*reversal event needs\|delivered connect event [0-9]* (job job-e) to node b1'; then
	pass connect_event_reaches_the_target_nodes_helper
else
	fail connect_event_reaches_the_target_nodes_helper "front-end log: $(grep -i 'event' "$FELOG" | tail -3)"
fi
grep -q 'job-e' "$D/b2.log" && fail connect_event_reaches_no_other_helper "b2's log: $(grep job-e "$D/b2.log")" ||
	pass connect_event_reaches_no_other_helper
call_as jane remove-aps job-e >/dev/null || fail setup "remove-aps failed"
if wait_for_log "$D/b1.log" 'job job-e ended' && wait_for_log "$D/b2.log" 'job job-e ended'; then
	pass job_ended_reaches_every_helper
else
	fail job_ended_reaches_every_helper "b1: $(tail -2 "$D/b1.log"); b2: $(tail -2 "$D/b2.log")"
fi
fixture_exit

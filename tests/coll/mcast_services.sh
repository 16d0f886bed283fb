#!/bin/bash
# Multicast groups from the services: a process asks its node's qcg-helper (MCAST_GROUP), the
# helper its qcg-frontend (AllocateMulticastGroup), the front-end the qcg-broker, all real, with
# a fresh CA. Everything runs in a network namespace of the test's own (unshare -n: loopback,
# multicast on, 239.0.0.0/8 routed there), so the MPI job's datagrams reach nothing else.
#  - two requests of one job get two different groups, another job a third: groups never
#    collide between jobs;
#  - a wrong job token is refused by the helper; a job the broker does not know gets an error,
#    and so does a job not sent to the front-end's cluster (the broker's ownership check);
#  - when the job ends (SetJobState done) its groups are released and the next job gets them;
#  - an MPI job run with the helper's socket and its job identity in the environment, with the
#    default coll_qcg_mcast=auto, takes its groups from the broker (239.192.0.0/16, port 7000)
#    and broadcasts correctly over them.
MCAST_NETNS_SHELL=bash . "$top_srcdir/tests/coll/mcast_netns.sh"
. "$top_srcdir/tests/integration/grid_fixture.sh"
QCG_FRONTEND=${QCG_FRONTEND:-$top_builddir/services/frontend/qcg-frontend}
if [ ! -x "$QCG_FRONTEND" ] || [ ! -x "$QCG_HELPER" ]; then
	echo "SKIP: qcg-frontend or qcg-helper is not built"
	exit 77
fi
CALL=$top_builddir/tests/coll/mcast_group_call
D=$FIXTURE_DIR
TOKEN=0123456789abcdef0123456789abcdef

fixture_init
broker_start
# Recorded as qcg-submit records them, sent to site-a: what gives its front-end a part in them
# before any of their processes registered an access point.
for j in job-1 job-2 job-3; do
	call_as jane record-job "$j" "clusters site-a@site-a:7 file=$D/$j.xml" >/dev/null ||
		{ echo "record-job $j failed"; exit 99; }
done
ca host --dir "$D/ca" --name gw-sa --ip 127.0.0.1 --out "$D/gw-sa"
"$QCG_CA" grid-mapfile-line "$D/jane-cert.pem" nobody >"$D/fe-grid-mapfile"
echo 'helper "/O=Grid/OU=qcg-ompi/CN=host/n1"' >"$D/fe-a.acl"
PA=$(free_port)
write_frontend_conf "$D/fe-a.conf" gw-sa site-a open "$D/fe-a.acl" "$D/fe-grid-mapfile" \
	"n1 = https://127.0.0.1:$PA/ 8"
frontend_start "$D/fe-a.conf" "$D/fe-a.log"
trap 'frontend_stop_all; helper_cleanup; fixture_cleanup' EXIT
helper_start n1 127.0.0.1 "$FRONTEND_URL" -s "helper.listen=127.0.0.1:$PA"
for j in job-1 job-2 job-3 job-elsewhere unknown-job; do echo "$j $TOKEN root" >>"$HELPER_TOKENS"; done
wait_for_log "$D/fe-a.log" 'registered' || { echo "front-end did not register"; exit 99; }

ask() { "$CALL" "$HELPER_SOCKET" "$1" "${2:-$TOKEN}" 2>&1; }

a=$(ask job-1) b=$(ask job-1) c=$(ask job-2)
if [[ $a == "group 239.192."*" 7000" && $b == "group 239.192."*" 7000" &&
    $c == "group 239.192."*" 7000" && $a != "$b" && $b != "$c" && $a != "$c" ]]; then
	pass groups_never_collide_within_or_between_jobs
else
	fail groups_never_collide_within_or_between_jobs "job-1: '$a', '$b'; job-2: '$c'"
fi
out=$(ask job-1 wrongtoken0123456789)
[[ $out == refused* ]] && pass a_wrong_job_token_gets_no_group ||
	fail a_wrong_job_token_gets_no_group "$out"
call_as jane record-job job-elsewhere "clusters site-b@site-b:2 file=$D/x.xml" >/dev/null ||
	{ echo "record-job job-elsewhere failed"; exit 99; }
out=$(ask job-elsewhere)
[[ $out == refused*"was not sent to, a cluster of yours"* ]] &&
	pass a_job_of_another_cluster_gets_no_group ||
	fail a_job_of_another_cluster_gets_no_group "$out"
out=$(ask unknown-job)
[[ $out == "refused 4: "*"AllocateMulticastGroup: job: not found"* ]] &&
	pass a_job_the_broker_does_not_know_gets_no_group ||
	fail a_job_the_broker_does_not_know_gets_no_group "$out"

call_as jane set-job-state job-1 running >/dev/null &&
	call_as jane set-job-state job-1 done >/dev/null || fail job_end "set-job-state failed"
d=$(ask job-3) e=$(ask job-3)
# job-1 held the two lowest groups; both come back to job-3
if [[ "$d $e" == "$a $b" || "$d $e" == "$b $a" ]]; then
	pass a_finished_jobs_groups_go_to_the_next_job
else
	fail a_finished_jobs_groups_go_to_the_next_job "job-1 had '$a' '$b'; job-3 got '$d' '$e'"
fi
out=$(ask job-1)
[[ $out == refused*"has ended"* ]] && pass an_ended_job_gets_no_group ||
	fail an_ended_job_gets_no_group "$out"

# --- an MPI job takes its groups from the broker ----------------------------------------------
. "$top_srcdir/tests/coll/lib.sh"
trap 'rm -rf "$qcg_work"; frontend_stop_all; helper_cleanup; fixture_cleanup' EXIT
topo=$qcg_work/two-sites
printf '%s\n' "0 0 0 0" "1 0 0 1" "2 0 0 2" "3 0 0 3" "4 1 1 4" "5 1 1 5" "6 1 1 6" >"$topo"
out=$qcg_work/broker.out
QCG_HELPER_SOCKET=$HELPER_SOCKET QCG_JOB_ID=job-2 QCG_JOB_TOKEN=$TOKEN \
    qcg_mpirun 7 -x QCG_HELPER_SOCKET -x QCG_JOB_ID -x QCG_JOB_TOKEN \
    --mca coll_qcg_topology_file "$topo" --mca coll_qcg_verbose 10 \
    "$top_builddir/tests/coll/mcast_check" 1 >"$out" 2>&1
if grep -q "^mcast_check: [1-9][0-9]* checks on 7 ranks, 0 failures" "$out" &&
    [ "$(grep -c "group 239\.192\.[0-9.]* port 7000 (from the broker)" "$out")" = 4 ]; then
	pass an_mpi_job_broadcasts_over_groups_from_the_broker
else
	fail an_mpi_job_broadcasts_over_groups_from_the_broker "$(grep -v 'coll:qcg: comm' "$out" | head -20)"
fi
fixture_exit

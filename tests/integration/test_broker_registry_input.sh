#!/bin/bash
# test_broker_registry_input.sh: what the broker's registry refuses to store or let a
# stranger change (issue 17): garbage addresses, endpoints and URLs are refused with a fault
# naming the field (what is stored is handed to every process that connects), and a front-end
# may remove the access points of a job, or take or give back its multicast groups, only when it
# has a part in it (one of the job's access points is in its cluster, or the job's description,
# qcg-submit's "clusters NAME@SITE:N ...", names its cluster); the job's owner still may.
. "$top_srcdir/tests/integration/grid_fixture.sh"
D=$FIXTURE_DIR

fixture_init
broker_start
for step in "gw-a register-cluster site-a open 172.31.0.2 10.1.0.0/24" \
	"gw-b register-cluster site-b open 172.31.0.3 10.2.0.0/24" "jane record-job job-1" \
	"gw-a register-ap job-1 site-a a1 10.1.0.5 5000"; do
	# shellcheck disable=SC2086 # the words are the arguments
	call_as $step >/dev/null 2>"$D/err" || fail setup "$step: $(cat "$D/err")"
done

# expect_refused NAME WANT CREDENTIAL OP ARGS...: broker_call must fail with WANT in its error
expect_refused() {
	local name=$1 want=$2
	shift 2
	if call_as "$@" >/dev/null 2>"$D/err"; then
		fail "$name" "stored: $*"
	else
		grep -q -- "$want" "$D/err" && pass "$name" || fail "$name" "$(cat "$D/err")"
	fi
}
expect_refused garbage_access_point_address_refused 'accessPoint.address must be an IP address' \
	gw-a register-ap job-1 site-a a1 "not an address" 5000
expect_refused markup_access_point_address_refused 'accessPoint.address must be an IP address' \
	gw-a register-ap job-1 site-a a1 '<b>10.1.0.6</b>' 5000
expect_refused garbage_public_address_refused 'cluster.publicAddress must be an IP address' \
	gw-a register-cluster site-a open '1.2.3.4; rm -rf' 10.1.0.0/24
expect_refused garbage_proxy_endpoint_refused 'proxy.endpoint must be host:port' \
	proxy-1 register-proxy 'proxy 1:7000' 0.0.0.0/0
expect_refused proxy_endpoint_port_out_of_range_refused 'proxy.endpoint must be host:port' \
	proxy-1 register-proxy 172.31.0.9:70000 0.0.0.0/0
call_as proxy-1 register-proxy 172.31.0.9:7000 0.0.0.0/0 >/dev/null &&
	pass valid_proxy_endpoint_still_stored || fail valid_proxy_endpoint_still_stored "refused"

# gw-b has no access point in job-1: it may not cut it off
expect_refused stranger_frontend_may_not_remove_access_points \
	"job 'job-1' has no access point in, and was not sent to, a cluster of yours" gw-b remove-aps job-1
call_as gw-a register-ap job-1 site-a a1 10.1.0.5 5001 >/dev/null ||
	fail stranger_frontend_may_not_remove_access_points "job-1's access points are gone"
out=$(call_as gw-a remove-aps job-1 2>&1) && pass frontend_with_a_part_removes_access_points ||
	fail frontend_with_a_part_removes_access_points "$out"
call_as gw-b register-ap job-1 site-b b1 10.2.0.5 5000 >/dev/null &&
	out=$(call_as jane remove-aps job-1 2>&1) && pass job_owner_removes_access_points ||
	fail job_owner_removes_access_points "$out"

# --- multicast groups: the same rule ----------------------------------------------------------
# job-2 was sent to site-a (its description, as qcg-submit records it) and no process of it has
# registered yet: how a job's rank 0 asks for a group before any access point exists.
call_as jane record-job job-2 "clusters site-a@site-a:4 file=/home/jane/job.xml" >/dev/null ||
	fail setup "record-job job-2"
expect_refused stranger_frontend_may_not_take_a_multicast_group \
	"job 'job-2' has no access point in, and was not sent to, a cluster of yours" gw-b multicast job-2
expect_refused stranger_frontend_may_not_release_multicast_groups \
	"job 'job-2' has no access point in, and was not sent to, a cluster of yours" \
	gw-b release-multicast job-2
out=$(call_as gw-a multicast job-2 2>&1) && [[ $out == group=* ]] &&
	pass frontend_the_job_was_sent_to_takes_a_group || fail frontend_the_job_was_sent_to_takes_a_group "$out"
out=$(call_as gw-a release-multicast job-2 2>&1) &&
	pass frontend_the_job_was_sent_to_releases_groups ||
	fail frontend_the_job_was_sent_to_releases_groups "$out"
# job-3 has no description (not from qcg-submit): an access point in site-b gives gw-b its part,
# and a description naming only a prefix of a cluster's name gives none.
call_as jane record-job job-3 >/dev/null && call_as gw-b register-ap job-3 site-b b1 10.2.0.5 5000 \
	>/dev/null || fail setup "job-3"
expect_refused frontend_without_access_point_may_not_take_a_group \
	"job 'job-3' has no access point in" gw-a multicast job-3
out=$(call_as gw-b multicast job-3 2>&1) && [[ $out == group=* ]] &&
	pass frontend_with_an_access_point_takes_a_group ||
	fail frontend_with_an_access_point_takes_a_group "$out"
call_as jane record-job job-4 "clusters site@site-a:2 site-a-x@site-a:2 file=site-a@x" >/dev/null ||
	fail setup "record-job job-4"
expect_refused cluster_name_must_match_whole "job 'job-4' has no access point in" \
	gw-a multicast job-4
out=$(call_as jane multicast job-4 2>&1) && [[ $out == group=* ]] &&
	pass job_owner_takes_a_group || fail job_owner_takes_a_group "$out"
fixture_exit

#!/bin/bash
# test_qcg_submit.sh: qcg-submit on loopback with a real broker and two sites (front-ends and
# helpers): a reservation refused on one site leaves no reservation and no process anywhere;
# bad descriptions, an unmapped DN and an expired proxy are refused before anything is
# reserved; the broker records the failed job. (A real mpirun run needs the testbed.)
. "$top_srcdir/tests/integration/grid_fixture.sh"
SUBMIT="$top_builddir/launcher/qcg-submit"
D=$FIXTURE_DIR

fixture_init
"$QCG_CA" grid-mapfile-line "$D/bob-cert.pem" nobody >/dev/null
broker_start
site_start sa open 2 sa1 sa2
URL_A=$SITE_URL
site_start sb open 2 sb1
URL_B=$SITE_URL
export QCG_FRONTEND_URL_sa=$URL_A QCG_FRONTEND_URL_sb=$URL_B QCG_MPIRUN=/bin/false
# The stand-in mpirun runs here: --mpirun-here (no helper serves this host, which would make
# the job's first node the default; test_qcg_submit_in_job.sh covers that mode).
submit() { as_user "$1" "$SUBMIT" --broker "$BROKER_URL" --mpirun-here "${@:2}"; }
reservations_made() { grep -c 'reservation [0-9a-f]*: job' "$D/site-sa.log" "$D/site-sb.log" | awk -F: '{s += $2} END {print s}'; }

printf '#QCG executable=/bin/true\n#QCG host=sa\n#QCG procs=4\n#QCG host=sb\n#QCG procs=5\n' >"$D/toobig.qcg"
out=$(submit jane "$D/toobig.qcg" 2>&1); rc=$?
FE_A=$URL_A
full=$(FRONTEND_URL=$FE_A frontend_as jane reserve probe 4 30 2>&1)
if [ $rc = 4 ] && echo "$out" | grep -q "cluster sb .* refused the reservation of 5 processes" &&
	echo "$full" | grep -q "^reservation=" && ! grep -q "launch [0-9a-f]*: " "$D/site-sa.log" "$D/site-sb.log"; then
	pass refused_reservation_on_one_site_releases_every_other_site
else
	fail refused_reservation_on_one_site_releases_every_other_site "rc=$rc; $out; after: $full"
fi
R=$(echo "$full" | sed -n 's/^reservation=//p')
[ -n "$R" ] && FRONTEND_URL=$FE_A frontend_as jane release "$R" >/dev/null
grep -q 'reservation .* released' "$D/site-sa.log" && pass the_granted_site_logged_the_release ||
	fail the_granted_site_logged_the_release "$(tail -3 "$D/site-sa.log")"
id=$(echo "$out" | sed -n 's/.*job \([^:]*\): cluster sb.*/\1/p')
st=$(query_as jane job "$id" 2>&1)
echo "$st" | grep -q " failed " && pass broker_records_the_failed_coallocation ||
	fail broker_records_the_failed_coallocation "job $id: $st"

before=$(reservations_made)
printf '#QCG executable=/bin/true\n#QCG host=sa\n#QCG nodes=2x2\n' >"$D/bad.qcg"
out=$(submit jane "$D/bad.qcg" 2>&1); rc=$?
[ $rc = 2 ] && echo "$out" | grep -q "bad.qcg:3: nodes must be" && [ "$(reservations_made)" = "$before" ] &&
	pass bad_description_reserves_nothing || fail bad_description_reserves_nothing "rc=$rc $out"

printf '#QCG executable=/bin/true\n#QCG host=sa\n#QCG procs=1\n' >"$D/ok.qcg"
# The reserve timeout, in each format: out of range and malformed are description errors (exit
# 2, file and line) refused before anything is reserved; so are malformed command-line values.
XH="<job xmlns='urn:qcg-ompi:job:1'>
<executable>/bin/true</executable>"
XT='<resources><cluster name="sa" processes="1"/></resources></job>'
JH="<jsdl:JobDefinition xmlns:jsdl='http://schemas.ggf.org/jsdl/2005/11/jsdl' xmlns:p='http://schemas.ggf.org/jsdl/2005/11/jsdl-posix' xmlns:s='http://schemas.ogf.org/jsdl/2007/02/jsdl-spmd' xmlns:j='urn:qcg-ompi:job:1'><jsdl:JobDescription>
<jsdl:Application><s:SPMDApplication><p:Executable>/bin/true</p:Executable><s:NumberOfProcesses>1</s:NumberOfProcesses><s:SPMDVariation>http://www.ogf.org/jsdl/2007/02/jsdl-spmd/OpenMPI</s:SPMDVariation></s:SPMDApplication></jsdl:Application>
<jsdl:Resources><jsdl:CandidateHosts><jsdl:HostName>sa:1</jsdl:HostName></jsdl:CandidateHosts>"
JT="</jsdl:Resources></jsdl:JobDescription></jsdl:JobDefinition>"
printf '%s\n<reserveTimeout>PT2H</reserveTimeout>\n%s\n' "$XH" "$XT" >"$D/rt-range.xml"
printf '%s\n<reserveTimeout>soon</reserveTimeout>\n%s\n' "$XH" "$XT" >"$D/rt-form.xml"
printf '#QCG executable=/bin/true\n#QCG host=sa\n#QCG procs=1\n#QCG reserve-timeout=PT0S\n' >"$D/rt-range.qcg"
printf '#QCG executable=/bin/true\n#QCG host=sa\n#QCG procs=1\n#QCG reserve-timeout=30\n' >"$D/rt-form.qcg"
printf '%s\n<j:ReserveTimeout>3601</j:ReserveTimeout>%s\n' "$JH" "$JT" >"$D/rt-range.jsdl"
printf '%s\n<j:ReserveTimeout>PT30S</j:ReserveTimeout>%s\n' "$JH" "$JT" >"$D/rt-form.jsdl"
for c in "rt-range.xml:3:" "rt-form.xml:3:" "rt-range.qcg:4: reserve-timeout" "rt-form.qcg:4: reserve-timeout" \
	"rt-range.jsdl:4: ReserveTimeout" "rt-form.jsdl:4: ReserveTimeout"; do
	f=${c%%:*}
	out=$(submit jane "$D/$f" 2>&1); rc=$?
	[ $rc = 2 ] && [[ $out == *"$D/$c"* ]] && [ "$(reservations_made)" = "$before" ] &&
		pass "reserve_timeout_refused_${f//[-.]/_}" ||
		fail "reserve_timeout_refused_${f//[-.]/_}" "rc=$rc $out"
done
for o in --reserve-timeout=abc --reserve-timeout=10s --reserve-timeout=0 --startup-timeout=abc \
	--startup-timeout=-1 --startup-timeout=99999999999999999999; do
	out=$(submit jane "$o" "$D/ok.qcg" 2>&1); rc=$?
	[ $rc = 2 ] && [[ $out == *"${o%%=*} must be a whole number of seconds"*"'${o#*=}'"* ]] &&
		[ "$(reservations_made)" = "$before" ] && pass "option_refused_$o" || fail "option_refused_$o" "rc=$rc $out"
done

printf '#QCG executable=/bin/true\n#QCG host=nowhere\n#QCG procs=1\n' >"$D/unknown.qcg"
out=$(submit jane "$D/unknown.qcg" 2>&1); rc=$?
# A cluster the broker does not know is a mistake in the description: exit 2, file and line.
[ $rc = 2 ] && echo "$out" | grep -q "unknown.qcg:2: cluster nowhere is not registered" &&
	[ "$(reservations_made)" = "$before" ] &&
	pass unknown_cluster_is_a_description_error_exit_2_and_reserves_nothing ||
	fail unknown_cluster_is_a_description_error_exit_2_and_reserves_nothing "rc=$rc $out"

out=$(submit bob "$D/ok.qcg" 2>&1); rc=$?
[ $rc = 3 ] && echo "$out" | grep -q "not authorized" && [ "$(reservations_made)" = "$before" ] &&
	pass unmapped_dn_is_refused_before_anything_is_reserved ||
	fail unmapped_dn_is_refused_before_anything_is_reserved "rc=$rc $out"

/usr/bin/python3 "$top_srcdir/tests/launcher/make_expired_proxy.py" "$D/jane-cert.pem" "$D/jane-key.pem" "$D/expired"
out=$(X509_USER_PROXY=$D/expired X509_CERT_DIR=$D/ca/certificates "$SUBMIT" --broker "$BROKER_URL" "$D/ok.qcg" 2>&1); rc=$?
[ $rc = 3 ] && echo "$out" | grep -q "expired at" && [ "$(reservations_made)" = "$before" ] &&
	pass expired_proxy_is_refused_before_anything_is_reserved ||
	fail expired_proxy_is_refused_before_anything_is_reserved "rc=$rc $out"

# Two clusters: the commits take the parallel path (coalloc.c: a thread and connection each; that
# they overlap is for bench/launch to show), both are made, the
# job runs (mpirun /bin/false: exit 1) and both reservations are released.
printf '#QCG executable=/bin/true\n#QCG host=sa\n#QCG procs=1\n#QCG host=sb\n#QCG procs=1\n' >"$D/two.qcg"
lines_a=$(wc -l <"$D/site-sa.log") lines_b=$(wc -l <"$D/site-sb.log")
out=$(submit jane "$D/two.qcg" 2>&1); rc=$?
res_a=$(sed -n 's/.*reservation \([0-9a-f]*\) committed.*/\1/p' "$D/site-sa.log" | tail -n 1)
res_b=$(sed -n 's/.*reservation \([0-9a-f]*\) committed.*/\1/p' "$D/site-sb.log" | tail -n 1)
if [ $rc = 1 ] && echo "$out" | grep -q ": 2 processes on 2 clusters" && [ -n "$res_a" ] &&
	[ -n "$res_b" ] && wait_until 50 grep -q "reservation $res_a.* released" "$D/site-sa.log" &&
	wait_until 50 grep -q "reservation $res_b.* released" "$D/site-sb.log"; then
	pass two_clusters_committed_by_the_parallel_path_and_released
else
	fail two_clusters_committed_by_the_parallel_path_and_released "rc=$rc $out / $res_a / $res_b"
fi
# ... and each front-end took that job's Reserve and Commit on the one connection qcg-submit
# opened ahead (launcher/frontend_links.h): up to the commit, one "connection from" line each
# (the front-end logs a connection at its first request, and one closed before any request,
# as gSOAP's own check made of a link that TLS 1.3's session tickets had reached, too).
conns_to_commit() { tail -n +"$(($2 + 1))" "$1" | sed -n "1,/reservation $3 committed/p" | grep -c "connection from"; }
ca=$(conns_to_commit "$D/site-sa.log" "$lines_a" "$res_a") cb=$(conns_to_commit "$D/site-sb.log" "$lines_b" "$res_b")
if [ -n "$res_a" ] && [ -n "$res_b" ] && [ "$ca" = 1 ] && [ "$cb" = 1 ]; then
	pass reserve_and_commit_on_one_connection_opened_ahead
else
	fail reserve_and_commit_on_one_connection_opened_ahead "connections up to the commit: sa $ca, sb $cb"
fi

# mpirun is /bin/false here: the job runs, fails with exit 1, and every reservation is released.
out=$(submit jane "$D/ok.qcg" 2>&1); rc=$?
id=$(echo "$out" | sed -n 's/.*job \([^ ]*\): 1 processes.*/\1/p')
if [ $rc = 1 ] && [ -s "/tmp/qcg-jobs-$(id -u)/$id/hostfile" ] &&
	grep -qx "sa1 slots=1" "/tmp/qcg-jobs-$(id -u)/$id/hostfile" &&
	grep -qx "0 0 0 0" "/tmp/qcg-jobs-$(id -u)/$id/topology" &&
	query_as jane job "$id" | grep -q " failed .* 1 "; then
	pass job_exit_code_is_returned_files_written_and_state_recorded
else
	fail job_exit_code_is_returned_files_written_and_state_recorded "rc=$rc $out; $(query_as jane job "$id" 2>&1)"
fi
[ -n "$id" ] && rm -rf "/tmp/qcg-jobs-$(id -u)/$id"

# qcg-cancel in mid-run: the stand-in mpirun (sleep 147.5) is stopped, the state is cancelled,
# and the reservation is released; qcg-status shows it.
printf '#!/bin/sh\nexec sleep 147.5\n' >"$D/fake-mpirun"; chmod +x "$D/fake-mpirun"
released_before=$(grep -c 'released' "$D/site-sa.log")
: >"$D/run.log" # emptied before the job starts: the wait below must not see the last job's lines
QCG_MPIRUN=$D/fake-mpirun submit jane "$D/ok.qcg" >"$D/run.log" 2>&1 &
spid=$!
wait_for_log "$D/run.log" 'processes on' || fail qcg_cancel_setup "the job did not start: $(cat "$D/run.log")"
id=$(sed -n 's/.*job \([^ ]*\): 1 processes.*/\1/p' "$D/run.log")
# Cancelled before the stand-in runs, 'no sleep left' below would pass with nothing to stop.
wait_until 300 pgrep -f '^sleep 147.5' >/dev/null || fail qcg_cancel_setup "the stand-in mpirun did not start"
as_user jane "$top_builddir/launcher/qcg-cancel" --broker "$BROKER_URL" "$id" >/dev/null 2>&1
wait_gone 300 $spid
kill -0 $spid 2>/dev/null && kill $spid # 30 s after the cancel: let the check below say so
wait $spid; rc=$?
wait_while 300 pgrep -f '^sleep 147.5' >/dev/null # the killed stand-in may still be exiting
st=$(as_user jane "$top_builddir/launcher/qcg-status" --broker "$BROKER_URL" "$id" 2>&1)
if [ $rc = 143 ] && echo "$st" | grep -q "state *cancelled" && ! pgrep -f '^sleep 147.5' >/dev/null &&
	[ "$(grep -c 'released' "$D/site-sa.log")" -gt "$released_before" ] && echo "$st" | grep -q "clusters sa@sa:1"; then
	pass qcg_cancel_stops_the_job_exit_143_and_qcg_status_shows_it
else
	fail qcg_cancel_stops_the_job_exit_143_and_qcg_status_shows_it "rc=$rc; $(cat "$D/run.log"); $st"
fi
[ -n "$id" ] && rm -rf "/tmp/qcg-jobs-$(id -u)/$id"

# Ctrl-C and SIGTERM while the job runs: exit 128 + the signal (the man page's 130 and 143),
# whatever mpirun returns when stopped. The stand-in exits 1 on SIGTERM as mpirun does, so
# passing mpirun's code through would fail this.
printf '#!/bin/bash\ntrap "exit 1" TERM\nsleep 48.5 &\nwait\n' >"$D/fake-mpirun-term"
chmod +x "$D/fake-mpirun-term"
for sig in INT:130 TERM:143; do
	cp "$D/ok.qcg" "$D/sig$sig.qcg"
	: >"$D/run.log" # emptied before the job starts: the wait below must not see the last job's lines
	QCG_MPIRUN=$D/fake-mpirun-term submit jane "$D/sig$sig.qcg" >"$D/run.log" 2>&1 &
	spid=$!
	wait_for_log "$D/run.log" 'processes on' || fail "sig${sig%:*}_setup" "the job did not start: $(cat "$D/run.log")"
	# Signalled before the stand-in runs, the check would not be of a running job.
	wait_until 300 pgrep -f '^sleep 48.5' >/dev/null || fail "sig${sig%:*}_setup" "the stand-in mpirun did not start"
	qpid=$(pgrep -f "qcg-submit .*$D/sig$sig.qcg" | head -1)
	[ -n "$qpid" ] && kill -"${sig%:*}" "$qpid"
	wait_gone 300 $spid
	kill -0 $spid 2>/dev/null && kill -9 $spid # 30 s after the signal: let the check below say so
	wait $spid; rc=$?
	id=$(sed -n 's/.*job \([^ ]*\): 1 processes.*/\1/p' "$D/run.log")
	if [ -n "$qpid" ] && [ "$rc" = "${sig#*:}" ] && grep -q "interrupted; stopping it" "$D/run.log"; then
		pass "sig${sig%:*}_while_running_exits_${sig#*:}"
	else
		fail "sig${sig%:*}_while_running_exits_${sig#*:}" "pid=$qpid rc=$rc; $(cat "$D/run.log")"
	fi
	[ -n "$id" ] && rm -rf "/tmp/qcg-jobs-$(id -u)/$id"
done
wait_while 300 pgrep -f '^sleep 48.5' >/dev/null # killed stand-ins may still be exiting
left=$(pgrep -f '^sleep 48.5')
[ -z "$left" ] && pass interrupted_jobs_leave_no_process ||
	fail interrupted_jobs_leave_no_process "left: $left"
# A broker outage while the job runs: one line when it stops answering (with the reason), one
# when it answers again, none per poll in between; the job goes on and ends normally. The port
# meanwhile drops every connection (an "End of file" to the poll) and counts those of
# qcg-submit (the front-ends also call), so that the check runs only after several polls failed.
# Its own log: with run.log, reused above, the wait below could see the last job's "processes
# on" before the background shell truncated the file, and kill the broker before this job's
# ListClusters (seen under load).
printf '#!/bin/sh\nfor i in $(seq 3000); do [ -e "%s" ] && exit 0; sleep 0.1; done\nexit 1\n' \
	"$D/outage-go" >"$D/fake-mpirun-outage"
chmod +x "$D/fake-mpirun-outage"
cp "$D/ok.qcg" "$D/outage.qcg"
QCG_MPIRUN=$D/fake-mpirun-outage submit jane "$D/outage.qcg" >"$D/outage.log" 2>&1 &
spid=$!
wait_for_log "$D/outage.log" 'processes on' || fail outage_setup "the job did not start: $(cat "$D/outage.log")"
id=$(sed -n 's/.*job \([^ ]*\): 1 processes.*/\1/p' "$D/outage.log")
qpid=$(pgrep -f "qcg-submit .*$D/outage.qcg" | head -1) # $D: not another copy of this test's
broker_kill9
/usr/bin/python3 -c '
import os, socket, sys
port, qpid, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
def owned_by_qpid(peer_port):
	# The client still waits for our answer, so its socket is open while we look.
	inodes = set()
	for table in ("/proc/net/tcp", "/proc/net/tcp6"):
		for line in open(table).readlines()[1:]:
			f = line.split()
			if int(f[1].split(":")[1], 16) == peer_port and int(f[2].split(":")[1], 16) == port:
				inodes.add("socket:[%s]" % f[9])
	try:
		return any(os.readlink("/proc/%s/fd/%s" % (qpid, fd)) in inodes
		           for fd in os.listdir("/proc/%s/fd" % qpid))
	except OSError:
		return False
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", port)); s.listen(16); n = 0
for _ in range(10000):
	c, peer = s.accept()
	if owned_by_qpid(peer[1]):
		n += 1
		open(out + ".tmp", "w").write(str(n)); os.rename(out + ".tmp", out)
	c.close()
' "$BROKER_PORT" "$qpid" "$D/dropped" &
dpid=$!
polls_dropped() { [ "$(cat "$D/dropped" 2>/dev/null || echo 0)" -ge "$1" ]; }
wait_until 600 polls_dropped 4 || fail outage_setup "fewer than 4 polls of qcg-submit ($qpid) reached the port: $(cat "$D/dropped" 2>&1)"
kill $dpid; wait $dpid 2>/dev/null
broker_restart_same_port
wait_for_log "$D/outage.log" 'answers again' 60
touch "$D/outage-go"
wait_gone 300 $spid
kill -0 $spid 2>/dev/null && kill -9 $spid # 30 s after the go: let the check below say so
wait $spid; rc=$?
down=$(grep -c 'the broker stopped answering (broker: GetJob: ' "$D/outage.log")
up=$(grep -c 'the broker answers again after [0-9]* s$' "$D/outage.log")
grep -E 'broker|polls' "$D/outage.log" | sed 's/^/  /'; echo "  qcg-submit connections dropped: $(cat "$D/dropped")"
if [ $rc = 0 ] && [ "$down" = 1 ] && [ "$up" = 1 ] && [ "$(grep -c GetJob "$D/outage.log")" = 1 ] &&
	query_as jane job "$id" | grep -q " done "; then
	pass broker_outage_is_one_line_down_and_one_line_up_and_the_job_goes_on
else
	fail broker_outage_is_one_line_down_and_one_line_up_and_the_job_goes_on "rc=$rc down=$down up=$up; $(cat "$D/outage.log")"
fi
[ -n "$id" ] && rm -rf "/tmp/qcg-jobs-$(id -u)/$id"
fixture_exit

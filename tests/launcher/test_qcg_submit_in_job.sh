#!/bin/bash
# test_qcg_submit_in_job.sh: qcg-submit with mpirun inside the job (launcher/submit_remote.h), on
# loopback with a real broker, two sites' front-ends and helpers, and real TLS. No helper serves
# the submitting host, so that is the default mode. A stand-in for mpirun, started on the job's
# first node through its front-end and helper (as the mapped account, nobody), reports what it
# finds there: its directory (mode 0700) with the hostfile, the hosts map and a delegated proxy
# (mode 0600, a proxy of the user's credential and not the credential, living about the wall
# time), the staged stdin; and with that proxy it runs a command on the other cluster's node
# through qcg-rsh, as mpirun starts orted. Its output streams back, its exit code is
# qcg-submit's, and the job's directory on each node (its working directory, where stage-in
# files land; the proxy in the first node's) is gone afterwards. Ctrl-C on
# qcg-submit stops it on the node (exit 130) and leaves no process and no directory; with
# qcg-submit killed, qcg-cancel removes the directories and releases. A kept directory stays.
# A cluster's own installed executable reaches its nodes' ranks.
. "$top_srcdir/tests/integration/grid_fixture.sh"
SUBMIT="$top_builddir/launcher/qcg-submit"
D=$FIXTURE_DIR

fixture_init
broker_start
site_start sa open 2 sa1 sa2
URL_A=$SITE_URL
site_start sb open 2 sb1
URL_B=$SITE_URL
# What the job's account (nobody) reads on "its" node: the stand-ins and the CA's certificates
# (public), in a directory it may enter. The fixture's own directory stays root's.
S=$(mktemp -d /tmp/qcg-injob.XXXXXX)
trap 'frontend_stop_all; helper_cleanup; rm -rf "$S"; fixture_cleanup' EXIT
chmod 755 "$S"
cp -r "$D/ca/certificates" "$S/certificates" && chmod -R a+rX "$S/certificates"
unset QCG_HELPER_SOCKET
export QCG_FRONTEND_URL_sa=$URL_A QCG_FRONTEND_URL_sb=$URL_B
submit() { as_user jane env X509_CERT_DIR="$S/certificates" "$SUBMIT" --broker "$BROKER_URL" "$@"; }

cat >"$S/mpirun-report" <<'SH'
#!/bin/sh
# mpirun's stand-in on the job's first node: what it was given there.
hf=
while [ $# -gt 0 ]; do [ "$1" = --hostfile ] && hf=$2; shift; done
echo "where=$(pwd) mode=$(stat -c %a .) proxy=$X509_USER_PROXY proxy-mode=$(stat -c %a "$X509_USER_PROXY")"
echo "workdir=$QCG_RSH_WORKDIR staged=$(cat data.txt)"
echo "hostfile=$(tr '\n' ' ' <"$hf")"
echo "colors=$QCG_TOPOLOGY_COLORS job=$QCG_JOB_ID"
echo "stdin=$(cat)"
openssl x509 -in "$X509_USER_PROXY" -noout -subject -enddate | sed 's/^/proxy-/'
echo "proxy-path=$X509_USER_PROXY"
env -u QCG_NET qcg-rsh sb1 'echo "from sb1 as $(id -un)"'
echo "rsh-exit=$?"
echo "to stderr" >&2
exit 3
SH
printf '#!/bin/sh\necho started\nexec sleep 147.7\n' >"$S/mpirun-sleep"
chmod 755 "$S/mpirun-report" "$S/mpirun-sleep"
echo "the input line" >"$D/input.txt"
echo "staged data" >"$D/data.txt"
cat >"$D/job.xml" <<XML
<job xmlns="urn:qcg-ompi:job:1" name="injob">
<executable>/bin/true</executable>
<stdin>$D/input.txt</stdin>
<wallTime>PT20M</wallTime>
<stageIn from="$D/data.txt" to="data.txt"/>
<resources><cluster name="sa" processes="2"/><cluster name="sb" processes="1"/></resources>
</job>
XML

before=$(date +%s)
QCG_MPIRUN=$S/mpirun-report submit "$D/job.xml" >"$D/out" 2>"$D/err"
rc=$?
out=$(cat "$D/out")
id=$(sed -n 's/^qcg-submit: job \([^:]*\): mpirun runs on.*/\1/p' "$D/err")
dir=/tmp/qcg-job-$id
[ $rc = 3 ] && pass the_job_exit_code_comes_back_from_the_node ||
	fail the_job_exit_code_comes_back_from_the_node "rc=$rc; $(cat "$D/err")"
grep -q "mpirun runs on sa1 (cluster sa), in $dir" "$D/err" &&
	echo "$out" | grep -qx "where=$dir mode=700 proxy=$dir/.qcg/x509_proxy proxy-mode=600" &&
	echo "$out" | grep -qx "workdir=$dir staged=staged data" &&
	echo "$out" | grep -qx "hostfile=sa1 slots=2 sb1 slots=1 " &&
	echo "$out" | grep -qx "colors=0,0,0 job=$id" &&
	pass mpirun_runs_on_the_first_node_in_a_private_job_directory ||
	fail mpirun_runs_on_the_first_node_in_a_private_job_directory "$out; $(cat "$D/err")"
echo "$out" | grep -qx "stdin=the input line" && grep -qx "to stderr" "$D/err" &&
	pass stdin_is_staged_and_stdout_and_stderr_stream_back ||
	fail stdin_is_staged_and_stdout_and_stderr_stream_back "$out; $(cat "$D/err")"
# A proxy of jane's credential: her subject and one more CN; valid for the wall time (20 min)
# and the grace (2 min), give or take the test's own duration; never her own certificate.
user_subject=$(openssl x509 -in "$D/jane-cert.pem" -noout -subject | sed 's/^subject=//')
subject=$(echo "$out" | sed -n 's/^proxy-subject=//p')
end=$(date -d "$(echo "$out" | sed -n 's/^proxy-notAfter=//p')" +%s 2>/dev/null || echo 0)
life=$((end - before))
if [ "${subject#"$user_subject", CN = }" != "$subject" ] && [ $life -ge 1300 ] && [ $life -le 1400 ]; then
	pass the_node_gets_a_proxy_delegated_for_the_wall_time
else
	fail the_node_gets_a_proxy_delegated_for_the_wall_time "subject '$subject' (user '$user_subject'), lifetime $life s"
fi
echo "$out" | grep -qx "from sb1 as nobody" && echo "$out" | grep -qx "rsh-exit=0" &&
	pass qcg_rsh_on_the_node_reaches_the_other_cluster_with_the_delegated_proxy ||
	fail qcg_rsh_on_the_node_reaches_the_other_cluster_with_the_delegated_proxy "$out"
proxy=$(echo "$out" | sed -n 's/^proxy-path=//p')
[ -n "$id" ] && [ "$proxy" = "$dir/.qcg/x509_proxy" ] && [ ! -e "$dir" ] &&
	[ ! -e "/tmp/qcg-jobs-$(id -u)/$id/x509_proxy" ] &&
	pass the_job_directory_and_the_proxy_are_gone_after_the_job ||
	fail the_job_directory_and_the_proxy_are_gone_after_the_job "$(ls -la "$dir" 2>&1)"
query_as jane job "$id" | grep -q " failed .* 3 " && pass the_broker_records_the_exit_code ||
	fail the_broker_records_the_exit_code "$(query_as jane job "$id" 2>&1)"
rm -rf "/tmp/qcg-jobs-$(id -u)/$id"

# A cluster with its own installed path of the program: each node's hosts-map line names its
# cluster's program (the job's executable for the other cluster), mpirun's own environment its
# node's, and every rank starts through a shell that runs it. mpirun on this host cannot do
# that: refused before anything is reserved (exit 2).
cat >"$S/mpirun-links" <<'SH'
#!/bin/sh
while [ $# -gt 0 ] && [ "$1" != /bin/sh ]; do shift; done
echo "program=$1 $2 $4"
echo "script=$3"
echo "sa1=$QCG_EXECUTABLE"
env -u QCG_NET qcg-rsh sb1 'echo sb1=$QCG_EXECUTABLE'
SH
chmod 755 "$S/mpirun-links"
cat >"$D/links.xml" <<XML
<job xmlns="urn:qcg-ompi:job:1" name="links">
<executable>/bin/true</executable>
<resources><cluster name="sa" processes="2"/><cluster name="sb" processes="1" executable="/opt/sb/prog"/></resources>
</job>
XML
QCG_MPIRUN=$S/mpirun-links submit "$D/links.xml" >"$D/out" 2>"$D/err"
rc=$?
id=$(sed -n 's/^qcg-submit: job \([^:]*\): mpirun runs on.*/\1/p' "$D/err")
if [ $rc = 0 ] && grep -qx "program=/bin/sh -c /bin/true" "$D/out" &&
	grep -qxF 'script=p=${QCG_EXECUTABLE:-$0}; exec "$p" "$@"' "$D/out" && grep -qx "sa1=/bin/true" "$D/out" &&
	grep -qx "sb1=/opt/sb/prog" "$D/out" && [ ! -e "/tmp/qcg-job-$id" ]; then
	pass each_cluster_runs_its_own_installed_executable
else
	fail each_cluster_runs_its_own_installed_executable "rc=$rc; $(cat "$D/out" "$D/err")"
fi
[ -n "$id" ] && rm -rf "/tmp/qcg-jobs-$(id -u)/$id"
before=$(grep -c 'reservation [0-9a-f]*: job' "$D/site-sa.log")
out=$(QCG_MPIRUN=$S/mpirun-links submit --mpirun-here "$D/links.xml" 2>&1); rc=$?
[ $rc = 2 ] && echo "$out" | grep -q "only mpirun inside the job can honour" &&
	[ "$(grep -c 'reservation [0-9a-f]*: job' "$D/site-sa.log")" = "$before" ] &&
	pass a_cluster_executable_with_mpirun_here_is_refused_before_reserving ||
	fail a_cluster_executable_with_mpirun_here_is_refused_before_reserving "rc=$rc; $out"

# keepJobDirectory: the directory stays on the node with what was staged into it, but not the
# launcher's own files (the delegated proxy).
sed 's#<stageIn #<keepJobDirectory>true</keepJobDirectory><stageIn #' "$D/job.xml" >"$D/keep.xml"
QCG_MPIRUN=$S/mpirun-report submit "$D/keep.xml" >"$D/out" 2>"$D/err"
rc=$?
id=$(sed -n 's/^qcg-submit: job \([^:]*\): mpirun runs on.*/\1/p' "$D/err")
dir=/tmp/qcg-job-$id
if [ $rc = 3 ] && [ -n "$id" ] && [ "$(cat "$dir/data.txt" 2>/dev/null)" = "staged data" ] &&
	[ ! -e "$dir/.qcg" ] && grep -q "its directory $dir is kept on every node" "$D/err"; then
	pass keep_job_directory_keeps_it_without_the_proxy
else
	fail keep_job_directory_keeps_it_without_the_proxy "rc=$rc; $(cat "$D/err"); $(ls -la "$dir" 2>&1)"
fi
[ -n "$id" ] && rm -rf "$dir" "/tmp/qcg-jobs-$(id -u)/$id"

# Ctrl-C: Signal to mpirun on the node, then the release; nothing stays. The stand-in starts
# no orted, so the start-up watch is off (--startup-timeout 0): only the signal ends the job.
cp "$D/job.xml" "$D/sleep.xml"
rm -f "$D/out" "$D/err" # nothing of the last run may be read as this one's
QCG_MPIRUN=$S/mpirun-sleep submit --startup-timeout 0 "$D/sleep.xml" >"$D/out" 2>"$D/err" &
spid=$!
wait_until 300 grep -qx started "$D/out" || fail ctrl_c_setup "the stand-in did not start: $(cat "$D/err")"
id=$(sed -n 's/^qcg-submit: job \([^:]*\): mpirun runs on.*/\1/p' "$D/err")
[ -d "/tmp/qcg-job-$id" ] || fail ctrl_c_setup "no job directory /tmp/qcg-job-$id while it runs"
qpid=$(pgrep -f "qcg-submit .*$D/sleep.xml" | head -1)
[ -n "$qpid" ] && kill -INT "$qpid"
wait_gone 300 $spid
kill -0 $spid 2>/dev/null && kill -9 $spid # 30 s after the signal: let the check say so
wait $spid; rc=$?
wait_while 300 pgrep -f '^sleep 147.7' >/dev/null
if [ $rc = 130 ] && ! pgrep -f '^sleep 147.7' >/dev/null && [ -n "$id" ] && [ ! -e "/tmp/qcg-job-$id" ] &&
	query_as jane job "$id" | grep -q " cancelled "; then
	pass ctrl_c_stops_mpirun_on_the_node_and_leaves_nothing
else
	fail ctrl_c_stops_mpirun_on_the_node_and_leaves_nothing "rc=$rc; $(cat "$D/err"); $(pgrep -af 'sleep 147.7'); $(ls -d /tmp/qcg-job-"$id" 2>&1)"
fi
rm -rf "/tmp/qcg-jobs-$(id -u)/$id"
# qcg-submit killed (kill -9) while mpirun runs on the node: qcg-cancel on this host finds the
# record, removes the job directory on every node (the proxy is in one) and releases.
cp "$D/job.xml" "$D/orphan.xml"
# the last run's "started" must not be read as this one's (the redirection truncates the files
# only once the background job runs)
rm -f "$D/out" "$D/err"
QCG_MPIRUN=$S/mpirun-sleep submit --startup-timeout 0 "$D/orphan.xml" >"$D/out" 2>"$D/err" &
spid=$!
wait_until 300 grep -qx started "$D/out" || fail orphan_setup "the stand-in did not start: $(cat "$D/err")"
id=$(sed -n 's/^qcg-submit: job \([^:]*\): mpirun runs on.*/\1/p' "$D/err")
qpid=$(pgrep -f "qcg-submit .*$D/orphan.xml" | head -1)
[ -n "$qpid" ] && kill -9 "$qpid"
wait $spid 2>/dev/null
[ -d "/tmp/qcg-job-$id" ] || fail orphan_setup "no job directory /tmp/qcg-job-$id after the kill"
out=$(as_user jane env X509_CERT_DIR="$S/certificates" "$top_builddir/launcher/qcg-cancel" --broker "$BROKER_URL" "$id" 2>&1)
rc=$?
wait_while 300 pgrep -f '^sleep 147.7' >/dev/null
if [ $rc = 0 ] && [ -n "$id" ] && [ ! -e "/tmp/qcg-job-$id" ] && ! pgrep -f '^sleep 147.7' >/dev/null &&
	echo "$out" | grep -q "released"; then
	pass qcg_cancel_of_a_dead_submit_removes_the_job_directories_and_releases
else
	fail qcg_cancel_of_a_dead_submit_removes_the_job_directories_and_releases "rc=$rc; $out; $(ls -la "/tmp/qcg-job-$id" 2>&1)"
fi
rm -rf "/tmp/qcg-jobs-$(id -u)/$id"
fixture_exit

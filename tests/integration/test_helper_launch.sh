#!/bin/bash
# test_helper_launch.sh: Launch, ReadOutput and Signal on qcg-helper (loopback, fresh CA), called
# the way the front-end calls them (helper_call with a front-end certificate): output and exit
# code come back, the process runs as the mapped account with exactly the environment given,
# a signal reaches its process group, and bad launches are refused with a reason.
. "$top_srcdir/tests/integration/grid_fixture.sh"
D=$FIXTURE_DIR
[ "$(id -u)" -eq 0 ] || { echo "SKIP: launching as another account needs root"; exit 77; }
TOKEN=fedcba9876543210fedcba9876543210

fixture_init
helper_start n1 127.0.0.1 https://127.0.0.1:9/ -s helper.output_cap=65536
# test_helper_launch_privsep.sh runs all of this with the helper privilege-separated.
[ -z "${HELPER_SERVICE_USER:-}" ] || helper_check_privsep "$HELPER_PID"

launch() { helper_as gw-a launch "$@" 2>"$D/launch.err"; }

# --- output and exit code -------------------------------------------------------------------
id=$(launch job-L nobody -e PATH=/usr/bin:/bin -- sh -c 'echo hello out; echo hello err >&2; exit 3')
helper_as gw-a collect "$id" 20 >"$D/c1.out" 2>"$D/c1.err"
if [ "$(cat "$D/c1.out")" = "hello out
--- exit=3" ] && [ "$(cat "$D/c1.err")" = "hello err" ]; then
	pass launch_returns_stdout_stderr_and_exit_code
else
	fail launch_returns_stdout_stderr_and_exit_code "out: $(cat "$D/c1.out") err: $(cat "$D/c1.err" "$D/launch.err")"
fi

# --- identity, working directory, exact environment -----------------------------------------
id=$(launch job-L nobody -w /tmp -e PATH=/usr/bin:/bin -e "QCG_JOB_TOKEN=$TOKEN" -e ODD='a b=c' \
	-- sh -c 'id -u; id -g; pwd; env | sort')
helper_as gw-a collect "$id" 20 >"$D/c2.out" 2>&1
nobody_gid=$(id -g nobody)
TOPO=$HELPER_SOCKET.topology.xml # helper.topology_xml's default (node_topology.h)
expected="65534
$nobody_gid
/tmp
ODD=a b=c
OMPI_MCA_hwloc_base_topo_file=$TOPO
PATH=/usr/bin:/bin
PWD=/tmp
QCG_HELPER_LAUNCH_ID=$id
QCG_JOB_TOKEN=$TOKEN
--- exit=0"
# sh adds PWD itself; nothing of the helper's own environment may appear, only the launch's
# mark (what Signal finds a daemonized process by) and the node's topology file.
[ "$(cat "$D/c2.out")" = "$expected" ] && pass launch_runs_as_account_in_workdir_with_exact_environment ||
	fail launch_runs_as_account_in_workdir_with_exact_environment "got: $(cat "$D/c2.out")"

# --- the node's topology, found once by the helper for Open MPI (node_topology.h) ------------
# The job's account reads it, and it is hwloc's XML of this machine (as many PUs as it has).
id=$(launch job-L nobody -e PATH=/usr/bin:/bin -- sh -c 'grep -c "type=\"PU\"" "$OMPI_MCA_hwloc_base_topo_file"')
helper_as gw-a collect "$id" 20 >"$D/topo.out" 2>&1
[ "$(cat "$D/topo.out")" = "$(nproc --all)
--- exit=0" ] && pass topology_file_is_this_nodes_hwloc_xml_readable_by_the_job ||
	fail topology_file_is_this_nodes_hwloc_xml_readable_by_the_job "$(cat "$D/topo.out"); $(ls -l "$TOPO" 2>&1)"
# A launch naming its own file keeps it; one that runs srun (a Slurm step, whose cgroup may
# allow fewer CPUs than the file lists) gets none.
id=$(launch job-L nobody -e PATH=/usr/bin:/bin -e OMPI_MCA_hwloc_base_topo_file=/mine.xml -- \
	sh -c 'echo "[$OMPI_MCA_hwloc_base_topo_file]"')
helper_as gw-a collect "$id" 20 >"$D/own.out" 2>&1
mkdir -p "$D/bin" && printf '#!/bin/sh\necho "[${OMPI_MCA_hwloc_base_topo_file-}]"\n' >"$D/bin/srun" &&
	chmod 755 "$D" "$D/bin" "$D/bin/srun"
id=$(launch job-L nobody -e PATH=/usr/bin:/bin -- "$D/bin/srun" --overlap true)
helper_as gw-a collect "$id" 20 >"$D/srun.out" 2>&1
[ "$(cat "$D/own.out")" = "[/mine.xml]
--- exit=0" ] && [ "$(cat "$D/srun.out")" = "[]
--- exit=0" ] && pass topology_file_left_to_a_launch_that_names_one_and_kept_from_srun ||
	fail topology_file_left_to_a_launch_that_names_one_and_kept_from_srun "own: $(cat "$D/own.out"); srun: $(cat "$D/srun.out")"

# The launch's token admits the job's processes, as its account (nobody) but not as another uid.
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$HELPER_LOCAL" "$HELPER_SOCKET" job-L "$TOKEN" hello 2>&1)
[ "$out" = ok ] && pass token_from_launch_environment_admits_the_jobs_account ||
	fail token_from_launch_environment_admits_the_jobs_account "$out"
out=$(setpriv --reuid=12345 --regid=12345 --clear-groups "$HELPER_LOCAL" "$HELPER_SOCKET" job-L "$TOKEN" hello 2>&1)
case $out in *"caller uid 12345 is not the job's account"*) pass other_uid_with_right_token_refused ;;
*) fail other_uid_with_right_token_refused "$out" ;; esac
# A second launch of the job with a different token is refused.
launch job-L nobody -e QCG_JOB_TOKEN=another-token-0000000000 -- /bin/true >/dev/null
grep -q 'already has a different token' "$D/launch.err" && pass conflicting_job_token_refused ||
	fail conflicting_job_token_refused "$(cat "$D/launch.err")"

# --- signal reaches the process group (the shell and its child) ------------------------------
id=$(launch job-S nobody -e PATH=/usr/bin:/bin -- sh -c 'sleep 60 & sleep 60; echo not reached')
# Launch returns once sh runs; both sleeps must run too, or a signal to sh alone would pass.
two_sleeps() { [ "$(pgrep -c -u nobody -f '^sleep 60$')" -eq 2 ]; }
wait_until 300 two_sleeps || fail signal_setup "the two sleeps did not start: $(pgrep -a -u nobody sleep)"
start=$(date +%s%N)
out=$(helper_as gw-a signal "$id" 15 2>&1)
[ "$out" = ok ] || fail signal_accepted "$out"
helper_as gw-a collect "$id" 20 >"$D/c3.out" 2>&1
ms=$((($(date +%s%N) - start) / 1000000))
grep -q '^--- signal=15$' "$D/c3.out" && ! grep -q 'not reached' "$D/c3.out" &&
	pass signal_kills_a_sleeping_command || fail signal_kills_a_sleeping_command "$(cat "$D/c3.out")"
echo "signal to reported exit: ${ms} ms"
# The background sleep is no child the collect waited for: give its exit time (bounded).
wait_while 300 pgrep -u nobody -f '^sleep 60$' >/dev/null
pgrep -u nobody -f '^sleep 60$' >/dev/null && fail signal_reaches_the_whole_group "a sleep survived" ||
	pass signal_reaches_the_whole_group
out=$(helper_as gw-a signal "$id" 15 2>&1)
case $out in *"has exited already"*) pass signal_after_exit_refused ;; *) fail signal_after_exit_refused "$out" ;; esac

# --- a daemon that left the launch's process group is still the launch's --------------------
# What orted --daemonize does (plm_rsh_no_tree_spawn): fork, setsid, and the leader exits at
# once. Signal after the leader's exit must still reach the daemon, found by the launch's mark.
id=$(launch job-D nobody -e PATH=/usr/bin:/bin -- sh -c 'setsid sleep 120 </dev/null >/dev/null 2>&1 & echo $!')
helper_as gw-a collect "$id" 20 >"$D/c5.out" 2>&1
daemon=$(head -n 1 "$D/c5.out")
if [ -n "$daemon" ] && kill -0 "$daemon" 2>/dev/null &&
	[ "$(ps -o sid= -p "$daemon" | tr -d ' ')" = "$daemon" ]; then
	out=$(helper_as gw-a signal "$id" 9 2>&1)
	gone=no
	for _ in $(seq 1 50); do # bounded: 5 s for a SIGKILL to take effect
		kill -0 "$daemon" 2>/dev/null || { gone=yes; break; }
		sleep 0.1
	done
	[ "$out" = ok ] && [ $gone = yes ] &&
		pass signal_reaches_a_daemon_that_left_the_group_after_its_leader_exited ||
		fail signal_reaches_a_daemon_that_left_the_group_after_its_leader_exited \
			"signal said '$out', daemon $daemon gone: $gone"
	out=$(helper_as gw-a signal "$id" 9 2>&1)
	case $out in *"no process of it is left"*) pass signal_after_the_daemon_is_gone_refused ;;
	*) fail signal_after_the_daemon_is_gone_refused "$out" ;; esac
else
	fail signal_reaches_a_daemon_that_left_the_group_after_its_leader_exited \
		"no daemon in a session of its own: $(cat "$D/c5.out")"
fi
kill -9 "$daemon" 2>/dev/null

# --- a process that writes more than the buffer blocks, and nothing is lost ------------------
id=$(launch job-B nobody -e PATH=/usr/bin:/bin -- sh -c 'head -c 300000 /dev/zero | tr "\0" x; echo')
helper_as gw-a collect "$id" 30 >"$D/c4.out" 2>&1
[ "$(head -c 300000 "$D/c4.out" | tr -d x | wc -c)" -eq 0 ] && [ "$(wc -c <"$D/c4.out")" -eq 300012 ] &&
	pass output_larger_than_the_buffer_arrives_whole ||
	fail output_larger_than_the_buffer_arrives_whole "got $(wc -c <"$D/c4.out") bytes"
out=$(helper_as gw-a read "$id" 0 0 0 2>&1)
case $out in *"dropped already"*) pass reading_acknowledged_output_again_refused ;;
*) fail reading_acknowledged_output_again_refused "$out" ;; esac

# --- refusals -------------------------------------------------------------------------------
expect_refusal() { # NAME PATTERN LAUNCH-ARGS...
	local name=$1 pattern=$2; shift 2
	if launch "$@" >/dev/null; then
		fail "$name" "launched"
	else
		grep -q "$pattern" "$D/launch.err" && pass "$name" || fail "$name" "$(cat "$D/launch.err")"
	fi
}
expect_refusal launch_as_root_refused_by_default 'refusing to launch as root' job-R root -- /bin/true
expect_refusal launch_of_missing_program_says_why "cannot execute '/nonexistent/prog': No such file" \
	job-X nobody -- /nonexistent/prog
expect_refusal launch_as_unknown_account_refused "no local account 'no-such-user'" job-X no-such-user -- /bin/true
expect_refusal launch_with_relative_workdir_refused 'workingDirectory must be absolute' job-X nobody -w tmp -- /bin/true
expect_refusal launch_with_bad_environment_refused 'environment entry 0 is not NAME=value' job-X nobody -e NOEQUALS -- /bin/true
# Separated, the launcher itself refuses an account its grid-mapfile does not name.
[ -z "${HELPER_SERVICE_USER:-}" ] || expect_refusal launch_as_unmapped_account_refused_by_the_launcher \
	"uid $(id -u daemon) is not an account of the grid-mapfile" job-X daemon -- /bin/true
out=$(helper_as jane launch job-X nobody -- /bin/true 2>&1)
case $out in *"not a frontend in the helper's ACL"*) pass launch_from_a_user_certificate_refused ;;
*) fail launch_from_a_user_certificate_refused "$out" ;; esac
out=$(helper_as gw-a read no-such-launch 0 0 0 2>&1)
case $out in *"no launch 'no-such-launch'"*) pass read_of_unknown_launch_refused ;;
*) fail read_of_unknown_launch_refused "$out" ;; esac

# --- shutdown kills what still runs -----------------------------------------------------------
id=$(launch job-K nobody -e PATH=/usr/bin:/bin -- sleep 300)
# Launch answers after the exec (launch_exec's status pipe): the sleep runs already.
pid=$(pgrep -u nobody -f '^sleep 300$' | head -1)
kill "$HELPER_PID"
wait "$HELPER_PID"
HELPER_PIDS=""
# The helper signals its launches as it stops; the sleep, now init's, may still be exiting.
[ -n "$pid" ] && wait_gone 300 "$pid"
if [ -n "$pid" ] && ! pid_alive "$pid"; then
	pass helper_shutdown_kills_its_launches
else
	fail helper_shutdown_kills_its_launches "sleep pid '$pid' survived"
fi
[ -e "$HELPER_SOCKET" ] && fail helper_shutdown_removes_its_socket "still there" ||
	pass helper_shutdown_removes_its_socket
fixture_exit

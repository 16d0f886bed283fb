# own_session.sh: source it first thing (before lib.sh takes the testbed lock) from a test that
# starts processes which a batch system signals by number. The test then runs again as the
# leader of a session of its own, with no terminal and stdin from /dev/null, so that
#  - a signal sent to its process group or session (Slurm's proctrack/pgid signals a step's
#    processes with killpg, by group number) can reach neither make nor the other tests;
#  - no terminal hang-up (SIGHUP) and no terminal read from a background group (SIGTTIN, which
#    stops the process and, once its group is orphaned, makes the kernel send SIGHUP to the
#    whole group) can involve the harness.
# setsid --wait passes the test's exit status (77 for a skip) on to the harness.
if (($(ps -o sid= -p $$) != $$)); then
	exec setsid --wait "$0" "$@" </dev/null
fi

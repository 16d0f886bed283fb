# wait.sh: the bounded waits every test library shares (bash; sourced by
# tests/integration/grid_fixture.sh and tests/testbed/lib.sh).
#
#   wait_until TENTHS CMD [ARG...]   run CMD every tenth of a second until it succeeds; returns 1
#                                    when about TENTHS tenths of a second passed without success
#   wait_while TENTHS CMD [ARG...]   the same, until CMD fails
#   wait_gone TENTHS PID...          until none of the PIDs is a live process (a zombie, which
#                                    only waits to be reaped, counts as gone)
#
# A check must wait for the state it looks at (a process gone, a port listening, a line logged),
# never assume it after a fixed sleep. Give generous bounds (tens of seconds): they cost time only
# when a test fails, and a loaded machine (make -j2 check beside other work) must not fail a test.
# The bound counts iterations, so a slow CMD only lengthens it.

wait_until() {
	local tenths=$1 i
	shift
	for ((i = 0; i < tenths; i++)); do
		"$@" && return 0
		sleep 0.1
	done
	"$@"
}

wait_while() {
	local tenths=$1 i
	shift
	for ((i = 0; i < tenths; i++)); do
		"$@" || return 0
		sleep 0.1
	done
	! "$@"
}

# pid_alive PID: whether PID runs (exists in /proc and is not a zombie).
pid_alive() {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	stat=${stat##*) } # after the command name, which may hold spaces and parentheses
	[[ ${stat%% *} != Z ]]
}

# any_alive PID...: whether one of the PIDs runs.
any_alive() {
	local p
	for p in "$@"; do pid_alive "$p" && return 0; done
	return 1
}

wait_gone() {
	local tenths=$1
	shift
	wait_while "$tenths" any_alive "$@"
}

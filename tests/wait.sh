# wait.sh: the bounded waits every test library shares (bash; sourced by
# tests/integration/grid_fixture.sh and tests/testbed/lib.sh).
#
#   wait_until TENTHS CMD [ARG...]   run CMD every tenth of a second until it succeeds; returns 1
#                                    when about TENTHS tenths of a second passed without success
#   wait_while TENTHS CMD [ARG...]   the same, until CMD fails
#   wait_gone TENTHS PID...          until none of the PIDs is a live process (a zombie, which
#                                    only waits to be reaped, counts as gone)
#   proc_id PID                      PID@STARTTIME: names one process, not whichever later
#                                    process the kernel gives the same pid
#
# Every PID argument may be such a PID@STARTTIME. Use it for a pid read long before the check:
# pid_max is 32768 on many machines, and a suite that forks thousands of processes reuses pids
# within minutes, so a bare pid of a process that ended may name an unrelated live one.
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

# proc_stat PID: the fields of /proc/PID/stat after the command name (which may hold spaces and
# parentheses), so field N of proc(5) is word N - 2.
proc_stat() {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	printf '%s\n' "${stat##*) }"
}

proc_id() {
	local f
	read -ra f <<<"$(proc_stat "$1")" && ((${#f[@]} > 19)) || return 1
	printf '%s@%s\n' "$1" "${f[19]}" # field 22: start time
}

# pid_alive PID[@STARTTIME]: whether that process runs (exists in /proc, is not a zombie and,
# when a start time is given, started then).
pid_alive() {
	local f
	read -ra f <<<"$(proc_stat "${1%@*}")" && ((${#f[@]} > 19)) || return 1
	[[ ${f[0]} != Z ]] && [[ $1 != *@* || ${f[19]} == "${1#*@}" ]]
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

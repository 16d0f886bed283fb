# shellcheck shell=bash
# testbed-proc.sh: process supervision for qcg-testbed: start a detached process inside a host
# (tb_spawn), know whether it lives, wait for it to be ready, and kill everything of a testbed,
# bounded. Sourced by qcg-testbed.

## Processes ---------------------------------------------------------------------------------

# Start CMD as daemon $1 on host $2, detached, logging to DIR/log/$1.log (appended to when
# TB_SPAWN_APPEND=1: a restarted daemon's log goes on after its first life's); its pid goes to
# DIR/pids/$1.pid. The daemon inherits no descriptor but its standard ones: a long-lived
# daemon holding the caller's lock (our fd 9, a test's flock) would block every later user.
tb_spawn() {
	local name=$1 h=$2 log
	shift 2
	log=$DIR/log/$name.log
	[[ ${TB_SPAWN_APPEND:-0} == 1 ]] || : >"$log"
	(
		for fd in /proc/"$BASHPID"/fd/*; do
			fd=${fd##*/}
			if ((fd > 2)); then eval "exec $fd>&-" 2>/dev/null || true; fi
		done
		local TBFS_ENTER=()
		tbfs_enter_args "$h"
		exec nsenter "${TBFS_ENTER[@]}" --uts="$RUNDIR/uts/$h" ip netns exec "$(tb_ns "$h")" setsid "$@"
	) </dev/null >>"$log" 2>&1 &
	printf '%d\n' "$!" >"$DIR/pids/$name.pid"
	# Not a job of this shell: a failed `up` kills it, and bash need not report that.
	disown
}

# Whether pid $1 runs (a zombie does not).
tb_pid_alive() {
	local state
	[[ $1 =~ ^[0-9]+$ ]] && state=$(tb_pid_stat_field "$1" 3) && [[ $state != Z ]]
}

# Whether the daemon with pid file $1 runs in host $2's namespace; prints its pid.
tb_daemon_alive() {
	local pid
	pid=$(cat "$1" 2>/dev/null || true)
	tb_pid_alive "$pid" && [[ $(ip netns identify "$pid" 2>/dev/null) == "$(tb_ns "$2")" ]] &&
		printf '%s\n' "$pid"
}

# Wait (at most $4 tenths of a second) until CMD ($5...) succeeds while daemon $1 (pid file
# $2) lives; else show its log and die saying it did not $3.
tb_wait_until() {
	local name=$1 pidf=$2 what=$3 tenths=$4 pid i
	shift 4
	pid=$(cat "$pidf")
	for ((i = 0; i < tenths; i++)); do
		"$@" && return 0
		tb_pid_alive "$pid" || break
		sleep 0.1
	done
	"$@" && return 0
	sed 's/^/    /' "$DIR/log/$name.log" >&2 || true
	tb_pid_alive "$pid" && die "$name did not $what within $((tenths / 10)) s (log: $DIR/log/$name.log)"
	die "$name exited before it could $what (log: $DIR/log/$name.log)"
}

# Wait until file $1 exists while the daemon with pid file $2 lives; $3 names the daemon.
tb_wait_ready() { tb_wait_until "$3" "$2" start "$START_WAIT_TENTHS" test -s "$1"; }

tb_start_delayline() {
	local bin half rate=() site_ports=()
	bin=$(tb_find_bin qcg-delayline)
	[[ -n $bin ]] || die "qcg-delayline not found (build it, or set QCG_TESTBED_BIN to the build directory)"
	half=$(awk -v d="$WAN_DELAY" 'BEGIN { printf "%dus", d * 1000 / 2 }')
	[[ $WAN_RATE == 0 ]] || rate=(--rate "${WAN_RATE}mbit")
	mapfile -t site_ports < <(tb_site_delayline_args)
	# Real-time priority: on a busy machine the wire must not wait for a CPU (see the program).
	# The statistics interval is the environment's only so a test can see a tick in seconds.
	tb_spawn delayline wan "$bin" --pid-file "$DIR/run/delayline.ready" \
		--stats-interval "${QCG_TESTBED_DELAYLINE_STATS_S:-60}" \
		--rt-priority "$DELAYLINE_RT_PRIORITY" --delay "$half" "${rate[@]}" "${DL_PORTS[@]}" \
		"${site_ports[@]}"
	tb_wait_ready "$DIR/run/delayline.ready" "$DIR/pids/delayline.pid" delayline
}

# The pids of every process in the testbed's namespaces. Only these are ever signalled: a pid
# file of a crashed testbed may name an unrelated process by now.
tb_ns_pids() {
	local ns
	for ns in $(tb_existing_ns); do ip netns pids "$ns" 2>/dev/null || true; done
}

# Field $2 (as numbered in proc(5), 3 = state) of /proc/$1/stat, read after the command name,
# which may hold spaces and parentheses.
tb_pid_stat_field() {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	stat=${stat##*) }
	read -ra stat <<<"$stat"
	printf '%s\n' "${stat[$2 - 3]}"
}

# Stop every process of the testbed: SIGTERM so daemons can flush, SIGKILL what is left after a
# second, and wait, bounded, until every process ever seen is gone from /proc. Leaving its
# namespace is not enough: an exiting process drops out of `ip netns pids` while it still runs
# its exit (in state D on a busy machine), and a caller that checks right after would see it.
# A pid counts as the same process only while its start time is the one first seen. Returns 1,
# naming the survivors, when the bound passes.
tb_kill_all() {
	local -A start=() # pid -> start time (proc(5) field 22) when first seen
	local p i left=()
	for ((i = 0; i < KILL_WAIT_TENTHS; i++)); do
		for p in $(tb_ns_pids); do
			[[ -n ${start[$p]:-} ]] || start[$p]=$(tb_pid_stat_field "$p" 22) || unset 'start[$p]'
		done
		left=()
		for p in "${!start[@]}"; do
			if tb_pid_alive "$p" && [[ $(tb_pid_stat_field "$p" 22) == "${start[$p]}" ]]; then
				left+=("$p")
			fi
		done
		((${#left[@]})) || return 0
		if ((i == 0)); then kill -TERM "${left[@]}" 2>/dev/null || true; fi
		if ((i == 10)); then kill -KILL "${left[@]}" 2>/dev/null || true; fi
		sleep 0.1
	done
	note "processes still alive $((KILL_WAIT_TENTHS / 10)) s after SIGTERM: ${left[*]}"
	return 1
}

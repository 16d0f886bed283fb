# tb_faults.sh: what the fault tests (faults_setup.test, faults_running.test) share. Source it
# after tests/launcher/tb_submit.sh. A fault test kills a service of the testbed at a chosen
# moment of a job and checks that
#  - qcg-submit ends within a bound (FAULT_BOUND seconds: no hang), with a clear error on its
#    stderr when the job could not go on;
#  - the service, restarted as `qcg-testbed up` started it (`qcg-testbed restart`), serves a
#    next job that succeeds;
#  - nothing of the job is left: no orted or rank on any node, no mpirun on host user.
# Each case prints the time from the fault to qcg-submit's end ("fault -> end: N ms"); those
# are the figures the note quotes.
#
#   fault_job NAME SECONDS [SITE:NODES:PER...]   a QCG-Simple job of fault_rank (sleeping
#                                    SECONDS between its set-up and its all-to-all) on a, b and
#                                    c (2 nodes x 1 each) unless sites are given; prints its path
#   start_job FILE [ARG...]          qcg-submit [ARG...] FILE in the background: BG its pid,
#                                    OUT/ERR its stdout/stderr files, T_START (ms)
#   wait_set_up                      until the job's rank 0 printed its set-up line (bounded)
#   mark_fault                       T_FAULT = now (ms), just after the fault was made
#   wait_job                         until qcg-submit ended (bounded by FAULT_BOUND); RC its exit
#                                    code, HUNG 1 when the bound stopped it, ELAPSED_MS since the
#                                    fault
#   restart SERVICE                  qcg-testbed restart SERVICE, failing the test if it cannot
#   next_job_ok LABEL                hello on a, b and c succeeds (after the service is back)
#   nothing_left LABEL               no orted, rank or mpirun left anywhere (bounded wait)
need_user_helper
command -v mpicc >/dev/null || skip "mpicc is not installed (apt-get install libopenmpi-dev)"
FAULT_RANK=$JOBS_DIR/fault_rank
mpicc -o "$FAULT_RANK" "$top_srcdir/tests/launcher/fault_rank.c" || fail "mpicc fault_rank.c failed"
readonly FAULT_BOUND=150 # seconds from the fault to qcg-submit's end: past this it hung
readonly FAULT_LOG=$JOBS_DIR/fault-times

now_ms() { echo $(($(date +%s%N) / 1000000)); }

fault_job() {
	local name=$1 seconds=$2 spec site nodes per
	shift 2
	(($#)) || set -- a:2:1 b:2:1 c:2:1
	{
		printf '#QCG name=%s\n#QCG executable=%s\n#QCG argument=%s\n#QCG walltime=PT4M\n' \
			"$name" "$FAULT_RANK" "$seconds"
		for spec in "$@"; do
			IFS=: read -r site nodes per <<<"$spec"
			printf '#QCG host=%s\n#QCG nodes=%s:%s\n' "$site" "$nodes" "$per"
		done
	} >"$JOBS_DIR/$name.qcg"
	echo "$JOBS_DIR/$name.qcg"
}

start_job() {
	local file=$1 base=${1%.qcg}
	shift
	OUT=$base.out ERR=$base.err
	T_START=$(now_ms)
	SUBMIT_TIMEOUT=$((FAULT_BOUND + 60)) submit_cmd "$SUBMIT" "$@" "$file" >"$OUT" 2>"$ERR" &
	BG=$!
}

job_set_up() { grep -q '^fault_rank: set up' "$OUT"; }
set_up_or_ended() { job_set_up || ! pid_alive "$BG"; }
wait_set_up() {
	wait_until 900 set_up_or_ended
	job_set_up || { tail -n 20 "$OUT" "$ERR"; fail "the job was not set up (within 90 s)"; }
}

mark_fault() { T_FAULT=$(now_ms); }

wait_job() {
	local tenths=$((FAULT_BOUND * 10))
	HUNG=0
	wait_gone "$tenths" "$BG"
	if pid_alive "$BG"; then
		echo "  qcg-submit still runs ${FAULT_BOUND} s after the fault: it hangs; stopping it"
		HUNG=1
		kill "$BG" 2>/dev/null
	fi
	wait "$BG"
	RC=$?
	ELAPSED_MS=$(($(now_ms) - ${T_FAULT:-$T_START}))
	unset T_FAULT # the next job's time counts from its own fault, or its start
}

# One line of the log per case: what was done, the exit code, the time, qcg-submit's error.
report() {
	local err
	err=$(grep -v '^\s*$' "$ERR" | tail -n 3 | tr '\n' '|')
	printf '  %s: exit %s, fault -> end: %s ms; stderr: %s\n' "$1" "$RC" "$ELAPSED_MS" "$err" |
		tee -a "$FAULT_LOG"
}

restart() {
	tb restart "$1" >/dev/null 2>"$JOBS_DIR/restart.err" ||
		{ cat "$JOBS_DIR/restart.err"; fail "qcg-testbed restart $1 failed"; }
}

next_job_ok() {
	local hello t0
	hello=$(job_with hello qcg)
	t0=$(now_ms)
	submit "$hello"
	check "$1: the next job succeeds ($(($(now_ms) - t0)) ms)" \
		'[[ $SUBMIT_RC == 0 && $SUBMIT_OUT == *"hello: all 6 ranks answered"* ]]'
	[[ $SUBMIT_RC == 0 ]] || tail -n 15 <<<"$SUBMIT_OUT"
}

job_processes_gone() { [[ -z $(left_on_nodes 'orted|fault_rank|hello') && -z $(pid_on mpirun user) ]]; }

nothing_left() {
	local left
	wait_until 300 job_processes_gone
	left=$(left_on_nodes 'orted|fault_rank|hello')
	[[ -z $(pid_on mpirun user) ]] || left+="user: mpirun"
	check "$1: no orted, rank or mpirun left on any node" '[[ -z $left ]]'
	[[ -z $left ]] || echo "  left: $left"
}

# resume_tb.sh: what the testbed relay failover tests (resume_gateway.test, resume_wan.test;
# issue 14) share. Source it after tests/launcher/tb_submit.sh and tests/launcher/tb_faults.sh.
#
#   loop_job NAME SITE SITE       a QCG-Simple job of resume_loop (every pair exchanges checked
#                                 messages for LOOP_SECONDS), 2 nodes x 1 rank on each site;
#                                 prints its path
#   wait_connected                until rank 0 said every connection is up (bounded); JOB its id
#   mid_run                       let the run go on 2-9 s (where the fault falls: not a wait for
#                                 an effect)
#   kill_carrier                  of the two proxies RP_NAME[0..1] (relay port RP_PORT[i] on
#                                 host RP_HOST[i]), kill -9 the one holding the more relay legs;
#                                 sets K (its index), KILLED, OTHER (names), KILLED_PID
#   check_resumes LABEL           qcg-query connections JOB lists resumes, every one from the
#                                 killed proxy's endpoint to the other's; sets RESUMES
#   endpoint I                    proxy I's endpoint as the broker knows it (WAN address:port)
readonly RESUME_LOOP=$JOBS_DIR/resume_loop LOOP_SECONDS=40 LOOP_BYTES=262144
mpicc -O2 -o "$RESUME_LOOP" "$top_srcdir/tests/net/resume_loop.c" || fail "mpicc resume_loop.c failed"

loop_job() {
	printf '#QCG name=%s\n#QCG executable=%s\n#QCG argument=%s\n#QCG argument=%s\n' \
		"$1" "$RESUME_LOOP" "$LOOP_SECONDS" "$LOOP_BYTES" >"$JOBS_DIR/$1.qcg"
	printf '#QCG walltime=PT5M\n#QCG host=%s\n#QCG nodes=2:1\n#QCG host=%s\n#QCG nodes=2:1\n' \
		"$2" "$3" >>"$JOBS_DIR/$1.qcg"
	echo "$JOBS_DIR/$1.qcg"
}

connected() { grep -qs '^resume_loop: connected' "$OUT"; }
connected_or_ended() { connected || ! pid_alive "$BG"; }
wait_connected() {
	wait_until 1200 connected_or_ended
	connected || { tail -n 20 "$OUT" "$ERR"; fail "the job did not connect (within 120 s)"; }
	JOB=$(sed -n 's/^resume_loop: connected, [0-9]* ranks, job //p' "$OUT")
}

mid_run() { sleep $((2 + RANDOM % 8)); }

# Relay legs (established TCP connections) proxy $1 holds now.
legs_on() { tbx "${RP_HOST[$1]}" ss -Htn state established "( sport = :${RP_PORT[$1]} )" | wc -l; }

endpoint() { echo "$(tb_field "${RP_HOST[$1]}" wan_addr):${RP_PORT[$1]}"; }

kill_carrier() {
	local legs=("$(legs_on 0)" "$(legs_on 1)")
	K=0
	((legs[1] > legs[0])) && K=1
	KILLED=${RP_NAME[K]} OTHER=${RP_NAME[1 - K]}
	KILLED_PID=$(cat "$TB_DIR/pids/$KILLED.pid")
	echo "  relay legs on ${RP_NAME[0]} and ${RP_NAME[1]}: ${legs[*]}; killing $KILLED (pid $KILLED_PID)"
	check "the job's relays go through ${RP_NAME[0]} and ${RP_NAME[1]} (${legs[*]} legs)" \
		"((${legs[K]} > 0))"
	kill -9 "$KILLED_PID"
	mark_fault
}

check_resumes() {
	local from to moved
	from=$(endpoint "$K") to=$(endpoint $((1 - K)))
	RESUMES=$(grid_query connections "$JOB" 2>&1 | grep '^resume ')
	sed 's/^/  /' <<<"$RESUMES"
	moved=$(grep -F "via $from -> " <<<"$RESUMES" | grep -cE " via $to, [0-9]+ bytes replayed$")
	check "$1: qcg-query connections $JOB shows the resumes, each from $KILLED ($from) to $OTHER ($to)" \
		'[[ -n $RESUMES && $moved -ge 1 && $moved == $(grep -c . <<<"$RESUMES") ]]'
	echo "  bytes replayed over all resumes: $(sed -n 's/.*, \([0-9]*\) bytes replayed$/\1/p' \
		<<<"$RESUMES" | awk '{ s += $1 } END { print s + 0 }')"
}

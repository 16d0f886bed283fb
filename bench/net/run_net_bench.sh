#!/bin/bash
# run_net_bench.sh: libqcgnet's connection methods on the network-namespace testbed (issue 5),
# against direct, in one run per part. Root only, run from the build directory; not part of
# make check (a few minutes per part).
#
#   bench/net/run_net_bench.sh [-r ROUNDS] [-o OUTDIR] [methods] [trunk] [startup]
#   (no part named: all three; ROUNDS default 3)
#   environment: NET_DEBUG=1 (QCG_NET_DEBUG=1 in every process: libqcgnet says what it does),
#   KEEP_LOGS=1 (keep the daemons' logs), LAT_ITERS, BIG_BYTES, BIG_ITERS, TRUNK_MBIT,
#   TRUNK_SECONDS (see the defaults below)
#
# methods  one testbed, 7 sites of one node, 5 ms one-way WAN delay: a open, b open,
#          c port-range, d nat, e nat, f closed, g closed (f and g with a gateway proxy), so the
#          broker's best method is: a1->b1 direct, a1->c1 port-range, a1->d1 reversal,
#          d1->e1 traversal, a1->f1 relay (f's gateway proxy), f1->g1 relay chain (f's then
#          g's gateway proxy); plus a1->b1 without libqcgnet ("plain"). Each is a 2-rank job
#          (net_bench pingpong, rank 0 on the initiator); the methods alternate, ROUNDS times.
#          The method used is read back from the broker (qcg-query connections JOB), never
#          assumed: a row whose connection is not the wanted method is marked so.
# trunk    for k = 1, 2, 4: a testbed with sites a open, d nat, e nat (traversal not allowed at
#          e, so d<->e can only be relayed) and k WAN proxies, each capped at TRUNK_MBIT by a tbf
#          on its uplink; 4 rank pairs d->e stream at once (net_bench trunk). Aggregate and per
#          proxy bytes (qcg-query proxies) are recorded.
# startup  one all-open testbed, 4 sites x 2 nodes; a 16-rank job (net_bench startup) through
#          launcher/qcg-rsh as plm_rsh_agent with libqcgnet, alternating with plain mpirun and
#          the testbed's rsh agent, ROUNDS times each.
#
# Every part brings up its own testbed(s) in a fresh directory, holds the testbed lock while
# it does, and always takes it down. Writes OUTDIR/{methods,trunk,startup}.txt (raw rows, with
# the load average of each run), OUTDIR/summary.txt (medians and ratios), OUTDIR/net_bench.log
# (everything) and, when gnuplot is installed, OUTDIR/net_bench.png.
set -euo pipefail
top_builddir=${top_builddir:-$(pwd)}
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
rounds=3 outdir=$(pwd)/net-bench-out
while getopts r:o: opt; do
	case $opt in
	r) rounds=$OPTARG ;;
	o) outdir=$OPTARG ;;
	*) echo "usage: $0 [-r ROUNDS] [-o OUTDIR] [methods] [trunk] [startup]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
parts=("$@")
((${#parts[@]})) || parts=(methods trunk startup)
[[ $rounds =~ ^[1-9][0-9]?$ ]] || { echo "$0: -r '$rounds': expected 1 to 99" >&2; exit 2; }
for p in "${parts[@]}"; do
	[[ $p == methods || $p == trunk || $p == startup ]] ||
		{ echo "$0: unknown part '$p' (methods, trunk, startup)" >&2; exit 2; }
done

readonly DELAY_MS=5 MPI_TIMEOUT=180 LOCK=/run/qcg-testbed-tests.lock LOCK_WAIT=900
readonly LAT_ITERS=${LAT_ITERS:-100} BIG_BYTES=${BIG_BYTES:-8388608} BIG_ITERS=${BIG_ITERS:-6}
readonly TRUNK_MBIT=${TRUNK_MBIT:-25} TRUNK_SECONDS=${TRUNK_SECONDS:-8} TRUNK_MSG=1048576
readonly TOKEN=5b0e1c7d9a3f2e4861c0b7a9d8f6e5a4
[[ $EUID == 0 ]] || { echo "$0: needs root (network namespaces)" >&2; exit 1; }
QTB=$top_srcdir/deploy/qcg-testbed
BENCH=$top_builddir/bench/net/net_bench
LIB=$top_builddir/mpi-glue/net/.libs/libqcgnet.so
RSH=$top_builddir/launcher/qcg-rsh
for f in "$BENCH" "$LIB" "$RSH" "$QTB" "$top_builddir/deploy/qcg-delayline" \
    "$top_builddir/launcher/qcg-query" "$top_builddir/tests/integration/broker_call" \
    "$top_builddir/tests/integration/frontend_call"; do
	[[ -e $f ]] || { echo "$0: $f is missing (run make in $top_builddir)" >&2; exit 1; }
done
command -v mpirun >/dev/null || { echo "$0: mpirun is not installed" >&2; exit 1; }
mkdir -p "$outdir"
LOG=$outdir/net_bench.log
export QCG_TESTBED_BIN=$top_builddir
say() { echo "$*" | tee -a "$LOG"; }
load() { cut -d' ' -f1 /proc/loadavg; }

# --- the testbed and its clients (the lock is fd 8, never passed to what we start) ---------
TB_DIR=
tb() { "$QTB" --dir "$TB_DIR" "$@" 8>&-; }
tbx() { local h=$1; shift; tb exec "$h" -- "$@"; }
tb_field() {
	awk -F'\t' -v h="$1" -v f="$2" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i == "# name" ? "name" : $i] = i; next }
		$1 == h { print $col[f] }' "$TB_DIR/hosts"
}
tb_down() {
	[[ -n $TB_DIR ]] || return 0
	tb down >/dev/null 2>&1 || true
	rm -rf "$TB_DIR"
	TB_DIR=
}
trap 'ss_stop >/dev/null 2>&1; tb_down' EXIT
SS_NODES=()

# Bring up a testbed with services (options "$@") in a fresh directory, holding the lock.
tb_start() {
	exec 8>"$LOCK"
	local t0=$SECONDS
	flock -w "$LOCK_WAIT" 8 || { echo "$0: $LOCK held for ${LOCK_WAIT}s" >&2; exit 1; }
	say "# testbed lock taken after $((SECONDS - t0)) s; up $*"
	TB_DIR=$(mktemp -d /var/tmp/qcg-tb-netbench.XXXXXX)
	tb up --wan-delay "$DELAY_MS" "$@" >>"$LOG" 2>&1 || { tail -20 "$LOG"; exit 1; }
	QTB=$QTB TB_DIR=$TB_DIR source "$top_srcdir/tests/testbed/grid.sh"
	grid_env
}
# KEEP_LOGS=1 keeps each testbed's daemon logs in OUTDIR/logs-N (profiling).
tb_stop() {
	if [[ -n ${KEEP_LOGS:-} ]]; then
		local n=1
		while [[ -e $outdir/logs-$n ]]; do n=$((n + 1)); done
		cp -r "$TB_DIR/log" "$outdir/logs-$n" || true
	fi
	tb_down
	exec 8>&-
}

# The shim's environment for node $1 (index $2 in the job: its port window, unique in the job
# and inside c's open range); "mpirun" as $3 leaves out Open MPI's port parameters, which
# mpirun would forward to every rank (mpi-glue/net/README.md).
net_env() {
	local w=$((20000 + 16 * $2))
	echo "LD_PRELOAD=$LIB QCG_NET=1 QCG_HELPER_SOCKET=$TB_DIR/run/helper-$1.sock" \
	    "QCG_JOB_ID=$JOB QCG_JOB_TOKEN=$TOKEN QCG_NET_PORTS=$w-$((w + 15))" \
	    "${NET_DEBUG:+QCG_NET_DEBUG=1}"
	[[ ${3:-} == mpirun ]] || echo "OMPI_MCA_btl_tcp_port_min_v4=$w" \
	    "OMPI_MCA_btl_tcp_port_range_v4=16 OMPI_MCA_oob_tcp_dynamic_ipv4_ports=$w-$((w + 15))"
}

# Write the rsh agents for job $JOB over nodes "$@" (mpirun's node first): DIR/agent-net-JOB
# (the testbed's rsh with the shim's environment put before the command) and DIR/env-JOB.
write_agents() {
	local i=0 n
	{
		echo '#!/bin/bash'
		echo 'case $1 in'
		for n in "$@"; do echo "$n) echo $(net_env "$n" $i) ;;"; i=$((i + 1)); done
		echo "*) echo \"no window for \$1\" >&2; exit 1 ;;"
		echo 'esac'
	} >"$TB_DIR/env-$JOB"
	cat >"$TB_DIR/agent-net-$JOB" <<-EOF
		#!/bin/bash
		node=\$1; shift
		exec "$QTB" --dir "$TB_DIR" rsh "\$node" env \$("$TB_DIR/env-$JOB" "\$node") "\$@"
	EOF
	chmod +x "$TB_DIR/env-$JOB" "$TB_DIR/agent-net-$JOB"
}

# Start job $JOB: record it at the broker, give its token to the helpers of nodes "$@".
job_begin() {
	grid_broker_call record-job "$JOB" >/dev/null || { echo "$0: record-job $JOB failed" >&2; exit 1; }
	grid_job_token "$JOB" "$TOKEN" "$@"
}

MCA_COMMON=(--oversubscribe --bind-to none --mca routed direct --mca plm_rsh_no_tree_spawn 1
	--mca pml ob1 --mca btl self,vader,tcp --mca btl_tcp_disable_family 6
	--mca oob_tcp_disable_ipv6_family 1 --mca mpi_yield_when_idle 1)

# mpirun on node $1 with agent $2 ("plain": the testbed's rsh, no shim), the rest its
# arguments; output in $OUT. Sets RC and MS (wall time of mpirun).
run_mpi() {
	local node=$1 agent=$2 pre=() t0
	shift 2
	if [[ $agent == plain ]]; then
		agent="$QTB rsh --dir $TB_DIR"
	else
		read -ra pre <<<"$(net_env "$node" 0 mpirun)"
	fi
	ss_start "${SS_NODES[@]}"
	t0=$(date +%s%N)
	set +e
	tbx "$node" env "${pre[@]}" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
	    timeout "$MPI_TIMEOUT" mpirun "${MCA_COMMON[@]}" --mca plm_rsh_agent "$agent" "$@" \
	    >"$OUT" 2>&1
	RC=$?
	set -e
	MS=$((($(date +%s%N) - t0) / 1000000))
	ss_stop
	cat "$OUT" >>"$LOG"
}

# Sample the TCP state (ss -ti) of nodes "$@" every half second while a job runs, so that a
# slow method can be told apart: window scaling, receive space, congestion window,
# retransmissions. ss_stop keeps, per node, the busiest socket's line in OUTDIR/profile.txt.
SS_PIDS=()
ss_start() {
	local n
	for n in "$@"; do
		while :; do tbx "$n" ss -tinH state established 2>/dev/null; sleep 0.5; done \
		    >"$TB_DIR/ss-$JOB-$n" &
		SS_PIDS+=("$!:$n")
	done
}
ss_stop() {
	local e n
	for e in "${SS_PIDS[@]}"; do
		kill "${e%%:*}" 2>/dev/null || true
		wait "${e%%:*}" 2>/dev/null || true
		n=${e#*:}
		awk -v job="$JOB" -v n="$n" '
			/^[ \t]/ { line = prev " " $0; if (match($0, /bytes_acked:[0-9]+/)) {
				b = substr($0, RSTART + 12, RLENGTH - 12) + 0
				if (b > best) { best = b; keep = line } } next }
			{ prev = $0 }
			END { gsub(/[ \t]+/, " ", keep); print job, n, keep }' "$TB_DIR/ss-$JOB-$n" \
		    >>"$outdir/profile.txt"
	done
	SS_PIDS=()
}

# The broker's record of job $JOB's connection from node $1 to node $2: "METHOD OUTCOME SETUP_US"
# of the last one listed (a fall-through lists the failed attempts first).
broker_conn() {
	grid_query connections "$JOB" 2>/dev/null | awk -v f="$1" -v t="$2" '
		NR > 1 { split($1, a, "/"); split($2, b, "[/:]")
			if (a[2] == f && b[2] == t) r = $3 " " $4 " " $5 }
		END { print (r == "" ? "none - -" : r) }'
}

source "$top_srcdir/bench/net/net_parts.sh"
source "$top_srcdir/bench/net/net_report.sh"
: >"$LOG"
: >"$outdir/profile.txt"
say "# net_bench $(date -u +%FT%TZ), rounds $rounds, parts ${parts[*]}, $(nproc) cores"
for p in "${parts[@]}"; do "part_$p"; done
summarize | tee "$outdir/summary.txt"
plot

# net_parts.sh: the three parts of run_net_bench.sh (sourced by it; uses its helpers: tb_start,
# tb_stop, tbx, job_begin, write_agents, run_mpi, broker_conn, say, load). Each part appends
# raw rows, one per run, to OUTDIR/<part>.txt; net_report.sh turns them into the summary.

# name initiator target: sites chosen so that the broker's best method is the name.
readonly METHOD_PAIRS=("plain a1 b1" "direct a1 b1" "port-range a1 c1" "reversal a1 d1"
	"traversal d1 e1" "relay a1 f1" "relay-chain f1 g1")

# Field NAME=value of the pingpong line in $OUT ("-" when absent).
pp_field() {
	sed -n "s/^pingpong .*$1=\([-0-9.]*\).*/\1/p" "$OUT" | head -n 1 | grep . || echo -
}

part_methods() {
	local raw=$outdir/methods.txt r m ini tgt used out setup
	tb_start --sites 7 --nodes 1 --proxies 1 --frontend-proxy \
	    --policies open,open,port-range:20000-20999,nat,nat,closed,closed
	echo "# round method from to used outcome broker_setup_us setup_us rtt_us lat_us" \
	    "bw_mbit mpirun_ms load rc" >"$raw"
	for ((r = 1; r <= rounds; r++)); do
		for m in "${METHOD_PAIRS[@]}"; do
			read -r m ini tgt <<<"$m"
			JOB=nb-$m-$r OUT=$TB_DIR/out-$JOB SS_NODES=("$ini" "$tgt")
			if [[ $m == plain ]]; then
				run_mpi a1 plain --host "$ini:1,$tgt:1" -np 2 "$BENCH" pingpong \
				    "$LAT_ITERS" "$BIG_BYTES" "$BIG_ITERS"
				used="direct(no-shim) ok -"
			else
				job_begin a1 b1 c1 d1 e1 f1 g1
				write_agents a1 b1 c1 d1 e1 f1 g1
				run_mpi a1 "$TB_DIR/agent-net-$JOB" --host "$ini:1,$tgt:1" -np 2 "$BENCH" \
				    pingpong "$LAT_ITERS" "$BIG_BYTES" "$BIG_ITERS"
				used=$(broker_conn "$ini" "$tgt")
			fi
			SS_NODES=()
			setup=$(pp_field setup_us)
			out="$r $m $ini $tgt $used $setup $(pp_field rtt_us) $(pp_field lat_us)"
			out+=" $(pp_field bw_mbit) $MS $(load) $RC"
			echo "$out" >>"$raw"
			say "methods: $out"
		done
	done
	tb_stop
}

# Restart site $1's front-end with traversal_allowed = no: it registers its cluster again, so
# the broker no longer offers traversal towards that site.
frontend_no_traversal() {
	local name=frontend-$1 conf=$TB_DIR/etc/frontend-$1.conf n i
	sed -i '/^traversal_allowed/d' "$conf"
	echo "traversal_allowed = no" >>"$conf"
	n=$(grep -c 'registered with' "$TB_DIR/log/$name.log" || true)
	kill "$(cat "$TB_DIR/pids/$name.pid")"
	for ((i = 0; i < 50; i++)); do kill -0 "$(cat "$TB_DIR/pids/$name.pid")" 2>/dev/null || break; sleep 0.1; done
	tbx "gw-$1" setsid "$top_builddir/services/frontend/qcg-frontend" --config "$conf" \
	    </dev/null >>"$TB_DIR/log/$name.log" 2>&1 &
	for ((i = 0; i < 300; i++)); do
		(($(grep -c 'registered with' "$TB_DIR/log/$name.log" || true) > n)) && break
		sleep 0.1
	done
	grid_query clusters | awk -v s="$1" '$1 == s && $6 == "no" { ok = 1 } END { exit !ok }' ||
	    { echo "$0: site $1 still allows traversal at the broker" >&2; exit 1; }
}

part_trunk() {
	local raw=$outdir/trunk.txt k p sum pairs relays bytes
	echo "# k cap_mbit_per_proxy pairs aggregate_mbit per_pair_mbit relayed_conns" \
	    "relays_handed:bytes_per_proxy load rc" >"$raw"
	for k in 1 2 4; do
		tb_start --sites 3 --nodes 2 --proxies "$k" --policies open,nat,nat
		frontend_no_traversal c
		for ((p = 1; p <= k; p++)); do
			tbx "proxy$p" tc qdisc replace dev qtb-up root tbf rate "${TRUNK_MBIT}mbit" \
			    burst 64kb latency 100ms
		done
		JOB=nb-trunk-$k OUT=$TB_DIR/out-$JOB
		job_begin a1 a2 b1 b2 c1 c2
		write_agents a1 a2 b1 b2 c1 c2
		# Barrier by recursive doubling: with pairs (i, i+4) its only cross-site partners are
		# the pairs themselves, so no other connection is relayed.
		run_mpi a1 "$TB_DIR/agent-net-$JOB" --host b1:2,b2:2,c1:2,c2:2 -np 8 \
		    --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_barrier_algorithm 3 \
		    "$BENCH" trunk "$TRUNK_SECONDS" "$TRUNK_MSG"
		pairs=$(sed -n 's/^trunk pair=[0-9]* .*mbit=\([0-9.]*\)$/\1/p' "$OUT" | sort -n | paste -sd, -)
		sum=$(sed -n 's/^trunk .*mbit=\([0-9.]*\)$/\1/p' "$OUT" | awk '{ s += $1 } END { printf "%.1f", s }')
		{ grid_query connections "$JOB"; grid_query proxies; } >>"$LOG" 2>&1 || true
		relays=$(grid_query connections "$JOB" 2>/dev/null |
		    awk '$1 ~ /^b\// && $2 ~ /^c\// && $3 == "relay" && $4 == "ok"' | wc -l)
		bytes=$(grid_query proxies 2>/dev/null | awk 'NR > 1 { print $4 ":" $NF }' | paste -sd, -)
		echo "$k $TRUNK_MBIT 4 $sum ${pairs:--} $relays ${bytes:--} $(load) $RC" >>"$raw"
		say "trunk: $(tail -n 1 "$raw")"
		tb_stop
	done
}

# Reserve and commit every node of job $JOB at its site, two slots each; write the hosts map
# qcg-rsh reads and its agent (the shim's environment put before the command, as for the
# testbed's rsh; qcg-rsh itself runs without the preload, which only the nodes need).
qcg_agent() {
	local s out res url map=$TB_DIR/map-$JOB
	: >"$map"
	RESERVATIONS=()
	for s in a b c d; do
		out=$(grid_fe "$s" reserve "$JOB" 4 600 2 "${s}1" "${s}2") ||
		    { echo "$0: reserve at $s: $out" >&2; exit 1; }
		res=$(sed -n 's/^reservation=//p' <<<"$out")
		grid_fe "$s" commit "$res" >/dev/null || { echo "$0: commit at $s failed" >&2; exit 1; }
		RESERVATIONS+=("$s:$res")
		url=QCG_FRONTEND_URL_$s
		printf '%s %s %s\n%s %s %s\n' "${s}1" "${!url}" "$res" "${s}2" "${!url}" "$res" >>"$map"
	done
	cat >"$TB_DIR/agent-qcg-$JOB" <<-EOF
		#!/bin/bash
		node=\$1; shift
		exec env -u LD_PRELOAD -u QCG_NET QCG_RSH_MAP="$map" QCG_RSH_WORKDIR=/tmp "$RSH" \
		    "\$node" env \$("$TB_DIR/env-$JOB" "\$node") "\$@"
	EOF
	chmod +x "$TB_DIR/agent-qcg-$JOB"
}

# Give the slots of the job's reservations back (the next round reserves the same nodes).
qcg_release() {
	local e
	for e in "${RESERVATIONS[@]}"; do grid_fe "${e%%:*}" release "${e#*:}" >/dev/null || true; done
	RESERVATIONS=()
}

# What the broker recorded for job $JOB: connections, their median and summed set-up (ms).
conn_stats() {
	[[ $JOB != *plain* ]] || { echo "- - -"; return; }
	grid_query connections "$JOB" 2>/dev/null | tee -a "$LOG" |
	    awk 'NR > 1 && $5 ~ /^[0-9]+$/ { print $5 / 1000 }' |
	    sort -g | awk '{ v[NR] = $1; s += $1 } END { if (!NR) print "0 - -"
		else printf "%d %.1f %.0f\n", NR, v[int((NR + 1) / 2)], s }'
}

# One remote `true` on d2 from a1 through agent "$2..." (kind $1): the launch path alone.
rsh_once() {
	local kind=$1 t0
	shift
	t0=$(date +%s%N)
	tbx a1 env -u LD_PRELOAD "$@" d2 true >>"$LOG" 2>&1 || true
	echo "$r rsh-$kind $((($(date +%s%N) - t0) / 1000000)) $(load) 0" >>"$outdir/startup.txt"
}

# Start-up kinds: plain (testbed rsh, no shim), shim (testbed rsh with libqcgnet, as
# qcgnet_4sites.test runs), qcg (qcg-rsh through the front-ends and helpers, with libqcgnet):
# shim - plain is what the shim adds, qcg - shim what qcg-rsh adds.
# BROKER_WORKERS=N: restart the broker with N SOAP workers (default 16), to test whether the
# front-ends' kept-alive pools and long polls starve it (profiling, not the default run).
broker_workers() {
	local conf=$TB_DIR/etc/broker.conf pidf=$TB_DIR/pids/broker.pid i
	[[ -n ${BROKER_WORKERS:-} ]] || return 0
	sed -i "/^\[broker\]/a workers = $BROKER_WORKERS" "$conf"
	kill "$(cat "$pidf")"
	for ((i = 0; i < 50; i++)); do kill -0 "$(cat "$pidf")" 2>/dev/null || break; sleep 0.1; done
	tbx broker setsid "$top_builddir/services/broker/qcg-broker" --config "$conf" \
	    </dev/null >>"$TB_DIR/log/broker.log" 2>&1 &
	for ((i = 0; i < 100; i++)); do
		grep -q "with $BROKER_WORKERS workers" "$TB_DIR/log/broker.log" && break
		sleep 0.1
	done
	sleep 6 # the front-ends' long polls and pools reconnect
	say "# broker restarted with $BROKER_WORKERS workers"
}

part_startup() {
	local raw=$outdir/startup.txt r kind nodes=(a1 a2 b1 b2 c1 c2 d1 d2)
	local hosts=a1:2,a2:2,b1:2,b2:2,c1:2,c2:2,d1:2,d2:2
	tb_start --sites 4 --nodes 2 --policies open
	broker_workers
	echo "# round kind mpirun_ms load rc connections setup_median_ms setup_sum_ms" >"$raw"
	for ((r = 1; r <= rounds; r++)); do
		for kind in plain shim qcg; do
			JOB=nb-start-$kind-$r OUT=$TB_DIR/out-$JOB
			if [[ $kind == plain ]]; then
				run_mpi a1 plain --host "$hosts" -np 16 "$BENCH" startup
			else
				job_begin "${nodes[@]}"
				write_agents "${nodes[@]}"
			fi
			if [[ $kind == shim ]]; then
				run_mpi a1 "$TB_DIR/agent-net-$JOB" --host "$hosts" -np 16 "$BENCH" startup
			elif [[ $kind == qcg ]]; then
				qcg_agent
				run_mpi a1 "$TB_DIR/agent-qcg-$JOB" --host "$hosts" -np 16 "$BENCH" startup
				rsh_once qcg "$TB_DIR/agent-qcg-$JOB"
				rsh_once plain "$QTB" rsh --dir "$TB_DIR"
				qcg_release
			fi
			echo "$r $kind $MS $(load) $RC $(conn_stats)" >>"$raw"
			say "startup: $(tail -n 1 "$raw")"
		done
	done
	tb_stop
}

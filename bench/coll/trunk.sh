#!/bin/bash
# trunk.sh [BUILD-DIR]: GridMPI's trunking experiment (issue 20). An all-to-all across two sites
# whose every connection is relayed: b and c are nat sites without traversal (qcg-testbed up
# --policies open,nat,nat --no-traversal), so the broker hands each b-c connection to one of the
# K WAN proxies, and each proxy's WAN attachment is capped (--proxy-rate, default 25 Mbit/s)
# while the sites' are not. With K = 1, 2, 4 (KS) the all-to-all should take about 1/K as long
# if the broker spreads the relays (it picks the least loaded proxy). The job (bench/coll/
# trunk_alltoall.c: BYTES per pair, ROUNDS timed rounds, every block checked) runs 2 nodes x
# PER_NODE ranks on each site through qcg-submit, REPS times per K, by default with coll/qcg
# excluded (OMPI_MCA_coll=^qcg: tuned's pairwise exchange uses every pair's connection, which is
# what the trunks carry, whatever coll/qcg's choice would be). What proves the spread:
# per proxy, the bytes it forwarded during the job (`qcg-query proxies` before and after), and
# the relayed connections of the job (`qcg-query connections JOB`).
#   KS="1 2 4" REPS=3 bench/coll/trunk.sh          # from the build tree, after make (as root)
# COLL=qcg runs the same job with coll/qcg allowed (its verbose selection line then required).
# Writes RESULTS (default bench/coll/results/trunk-DATE) /trunk.txt (one line per run) and
# /table.md (medians, ratio to K = 1). Takes /tmp/qcg-heavy.lock unless QCG_HEAVY_LOCKED=1, and
# the testbed lock for each K's testbed (brought up and down per K, so others get turns).
set -euo pipefail
if [ "${QCG_HEAVY_LOCKED:-0}" != 1 ]; then
	exec env QCG_HEAVY_LOCKED=1 flock /tmp/qcg-heavy.lock "$0" "$@"
fi
# shellcheck source=bench/launch/common.sh
. "$(dirname "$0")/../launch/common.sh" "${1:-.}"
bench_need trunk.sh "$B/launcher/qcg-submit" "$B/launcher/qcg-query" "$B/services/broker/qcg-broker" \
	"$B/deploy/qcg-delayline"
KS=${KS:-1 2 4}
REPS=${REPS:-3}
PROXY_RATE=${PROXY_RATE:-25}
WAN_DELAY=${WAN_DELAY:-5}
BYTES=${BYTES:-262144}
ROUNDS=${ROUNDS:-3}
PER_NODE=${PER_NODE:-2}
COLL=${COLL:-tuned}
case $COLL in
tuned) COLL_ENV=OMPI_MCA_coll=^qcg ;;
qcg) COLL_ENV=OMPI_MCA_coll_qcg_verbose=20 ;;
*) echo "trunk.sh: COLL=$COLL: want tuned or qcg" >&2; exit 2 ;;
esac
RESULTS=${RESULTS:-$S/bench/coll/results/trunk-$(date -u +%Y%m%d)}
mkdir -p "$RESULTS"
rows=$RESULTS/trunk.txt
: >"$rows"
echo "trunk.sh: $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg), K in $KS, proxies" \
	"$PROXY_RATE Mbit/s, WAN $WAN_DELAY ms, coll $COLL, $BYTES bytes per pair, $ROUNDS rounds, $REPS runs" | tee "$RESULTS/trunk.log"

query() { on_user "$B/launcher/qcg-query" --timeout 10 "$@"; }

# Bytes forwarded per WAN proxy now: "ENDPOINT BYTES" lines, sorted by endpoint.
proxy_bytes() { query proxies | awk 'NR > 1 && $3 == "-" { print $1, $7 }' | sort; }

# The job description for run $1 (the executable and output are in TB's directory, seen by
# every host).
job() {
	local f=$OUT/trunk-$1.qcg
	{
		printf '#QCG name=trunk-%s\n#QCG executable=%s\n' "$1" "$OUT/trunk_alltoall"
		printf '#QCG argument=%s\n#QCG argument=%s\n#QCG walltime=PT15M\n' "$BYTES" "$ROUNDS"
		printf '#QCG environment=%s\n' "$COLL_ENV"
		printf '#QCG host=%s\n#QCG nodes=2:%d\n' b "$PER_NODE" c "$PER_NODE"
	} >"$f"
	echo "$f"
}

# run K R: one job; appends "K R median_s relays spread" to rows, where spread is the bytes
# each proxy forwarded during the job, in MiB, "/"-separated.
run() {
	local k=$1 r=$2 out before after wrong jobid median relays spread
	out=$OUT/submit-$k-$r.out
	before=$(proxy_bytes)
	# Not on_user: its 2-minute bound is for short calls; K = 1 at a low rate takes longer.
	"$QTB" --dir "$TB" exec user -- env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
		OMPI_MCA_mpi_yield_when_idle=1 QCG_NODE_HELPER_SOCKET="$TB/run/helper-%h.sock" \
		timeout 900 "$B/launcher/qcg-submit" "$(job "$k-$r")" >"$out" 2>&1 8>&- ||
		{ tail -n 30 "$out" >&2; echo "trunk.sh: K=$k run $r failed" >&2; return 1; }
	after=$(proxy_bytes)
	if [[ $COLL == qcg ]] && ! grep -q "coll:qcg: comm MPI_COMM_WORLD (cid 0): selected" "$out"; then
		echo "trunk.sh: K=$k run $r: COLL=qcg but coll/qcg did not select itself" >&2
		return 1
	fi
	wrong=$(sed -n 's/^trunk_alltoall: .* rounds, \([0-9]*\) wrong, job .*/\1/p' "$out")
	[[ $wrong == 0 ]] || { cat "$out" >&2; echo "trunk.sh: K=$k run $r: blocks wrong ($wrong)" >&2; return 1; }
	jobid=$(sed -n 's/^trunk_alltoall: .* wrong, job //p' "$out")
	median=$(sed -n 's/^trunk_alltoall: seconds .* median //p' "$out")
	query connections "$jobid" >"$OUT/connections-$k-$r.txt"
	relays=$(awk '$3 == "relay" && $4 == "ok"' "$OUT/connections-$k-$r.txt" | wc -l)
	spread=$(join <(echo "$before") <(echo "$after") |
		awk '{ printf "%s%.1f", (NR > 1 ? "/" : ""), ($3 - $2) / 1048576 }')
	echo "$k $r $median $relays $spread" | tee -a "$rows"
	cp "$out" "$RESULTS/submit-$k-$r.out"
	cp "$OUT/connections-$k-$r.txt" "$RESULTS/"
}

for k in $KS; do
	bench_up trunk.sh "/var/tmp/qcg-tb-trunk" --sites 3 --nodes 2 --policies open,nat,nat \
		--no-traversal --proxies "$k" --proxy-rate "$PROXY_RATE" --wan-delay "$WAN_DELAY" --separate-fs
	mpicc -O2 -o "$OUT/trunk_alltoall" "$S/bench/coll/trunk_alltoall.c"
	query proxies >"$RESULTS/proxies-$k.txt"
	for ((r = 1; r <= REPS; r++)); do run "$k" "$r"; done
	query proxies >>"$RESULTS/proxies-$k.txt"
	"$QTB" --dir "$TB" down >/dev/null 8>&-
	exec 8>&- # the testbed lock, until the next K
	trap - EXIT
done
awk -v bytes="$BYTES" -v rate="$PROXY_RATE" '
function med(k,   n, i, j, t, a) {
	n = cnt[k]; for (i = 1; i <= n; i++) a[i] = val[k, i]
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ if (!($1 in cnt)) order[++nk] = $1; c = ++cnt[$1]; val[$1, c] = $3; relays[$1] = $4; spread[$1] = $5 }
END {
	printf "| K proxies | runs | all-to-all, s (median) | ratio to K = 1 | relayed connections | MiB per proxy (last run) |\n"
	printf "|---|---|---|---|---|---|\n"
	base = med(order[1])
	for (i = 1; i <= nk; i++) {
		k = order[i]; m = med(k)
		printf "| %s | %d | %.3f | %.2f | %s | %s |\n", k, cnt[k], m, m / base, relays[k], spread[k]
	}
}' "$rows" | tee "$RESULTS/table.md"
echo "trunk.sh: done, load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$RESULTS/trunk.log"

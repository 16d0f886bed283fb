#!/bin/bash
# bench/broker/compare.sh: two broker builds side by side (issue 15): run.sh's keep-alive rows
# against each, alternating old and new, ROUNDS times, and the median of each figure per N.
#
#   bench/broker/compare.sh OLD-BUILD-DIR NEW-BUILD-DIR
#
# Each build directory must hold what run.sh needs (services/broker/qcg-broker,
# bench/broker/bench-broker, tests/integration/broker_call). Both use this tree's run.sh and the
# new build's bench-broker, so the set-up and the client are the same and only the brokers
# differ. Run it under the shared lock on a shared machine: flock /tmp/qcg-heavy.lock ...
#
# Environment: ROUNDS (default 3, odd, 1..15), BENCH_SECONDS (default 8), BENCH_CLIENTS
# (default "1 16 64"), and run.sh's BENCH_REPLAY, BENCH_WORKERS and BENCH_LINGER_US, passed on.
# The order alternates each round (old first, then new first), so that neither build always
# runs right after the other's load.
set -euo pipefail

readonly PROG=bench/broker/compare.sh
die() { printf '%s: %s\n' "$PROG" "$*" >&2; exit 2; }

[[ $# == 2 ]] || die "usage: $PROG OLD-BUILD-DIR NEW-BUILD-DIR"
HERE=$(cd "$(dirname "$0")" && pwd)
OLD=$(cd "$1" 2>/dev/null && pwd) || die "no build directory $1"
NEW=$(cd "$2" 2>/dev/null && pwd) || die "no build directory $2"
ROUNDS=${ROUNDS:-3}
if ! [[ $ROUNDS =~ ^[0-9]+$ ]] || ((ROUNDS < 1 || ROUNDS > 15 || ROUNDS % 2 == 0)); then
	die "ROUNDS must be odd, 1..15, got '$ROUNDS'"
fi
export BENCH_SECONDS=${BENCH_SECONDS:-8} BENCH_CLIENTS=${BENCH_CLIENTS:-1 16 64} BENCH_CONTRAST=0
export BENCH_BROKER_CLIENT=$NEW/bench/broker/bench-broker

WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-broker-compare.XXXXXX")
trap 'rm -rf -- "$WORK"' EXIT
trap 'exit 130' INT TERM

FLAGGED=0
# one LABEL DIR: one run.sh run; its table rows go to $WORK/LABEL.rows.
one() {
	local out
	out=$("$HERE/run.sh" "$2" 2>&1) || { FLAGGED=1; printf '%s run flagged:\n%s\n' "$1" "$out" >&2; }
	grep -E '^\| [0-9]+ \|' <<<"$out" >>"$WORK/$1.rows" || true
	printf '  %s: %s\n' "$1" "$(grep -E '^\| [0-9]+ \|' <<<"$out" |
		awk -F'|' '{ printf "N=%d%s %s req/s p99 %s us; ", $2, ($3 ~ /replayed/ ? " replay" : ""), $4, $7 }')" >&2
}

for ((r = 1; r <= ROUNDS; r++)); do
	echo "round $r of $ROUNDS ($(date -u +%H:%M:%S) UTC, load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
	if ((r % 2)); then one old "$OLD"; one new "$NEW"; else one new "$NEW"; one old "$OLD"; fi
done

# The median of each column per N and client (columns as run.sh prints them: 2 N, 3 the row's
# label, "replayed" for bench-broker --replay, 4 req/s, 5 p50, 7 p99, 12 broker CPU us/req,
# 13 the fewest/most requests per client, shown as their ratio: near 1 when every client was
# served alike, near 0 when some waited while others were served).
medians() {
	awk -F'|' -v build="$1" '
	function median(list,   a, n, i, j, t) {
		n = split(list, a, " ")
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
		return n ? a[int((n + 1) / 2)] : "-"
	}
	{ n = ($2 + 0) " " ($3 ~ /replayed/ ? "replay" : "gsoap"); seen[n] = 1
	  rps[n] = rps[n] " " $4; p50[n] = p50[n] " " $5
	  p99[n] = p99[n] " " $7; cpu[n] = cpu[n] " " $12
	  split($13, fm, "/"); share[n] = share[n] " " sprintf("%.3f", fm[2] > 0 ? fm[1] / fm[2] : 0)
	  runs[n]++ }
	END { for (n in seen) printf "%s %s %s %s %s %s %s %d\n", n, build, median(rps[n]),
	      median(p50[n]), median(p99[n]), median(cpu[n]), median(share[n]), runs[n] }' "$WORK/$1.rows"
}

echo
echo "Medians of $ROUNDS alternated runs, $BENCH_SECONDS s each;" \
	"$(nproc) CPUs shared by broker and clients."
echo
echo '| N | client | build | req/s | p50 µs | p99 µs | broker CPU µs/req | fewest/most per client | runs |'
echo '|---|---|---|---|---|---|---|---|---|'
{ medians old; medians new; } | sort -k1,1n -k2,2 -k3,3r |
	awk '{ printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8, $9 }'
exit $FLAGGED

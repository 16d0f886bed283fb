#!/bin/bash
# bench/broker/edge.sh: how a normal client fares while an attacker holds the broker's network
# edge (issue 17), and what the attacks cost the broker. Figures in bench/broker/README.md.
#
#   bench/broker/edge.sh [BUILD-DIR]     # default: this tree; REPS=21 qcg-query runs per case
#
# Cases, each against a fresh broker on loopback (real TLS, the test CA):
#   unloaded     qcg-query health, REPS times: the median wall time (process start, TLS
#                handshake, one request), the baseline;
#   tcp+loris    the same while 50 silent TCP connections and 8 slow-loris clients (a CA
#                certificate, one byte of a request head a second) are held open;
#   idle-tls     the same while 500 authenticated TLS connections send nothing (and one
#                slow-loris); the broker's RSS before and with them;
#   attributes   CPU seconds (utime + stime of the broker) for one 979 KB request with 90,000
#                attributes, and the client's wall time to its answer.
# Run it under the shared lock: flock /tmp/qcg-heavy.lock bench/broker/edge.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
export top_srcdir=$(cd "$here/../.." && pwd)
export top_builddir=$(cd "${1:-$top_srcdir}" && pwd)
REPS=${REPS:-21}
. "$top_srcdir/tests/integration/grid_fixture.sh"
D=$FIXTURE_DIR
HOLD_PID=""
trap '[ -n "$HOLD_PID" ] && kill "$HOLD_PID" 2>/dev/null; fixture_cleanup' EXIT
[ "$(ulimit -Sn)" -lt 2048 ] && ulimit -Sn "$(ulimit -Hn)"
fixture_init

probe() {
	/usr/bin/python3 "$top_srcdir/tests/integration/edge_probe.py" 127.0.0.1 "$BROKER_PORT" \
		"$D/jane-cert.pem" "$D/jane-key.pem" "$D/ca/certificates" "$@"
}
rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/$BROKER_PID/status"; }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$BROKER_PID/stat"; }
hold() {
	probe hold "$@" >"$D/hold.out" 2>&1 &
	HOLD_PID=$!
	wait_until 600 grep -q '^holding' "$D/hold.out" || { echo "hold never held"; exit 1; }
}
hold_end() { kill "$HOLD_PID" 2>/dev/null; wait "$HOLD_PID" 2>/dev/null; HOLD_PID=""; }
# median_health: the median of REPS qcg-query health wall times in ms ("fail" counted as 99999)
median_health() {
	local i t0 t1
	for ((i = 0; i < REPS; i++)); do
		t0=$(date +%s%N)
		if query_as jane --timeout 20 health >/dev/null 2>&1; then
			t1=$(date +%s%N)
			echo $(((t1 - t0) / 1000000))
		else
			echo 99999
		fi
	done | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

broker_start -s broker.workers=4
unloaded=$(median_health)
hold 50 8 0 600
loaded=$(median_health)
hold_end
echo "unloaded: median ${unloaded} ms over $REPS qcg-query health"
echo "tcp+loris: median ${loaded} ms with 50 silent TCP + 8 slow-loris held" \
	"(ratio $(awk -v a="$loaded" -v b="$unloaded" 'BEGIN { printf "%.2f", a / b }'))"

fixture_stop "$BROKER_PID"
# request_timeout 120 s: all 500 stay open while the client is measured
broker_start -s broker.workers=4 -s broker.request_timeout=120
query_as jane health >/dev/null 2>&1
rss0=$(rss_kb)
hold 0 1 500 600
rss1=$(rss_kb)
tls=$(median_health)
hold_end
echo "idle-tls: median ${tls} ms with 500 idle TLS + 1 slow-loris held" \
	"(ratio $(awk -v a="$tls" -v b="$unloaded" 'BEGIN { printf "%.2f", a / b }'));" \
	"broker RSS ${rss0} kB before, ${rss1} kB with them"

c0=$(cpu_ticks)
out=$(probe quadratic 90000)
c1=$(cpu_ticks)
echo "attributes: 90,000-attribute request cost the broker" \
	"$(awk -v t=$((c1 - c0)) -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", t / hz }') CPU s;" \
	"client saw: $out"
fixture_stop "$BROKER_PID"

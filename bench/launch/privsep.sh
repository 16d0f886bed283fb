#!/bin/bash
# privsep.sh [BUILD-DIR]: what the helper's privilege separation (issue 17) costs a Launch.
# Two qcg-helpers on loopback with a fresh CA (tests/integration/grid_fixture.sh): "direct"
# (started as root, no helper.user: it forks the process itself) and "separated"
# (helper.user=daemon: the network half asks its root launcher over the socketpair, which
# forks and passes the output pipes back). Each round runs N launches of /bin/true on each
# helper, one after the other, as the front-end does: Launch, then ReadOutput until it exited
# (helper_call launch + collect, a TLS connection each). Rounds alternate the two helpers.
# Reported: the median over ROUNDS of the mean time per launch (µs), and the ratio
# separated / direct. Root only (launching as nobody). Not a test: run it under
#   flock /tmp/qcg-heavy.lock bench/launch/privsep.sh BUILD-DIR
S=$(cd "$(dirname "$0")/../.." && pwd)
B=$(realpath "${1:-.}")
export top_srcdir=$S top_builddir=$B
N=${N:-40}
ROUNDS=${ROUNDS:-5}
[ "$(id -u)" -eq 0 ] || { echo "privsep.sh: needs root (launches as nobody)" >&2; exit 1; }
. "$S/tests/integration/grid_fixture.sh"

fixture_init
helper_start direct 127.0.0.1 https://127.0.0.1:9/ >/dev/null
URL_direct=$HELPER_URL
HELPER_SERVICE_USER=daemon helper_start separated 127.0.0.1 https://127.0.0.1:9/ >/dev/null
URL_separated=$HELPER_URL

# One round on helper $1: the mean milliseconds per launch of N.
round() {
	local url_var=URL_$1 t0 t1 i id
	HELPER_URL=${!url_var}
	t0=$(date +%s%N)
	for ((i = 0; i < N; i++)); do
		id=$(helper_as gw-a launch bench-$1 nobody -e PATH=/usr/bin:/bin -- /bin/true) ||
			{ echo "privsep.sh: launch on $1 failed" >&2; exit 1; }
		helper_as gw-a collect "$id" 20 >/dev/null || { echo "privsep.sh: collect failed" >&2; exit 1; }
	done
	t1=$(date +%s%N)
	echo $(((t1 - t0) / N / 1000))
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

: >"$FIXTURE_DIR/direct" && : >"$FIXTURE_DIR/separated"
for ((r = 0; r < ROUNDS; r++)); do
	round direct >>"$FIXTURE_DIR/direct"
	round separated >>"$FIXTURE_DIR/separated"
done
d=$(median <"$FIXTURE_DIR/direct")
s=$(median <"$FIXTURE_DIR/separated")
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf 'direct     us per launch: median %s (rounds: %s)\n' "$d" "$(paste -sd' ' "$FIXTURE_DIR/direct")"
printf 'separated  us per launch: median %s (rounds: %s)\n' "$s" "$(paste -sd' ' "$FIXTURE_DIR/separated")"
awk -v d="$d" -v s="$s" 'BEGIN { printf "ratio separated/direct: %.2f\n", s / d }'

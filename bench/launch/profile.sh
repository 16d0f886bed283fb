#!/bin/bash
# profile.sh [BUILD-DIR]: where a 24-rank qcg-submit start-up spends its CPU. On run.sh's
# testbed: two warm start-ups, then `perf record -a -g` over three more, written to $PERF_OUT
# (default perf-launch.data in the current directory). Then, for instance, the samples each
# command spent reading PCI configuration space (hwloc's discovery):
#   perf script -i perf-launch.data | awk '...'   (bench/launch/README.md, session 13)
# Holds the testbed lock; its testbed is always brought down.
set -euo pipefail
# shellcheck source=bench/launch/common.sh
. "$(dirname "$0")/common.sh" "${1:-.}"
PERF_OUT=${PERF_OUT:-$PWD/perf-launch.data}
bench_need profile.sh "$PROG" "$B/launcher/qcg-submit"
command -v perf >/dev/null || { echo "profile.sh: needs perf (linux-perf)" >&2; exit 1; }
bench_up profile.sh /var/tmp/qcg-tb-launch-prof --sites 3 --nodes 2 \
	--policies open,open,open --frontend-proxy --wan-delay 2

echo "warm: $(run_submit 24) $(run_submit 24) s"
perf record -a -g -F 1999 -o "$PERF_OUT" -- sleep 30 2>"$OUT/perf-record.err" &
pp=$!
sleep 1
echo "profiled: $(run_submit 24) $(run_submit 24) $(run_submit 24) s; samples in $PERF_OUT"
kill -INT "$pp"
wait "$pp" || true

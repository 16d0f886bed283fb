#!/bin/bash
# run.sh: bench/scale's table (README.md). For each S in SCALE_S and P in SCALE_P, the storm
# of each variant in SCALE_VARIANTS (storm.sh: resolve, direct, before, after; default
# "before after": without and with the front-ends' decisions per cluster pair), side by side. Takes /tmp/qcg-heavy.lock (the
# machine is shared) unless QCG_HEAVY_LOCKED=1 says the caller holds it.
#   bench/scale/run.sh            # from the build tree, after make
#   SCALE_P="64 256 1024" SCALE_S="2 4" SCALE_MODE=ring bench/scale/run.sh
# SCALE_TIMEOUT bounds each storm (seconds, default 600).
set -eu
if [ "${QCG_HEAVY_LOCKED:-0}" != 1 ]; then
	exec env QCG_HEAVY_LOCKED=1 flock /tmp/qcg-heavy.lock "$0" "$@"
fi
here=$(cd "$(dirname "$0")" && pwd)
export top_srcdir=${top_srcdir:-$(cd "$here/../.." && pwd)}
export top_builddir=${top_builddir:-$PWD}
[ -x "$top_builddir/bench/scale/scale-ranks" ] || { echo "build first (make), run from the build tree" >&2; exit 2; }
echo "S P mode variant connects failed broker_requests frontend_requests storm_ms slowest_rank_ms broker_resolves pair_hits registrations"
for s in ${SCALE_S:-2 4}; do
	for p in ${SCALE_P:-64 256}; do
		for v in ${SCALE_VARIANTS:-before after}; do
			timeout "${SCALE_TIMEOUT:-600}" bash "$here/storm.sh" "$s" "$p" "${SCALE_MODE:-all}" "$v" ||
				echo "$s $p ${SCALE_MODE:-all} $v failed (exit $?)"
		done
	done
done

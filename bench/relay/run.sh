#!/bin/sh
# bench/relay/run.sh: what one qcg-proxy adds to latency and bandwidth on loopback, next to a
# direct TCP connection, in one run. Builds nothing: run `make` first.
#
# usage: bench/relay/run.sh [BUILDDIR] [relay_bench options: --rounds N --bulk-mib N --repeat N]
# BUILDDIR defaults to $top_builddir, else the current directory.
set -eu

builddir=${top_builddir:-.}
if [ $# -gt 0 ] && [ -d "$1" ]; then
	builddir=$1
	shift
fi
proxy=$builddir/services/proxy/qcg-proxy
bench=$builddir/bench/relay/relay_bench
for f in "$proxy" "$bench"; do
	if [ ! -x "$f" ]; then
		echo "run.sh: $f is not built (run make in the build directory, or pass BUILDDIR)" >&2
		exit 1
	fi
done

tmp=$(mktemp -d /tmp/qcg-relay-bench.XXXXXX)
# accept_any_id: the benchmark presents ids nobody announced. Test use only.
"$proxy" -s proxy.listen=127.0.0.1:0 -s proxy.accept_any_id=yes --port-file "$tmp/ready" \
	-s proxy.stats_interval=0 -s proxy.log_level=warn 2>"$tmp/proxy.log" &
pid=$!
cleanup() {
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

i=0
while [ ! -s "$tmp/ready" ]; do
	i=$((i + 1))
	if [ $i -gt 100 ] || ! kill -0 "$pid" 2>/dev/null; then
		echo "run.sh: qcg-proxy did not start:" >&2
		cat "$tmp/proxy.log" >&2
		exit 1
	fi
	sleep 0.05
done

"$bench" --proxy "$(cat "$tmp/ready")" --proxy-pid "$pid" "$@"

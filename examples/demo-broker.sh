#!/bin/bash
# demo-broker.sh: the main job until the namespace testbed runs the whole grid. Makes a fresh
# grid CA, starts qcg-broker on loopback, lets three front-ends declare their clusters (open,
# nat, closed) and two proxies register, records a job with one process per cluster, then
# asks the broker how every pair of processes connects and shows the registry with qcg-query.
# No connection is made: the sockets side (helpers, libqcgnet) is not built yet.
# The front-ends and proxies are played by the broker's test client until their own daemons
# land; every call is real SOAP over mutual TLS against a real SQLite registry.
#
#   examples/demo-broker.sh [BUILD-DIR]      (default: the source tree's own build)
set -eu
top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
top_builddir=$(cd "${1:-$top_srcdir}" && pwd)
export top_srcdir top_builddir
. "$top_srcdir/tests/integration/grid_fixture.sh"

fixture_init
ca host --dir "$FIXTURE_DIR/ca" --name gw-c --out "$FIXTURE_DIR/gw-c"
broker_start
echo "qcg-broker listening at $BROKER_URL (registry $FIXTURE_DIR/broker.db)"

call_as gw-a register-cluster site-a open 172.31.0.11 10.1.0.0/24 >/dev/null
call_as gw-b register-cluster site-b nat 172.31.0.12 10.2.0.0/24 traversal >/dev/null
call_as gw-c register-cluster site-c closed 172.31.0.13 10.3.0.0/24 >/dev/null
call_as proxy-1 register-proxy 172.31.0.21:7000 0.0.0.0/0 >/dev/null
call_as proxy-1 register-proxy 172.31.0.13:7001 10.3.0.0/24,0.0.0.0/0 site-c >/dev/null
call_as jane record-job demo-job >/dev/null
call_as gw-a register-ap demo-job site-a a1 10.1.0.10 41000 rank0 >/dev/null
call_as gw-b register-ap demo-job site-b b1 10.2.0.10 41001 rank1 >/dev/null
call_as gw-c register-ap demo-job site-c c1 10.3.0.10 41002 rank2 >/dev/null

echo
echo "== clusters (qcg-query clusters)"
query_as jane clusters
echo
echo "== proxies (qcg-query proxies)"
query_as jane proxies
echo
echo "== how each pair connects (Resolve, as each front-end would ask)"
nodes="site-a:a1:10.1.0.10:41000 site-b:b1:10.2.0.10:41001 site-c:c1:10.3.0.10:41002"
for from in $nodes; do
	IFS=: read -r fc fn _ _ <<<"$from"
	for to in $nodes; do
		IFS=: read -r tc _ ta tp <<<"$to"
		[ "$fc" = "$tc" ] && continue
		gw=gw-${fc#site-}
		decision=$(call_as "$gw" resolve demo-job "$fc" "$fn" "$ta" "$tp")
		printf '%-8s -> %-8s %s\n' "$fc" "$tc" "$decision"
	done
done
echo
echo "== the job's contacts (qcg-query contacts)"
query_as jane contacts demo-job
echo
echo "demo done; the broker and its files are removed on exit"

#!/bin/bash
# demo-grid.sh: the main job. Brings up a whole grid
# on this machine with qcg-testbed (network namespaces, as root): three sites (open, nat,
# closed), two nodes each, 5 ms one-way WAN delay, one WAN proxy and a proxy on the closed
# site's gateway, with every service running for real (qcg-broker, qcg-proxy, qcg-frontend per
# site, qcg-helper per node, certificates from qcg-ca). Then, from the `user` host:
#   1. qcg-query clusters and proxies: what the broker knows;
#   2. hostname on every node, launched through each site's front-end (Reserve, Commit,
#      Launch, Release), and its output;
#   3. connections between processes of one job on different sites, set up by the broker
#      through the helpers and front-ends: closed <-> nat through the closed site's gateway
#      proxy (relay), open -> nat (reversal); qcg-query connections and the proxies' counters;
#   4. the main job: qcg-submit on host user runs examples/all-pairs (native XML) as one Open
#      MPI job over the three sites (mpirun with qcg-rsh and libqcgnet.so), then qcg-status and
#      every connection's method; then examples/pi from its QCG-Simple directives.
# Host user is a plain workstation (qcg-testbed up --workstation): it runs no qcg service and
# admits no inbound connection, and mpirun runs inside the job, on the first node of the first
# cluster (launcher/submit_remote.h); qcg-submit streams its output back. --user-services
# gives host user its own front-end and helper instead, and mpirun runs there.
# The testbed is always taken down, whatever happens. Its hosts share no files (qcg-testbed
# up --separate-fs: each its own /tmp, /home, /root, /etc/grid-security), as real sites do;
# --shared-fs runs it on one filesystem instead.
#
#   examples/demo-grid.sh [--shared-fs] [--user-services] [BUILD-DIR]   (default: the source
#                                                                      tree's own build)
#   examples/demo-grid.sh [--shared-fs] [--user-services] --installed PREFIX [BUILD-DIR]
#
# Needs a build (./configure && make); the test programs it uses (tests/integration/
# frontend_call, helper_local, broker_call, tests/testbed/tb_connect) are built here with
# make if they are missing. With --installed, everything else comes from the installation in
# PREFIX (/usr for the Debian packages, deploy/test-packages.sh): qcg-testbed, qcg-delayline,
# the services, the launcher commands, libqcgnet.so, mca_coll_qcg.so (qcg-submit names its
# installed directory to Open MPI) and the example programs; the test programs, which are
# not installed, still come from BUILD-DIR.
set -euo pipefail
installed='' fs=--separate-fs ws=--workstation
if [[ ${1:-} == --shared-fs ]]; then
	fs=
	shift
fi
if [[ ${1:-} == --user-services ]]; then
	ws=
	shift
fi
if [[ ${1:-} == --installed ]]; then
	installed=${2:?--installed needs the installation prefix (/usr for the Debian packages)}
	shift 2
fi
top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
top_builddir=$(cd "${1:-$top_srcdir}" && pwd)
readonly TOKEN=d3m0d3m0d3m0d3m0d3m0d3m0d3m0d3m0 JOB=demo-job
readonly MPI_TIMEOUT=120

die() { echo "demo-grid: $*" >&2; exit 1; }
step() { printf '\n== %s\n' "$*"; }
now_ms() { date +%s%3N; }

((EUID == 0)) || die "run me as root: the testbed is made of network namespaces"
if [[ -n $installed ]]; then
	# libdir and libexecdir vary (Debian: lib/<triplet>, libexec): found, not guessed.
	net_lib=$(find "$installed/lib" -maxdepth 2 -name libqcgnet.so -print -quit 2>/dev/null)
	[[ -n $net_lib ]] || die "no libqcgnet.so under $installed/lib"
	examples_dir=$(find "$installed/libexec" "$installed/lib" -maxdepth 3 -type d \
		-path '*/qcg-ompi/examples' -print -quit 2>/dev/null)
	[[ -n $examples_dir ]] || die "no qcg-ompi/examples under $installed/libexec or $installed/lib"
	QTB=$installed/sbin/qcg-testbed LAUNCHER_DIR=$installed/bin
	# qcg-testbed looks for the services and qcg-delayline, and for libqcgnet.so (the user
	# host's environment), in these directories.
	export QCG_TESTBED_BIN=$installed/sbin:$installed/bin:${net_lib%/*}
	for p in sbin/qcg-testbed sbin/qcg-broker sbin/qcg-proxy sbin/qcg-frontend sbin/qcg-helper \
		sbin/qcg-delayline bin/qcg-query bin/qcg-submit bin/qcg-status bin/qcg-rsh; do
		[[ -x $installed/$p ]] || die "$installed/$p is missing: is qcg-ompi installed there?"
	done
	example_program() { echo "$examples_dir/$1"; }
else
	QTB=$top_srcdir/deploy/qcg-testbed LAUNCHER_DIR=$top_builddir/launcher
	export QCG_TESTBED_BIN=$top_builddir
	for p in services/broker/qcg-broker services/proxy/qcg-proxy services/frontend/qcg-frontend \
		services/helper/qcg-helper launcher/qcg-query launcher/qcg-submit launcher/qcg-status \
		launcher/qcg-rsh mpi-glue/net/.libs/libqcgnet.so deploy/qcg-delayline; do
		[[ -x $top_builddir/$p ]] || die "$top_builddir/$p is missing: build first (./configure && make)"
	done
	example_program() { echo "$top_builddir/examples/$1/$1"; }
fi
for p in all-pairs pi; do
	[[ -x $(example_program "$p") ]] || die "$(example_program "$p") is missing"
done
# Test programs are check_PROGRAMS: plain `make` does not build them.
make -s -C "$top_builddir" tests/integration/frontend_call tests/integration/helper_local \
	tests/integration/broker_call tests/testbed/tb_connect >/dev/null ||
	die "could not build the test programs in $top_builddir"

TB_DIR=$(mktemp -d /tmp/qcg-demo.XXXXXX)
teardown() {
	local rc=$?
	trap - EXIT INT TERM
	kill $(jobs -p) 2>/dev/null || true
	"$QTB" --dir "$TB_DIR" down >/dev/null 2>&1 || echo "demo-grid: down failed" >&2
	rm -rf "$TB_DIR"
	exit "$rc"
}
trap teardown EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# shellcheck source=../tests/testbed/grid.sh
source "$top_srcdir/tests/testbed/grid.sh"
GRID_QUERY=$LAUNCHER_DIR/qcg-query # grid.sh's default is the build's

step "qcg-testbed up: 3 sites (open, nat, closed) x 2 nodes, 5 ms WAN, 1 WAN proxy, gateway proxy${fs:+, hosts sharing no files}${ws:+, host user a workstation running no service}"
t0=$(now_ms)
"$QTB" --dir "$TB_DIR" up --sites 3 --nodes 2 --policies open,nat,closed --wan-delay 5 \
	--proxies 1 --frontend-proxy $fs $ws
echo "up with every service ready and registered: $(($(now_ms) - t0)) ms"
"$QTB" --dir "$TB_DIR" status | sed -n '/^DAEMON/,$p'
grid_env
echo "(clients source $TB_DIR/env: broker $QCG_BROKER_URL, user proxy $X509_USER_PROXY)"

step "qcg-query clusters (on host user)"
grid_query clusters
step "qcg-query proxies"
grid_query proxies

step "hostname on every node, through each site's front-end (Reserve, Commit, Launch, Release)"
for site in $QCG_TESTBED_SITES; do
	nodes=$("$QTB" --dir "$TB_DIR" hosts | awk -F'\t' -v s="$site" '$2 == "node" && $3 == s { print $1 }')
	out=$(grid_fe "$site" reserve "hostname-$site" "$(wc -w <<<"$nodes")" 60 1 $nodes) ||
		die "Reserve at site $site failed: $out"
	res=$(sed -n 's/^reservation=//p' <<<"$out")
	grid_fe "$site" commit "$res" >/dev/null || die "Commit at site $site failed"
	for n in $nodes; do
		t0=$(now_ms)
		out=$(grid_fe "$site" run "$res" "$n" /bin/hostname) || die "Launch on $n failed: $out"
		printf 'site %s node %-3s -> %-28s (%d ms)\n' "$site" "$n" "$(tr '\n' ' ' <<<"$out")" \
			$(($(now_ms) - t0))
	done
	grid_fe "$site" release "$res" >/dev/null || die "Release at site $site failed"
done

step "one job's processes connect across sites, as the broker decides"
grid_broker_call record-job "$JOB" >/dev/null || die "record-job failed"
grid_job_token "$JOB" "$TOKEN" a1 b1 c1
addr() { "$QTB" --dir "$TB_DIR" hosts | awk -F'\t' -v h="$1" '$1 == h { print $6 }'; }
grid_local b1 "$JOB" "$TOKEN" register "$(addr b1)" 40000 >/dev/null || die "register on b1 failed"
grid_local c1 "$JOB" "$TOKEN" register "$(addr c1)" 40001 >/dev/null || die "register on c1 failed"
for pair in c1:b1:40000 b1:c1:40001 a1:b1:40000; do
	IFS=: read -r from to port <<<"$pair"
	grid_connect "$from" "$to" "$(addr "$to")" "$port" "$JOB" "$TOKEN"
	printf '%s -> %s:%s  %s\n' "$from" "$to" "$port" "$(head -n 1 <<<"$GRID_CONN")"
	printf '    %s saw: %s\n' "$to" "$(grep '^handoff' <<<"$GRID_WAITED" || echo "no hand-off")"
done
step "qcg-query connections $JOB"
grid_query connections "$JOB"
step "qcg-query proxies (the gateway proxy relayed the bytes)"
grid_query proxies

# The jobs: the example descriptions name /usr/local/libexec/qcg-ompi/examples/NAME; here they
# run from the build tree or the installation.
job_file() {
	sed "s#/usr/local/libexec/qcg-ompi/examples/$1#$(example_program "$1")#" \
		"$top_srcdir/examples/$1/$1.$2" >"$TB_DIR/$1.$2"
	echo "$TB_DIR/$1.$2"
}
# qcg-submit on host user as the testbed's user. mpirun runs on the job's first node (a1) when
# host user is a workstation, else on host user; either way it reaches every site's orted (the
# closed site's through its gateway proxy) over connections the broker sets up.
submit_on_user() {
	"$QTB" --dir "$TB_DIR" exec user -- env OMPI_ALLOW_RUN_AS_ROOT=1 \
		OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 QCG_NODE_HELPER_SOCKET="$TB_DIR/run/helper-%h.sock" \
		timeout "$MPI_TIMEOUT" "$LAUNCHER_DIR/qcg-submit" "$@"
}

step "qcg-submit: one MPI job over the three sites (a open, b nat, c closed), 6 ranks${ws:+; mpirun inside the job}"
cat "$(job_file all-pairs xml)"
t0=$(now_ms)
out=$(submit_on_user "$TB_DIR/all-pairs.xml" 2>&1) || { echo "$out"; die "qcg-submit all-pairs failed"; }
echo "$out"
echo "(qcg-submit to exit: $(($(now_ms) - t0)) ms)"
job=$(sed -n 's/^qcg-submit: job \([^ :]*\) .*exit code.*/\1/p' <<<"$out" | tail -n 1)
[[ -n $job ]] || die "qcg-submit printed no job id"
step "qcg-status $job"
grid_on user "$LAUNCHER_DIR/qcg-status" "$job"
step "qcg-query connections $job: every pair's method, the best the sites' policies allow"
grid_query connections "$job"

step "qcg-submit: pi in QCG-Simple directives, the same three sites"
cat "$(job_file pi qcg)"
submit_on_user "$TB_DIR/pi.qcg" || die "qcg-submit pi failed"

step "done; taking the testbed down"

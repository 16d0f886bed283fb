#!/bin/bash
# test_qcgnet_mpi_loopback.sh: an unmodified Open MPI job (tests/net/allpairs: every pair both
# ways, 1 B..4 MiB, checksummed, then MPI_Allreduce and MPI_Barrier) whose three ranks belong
# to three clusters, with libqcgnet.so preloaded and the real broker, front-ends, helpers and
# a proxy on loopback (fresh CA):
#   rank 0: site-a, open      rank 1: site-b, nat      rank 2: site-d, nat
# (no traversal: every rank publishes 127.0.0.1, where a simultaneous open would meet itself).
# The TCP BTL runs over lo (btl_tcp_if_include=lo), so each connection between ranks goes
# through the shim: towards site-a direct, from site-a to a nat site by reversal (the accepting
# BTL checks the handed socket's source address), between the two nat sites through the proxy.
# Proves: the job passes; every connection the broker logged succeeded with the best method
# for its pair of clusters, and every pair of clusters got connected; the relayed ranks' reads
# took frames off the leg on their own threads (Open MPI's event loop polls their ends, and
# qcgnet_resume_recv.c's poll polls the leg with them) and their small sends went straight
# onto the leg.
. "$top_srcdir/tests/integration/grid_fixture.sh"
LIB=$top_builddir/mpi-glue/net/.libs/libqcgnet.so
PROG=$top_builddir/tests/net/allpairs
if ! command -v mpirun >/dev/null || [ ! -x "$PROG" ] || [ ! -f "$LIB" ] ||
	[ ! -x "$QCG_FRONTEND" ] || [ ! -x "$QCG_PROXY" ]; then
	echo "SKIP: mpirun, allpairs, libqcgnet.so, qcg-frontend or qcg-proxy is missing"
	exit 77
fi
D=$FIXTURE_DIR
TOKEN=0123456789abcdef0123456789abcdef
ME=$(id -un)

fixture_init
broker_start
call_as jane record-job job-1 >/dev/null || { echo "record-job failed"; exit 99; }
"$QCG_CA" grid-mapfile-line "$D/jane-cert.pem" nobody >"$D/fe-grid-mapfile"
trap 'proxy_stop_all; frontend_stop_all; helper_cleanup; fixture_cleanup' EXIT

# site NAME POLICY NODE: a front-end and a helper whose node address is 127.0.0.1
site() {
	local s=$1 policy=$2 node=$3 port
	ca host --dir "$D/ca" --name "gw-s$s" --ip 127.0.0.1 --out "$D/gw-s$s"
	echo "helper \"/O=Grid/OU=qcg-ompi/CN=host/$node\"" >"$D/fe-$s.acl"
	port=$(free_port)
	write_frontend_conf "$D/fe-$s.conf" "gw-s$s" "site-$s" "$policy" "$D/fe-$s.acl" \
		"$D/fe-grid-mapfile" "$node = https://127.0.0.1:$port/ 2"
	frontend_start "$D/fe-$s.conf" "$D/fe-$s.log"
	HELPER_CLUSTER=site-$s helper_start "$node" 127.0.0.1 "$FRONTEND_URL" \
		-s "helper.listen=127.0.0.1:$port"
	echo "job-1 $TOKEN $ME" >>"$HELPER_TOKENS"
	eval "SOCK_$node=\$HELPER_SOCKET"
	wait_for_log "$D/fe-$s.log" 'registered' || { echo "site-$s did not register"; exit 99; }
}
site a open a1
site b nat b1
site d nat d1
write_proxy_conf "$D/pw.conf" proxy-1 0.0.0.0/0 ""
proxy_start "$D/pw.conf" "$D/pw.log"

# one app context per rank: the rank's helper socket and the shim's environment
rank_of() {
	local sock_var="SOCK_$1"
	echo "-np 1 env LD_PRELOAD=$LIB QCG_NET=1 QCG_NET_DEBUG=1 QCG_NET_LOOPBACK=1" \
		"QCG_NET_ADDRESS=127.0.0.1" \
		"QCG_HELPER_SOCKET=${!sock_var} QCG_JOB_ID=job-1 QCG_JOB_TOKEN=$TOKEN $PROG"
}
start=$(date +%s%N)
# shellcheck disable=SC2046
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 120 mpirun --oversubscribe \
	--mca pml ob1 --mca btl self,tcp --mca btl_tcp_if_include lo --mca btl_tcp_disable_family 6 \
	$(rank_of a1) : $(rank_of b1) : $(rank_of d1) >"$D/mpi.out" 2>&1
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
if [ $rc -eq 0 ] && grep -q "^allpairs: 3 ranks, 6 ordered pairs x 12 sizes, 0 failures" "$D/mpi.out"; then
	pass allpairs_over_three_clusters_through_libqcgnet
	echo "     (mpirun to exit: $ms ms)"
else
	fail allpairs_over_three_clusters_through_libqcgnet "rc=$rc $(tail -n 30 "$D/mpi.out")"
fi

# best(FROM-SITE, TO-SITE): the method the policies allow first
best() {
	case "$1>$2" in
	*">a") echo direct ;;
	"a>"*) echo reversal ;;
	*) echo relay ;;
	esac
}
log=$(query_as jane connections job-1 2>&1)
echo "$log"
bad=$(echo "$log" | awk 'NR > 1 { split($1, f, "/"); split($2, t, "[/:]");
	print substr(f[1], 6), substr(t[1], 6), $3, $4 }' | while read -r from to method outcome; do
	want=$(best "$from" "$to")
	[ "$outcome" = ok ] && [ "$method" = "$want" ] || echo "$from->$to $method $outcome (want $want ok)"
done)
[ -z "$bad" ] && pass every_connection_used_the_best_method_first_time ||
	fail every_connection_used_the_best_method_first_time "$bad"
for pair in "a b" "a d" "b d"; do
	set -- $pair
	echo "$log" | grep -Eq "site-($1/.*site-$2|$2/.*site-$1)/" ||
		fail "clusters_${1}_and_${2}_connected" "no connection logged"
done
# Each process with resumable streams says at exit which paths its bytes took.
paths=$(grep -h "resumable streams:" "$D/mpi.out")
echo "$paths"
echo "$paths" | grep -Eq "bytes read on the application's threads [1-9]" &&
	echo "$paths" | grep -Eq "bytes framed on the application's threads [1-9]" &&
	pass relayed_ranks_read_and_send_on_their_own_threads ||
	fail relayed_ranks_read_and_send_on_their_own_threads "${paths:-no process said}"
[ "$FAILURES" -eq 0 ] || grep -h "libqcgnet" "$D/mpi.out" | head -20
fixture_exit

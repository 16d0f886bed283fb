#!/bin/bash
# storm.sh S P MODE VARIANT: one set-up storm (bench/scale/README.md). A fresh grid on loopback
# (fresh CA, real qcg-broker, S open clusters of NODES nodes, a qcg-frontend and a qcg-helper
# per node), P simulated ranks (scale-ranks) spread evenly over the nodes; every rank registers,
# then connects all-to-all or in a ring. VARIANT resolve: no frontend.direct_networks (every
# connect resolved); direct: each cluster's own /24; before: direct, but the front-ends keep no
# decision per cluster pair (frontend.pair_cache = no: one broker Resolve per target, main's
# behaviour before the pair cache); after: the same as direct, named for the side-by-side table;
# fe-only: after, but the helpers keep no decision per cluster pair (helper.pair_cache = no).
# Prints one line: S P MODE VARIANT connects failed broker_requests fe_requests storm_ms
# slowest_rank_ms broker_resolves.
# Needs top_srcdir and top_builddir (run.sh sets them).
set -u
S=$1 P=$2 MODE=$3 VARIANT=$4 NODES=${NODES:-2}
export BROKER_LOG_LEVEL=debug # the broker logs each Resolve and batch it answers at debug
. "$top_srcdir/tests/integration/grid_fixture.sh"
RANKS=$top_builddir/bench/scale/scale-ranks
D=$FIXTURE_DIR
TOKEN=0123456789abcdef0123456789abcdef
ME=$(id -un)
NPROC=$((S * NODES))
PER=$((P / NPROC))
[ $((PER * NPROC)) -eq "$P" ] || { echo "P=$P does not spread evenly over $NPROC nodes" >&2; exit 2; }
RPIDS=""
trap 'for p in $RPIDS; do kill $p 2>/dev/null; done; frontend_stop_all; helper_cleanup; fixture_cleanup' EXIT

fixture_init
# Each front-end's long poll holds a broker worker while it waits: room for those and 16 for
# the calls (genconf_broker_workers), or at S = 8 the registrations starve.
# Every front-end is 127.0.0.1 too: the same per-address handshake cap as below.
broker_start -s "broker.workers=$(genconf_broker_workers "$S" 0)" \
	-s broker.max_unauthenticated_per_address=65536
call_as jane record-job job-1 >/dev/null || { echo "record-job failed" >&2; exit 99; }
"$QCG_CA" grid-mapfile-line "$D/jane-cert.pem" nobody >"$D/fe-grid-mapfile"
for ((s = 1; s <= S; s++)); do
	lines="" acl=""
	for ((n = 1; n <= NODES; n++)); do
		eval "PORT_${s}_$n=\$(free_port)"
		lines="${lines}n$s-$n = https://127.0.0.1:$(eval echo "\$PORT_${s}_$n")/ 4096"$'\n'
		acl="${acl}helper \"/O=Grid/OU=qcg-ompi/CN=host/n$s-$n\""$'\n'
	done
	ca host --dir "$D/ca" --name "gw-s$s" --ip 127.0.0.1 --out "$D/gw-s$s"
	printf '%s' "$acl" >"$D/fe-$s.acl"
	extra=""
	case $VARIANT in
	direct | after | fe-only) extra="direct_networks = 127.0.$s.0/24" ;;
	before) extra="direct_networks = 127.0.$s.0/24"$'\n'"pair_cache = no" ;;
	esac
	# the helpers keep the pairs' decisions themselves (helper_paircache.h) except in before
	# and fe-only (the front-ends' pair cache alone, as after was before the helpers kept any)
	helper_pairs=yes
	case $VARIANT in before | fe-only) helper_pairs=no ;; esac
	FRONTEND_LOG_LEVEL=debug write_frontend_conf "$D/fe-$s.conf" "gw-s$s" "site-$s" open \
		"$D/fe-$s.acl" "$D/fe-grid-mapfile" "$lines" "$extra"
	# Every helper here connects from 127.0.0.1: the per-address cap on connections still in
	# their TLS handshake (16, against floods from one host) would close the storm's own ones
	# (closing them also hit a use-after-free in lib/soap_server.c's event loop, since fixed and
	# tested by test_soap_edge.sh). On a real site each node has its own address.
	frontend_start "$D/fe-$s.conf" "$D/fe-$s.log" -s "frontend.public_address=127.0.$s.1" \
		-s frontend.max_unauthenticated_per_address=65536
	for ((n = 1; n <= NODES; n++)); do
		HELPER_CLUSTER=site-$s HELPER_LOG_LEVEL=info helper_start "n$s-$n" "127.0.$s.$n" \
			"$FRONTEND_URL" -s "helper.listen=127.0.0.1:$(eval echo "\$PORT_${s}_$n")" \
			-s "helper.max_clients=2048" -s "helper.pair_cache=$helper_pairs"
		echo "job-1 $TOKEN $ME" >>"$HELPER_TOKENS"
		"$RANKS" "$HELPER_SOCKET" job-1 "$TOKEN" "127.0.$s.$n" "$PER" "$MODE" "$D/peers" \
			</dev/null >"$D/out-$s-$n" 2>"$D/err-$s-$n" &
		RPIDS="$RPIDS $!"
	done
	wait_for_log "$D/fe-$s.log" 'registered' || { echo "site-$s did not register" >&2; exit 99; }
done
for ((s = 1; s <= S; s++)); do
	for ((n = 1; n <= NODES; n++)); do
		wait_for_log "$D/out-$s-$n" '^registered' 120 ||
			{ echo "node n$s-$n: $(cat "$D/err-$s-$n")" >&2; exit 99; }
	done
done
sed -n 's/^listener //p' "$D"/out-* >"$D/peers.tmp"
mv "$D/peers.tmp" "$D/peers" # the ranks poll for it: the storm starts
every_node_done() { [ "$(cat "$D"/out-* | grep -c '^connects')" -eq "$NPROC" ]; }
wait_until 6000 every_node_done || echo "warning: not every node finished in 10 minutes" >&2
touch "$D/peers.done"
# shellcheck disable=SC2086 # a list of pids
wait $RPIDS
RPIDS=""
# The last batches of records leave within 200 ms of the last connect: wait for the log to have
# every connection (bounded), then count. Counted in the broker's database (a read-only reader
# beside the broker, WAL): qcg-query lists every row, and at P = 1024 all-to-all (~1 M rows)
# one listing took longer than the whole bound.
want=$(awk '/^connects/ { c += $2 } END { print c }' "$D"/out-*)
logged_ok() {
	sqlite3 -readonly -cmd '.timeout 5000' "$D/broker.db" \
		"SELECT count(*) FROM connections WHERE job = 'job-1' AND succeeded = 1" 2>/dev/null
}
logged() { [ "$(logged_ok)" -ge "$want" ] 2>/dev/null; }
wait_until 300 logged || echo "warning: the connection log lists $(logged_ok) of $want" >&2
failed=$(awk '/^connects/ { f += $4 } END { print f }' "$D"/out-*)
[ "$failed" -eq 0 ] || head -n 5 "$D"/err-* >&2
slowest=$(awk '/^connects/ { if ($6 > m) m = $6 } END { print m }' "$D"/out-*)
# every node starts within a millisecond of the peers file: the storm lasts as long as the
# slowest node's
storm=$(awk '/^connects/ { if ($8 > m) m = $8 } END { print m }' "$D"/out-*)
# Where a connect's time went, the mean over nodes of each step's mean (waits included): on
# stderr, beside the table.
awk '/^connects/ { r += $10; c += $12; p += $14; n++ }
	END { if (n) printf "steps per connect (mean over nodes): resolve %.1f us, connect %.1f us, report %.1f us\n", r / n, c / n, p / n }' \
	"$D"/out-* >&2
b_res=$(grep -c -- '-> site-.* by ' "$D/broker.log")
pair_hits=$(cat "$D"/fe-*.log | grep -c -- ' by [a-z-]* (pair cached)')
b_batch=$(grep -c 'ReportOutcomes: ' "$D/broker.log")
f_res=$(cat "$D"/fe-*.log | grep -c -- '-> 127\.[0-9.]*:[0-9]* by ')
f_info=$(cat "$D"/fe-*.log | grep -c 'GetConnectInfo from')
# a resolved connection that failed, or needed the broker's coordination, is reported at once
# (ReportOutcome at the front-end, passed on to the broker: the broker's debug log has a line
# for each; a failure is an info line); every other record goes in a batch, one ReportOutcomes
# at the front-end and one at the broker (services/helper/helper_outcomes.h)
b_single=$(grep -c -e 'ReportOutcome: job ' -e 'the next method follows' "$D/broker.log")
# registrations: single calls ("listens on" at the broker) plus RegisterAccessPoints batches
b_reg=$(( $(grep -c ' listens on ' "$D/broker.log") + $(grep -c 'RegisterAccessPoints: ' "$D/broker.log") ))
broker_req=$((b_reg + b_res + b_single + b_batch))
fe_req=$((b_reg + f_res + b_single + b_batch + f_info))
printf '%s %s %s %s %s %s %s %s %s %s %s %s %s\n' "$S" "$P" "$MODE" "$VARIANT" "$want" "$failed" \
	"$broker_req" "$fe_req" "$storm" "$slowest" "$b_res" "$pair_hits" "$b_reg"

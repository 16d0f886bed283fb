#!/bin/bash
# bench/broker/run.sh: the broker benchmark of issue 2. Builds nothing: it uses an existing build.
#
#   bench/broker/run.sh [BUILD-DIR]
#
# BUILD-DIR is the top build directory (default: $top_builddir, else the current directory); it
# must hold services/broker/qcg-broker, bench/broker/bench-broker and the test client
# tests/integration/broker_call:
#   make services/broker/qcg-broker bench/broker/bench-broker tests/integration/broker_call
#
# In a fresh temporary directory it makes a CA (deploy/qcg-ca), certificates for the broker, two
# front-ends and a user, the broker's ACL and grid-mapfile, and starts qcg-broker on a loopback
# port. It registers two clusters (site-a open, site-b behind a NAT), records a job and one
# access point on each cluster. Then:
#   1. keep-alive check: a short run with the broker at debug level, whose "connection from"
#      lines must number exactly one per client (the benchmark's own count must agree);
#   2. the benchmark proper, broker at log level warn: N = 1, 8, 64 keep-alive clients resolving
#      site-b/b1 -> 10.1.0.11:5000 (answer: direct, read-only), one run at N = 8 resolving the
#      other way (answer: reversal, which also posts an event for the target front-end), and one
#      run at N = 8 with --new-connection (one TLS handshake per call) as a contrast.
# It prints a markdown table (with the broker's own CPU time per request, which the machine's
# other load disturbs less than the throughput); the exit status is 1 when any run was flagged (errors, wrong
# answers, keep-alive not held).
#
# Environment: BENCH_SECONDS (per run, default 10), BENCH_CLIENTS (default "1 8 64"),
# BENCH_CONTRAST (1, the default: also the reversal and new-connection rows; 0: only the
# keep-alive rows, for interleaving runs of two brokers), BENCH_REPLAY (1: after each keep-alive
# row, the same with bench-broker --replay, the light client of bench/broker/replay.h; 0, the
# default: not), BENCH_WORKERS, BENCH_LINGER_US and BENCH_MAX_SERVING (the broker's workers,
# keep_alive_linger_us and max_serving instead of run.sh's choice and the defaults).
set -euo pipefail

readonly PROG=bench/broker/run.sh
die() { printf '%s: %s\n' "$PROG" "$*" >&2; exit 2; }

SRC_DIR=$(cd "$(dirname "$0")/../.." && pwd)
BUILD_DIR=$(cd "${1:-${top_builddir:-.}}" 2>/dev/null && pwd) || die "no build directory ${1:-}"
SECONDS_PER_RUN=${BENCH_SECONDS:-10}
CLIENTS_LIST=${BENCH_CLIENTS:-1 8 64}
CONTRAST=${BENCH_CONTRAST:-1}
[[ $CONTRAST == [01] ]] || die "BENCH_CONTRAST must be 0 or 1, got '$CONTRAST'"
REPLAY=${BENCH_REPLAY:-0}
[[ $REPLAY == [01] ]] || die "BENCH_REPLAY must be 0 or 1, got '$REPLAY'"
if ! [[ $SECONDS_PER_RUN =~ ^[0-9]+$ ]] || ((SECONDS_PER_RUN < 1 || SECONDS_PER_RUN > 600)); then
	die "BENCH_SECONDS must be 1..600, got '$SECONDS_PER_RUN'"
fi
MAX_CLIENTS=1
for n in $CLIENTS_LIST; do
	if ! [[ $n =~ ^[0-9]+$ ]] || ((n < 1 || n > 1000)); then
		die "BENCH_CLIENTS: each count must be 1..1000, got '$n'"
	fi
	((n > MAX_CLIENTS)) && MAX_CLIENTS=$n
done
# Two workers per CPU: a worker lingers for its client's next request only while no other
# request waits (lib/soap_server.c), so a few workers serve any number of kept-alive clients
# fairly, and more runnable threads than that only add context switches on the shared CPUs
# (at 64 clients on 2 CPUs: 4 workers 23 000 Resolve/s, p99 5.6 ms; 16 workers 20 900/s, 9.3 ms;
# 66 workers, one per client as this script used before, 19 500/s, 14.7 ms).
WORKERS=$((2 * $(nproc)))
((WORKERS >= 2)) || WORKERS=2
# BENCH_WORKERS and BENCH_LINGER_US override the worker count and keep_alive_linger_us, to
# measure other shapes of the server (few workers, no linger) against the default.
WORKERS=${BENCH_WORKERS:-$WORKERS}
if ! [[ $WORKERS =~ ^[0-9]+$ ]] || ((WORKERS < 1 || WORKERS > 1024)); then
	die "BENCH_WORKERS must be 1..1024, got '$WORKERS'"
fi
LINGER_US=${BENCH_LINGER_US:-}
# BENCH_MAX_SERVING: the broker's max_serving (requests in a handler at once; 0 = one per
# worker), instead of its default (one per CPU).
MAX_SERVING=${BENCH_MAX_SERVING:-}

BROKER=$BUILD_DIR/services/broker/qcg-broker
# BENCH_BROKER_CLIENT: another bench-broker (compare.sh runs one client against two brokers).
BENCH=${BENCH_BROKER_CLIENT:-$BUILD_DIR/bench/broker/bench-broker}
CALL=$BUILD_DIR/tests/integration/broker_call
CA=$SRC_DIR/deploy/qcg-ca
# The one configuration generator (deploy/qcg-genconf.sh): the broker's keys are spelled there.
. "$SRC_DIR/deploy/qcg-genconf.sh"
for f in "$BROKER" "$BENCH" "$CALL"; do
	[[ -x $f ]] || die "$f is missing; in $BUILD_DIR run:
  make services/broker/qcg-broker bench/broker/bench-broker tests/integration/broker_call"
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-broker.XXXXXX")
BROKER_PID=""
POLLER_PID=""
stop_broker() {
	[[ -n $BROKER_PID ]] || return 0
	kill "$BROKER_PID" 2>/dev/null || true
	# The broker stops accepting at once and exits when its workers are idle (a few seconds).
	for _ in $(seq 100); do kill -0 "$BROKER_PID" 2>/dev/null || break; sleep 0.1; done
	kill -9 "$BROKER_PID" 2>/dev/null || true
	wait "$BROKER_PID" 2>/dev/null || true
	BROKER_PID=""
}
# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
	[[ -z $POLLER_PID ]] || kill "$POLLER_PID" 2>/dev/null || true
	stop_broker
	rm -rf -- "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

make_credentials() {
	"$CA" init --dir "$WORK/ca" 2>/dev/null
	"$CA" host --dir "$WORK/ca" --name localhost --ip 127.0.0.1 --out "$WORK/broker" 2>/dev/null
	"$CA" host --dir "$WORK/ca" --name gw-a --out "$WORK/gw-a" 2>/dev/null
	"$CA" host --dir "$WORK/ca" --name gw-b --out "$WORK/gw-b" 2>/dev/null
	"$CA" user --dir "$WORK/ca" --name "Bench User" --out "$WORK/user" 2>/dev/null
	"$CA" grid-mapfile-line "$WORK/user-cert.pem" benchuser >"$WORK/grid-mapfile"
	printf 'frontend "/O=Grid/OU=qcg-ompi/CN=host/gw-*"\n' >"$WORK/broker.acl"
}

# max_keep_alive: the broker closes a connection after this many requests; set above any run's
# count so that the keep-alive runs measure one TLS handshake per client, as intended.
# max_unauthenticated_per_address: every client here comes from 127.0.0.1, and N of them start
# their handshakes at once; the default (16, against one address flooding the broker with
# silent connections) closed the rest, and N = 64 failed its warm-up. At least 10: the
# keep-alive check and the contrast rows use 8 clients.
write_config() {
	{
		genconf_broker 127.0.0.1:0 "$WORKERS" "$WORK/broker.db" "$WORK/broker.acl" \
			"$WORK/grid-mapfile"
		genconf_soap_tunables "" "" "" 1000000
		printf 'max_unauthenticated_per_address = %s\n' "$((MAX_CLIENTS > 8 ? MAX_CLIENTS + 2 : 10))"
		[[ -z $LINGER_US ]] || printf 'keep_alive_linger_us = %s\n' "$LINGER_US"
		[[ -z $MAX_SERVING ]] || printf 'max_serving = %s\n' "$MAX_SERVING"
		genconf_log_level warn
		genconf_tls "$WORK/broker-cert.pem" "$WORK/broker-key.pem" "$WORK/ca/certificates"
	} >"$WORK/broker.conf"
}

# start_broker LOG-LEVEL: start qcg-broker and set URL once its port is known.
start_broker() {
	rm -f "$WORK/port"
	"$BROKER" -c "$WORK/broker.conf" -s "broker.log_level=$1" --port-file "$WORK/port" \
		>"$WORK/broker-$1.log" 2>&1 &
	BROKER_PID=$!
	for _ in $(seq 100); do [[ -s $WORK/port ]] && break; sleep 0.1; done
	[[ -s $WORK/port ]] || { cat "$WORK/broker-$1.log" >&2; die "qcg-broker did not start"; }
	URL="https://localhost:$(cat "$WORK/port")/"
}

# call WHO OP ARGS...: one set-up call with WHO's certificate; any failure ends the script.
# call_as WHO OP ARGS...: one broker_call with WHO's certificate; its output and status.
call_as() {
	local who=$1; shift
	"$CALL" --broker "$URL" --cert "$WORK/$who-cert.pem" --key "$WORK/$who-key.pem" \
		--ca-dir "$WORK/ca/certificates" "$@"
}

call() { call_as "$@" >/dev/null || die "set-up call ${*:2} failed"; }

set_up_grid() {
	call gw-a register-cluster site-a open 198.51.100.10 10.1.0.0/16
	call gw-b register-cluster site-b nat 203.0.113.20 10.2.0.0/16 traversal
	call user record-job bench-job
	call gw-a register-ap bench-job site-a a1 10.1.0.11 5000
	call gw-b register-ap bench-job site-b b1 10.2.0.21 5001
}

# bench WHO ARGS...: run bench-broker as WHO's front-end; prints its RESULT line.
bench() {
	local who=$1; shift
	"$BENCH" --broker "$URL" --cert "$WORK/$who-cert.pem" --key "$WORK/$who-key.pem" \
		--ca-dir "$WORK/ca/certificates" --job bench-job "$@" >"$WORK/bench.out" || true
	sed -n 's/^  FLAGGED: /FLAGGED: /p; s/^  first error/first error/p' "$WORK/bench.out" >&2
	grep '^RESULT ' "$WORK/bench.out" || die "bench-broker gave no result: $(cat "$WORK/bench.out")"
}

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }

# The broker's CPU time so far (user + system), in clock ticks: the cost per request is less
# at the mercy of the machine's other load than the throughput is.
broker_cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$BROKER_PID/stat"; }
CLK_TCK=$(getconf CLK_TCK)

broker_rss_mib() { awk '/^VmRSS:/ { printf "%d", $2 / 1024 }' "/proc/$BROKER_PID/status"; }

# The broker logs "connection from ADDRESS as DN" (debug) once per TLS connection it accepts;
# that count is the server's view of keep-alive, independent of the benchmark's own. Only that
# line counts: the same words also start the lines of connections that end ("closed before a
# whole request", "closing idle connection from"), which the clients' exit races with.
check_keep_alive() {
	local n=8 result seen counted
	start_broker debug
	set_up_grid
	local before; before=$(grep -c 'connection from .* as ' "$WORK/broker-debug.log" || true)
	result=$(bench gw-b --clients $n --seconds 1 --expect direct)
	seen=$(grep -c 'connection from .* as ' "$WORK/broker-debug.log" || true)
	seen=$((seen - before))
	counted=$(field connections "$result")
	stop_broker
	if [[ $seen != "$n" || $counted != "$n" || $(field flagged "$result") != 0 ]]; then
		die "keep-alive check: $n clients made $seen connections (broker log) / $counted" \
			"(bench-broker), $(field requests "$result") requests"
	fi
	echo "Keep-alive check: $n clients, $(field requests "$result") requests in 1 s, $seen TLS" \
		"connections seen by the broker, $counted counted by bench-broker."
}

# poll_events CLUSTER WHO: WaitEvents as CLUSTER's front-end, one 5 s long poll after another,
# each after the last event seen, until killed.
poll_events() {
	local seq=0 out last
	for ((;;)); do
		out=$(call_as "$2" wait-events "$1" "$seq" 5 2>/dev/null) || sleep 0.2
		last=$(sed -n 's/^event seq=\([0-9]*\).*/\1/p' <<<"$out" | tail -n 1)
		[[ -z $last ]] || seq=$last
	done
}

FLAGGED=0
# row LABEL WHO ARGS...: one benchmark run as a table row.
row() {
	local label=$1 who=$2; shift 2
	local cpu0 cpu1 r
	cpu0=$(broker_cpu_ticks)
	r=$(bench "$who" --seconds "$SECONDS_PER_RUN" "$@")
	cpu1=$(broker_cpu_ticks)
	[[ $(field flagged "$r") == 0 ]] || FLAGGED=1
	printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$(field clients "$r")" \
		"$label" "$(field req_per_s "$r")" "$(field p50_us "$r")" "$(field p90_us "$r")" \
		"$(field p99_us "$r")" "$(field max_us "$r")" "$(field errors "$r")" \
		"$(field connections "$r")" "$(broker_rss_mib)" \
		"$(awk -v t=$((cpu1 - cpu0)) -v hz="$CLK_TCK" -v n="$(field requests "$r")" \
			'BEGIN { if (n > 0) printf "%.1f", t / hz * 1e6 / n; else print "-" }')" \
		"$(field fewest "$r")/$(field most "$r")"
}

make_credentials
write_config
check_keep_alive
start_broker warn
echo "Broker: $WORKERS workers, log level warn, max_keep_alive 1000000; $SECONDS_PER_RUN s per run;" \
	"$(nproc) CPUs shared by broker and clients."
echo
echo '| N | Resolve | req/s | p50 µs | p90 µs | p99 µs | max µs | errors | TLS connections | broker RSS MiB | broker CPU µs/req | fewest/most per client |'
echo '|---|---|---|---|---|---|---|---|---|---|---|---|'
for n in $CLIENTS_LIST; do
	row "nat→open (direct), keep-alive" gw-b --clients "$n" --expect direct
	[[ $REPLAY == 0 ]] || row "nat→open (direct), keep-alive, replayed" gw-b --clients "$n" \
		--expect direct --replay
done
if [[ $CONTRAST == 1 ]]; then
	# A reversal needs the target cluster's front-end alive, as the broker knows it: polling
	# WaitEvents (else "withdrawn ... nobody there would take part"). gw-b polls as a
	# front-end does, taking the row's events as they come; its first poll (timeout 0) is
	# answered before the row starts, so the cluster is alive again by then.
	call gw-b wait-events site-b 0 0
	poll_events site-b gw-b &
	POLLER_PID=$!
	row "open→nat (reversal + event), keep-alive" gw-a --clients 8 --from-cluster site-a \
		--from-node a1 --to-address 10.2.0.21 --to-port 5001 --expect reversal
	kill "$POLLER_PID" 2>/dev/null || true
	wait "$POLLER_PID" 2>/dev/null || true
	POLLER_PID=""
	row "nat→open (direct), new TLS connection per call" gw-b --clients 8 --expect direct \
		--new-connection
fi
stop_broker
exit $FLAGGED

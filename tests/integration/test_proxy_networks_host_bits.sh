#!/bin/bash
# test_proxy_networks_host_bits.sh: a qcg-proxy whose proxy.networks names an address rather
# than a network (10.0.0.1/8) refuses to start, naming the file, the line and the reason
# (before lib/cidr it started, and the broker then skipped it without a word); the same
# configuration with the network written right (10.0.0.0/8) starts, so the refusal is the
# CIDR's doing and nothing else's.
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
for prog in services/proxy/qcg-proxy services/broker/qcg-broker; do
	[ -x "$top_builddir/$prog" ] || { echo "SKIP: $prog not built"; exit 77; }
done
. "$top_srcdir/tests/integration/grid_fixture.sh"
trap 'proxy_stop_all; fixture_cleanup' EXIT
D=$FIXTURE_DIR

fixture_init
broker_start

write_proxy_conf "$D/bad.conf" proxy-1 10.0.0.1/8 ""
line=$(grep -n '^networks = 10.0.0.1/8$' "$D/bad.conf" | cut -d: -f1)
[ -n "$line" ] || { echo "the fixture wrote no networks line: $(cat "$D/bad.conf")"; exit 99; }
# A refusal is immediate; 60 s only proves that it does not hang instead.
timeout 60 "$QCG_PROXY" --config "$D/bad.conf" >"$D/bad.log" 2>&1
rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] &&
	grep -q "$D/bad.conf:$line: proxy.networks: host bits set in 10.0.0.1/8 (the network is 10.0.0.0/8)" "$D/bad.log"; then
	pass host_bits_refuse_to_start_with_file_line_and_reason
else
	fail host_bits_refuse_to_start_with_file_line_and_reason "exit $rc: $(cat "$D/bad.log")"
fi
[ -e "$D/bad.conf.ready" ] && fail refused_proxy_wrote_no_ready_file "$D/bad.conf.ready exists"

write_proxy_conf "$D/good.conf" proxy-1 10.0.0.0/8 ""
proxy_start "$D/good.conf" "$D/good.log" # exits 99 with the log unless it starts
kill -0 "$PROXY_PID" && pass the_network_written_right_starts ||
	fail the_network_written_right_starts "$(cat "$D/good.log")"
fixture_exit

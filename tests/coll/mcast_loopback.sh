#!/bin/sh
# The multicast broadcast (paper 001) over real UDP/IP multicast, in a network namespace this
# test makes for itself (unshare -n: only its own loopback, multicast on, 239.0.0.0/8 routed
# there), so no datagram can reach any other network. Synthetic topology: two sites, clusters
# of 4 and 3 ranks (on separate "nodes"), so qcg is selected and each cluster runs its own
# multicast. Forced on (coll_qcg_mcast=on, random groups from 239.255.0.0/16) for every size up
# to 1 MiB, every root, contiguous and vector datatypes. Then the loss cases: the multicast root
# drops 50 % and then 100 % of its datagrams, and the ring must still deliver every byte.
# Each run's counters (verbose 10 at communicator free) prove which path carried the data.
# Last, the InfiniBand transport forced where there is no RDMA device: a stated fallback.
MCAST_NETNS_SHELL=sh . "$top_srcdir/tests/coll/mcast_netns.sh"
. "$top_srcdir/tests/coll/lib.sh"
check=$top_builddir/tests/coll/mcast_check
topo=$qcg_work/two-sites
printf '%s\n' "0 0 0 0" "1 0 0 1" "2 0 0 2" "3 0 0 3" "4 1 1 4" "5 1 1 5" "6 1 1 6" >"$topo"

# run NAME DROP REPEAT [MPIRUN ARGS]: mcast_check with the multicast path forced and DROP %
# loss at the root.
run() {
	out=$qcg_work/$1.out
	name=$1 drop=$2 repeat=$3
	shift 3
	qcg_mpirun 7 --mca coll_qcg_topology_file "$topo" --mca coll_qcg_verbose 10 \
	    --mca coll_qcg_mcast on --mca coll_qcg_mcast_min_bytes 1 \
	    --mca coll_qcg_mcast_max_bytes 1048576 --mca coll_qcg_mcast_drop_percent "$drop" \
	    "$@" "$check" "$repeat" >"$out" 2>&1
	if ! grep -q "^mcast_check: [1-9][0-9]* checks on 7 ranks, 0 failures" "$out"; then
		echo "FAIL: $name: mcast_check reported failures or did not finish:"
		grep -v "coll:qcg: comm\|mcast: [0-9]* broadcasts" "$out" | head -40
		exit 1
	fi
	# Both clusters set up a group, once per communicator (world and its dup).
	expect_count 4 "mcast: cluster of [34]: group 239\.255\.[0-9.]* port [0-9]* (random)" "$out"
}

# sum FIELD FILE: the total of one counter over every rank's summary line.
sum() {
	sed -n "s/.*mcast: [0-9]* broadcasts: \([0-9]*\) fragments by multicast, \([0-9]*\) by the ring; sent \([0-9]*\) datagrams, dropped \([0-9]*\).*/\\$1/p" "$2" |
	    awk '{ s += $1 } END { print s + 0 }'
}

run no-loss 0 3
mc=$(sum 1 "$out") ring=$(sum 2 "$out")
echo "no loss: $mc fragments by multicast, $ring by the ring"
[ "$mc" -gt 0 ] || { echo "FAIL: no fragment arrived by multicast without loss"; exit 1; }
[ "$mc" -gt "$ring" ] || echo "NOTE: the ring carried more than the multicast (busy machine)"

run half-lost 50 2
mc=$(sum 1 "$out") ring=$(sum 2 "$out") dropped=$(sum 4 "$out") sent=$(sum 3 "$out")
echo "50 % dropped: $dropped of $((dropped + sent)) datagrams dropped; $mc fragments by multicast, $ring by the ring"
[ "$ring" -gt 0 ] || { echo "FAIL: the ring repaired nothing although half was dropped"; exit 1; }
[ "$mc" -gt 0 ] || { echo "FAIL: nothing arrived by multicast at 50 % loss"; exit 1; }
[ "$dropped" -gt 0 ] || { echo "FAIL: the drop knob dropped nothing"; exit 1; }

run all-lost 100 1
mc=$(sum 1 "$out") ring=$(sum 2 "$out")
echo "100 % dropped: $mc fragments by multicast, $ring by the ring"
[ "$mc" = 0 ] || { echo "FAIL: $mc fragments arrived by multicast although all were dropped"; exit 1; }
[ "$ring" -gt 0 ] || { echo "FAIL: the ring carried nothing"; exit 1; }
# The root-delay options: a fixed sleep, and the wait for one pseudo-randomly drawn receiver
# (every process must draw the same one, or the root waits forever: the timeout would fail it).
# Small fragments and ring pieces exercise many datagrams and chunks per call.
run delay-fixed 0 1 --mca coll_qcg_mcast_delay fixed --mca coll_qcg_mcast_root_delay_us 200
run delay-sync 20 1 --mca coll_qcg_mcast_delay sync --mca coll_qcg_mcast_frag_size 256 \
    --mca coll_qcg_mcast_ring_bytes 1000
echo "root delays fixed and sync: correct"

# The InfiniBand transport where there is no RDMA device (as here): every cluster says why and
# falls back to its ordinary broadcast, and the results stay exact.
out=$qcg_work/verbs-fallback.out
qcg_mpirun 7 --mca coll_qcg_topology_file "$topo" --mca coll_qcg_verbose 10 \
    --mca coll_qcg_mcast on --mca coll_qcg_mcast_transport verbs \
    --mca coll_qcg_mcast_interface 127.0.0.1 "$check" 1 >"$out" 2>&1
grep -q "^mcast_check: [1-9][0-9]* checks on 7 ranks, 0 failures" "$out" ||
	{ echo "FAIL: verbs fallback: mcast_check failed:"; head -40 "$out"; exit 1; }
grep -q "mcast: .*\(rdma\|RDMA\).*; this cluster uses the ordinary broadcast" "$out" ||
	{ echo "FAIL: verbs fallback: no reason given:"; grep "mcast" "$out" | head; exit 1; }
[ "$(sum 1 "$out")" = 0 ] || { echo "FAIL: verbs fallback: fragments arrived by multicast"; exit 1; }
echo "transport verbs without an RDMA device: $(grep -o 'mcast: [^;]*; this cluster uses the ordinary broadcast' "$out" | head -1)"
grep -h "^mcast_check:" "$qcg_work"/*.out

#!/bin/sh
# The automatic choice of algorithm (issue 22) on loopback, 2 sites x 2 nodes (8 ranks, a
# topology file): the links are measured once, at the first collective that needs a choice
# (rank 0 prints them; later communicators take them), never in a job that calls no
# collective (a probe in MPI_Init cost 0.3-2.2 s of start-up), every collective and size
# class gets one verbose line naming its choice and the predicted times (every collective checked), the large alltoall
# (64 KiB blocks: 21x tuned when aggregated here) goes to tuned, and the results stay exact whatever was
# chosen. Then a forced choice and the probe switched off.
. "$top_srcdir/tests/coll/lib.sh"
for qcg_c in $qcg_colls; do
	unset "OMPI_MCA_coll_qcg_${qcg_c}_algorithm"
done
qcg_topology_2x2
out=$qcg_work/out
qcg_mpirun 8 --mca coll_qcg_topology_file "$topo" --mca coll_qcg_verbose 10 \
    "$top_builddir/tests/coll/coll_check" >"$out" 2>&1
expect_clean "$out"
expect_count 1 "coll:qcg: links: wan  one-way latency .* us, bandwidth .* MB/s one pair" "$out"
expect_count 1 "coll:qcg: links: host one-way latency" "$out"
expect_count 1 "coll:qcg: links: node one-way latency" "$out"
expect_count 1 "coll:qcg: links: lan  not in this job" "$out"
expect_count 1 "coll:qcg: links: comm 0 probes them at its first collective that needs a choice" "$out"
# On one host tuned wins every collective at every size, as the links are measured on an idle
# machine: once they are agreed each collective is handed over for good (its calls then never
# pass through qcg), with one line from rank 0 naming the predictions behind it. Under load the
# probe may see a descheduling as a slower "WAN" and the model then keep a collective for some
# size: that collective prints a line per size class instead. Either way every collective's
# choice names the predicted times behind it, and the large alltoall (64 KiB blocks: 21x tuned
# when aggregated here) goes to tuned.
for qcg_c in $qcg_colls; do
	if ! grep -Eq "choice: comm 0 $qcg_c: tuned at every size, its calls go to it directly from now on \((predicted: tuned [0-9.]+ us, multilevel [0-9.]+ us|predicted at 8 B: tuned [0-9.]+ us, multilevel [0-9.]+ us; predicted at 65536 B: tuned [0-9.]+ us, multilevel [0-9.]+ us; predicted at 1048576 B: tuned [0-9.]+ us, multilevel [0-9.]+ us|sizes differ by rank: links alone; predicted at 1 MiB per rank: tuned [0-9.]+ us, multilevel [0-9.]+ us)\)|choice: comm 0 $qcg_c ([0-9]+ B \(class [0-9]+\)|\(sizes differ by rank: links alone\)): (tuned|multilevel|segmented); predicted (at 1 MiB per rank: )?tuned [0-9.]+ us, multilevel [0-9.]+ us" "$out"; then
		echo "FAIL: no choice of $qcg_c with its predicted times"
		grep "choice: comm 0 $qcg_c" "$out" | head -5
		exit 1
	fi
done
if ! grep -Eq "choice: comm 0 alltoall(: tuned at every size| 65536 B \(class 17\): tuned;)" "$out"; then
	echo "FAIL: alltoall of 64 KiB was not left to tuned"
	grep "choice: comm 0 alltoall" "$out" | head -5
	exit 1
fi
expect_count 0 "coll:qcg: choice: comm [0-9]* [a-z_]* [0-9]* B (class [0-9]*): [a-z]*$" "$out"
# (per process: split communicators of different members may share a context id)
dups=$(grep -o "\[[^]]*\] coll:qcg: choice: comm [0-9]* [a-z_]* [^:]*class [0-9]*" "$out" |
    sort | uniq -d | wc -l)
if [ "$dups" != 0 ]; then
	echo "FAIL: a (communicator, collective, size class) printed its choice more than once"
	exit 1
fi
grep "coll:qcg: links:" "$out" | sed 's/^.*coll:qcg: /    /'

# forced, and no probe: the parameters decide and say so
qcg_mpirun 8 --mca coll_qcg_topology_file "$topo" --mca coll_qcg_verbose 10 \
    --mca coll_qcg_links_probe 0 --mca coll_qcg_alltoall_algorithm multilevel \
    "$top_builddir/tests/coll/coll_check" >"$out" 2>&1
expect_clean "$out"
expect_count 0 "coll:qcg: links: wan" "$out"
expect_count 1 "choice: comm 0 alltoall size class 17: multilevel (forced by coll_qcg_alltoall_algorithm)" "$out"
# no probe: the first call that needs a choice hands every collective but the forced one over
for qcg_c in $qcg_colls; do
	[ "$qcg_c" = alltoall ] && continue
	expect_count 1 "choice: comm 0 $qcg_c: tuned at every size, its calls go to it directly from now on (no link measurements" "$out"
done
expect_count 0 "choice: comm 0 alltoall: tuned at every size" "$out"
grep "^coll_check:" "$out"

# a job that calls no collective: qcg takes the world and measures nothing
qcg_mpirun 8 --mca coll_qcg_topology_file "$topo" --mca coll_qcg_verbose 10 \
    "$top_builddir/bench/launch/init-time" >"$out" 2>&1
expect_count 8 "^init [0-9]" "$out"
expect_count 8 "MPI_COMM_WORLD (cid 0): selected: 2 sites" "$out"
expect_count 0 "coll:qcg: links:" "$out"
echo "ok   no collective, no probe"

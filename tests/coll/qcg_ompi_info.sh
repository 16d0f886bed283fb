#!/bin/sh
# ompi_info loads the uninstalled component and lists every parameter with its help text.
. "$top_srcdir/tests/coll/lib.sh"
out=$qcg_work/ompi_info.txt
ompi_info --param coll qcg --level 9 >"$out" 2>&1
expect_count 1 "MCA coll: qcg (MCA v2.1.0" "$out"
for p in priority verbose topology_file level0_algorithm level1_algorithm level2_algorithm \
    knomial_radix bcast_segsize allreduce_exchange_max alltoall_max tmp_max_mb discovery discovery_pings \
    discovery_max_nodes discovery_floor_us discovery_ratio links_probe links_probe_kb \
    verify_bytes verify_margin \
    bcast_algorithm reduce_algorithm allreduce_algorithm barrier_algorithm gather_algorithm \
    scatter_algorithm allgather_algorithm alltoall_algorithm reduce_scatter_algorithm \
    scan_algorithm gatherv_algorithm scatterv_algorithm allgatherv_algorithm \
    alltoallv_algorithm; do
	expect_count 1 "parameter \"coll_qcg_$p\"" "$out"
done
expect_count 3 'Valid values: 0:"flat", 1:"binomial", 2:"knomial"' "$out"
expect_count 14 'Valid values: 0:"auto", 1:"tuned", 2:"multilevel"' "$out"
expect_count 1 "Priority of the qcg coll component on communicators that span more than one" "$out"
echo "PASS: ompi_info lists coll qcg and its 34 parameters"

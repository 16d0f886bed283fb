# bench/coll: collectives benchmark (issue 7): qcg vs tuned vs han on one job.
# Built with everything; run by hand (not part of make check): bench/coll/run_coll_bench.sh
noinst_PROGRAMS += bench/coll/coll_bench
bench_coll_coll_bench_SOURCES = bench/coll/coll_bench.c bench/coll/coll_clock.c \
	bench/coll/coll_clock.h
bench_coll_coll_bench_CPPFLAGS = $(AM_CPPFLAGS) $(OMPI_CFLAGS)
bench_coll_coll_bench_LDADD = $(OMPI_LIBS) -lm
EXTRA_DIST += bench/coll/run_coll_bench.sh bench/coll/run_coll_testbed.sh bench/coll/README.md
EXTRA_DIST += bench/coll/median_ratios.sh
# GridMPI's trunking experiment (issue 20): all-to-all through K rate-capped WAN proxies.
EXTRA_DIST += bench/coll/trunk.sh bench/coll/trunk_alltoall.c

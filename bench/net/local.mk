# bench/net: libqcgnet methods, setup, trunking and startup on the testbed (issue 5).
# Built with everything; run by hand as root (not part of make check): bench/net/run_net_bench.sh
noinst_PROGRAMS += bench/net/net_bench
bench_net_net_bench_SOURCES = bench/net/net_bench.c
bench_net_net_bench_CPPFLAGS = $(AM_CPPFLAGS) $(OMPI_CFLAGS)
bench_net_net_bench_LDADD = $(OMPI_LIBS)
EXTRA_DIST += bench/net/run_net_bench.sh bench/net/net_parts.sh bench/net/net_report.sh \
	bench/net/README.md bench/net/net_bench.png bench/net/results/summary.txt \
	bench/net/results/methods.txt bench/net/results/trunk.txt bench/net/results/startup.txt \
	bench/net/results/profile.txt bench/net/results/all-fixes/summary.txt \
	bench/net/results/all-fixes/methods.txt bench/net/results/all-fixes/trunk.txt \
	bench/net/results/all-fixes/startup.txt bench/net/results/all-fixes/profile.txt

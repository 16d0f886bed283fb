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
# The resumable relayed stream (issue 14) against the plain relay, on loopback through real
# qcg-proxies: latency, bandwidth, kill to first byte. Run by hand (bench/net/README.md).
noinst_PROGRAMS += bench/net/resume_bench
bench_net_resume_bench_SOURCES = bench/net/resume_bench.c \
	mpi-glue/net/qcgnet_resume_stream.c mpi-glue/net/qcgnet_resume_frame.c \
	mpi-glue/net/qcgnet_resume_send.c mpi-glue/net/qcgnet_resume_recv.c \
	mpi-glue/net/qcgnet_real.c $(PROXY_TEST_UTIL)
bench_net_resume_bench_CPPFLAGS = $(PROXY_TEST_CPPFLAGS) -I$(top_srcdir)/mpi-glue/net \
	-I$(top_srcdir)/tests/integration
bench_net_resume_bench_LDADD = $(PROXY_TEST_LDADD) -ldl
EXTRA_DIST += bench/net/results/resume.txt

# bench/relay: proxy relay benchmark (issue 3).
# Built by `make`, run by hand with bench/relay/run.sh; not part of `make check`.
noinst_PROGRAMS += bench/relay/relay_bench
bench_relay_relay_bench_SOURCES = bench/relay/relay_bench.c
bench_relay_relay_bench_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/services/proxy
bench_relay_relay_bench_LDADD = services/proxy/librelay.a lib/libqcgcommon.a -lpthread
EXTRA_DIST += bench/relay/run.sh bench/relay/README.md

# bench/relay: proxy relay benchmark (issue 3).
# Built by `make`, run by hand with bench/relay/run.sh; not part of `make check`.
noinst_PROGRAMS += bench/relay/relay_bench
bench_relay_relay_bench_SOURCES = bench/relay/relay_bench.c
bench_relay_relay_bench_CPPFLAGS = $(AM_CPPFLAGS) $(QCG_PROTO_CPPFLAGS)
bench_relay_relay_bench_LDADD = $(QCG_PROTO_LIBS) -lpthread
EXTRA_DIST += bench/relay/run.sh bench/relay/README.md

# bench/: benchmarks and their reports. Benchmark programs are noinst (never installed) and not
# tests: each folder's run.sh drives them and its README.md holds the numbers.

# bench/broker: Resolve requests per second and latency under N concurrent TLS clients (issue 2).
noinst_PROGRAMS += bench/broker/bench-broker
bench_broker_bench_broker_SOURCES = bench/broker/bench_broker.c bench/broker/replay.c \
	bench/broker/replay.h
bench_broker_bench_broker_CPPFLAGS = $(AM_CPPFLAGS) $(QCG_SOAP_CPPFLAGS)
bench_broker_bench_broker_LDADD = $(QCG_SOAP_LIBS) -lpthread
EXTRA_DIST += bench/broker/run.sh bench/broker/README.md bench/broker/edge.sh \
	bench/broker/compare.sh
EXTRA_DIST += bench/fuzz/run.sh bench/fuzz/README.md bench/fuzz/make_soap_seeds.py

# bench/scale: the set-up storm (issue 15): P simulated ranks over S clusters against the real
# broker, front-ends and helpers on loopback; run.sh drives it, README.md holds the numbers.
noinst_PROGRAMS += bench/scale/scale-ranks
bench_scale_scale_ranks_SOURCES = bench/scale/scale_ranks.c
bench_scale_scale_ranks_CPPFLAGS = $(AM_CPPFLAGS) $(QCG_PROTO_CPPFLAGS)
bench_scale_scale_ranks_LDADD = $(QCG_PROTO_LIBS) -lpthread
EXTRA_DIST += bench/scale/run.sh bench/scale/storm.sh bench/scale/README.md \
	bench/scale/plot.sh bench/scale/results-h15.txt bench/scale/scale.png
# The tenth session's table (the helpers keep the pairs too).
EXTRA_DIST += bench/scale/results-paircache.txt
# The eleventh session's (access points keyed by listener).
EXTRA_DIST += bench/scale/results-listener-key.txt

# bench/launch: startup time, qcg-submit vs plain mpirun on the same testbed hosts (issue 6).
noinst_PROGRAMS += bench/launch/init-time
bench_launch_init_time_SOURCES = bench/launch/init_time.c
bench_launch_init_time_CPPFLAGS = $(AM_CPPFLAGS) $(OMPI_CFLAGS)
bench_launch_init_time_LDADD = $(OMPI_LIBS)
EXTRA_DIST += bench/launch/run.sh bench/launch/pingpong.sh bench/launch/privsep.sh bench/launch/README.md \
	bench/launch/profile.sh bench/launch/results/run-topology-20261127-0654.txt \
	bench/launch/results/run-topology-both-20261127-0700.txt
EXTRA_DIST += bench/launch/slurm.sh
EXTRA_DIST += bench/launch/common.sh
# The Slurm-vs-builtin figures README.md quotes (issue 16).
EXTRA_DIST += bench/launch/results/slurm-20261126-1338.txt bench/launch/results/slurm-20261126-1344.txt
EXTRA_DIST += bench/launch/in_job.sh
# The staging-throughput figures README.md quotes (issue 12; bench/stage/run.sh).
EXTRA_DIST += bench/launch/results/stage-20261126-1651.txt \
	bench/launch/results/stage-20261126-1722.txt \
	bench/launch/results/in_job-24-20261126-1730.txt
# Where a 24-rank start-up goes (issue 15): the script and the figures README.md quotes.
EXTRA_DIST += bench/launch/timeline.sh bench/launch/results/timeline-24-20261126-2322.txt \
	bench/launch/results/timeline-24-20261126-2332.txt \
	bench/launch/results/timeline-24-onc-20261126-2333.txt \
	bench/launch/results/timeline-24-20261126-2338.txt

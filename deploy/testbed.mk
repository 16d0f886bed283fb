# deploy/: qcg-testbed and its delay line (issue 4).

# qcg-delayline: the userspace WAN emulator (the kernel has no netem).
sbin_PROGRAMS += deploy/qcg-delayline
deploy_qcg_delayline_SOURCES = \
	deploy/delayline/delayline_main.c \
	deploy/delayline/dl_conf.c deploy/delayline/dl_conf.h \
	deploy/delayline/dl_frame.c deploy/delayline/dl_frame.h \
	deploy/delayline/dl_line.c deploy/delayline/dl_line.h \
	deploy/delayline/dl_port.c deploy/delayline/dl_port.h \
	deploy/delayline/dl_sched.c deploy/delayline/dl_sched.h
deploy_qcg_delayline_LDADD = lib/libqcgcommon.a -lm

# The delay line's timing model and command line, tested without sockets or root.
check_PROGRAMS += tests/testbed/delayline_unit
TESTS += tests/testbed/delayline_unit
tests_testbed_delayline_unit_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/deploy/delayline
tests_testbed_delayline_unit_SOURCES = tests/testbed/delayline_unit.c \
	deploy/delayline/dl_conf.c deploy/delayline/dl_frame.c deploy/delayline/dl_sched.c
tests_testbed_delayline_unit_LDADD = lib/libqcgcommon.a -lm

# The initiator's side of a connection through a node's real qcg-helper, relay legs included
# (services.test and examples/demo-grid.sh; helper_local plays the target).
check_PROGRAMS += tests/testbed/tb_connect
tests_testbed_tb_connect_SOURCES = tests/testbed/tb_connect.c
tests_testbed_tb_connect_CPPFLAGS = $(HELPER_TEST_CPPFLAGS)
tests_testbed_tb_connect_LDADD = $(QCG_PROTO_LIBS) lib/libqcgcommon.a

# qcg-testbed: a whole grid on one machine (network namespaces, the delay line on the WAN).
dist_sbin_SCRIPTS += deploy/qcg-testbed
# Its parts, sourced by qcg-testbed, found next to it or in $(pkgdatadir): the host table, the
# network plumbing, process supervision, the services, and up --separate-fs.
dist_pkgdata_DATA += deploy/testbed-plan.sh deploy/testbed-net.sh deploy/testbed-proc.sh \
	deploy/testbed-services.sh deploy/testbed-fs.sh
EXTRA_DIST += deploy/README-testbed.md

# Testbed tests: root only (they skip with 77 otherwise); each brings its own testbed up in a
# fresh directory and always takes it down. They run one at a time (a lock in lib.sh).
TESTBED_TESTS = \
	tests/testbed/reachability.test \
	tests/testbed/overlap.test \
	tests/testbed/delay.test \
	tests/testbed/rate.test \
	tests/testbed/mpi.test \
	tests/testbed/cleanup.test \
	tests/testbed/delayline_idle.test \
	tests/testbed/services.test \
	tests/testbed/privsep.test
# Slurm under a front-end (issue 16); skips without Debian's slurm-wlm and munge.
TESTBED_TESTS += tests/testbed/slurm.test
# Sites of several clusters: three latency tiers (issue 20).
TESTBED_TESTS += tests/testbed/sites.test
# The WAN proxies' own rate cap (up --proxy-rate), for the trunking benchmark (issue 20).
TESTBED_TESTS += tests/testbed/proxy_rate.test
TESTS += $(TESTBED_TESTS)
EXTRA_DIST += $(TESTBED_TESTS) tests/testbed/lib.sh tests/testbed/matrix.sh tests/testbed/tbtool.py \
	tests/testbed/mpi_hosts.c tests/testbed/grid.sh
EXTRA_DIST += tests/testbed/own_session.sh

# Slurm on chosen testbed sites (`up --slurm`), sourced by qcg-testbed like qcg-genconf.sh.
dist_pkgdata_DATA += deploy/testbed-slurm.sh

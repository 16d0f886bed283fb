# mpi-glue/net: libqcgnet.so and its tests (issue 5).

# --- net/: libqcgnet.so, the socket shim preloaded into mpirun, orted and ranks (issue 5) ------
# Inert unless QCG_NET=1; see mpi-glue/net/README.md. It carries the helper's client library
# (proto/: libc only, PIC) inside, so the preload is one file.
lib_LTLIBRARIES += mpi-glue/net/libqcgnet.la
mpi_glue_net_libqcgnet_la_SOURCES = \
	mpi-glue/net/qcgnet.h \
	mpi-glue/net/qcgnet_real.c \
	mpi-glue/net/qcgnet_state.c \
	mpi-glue/net/qcgnet_fdtab.c \
	mpi-glue/net/qcgnet_ports.c \
	mpi-glue/net/qcgnet_listen.c \
	mpi-glue/net/qcgnet_accept.c \
	mpi-glue/net/qcgnet_connect.c \
	mpi-glue/net/qcgnet_method.c \
	mpi-glue/net/qcgnet_origin.c \
	mpi-glue/net/qcgnet_wrap.c \
	mpi-glue/net/qcgnet_setpgid.c \
	lib/model.c
# Relay failover (issue 14): resumable relays keep their leg in the resumable stream.
mpi_glue_net_libqcgnet_la_SOURCES += mpi-glue/net/qcgnet_resume.c \
	mpi-glue/net/qcgnet_resume_stream.c mpi-glue/net/qcgnet_resume_stream.h \
	mpi-glue/net/qcgnet_resume_send.c mpi-glue/net/qcgnet_resume_recv.c \
	mpi-glue/net/qcgnet_resume_frame.c mpi-glue/net/qcgnet_resume_frame.h lib/relay_id.c
mpi_glue_net_libqcgnet_la_CPPFLAGS = $(AM_CPPFLAGS) $(QCG_PROTO_CPPFLAGS)
# Only the wrapped libc functions leave the library: its internals (and the helper client inside
# it) must not interpose on anything of the program it is preloaded into.
mpi_glue_net_libqcgnet_la_LDFLAGS = -module -avoid-version -shared -no-undefined -Wl,-z,defs \
	-export-symbols-regex '^(accept|accept4|bind|close|connect|epoll_ctl|getpeername|listen|poll|read|__read_chk|readv|recv|__recv_chk|recvfrom|recvmsg|send|sendmsg|setpgid|setsockopt|shutdown|write|writev)$$'
mpi_glue_net_libqcgnet_la_LIBADD = $(QCG_PROTO_LIBS) lib/libqcgbase.la -ldl -lpthread
EXTRA_DIST += mpi-glue/net/README.md

# tests/net: plm_rsh's setpgid race, played with and without the library.
check_PROGRAMS += tests/net/setpgid_race
tests_net_setpgid_race_SOURCES = tests/net/setpgid_race.c
TESTS += tests/net/test_qcgnet_setpgid.sh
EXTRA_DIST += tests/net/test_qcgnet_setpgid.sh

# tests/net: a plain-sockets probe under LD_PRELOAD with the real services on loopback.
check_PROGRAMS += tests/net/qcgnet_probe
tests_net_qcgnet_probe_SOURCES = tests/net/qcgnet_probe.c
TESTS += tests/net/test_qcgnet_inert.sh tests/net/test_qcgnet_loopback.sh
EXTRA_DIST += tests/net/test_qcgnet_inert.sh tests/net/test_qcgnet_loopback.sh
# Connects inside a cluster decided on the node, with no Resolve (issue 15).
TESTS += tests/net/test_qcgnet_direct.sh tests/net/test_helper_register_bulk.sh
EXTRA_DIST += tests/net/test_qcgnet_direct.sh tests/net/test_helper_register_bulk.sh
# Decisions cached per cluster pair at the front-end (issue 15).
TESTS += tests/net/test_pair_cache.sh tests/net/test_pair_cache_proxy.sh
EXTRA_DIST += tests/net/test_pair_cache.sh tests/net/test_pair_cache_proxy.sh
# The all-pairs MPI program (issue 5): every pair both ways, 1 B..4 MiB, checksummed.
check_PROGRAMS += tests/net/allpairs
tests_net_allpairs_SOURCES = tests/net/allpairs.c
tests_net_allpairs_CPPFLAGS = $(AM_CPPFLAGS) $(OMPI_CFLAGS)
tests_net_allpairs_LDADD = $(OMPI_LIBS)
TESTS += tests/net/test_qcgnet_mpi_loopback.sh
EXTRA_DIST += tests/net/test_qcgnet_mpi_loopback.sh
# qcg-rsh's per-node environment (launcher/rsh_map.c): the node's window, never mpirun's.
check_PROGRAMS += tests/net/test_rsh_node_env
tests_net_test_rsh_node_env_SOURCES = tests/net/test_rsh_node_env.c launcher/rsh_map.c
tests_net_test_rsh_node_env_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/launcher \
	-I$(top_srcdir)/tests/unit
TESTS += tests/net/test_rsh_node_env
# The four-site testbed job (issue 5): mpirun on host user, qcg-rsh, the preload; and its
# variants (same private range with traversal, broker loss, fall-through). Shared steps in
# tests/net/net4.sh.
# Each takes 35-110 s after the testbed lock on the shared machine (mpirun 25-75 s).
TESTS += tests/net/qcgnet_4sites.test tests/net/qcgnet_overlap.test \
	tests/net/qcgnet_brokerloss.test tests/net/qcgnet_fallthrough.test
EXTRA_DIST += tests/net/net4.sh tests/net/qcgnet_4sites.test tests/net/qcgnet_overlap.test \
	tests/net/qcgnet_brokerloss.test tests/net/qcgnet_fallthrough.test

# Relay failover (issue 14): the resumable stream's codec and I/O thread, and their tests.
# test_resume_frame: the pure codec and replay arithmetic. test_resume_failover: 100 MiB through
# real qcg-proxies on loopback, the active one SIGKILLed 5 times with another standing by.
check_PROGRAMS += tests/net/test_resume_frame
tests_net_test_resume_frame_SOURCES = tests/net/test_resume_frame.c \
	mpi-glue/net/qcgnet_resume_frame.c mpi-glue/net/qcgnet_resume_frame.h
tests_net_test_resume_frame_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/mpi-glue/net \
	-I$(top_srcdir)/tests/unit
TESTS += tests/net/test_resume_frame
check_PROGRAMS += tests/net/test_resume_failover
tests_net_test_resume_failover_SOURCES = tests/net/test_resume_failover.c \
	mpi-glue/net/qcgnet_resume_stream.c mpi-glue/net/qcgnet_resume_stream.h \
	mpi-glue/net/qcgnet_resume_frame.c mpi-glue/net/qcgnet_resume_frame.h $(PROXY_TEST_UTIL)
tests_net_test_resume_failover_CPPFLAGS = $(PROXY_TEST_CPPFLAGS) -I$(top_srcdir)/mpi-glue/net \
	-I$(top_srcdir)/tests/integration
tests_net_test_resume_failover_LDADD = $(PROXY_TEST_LDADD)
TESTS += tests/net/test_resume_failover
# test_resume_interposed: the same program with the application's sends interposed
# (qcgnet_resume_send.c, as under the preload): bytes framed on the application's thread and
# bytes through the socketpair mix across the kills, and must still arrive once and in order.
check_PROGRAMS += tests/net/test_resume_interposed
tests_net_test_resume_interposed_SOURCES = $(tests_net_test_resume_failover_SOURCES) \
	mpi-glue/net/qcgnet_resume_send.c mpi-glue/net/qcgnet_resume_recv.c \
	mpi-glue/net/qcgnet_real.c
tests_net_test_resume_interposed_CPPFLAGS = $(tests_net_test_resume_failover_CPPFLAGS) \
	-DRESUME_INTERPOSED
tests_net_test_resume_interposed_LDADD = $(PROXY_TEST_LDADD) -ldl
TESTS += tests/net/test_resume_interposed
# ... and so with the process bound to one CPU, where a send waits for the held stream.
TESTS += tests/net/test_resume_interposed_bound.sh
EXTRA_DIST += tests/net/test_resume_interposed_bound.sh
# test_resume_refuse: a hand-played far end that lies (garbage, gaps, forged identity, acks
# of unsent bytes) fails the stream; an honest replay is delivered once.
check_PROGRAMS += tests/net/test_resume_refuse
tests_net_test_resume_refuse_SOURCES = tests/net/test_resume_refuse.c \
	mpi-glue/net/qcgnet_resume_stream.c mpi-glue/net/qcgnet_resume_stream.h \
	mpi-glue/net/qcgnet_resume_frame.c mpi-glue/net/qcgnet_resume_frame.h
tests_net_test_resume_refuse_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/mpi-glue/net \
	-I$(top_srcdir)/tests/unit $(QCG_PROTO_CPPFLAGS)
tests_net_test_resume_refuse_LDADD = -lpthread
TESTS += tests/net/test_resume_refuse
# What test_qcgnet_loopback.sh and test_qcgnet_direct.sh share (issue 13).
EXTRA_DIST += tests/net/probe_grid.sh

# Relay failover through libqcgnet.so (issue 14): 96 MiB between two NAT sites through real
# proxies, the carrying proxy SIGKILLed twice; no second proxy fails within resume_timeout.
check_PROGRAMS += tests/net/resume_probe
tests_net_resume_probe_SOURCES = tests/net/resume_probe.c
TESTS += tests/net/test_qcgnet_resume.sh
EXTRA_DIST += tests/net/test_qcgnet_resume.sh
# A killed peer is not a broken leg (issue 14): the proxy's peer-gone mark makes the surviving
# end fail at once; a killed proxy still makes both ends ask for a new leg.
check_PROGRAMS += tests/net/test_resume_peer_gone
tests_net_test_resume_peer_gone_SOURCES = tests/net/test_resume_peer_gone.c \
	mpi-glue/net/qcgnet_resume_stream.c mpi-glue/net/qcgnet_resume_stream.h \
	mpi-glue/net/qcgnet_resume_frame.c mpi-glue/net/qcgnet_resume_frame.h $(PROXY_TEST_UTIL)
tests_net_test_resume_peer_gone_CPPFLAGS = $(PROXY_TEST_CPPFLAGS) -I$(top_srcdir)/mpi-glue/net \
	-I$(top_srcdir)/tests/integration
tests_net_test_resume_peer_gone_LDADD = $(PROXY_TEST_LDADD)
TESTS += tests/net/test_resume_peer_gone
# An idle stream costs no CPU (issue 14): open, configured to spin, or closed by its
# application while the peer keeps its end open.
check_PROGRAMS += tests/net/test_resume_idle
tests_net_test_resume_idle_SOURCES = tests/net/test_resume_idle.c \
	mpi-glue/net/qcgnet_resume_stream.c mpi-glue/net/qcgnet_resume_stream.h \
	mpi-glue/net/qcgnet_resume_frame.c mpi-glue/net/qcgnet_resume_frame.h
tests_net_test_resume_idle_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/mpi-glue/net \
	-I$(top_srcdir)/tests/unit $(QCG_PROTO_CPPFLAGS)
tests_net_test_resume_idle_LDADD = -lpthread
TESTS += tests/net/test_resume_idle
# Relay failover on the testbed (issue 14): c's two gateway proxies, one killed under a running
# job of b and c (resume_loop, built with mpicc at run time), a stolen relay id, no second path.
# resume_wan.test: the same with two WAN proxies between two nat sites (no traversal).
TESTS += tests/net/resume_gateway.test tests/net/resume_wan.test
EXTRA_DIST += tests/net/resume_gateway.test tests/net/resume_wan.test tests/net/resume_tb.sh \
	tests/net/resume_loop.c

# The front-end's decisions per cluster pair kept on the helper's node (issue 15).
TESTS += tests/net/test_qcgnet_paircache.sh tests/net/test_qcgnet_first_burst.sh
EXTRA_DIST += tests/net/test_qcgnet_paircache.sh tests/net/test_qcgnet_first_burst.sh
# Listeners of one job on the same port on different nodes and clusters (issue 15).
TESTS += tests/net/test_qcgnet_sameport.sh
EXTRA_DIST += tests/net/test_qcgnet_sameport.sh

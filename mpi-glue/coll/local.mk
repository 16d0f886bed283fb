# mpi-glue/coll: mca_coll_qcg, the topology API (mpi-glue/topo) and their tests (issue 7).

# --- coll/: mca_coll_qcg, an out-of-tree coll component ---------------------------------------
# Installed in $(QCG_COMPONENT_DIR): $(pkglibdir)/openmpi unless configure was given
# --with-ompi-component-dir (Open MPI's own directory, for one). qcg-submit puts that directory
# ahead of Open MPI's own in mca_base_component_path (launcher/submit_run.c).
mcacompdir = $(QCG_COMPONENT_DIR)
mcacomp_LTLIBRARIES = mpi-glue/coll/mca_coll_qcg.la
mpi_glue_coll_mca_coll_qcg_la_SOURCES = \
	mpi-glue/coll/coll_qcg.h \
	mpi-glue/coll/coll_qcg_component.c \
	mpi-glue/coll/coll_qcg_module.c \
	mpi-glue/coll/coll_qcg_topo.c \
	mpi-glue/coll/coll_qcg_discovery.c \
	mpi-glue/coll/coll_qcg_links.c \
	mpi-glue/coll/coll_qcg_decision.c mpi-glue/coll/coll_qcg_decision.h \
	mpi-glue/coll/coll_qcg_choice.c \
	mpi-glue/coll/coll_qcg_verify.c \
	mpi-glue/coll/coll_qcg_subcomms.c \
	mpi-glue/coll/coll_qcg_tree.c \
	mpi-glue/coll/coll_qcg_exchange.c \
	mpi-glue/coll/coll_qcg_chunks.c \
	mpi-glue/coll/coll_qcg_blocks.c \
	mpi-glue/coll/coll_qcg_bcast.c \
	mpi-glue/coll/coll_qcg_reduce.c \
	mpi-glue/coll/coll_qcg_reduce_pipe.c \
	mpi-glue/coll/coll_qcg_reduce_scatter.c \
	mpi-glue/coll/coll_qcg_allreduce.c \
	mpi-glue/coll/coll_qcg_allreduce_seg.c \
	mpi-glue/coll/coll_qcg_allreduce_spread.c \
	mpi-glue/coll/coll_qcg_barrier.c \
	mpi-glue/coll/coll_qcg_gather.c \
	mpi-glue/coll/coll_qcg_scatter.c \
	mpi-glue/coll/coll_qcg_allgather.c \
	mpi-glue/coll/coll_qcg_allgather_seg.c \
	mpi-glue/coll/coll_qcg_allgather_spread.c \
	mpi-glue/coll/coll_qcg_allgatherv.c \
	mpi-glue/coll/coll_qcg_alltoall.c \
	mpi-glue/coll/coll_qcg_alltoallv.c \
	mpi-glue/coll/coll_qcg_gatherv.c \
	mpi-glue/coll/coll_qcg_scatterv.c \
	mpi-glue/coll/coll_qcg_scan.c \
	mpi-glue/topo/qcg_topo_source.c mpi-glue/topo/qcg_topo_source.h \
	mpi-glue/topo/qcg_topo_layout.c mpi-glue/topo/qcg_topo_layout.h \
	mpi-glue/topo/qcg_topo_group.c mpi-glue/topo/qcg_topo_group.h \
	mpi-glue/topo/qcg_topo_fold.c mpi-glue/topo/qcg_topo_fold.h
mpi_glue_coll_mca_coll_qcg_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/mpi-glue/topo \
	$(OMPI_CFLAGS) $(OMPI_INTERNAL_CFLAGS)
mpi_glue_coll_mca_coll_qcg_la_LDFLAGS = -module -avoid-version
mpi_glue_coll_mca_coll_qcg_la_LIBADD = $(OMPI_LIBS) -lm
# The build tree's component directory, holding only the .so (Open MPI trips over libtool's .o
# files in .libs): qcg-submit run from the build tree (tests, the demo) names it to Open MPI as
# it names $(QCG_COMPONENT_DIR) once installed.
noinst_DATA += mpi-glue/coll/components/mca_coll_qcg.so
mpi-glue/coll/components/mca_coll_qcg.so: mpi-glue/coll/mca_coll_qcg.la
	$(AM_V_GEN)$(MKDIR_P) mpi-glue/coll/components && rm -f $@ && \
	ln -s ../.libs/mca_coll_qcg.so $@
CLEANFILES += mpi-glue/coll/components/mca_coll_qcg.so

# --- topo/: libqcgtopo, the topology API for applications -----------------------------------
lib_LTLIBRARIES += mpi-glue/topo/libqcgtopo.la
mpi_glue_topo_libqcgtopo_la_SOURCES = \
	mpi-glue/topo/qcg_topo.c mpi-glue/topo/qcg_topo.h \
	mpi-glue/topo/qcg_topo_source.c mpi-glue/topo/qcg_topo_source.h \
	mpi-glue/topo/qcg_topo_layout.c mpi-glue/topo/qcg_topo_layout.h \
	mpi-glue/topo/qcg_topo_fold.c mpi-glue/topo/qcg_topo_fold.h
mpi_glue_topo_libqcgtopo_la_CPPFLAGS = $(AM_CPPFLAGS) $(OMPI_CFLAGS)
mpi_glue_topo_libqcgtopo_la_LIBADD = $(OMPI_LIBS)
qcgtopoincludedir = $(includedir)
qcgtopoinclude_HEADERS = mpi-glue/topo/qcg_topo.h
EXTRA_DIST += mpi-glue/topo/README.md

# --- tests/coll ----------------------------------------------------------------------------
check_PROGRAMS += tests/coll/test_topo_layout
tests_coll_test_topo_layout_SOURCES = tests/coll/test_topo_layout.c \
	mpi-glue/topo/qcg_topo_source.c mpi-glue/topo/qcg_topo_layout.c mpi-glue/topo/qcg_topo_fold.c
tests_coll_test_topo_layout_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/mpi-glue/topo
TESTS += tests/coll/test_topo_layout
check_PROGRAMS += tests/coll/test_topo_group
tests_coll_test_topo_group_SOURCES = tests/coll/test_topo_group.c mpi-glue/topo/qcg_topo_group.c
tests_coll_test_topo_group_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/mpi-glue/topo
TESTS += tests/coll/test_topo_group
# the choice of algorithm from the links (issue 22): pure C, no MPI
check_PROGRAMS += tests/coll/test_coll_decision
tests_coll_test_coll_decision_SOURCES = tests/coll/test_coll_decision.c \
	mpi-glue/coll/coll_qcg_decision.c mpi-glue/coll/coll_qcg_decision.h
tests_coll_test_coll_decision_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/mpi-glue/coll
tests_coll_test_coll_decision_LDADD = -lm
TESTS += tests/coll/test_coll_decision

# MPI test programs: run under mpirun by the scripts below (they skip, 77, without mpirun).
check_PROGRAMS += tests/coll/coll_check tests/coll/topo_check
tests_coll_coll_check_SOURCES = tests/coll/coll_check.c \
	tests/coll/coll_check_ref.c tests/coll/coll_check_ref.h
tests_coll_coll_check_CPPFLAGS = $(AM_CPPFLAGS) $(OMPI_CFLAGS)
tests_coll_coll_check_LDADD = $(OMPI_LIBS)
tests_coll_topo_check_SOURCES = tests/coll/topo_check.c
tests_coll_topo_check_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/mpi-glue/topo $(OMPI_CFLAGS)
tests_coll_topo_check_LDADD = mpi-glue/topo/libqcgtopo.la $(OMPI_LIBS)
# bench/coll's common clock (per-call latency), checked where the true offsets are known: 0.
check_PROGRAMS += tests/coll/clock_check
tests_coll_clock_check_SOURCES = tests/coll/clock_check.c bench/coll/coll_clock.c \
	bench/coll/coll_clock.h
tests_coll_clock_check_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/bench/coll $(OMPI_CFLAGS)
tests_coll_clock_check_LDADD = $(OMPI_LIBS) -lm
TESTS += \
	tests/coll/qcg_bench_clock.sh \
	tests/coll/qcg_ompi_info.sh \
	tests/coll/qcg_coll_2sites.sh \
	tests/coll/qcg_coll_3sites.sh \
	tests/coll/qcg_coll_1site.sh \
	tests/coll/qcg_coll_trees.sh \
	tests/coll/qcg_topo_api.sh tests/coll/qcg_bench_clock.sh \
	tests/coll/qcg_discovery_testbed.test
TESTS += tests/coll/qcg_coll_choice.sh
EXTRA_DIST += tests/coll/qcg_coll_choice.sh
EXTRA_DIST += tests/coll/lib.sh tests/coll/qcg_ompi_info.sh tests/coll/qcg_coll_2sites.sh \
	tests/coll/qcg_coll_3sites.sh tests/coll/qcg_coll_1site.sh tests/coll/qcg_coll_trees.sh \
	tests/coll/qcg_topo_api.sh tests/coll/qcg_bench_clock.sh \
	tests/coll/qcg_discovery_testbed.test
# A rank that lost the colors its launcher gave the job says so (mpi-glue/topo/README.md).
TESTS += tests/coll/qcg_topo_required.sh
EXTRA_DIST += tests/coll/qcg_topo_required.sh
# The segmented allreduce between site masters (issue 20), forced.
TESTS += tests/coll/qcg_coll_segmented.sh
EXTRA_DIST += tests/coll/qcg_coll_segmented.sh
# Discovery of three tiers on the testbed of sites with several clusters (issue 20).
TESTS += tests/coll/qcg_discovery_tiers.test
EXTRA_DIST += tests/coll/qcg_discovery_tiers.test
# Topologies of any depth, folded to three levels (issue 20).
TESTS += tests/coll/qcg_coll_depth.sh
EXTRA_DIST += tests/coll/qcg_coll_depth.sh
TESTS += tests/coll/qcg_coll_singletons.sh
EXTRA_DIST += tests/coll/qcg_coll_singletons.sh


# --- the multicast broadcast (paper 001) in mca_coll_qcg, see mpi-glue/coll/README.md --------
# The helper's client side is libc-only and position independent: cluster rank 0 asks its
# node's helper for a broker-allocated group through it.
mpi_glue_coll_mca_coll_qcg_la_SOURCES += \
	mpi-glue/coll/coll_qcg_mcast.h mpi-glue/coll/coll_qcg_mcast.c \
	mpi-glue/coll/coll_qcg_mcast_wire.h mpi-glue/coll/coll_qcg_mcast_wire.c \
	mpi-glue/coll/coll_qcg_mcast_socket.c mpi-glue/coll/coll_qcg_mcast_group.c \
	mpi-glue/coll/coll_qcg_mcast_params.c mpi-glue/coll/coll_qcg_mcast_broker.c \
	mpi-glue/coll/coll_qcg_mcast_transport.c
mpi_glue_coll_mca_coll_qcg_la_CPPFLAGS += $(QCG_PROTO_CPPFLAGS)
mpi_glue_coll_mca_coll_qcg_la_LIBADD += $(QCG_PROTO_LIBS)
# random_bytes and cidr (lib/, libc only, PIC): the random group and the range it comes from.
mpi_glue_coll_mca_coll_qcg_la_LIBADD += lib/libqcgbase.la

# tests/coll: the multicast broadcast on loopback, in a network namespace of the test's own.
check_PROGRAMS += tests/coll/mcast_check
tests_coll_mcast_check_SOURCES = tests/coll/mcast_check.c
tests_coll_mcast_check_CPPFLAGS = $(AM_CPPFLAGS) $(OMPI_CFLAGS)
tests_coll_mcast_check_LDADD = $(OMPI_LIBS)
EXTRA_DIST += tests/coll/mcast_loopback.sh tests/coll/mcast_netns.sh
check_PROGRAMS += tests/coll/test_mcast_wire
tests_coll_test_mcast_wire_SOURCES = tests/coll/test_mcast_wire.c mpi-glue/coll/coll_qcg_mcast_wire.c
tests_coll_test_mcast_wire_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/mpi-glue/coll
tests_coll_test_mcast_wire_LDADD = lib/libqcgbase.la
TESTS += tests/coll/test_mcast_wire tests/coll/mcast_loopback.sh
check_PROGRAMS += tests/coll/mcast_group_call
tests_coll_mcast_group_call_SOURCES = tests/coll/mcast_group_call.c
tests_coll_mcast_group_call_CPPFLAGS = $(AM_CPPFLAGS) $(QCG_PROTO_CPPFLAGS)
tests_coll_mcast_group_call_LDADD = $(QCG_PROTO_LIBS)
TESTS += tests/coll/mcast_services.sh
EXTRA_DIST += tests/coll/mcast_services.sh

# bench/coll: the multicast broadcast vs another component's bcast (run by hand:
# bench/coll/mcast_run.sh; built here because bench/coll/local.mk belongs to the coll benchmark).
noinst_PROGRAMS += bench/coll/mcast_bench
bench_coll_mcast_bench_SOURCES = bench/coll/mcast_bench.c
bench_coll_mcast_bench_CPPFLAGS = $(AM_CPPFLAGS) $(OMPI_CFLAGS)
bench_coll_mcast_bench_LDADD = $(OMPI_LIBS)
EXTRA_DIST += bench/coll/mcast_run.sh
# On the testbed (takes its lock): multicast across node namespaces on the site bridges.
TESTS += tests/coll/mcast_testbed.test
EXTRA_DIST += tests/coll/mcast_testbed.test

# The multicast broadcast's InfiniBand UD transport (coll_qcg_mcast_verbs.h), with rdma-core
# when configure found it. Its round trip needs an RDMA device and skips without one.
if HAVE_RDMA
mpi_glue_coll_mca_coll_qcg_la_SOURCES += \
	mpi-glue/coll/coll_qcg_mcast_verbs.h mpi-glue/coll/coll_qcg_mcast_verbs.c
mpi_glue_coll_mca_coll_qcg_la_CPPFLAGS += $(RDMA_CFLAGS)
mpi_glue_coll_mca_coll_qcg_la_LIBADD += $(RDMA_LIBS)
check_PROGRAMS += tests/coll/test_mcast_verbs_errors tests/coll/test_mcast_verbs_roundtrip
tests_coll_test_mcast_verbs_errors_SOURCES = tests/coll/test_mcast_verbs.c \
	mpi-glue/coll/coll_qcg_mcast_verbs.c
tests_coll_test_mcast_verbs_errors_CPPFLAGS = $(AM_CPPFLAGS) $(RDMA_CFLAGS) \
	-I$(top_srcdir)/mpi-glue/coll -I$(top_srcdir)/tests/unit
tests_coll_test_mcast_verbs_errors_LDADD = $(RDMA_LIBS)
tests_coll_test_mcast_verbs_roundtrip_SOURCES = $(tests_coll_test_mcast_verbs_errors_SOURCES)
tests_coll_test_mcast_verbs_roundtrip_CPPFLAGS = $(tests_coll_test_mcast_verbs_errors_CPPFLAGS) \
	-DROUNDTRIP
tests_coll_test_mcast_verbs_roundtrip_LDADD = $(RDMA_LIBS)
TESTS += tests/coll/test_mcast_verbs_errors tests/coll/test_mcast_verbs_roundtrip
endif

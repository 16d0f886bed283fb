# services/helper: qcg-helper, one per node (issue 3): the local API for the MPI glue over a unix
# socket, the node side of reversal and traversal, and launching processes for the front-end.

# The local API's wire format and its client side live in proto/ (proto/local.mk).
HELPER_TEST_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/services/helper $(QCG_PROTO_CPPFLAGS) \
	-I$(top_srcdir)/tests/unit

# The daemon. Its plain modules (jobs, output buffers, launch checks, configuration) are a
# library too, so that unit tests link the code the daemon runs.
noinst_LIBRARIES += services/helper/libhelper.a
services_helper_libhelper_a_SOURCES = \
	services/helper/helper.h \
	services/helper/helper_config.c services/helper/helper_config.h \
	services/helper/helper_jobs.c services/helper/helper_jobs.h \
	services/helper/helper_net.c services/helper/helper_net.h \
	services/helper/launch.c services/helper/launch.h \
	services/helper/launch_exec.c services/helper/launch_exec.h \
	services/helper/launch_output.c services/helper/launch_output.h \
	services/helper/privsep_proto.c services/helper/privsep_proto.h \
	services/helper/privsep_client.c services/helper/privsep_client.h \
	services/helper/privsep_launcher.c services/helper/privsep_launcher.h \
	services/helper/privsep_drop.c services/helper/privsep_drop.h \
	services/helper/node_topology.c services/helper/node_topology.h
services_helper_libhelper_a_CPPFLAGS = $(AM_CPPFLAGS) $(QCG_PROTO_CPPFLAGS) $(HWLOC_CFLAGS)

# The service without its main: the daemon and the SOAP fuzz target (tests/fuzz) serve the same.
HELPER_SERVICE_SOURCES = \
	services/helper/helper_api.c services/helper/helper_api.h \
	services/helper/helper_session.c \
	services/helper/helper_resolve.c \
	services/helper/helper_direct.c services/helper/helper_direct.h \
	services/helper/helper_outcomes.c services/helper/helper_outcomes.h \
	services/helper/helper_registrations.c services/helper/helper_registrations.h \
	services/helper/helper_deliver.c services/helper/helper_deliver.h \
	services/helper/helper_frontend.c services/helper/helper_frontend.h \
	services/helper/helper_handlers.c
# Relay failover (issue 14): a process's resume of a broken relay, asked of the front-end.
HELPER_SERVICE_SOURCES += services/helper/helper_resume.c
# The front-end's decisions per cluster pair kept on the node (issue 15): the table is the
# front-end's own pair_cache.c, compiled here too.
HELPER_SERVICE_SOURCES += services/helper/helper_paircache.c services/helper/helper_paircache.h \
	services/frontend/pair_cache.c services/frontend/pair_cache.h
# Staging (issue 12): a stage-in's bytes as a PUT body, not base64 in SOAP.
HELPER_SERVICE_SOURCES += services/helper/helper_input_put.c services/helper/helper_input_put.h
sbin_PROGRAMS += services/helper/qcg-helper
services_helper_qcg_helper_SOURCES = services/helper/helper_main.c $(HELPER_SERVICE_SOURCES)
services_helper_qcg_helper_CPPFLAGS = $(AM_CPPFLAGS) $(QCG_PROTO_CPPFLAGS) \
	$(QCG_SOAP_CPPFLAGS)
services_helper_qcg_helper_LDADD = services/helper/libhelper.a $(HWLOC_LIBS) \
	$(QCG_PROTO_LIBS) $(QCG_SOAP_LIBS) -lpthread
EXTRA_DIST += doc/qcg-helper.conf.example

# Test programs: helper_call plays the front-end (SOAP), helper_local an MPI process (unix socket).
check_PROGRAMS += tests/integration/helper_call tests/integration/helper_local
tests_integration_helper_call_SOURCES = tests/integration/helper_call.c \
	tests/integration/call_cli.c tests/integration/call_cli.h
tests_integration_helper_call_CPPFLAGS = $(AM_CPPFLAGS) $(QCG_SOAP_CPPFLAGS)
tests_integration_helper_call_LDADD = $(QCG_SOAP_LIBS)
tests_integration_helper_local_SOURCES = tests/integration/helper_local.c
tests_integration_helper_local_CPPFLAGS = $(HELPER_TEST_CPPFLAGS)
tests_integration_helper_local_LDADD = $(QCG_PROTO_LIBS)

# Integration tests on loopback with a fresh CA (tests/integration/grid_fixture.sh).
# test_helper_frontend.sh needs qcg-frontend (services/frontend) and skips without it.
TESTS += tests/integration/test_helper_handoff.sh tests/integration/test_helper_launch.sh \
	tests/integration/test_helper_refusals.sh tests/integration/test_helper_frontend.sh \
	tests/integration/test_helper_launch_privsep.sh tests/integration/test_helper_api_share.sh
EXTRA_DIST += tests/integration/test_helper_handoff.sh tests/integration/test_helper_launch.sh \
	tests/integration/test_helper_refusals.sh tests/integration/test_helper_frontend.sh \
	tests/integration/test_helper_launch_privsep.sh tests/integration/test_helper_api_share.sh

# Unit test of the plain modules (output buffer, token lines, launch checks, configuration).
check_PROGRAMS += tests/unit/test_helper_units
tests_unit_test_helper_units_SOURCES = tests/unit/test_helper_units.c tests/unit/check.h
tests_unit_test_helper_units_CPPFLAGS = $(HELPER_TEST_CPPFLAGS)
tests_unit_test_helper_units_LDADD = services/helper/libhelper.a $(HWLOC_LIBS) \
	$(QCG_PROTO_LIBS) lib/libqcgcommon.a -lpthread
TESTS += tests/unit/test_helper_units

# The batched connection records under a storm: the queue, its batch thread and its wait for
# room, with the front-end's side played by the test.
check_PROGRAMS += tests/unit/test_helper_outcomes
tests_unit_test_helper_outcomes_SOURCES = tests/unit/test_helper_outcomes.c tests/unit/check.h \
	services/helper/helper_outcomes.c
tests_unit_test_helper_outcomes_CPPFLAGS = $(HELPER_TEST_CPPFLAGS)
tests_unit_test_helper_outcomes_LDADD = lib/libqcgcommon.a -lpthread
TESTS += tests/unit/test_helper_outcomes

# Forged requests against a real, forked launcher (privilege separation).
check_PROGRAMS += tests/unit/test_privsep_launcher
tests_unit_test_privsep_launcher_SOURCES = tests/unit/test_privsep_launcher.c tests/unit/check.h
tests_unit_test_privsep_launcher_CPPFLAGS = $(HELPER_TEST_CPPFLAGS)
tests_unit_test_privsep_launcher_LDADD = services/helper/libhelper.a $(HWLOC_LIBS) \
	$(QCG_PROTO_LIBS) lib/libqcgcommon.a -lpthread
TESTS += tests/unit/test_privsep_launcher

# The launcher's request decoder: fuzz target, its corpus replayed as a regression test.
check_PROGRAMS += services/helper/replay_privsep_proto
services_helper_replay_privsep_proto_SOURCES = tests/fuzz/replay.c \
	services/helper/fuzz_privsep_proto.c
services_helper_replay_privsep_proto_CPPFLAGS = $(HELPER_TEST_CPPFLAGS) \
	-DFUZZ_TARGET=\"privsep_proto\"
services_helper_replay_privsep_proto_LDADD = services/helper/libhelper.a $(HWLOC_LIBS)
TESTS += tests/integration/test_privsep_proto_replay.sh
EXTRA_DIST += services/helper/corpus_privsep_proto tests/integration/test_privsep_proto_replay.sh

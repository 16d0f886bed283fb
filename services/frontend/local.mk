# services/frontend/: qcg-frontend, one per cluster (issue 3).
# The parts without gSOAP (configuration, resolution cache, reservations) are a library of their
# own so that their unit tests link nothing else.
noinst_LIBRARIES += services/frontend/libfrontend.a
services_frontend_libfrontend_a_SOURCES = \
	services/frontend/fe_config.c services/frontend/fe_config.h \
	services/frontend/resolve_cache.c services/frontend/resolve_cache.h \
	services/frontend/local_listeners.c services/frontend/local_listeners.h \
	services/frontend/reservations.c services/frontend/reservations.h \
	services/frontend/helper_probe.c services/frontend/helper_probe.h \
	services/frontend/slurm_parse.c services/frontend/slurm_parse.h \
	services/frontend/slurm_cmd.c services/frontend/slurm_cmd.h \
	services/frontend/stage_quota.c services/frontend/stage_quota.h \
	services/frontend/stage_node.c services/frontend/stage_node.h \
	lib/stage_path.c lib/stage_path.h \
	services/frontend/pair_cache.c services/frontend/pair_cache.h
services_frontend_libfrontend_a_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/services/frontend

# The service without its main: the daemon and the SOAP fuzz target (tests/fuzz) serve the same.
FRONTEND_SERVICE_SOURCES = services/frontend/frontend.h \
	services/frontend/fe_worker.c services/frontend/fe_auth.c \
	services/frontend/handlers_helper.c services/frontend/handlers_launch.c \
	services/frontend/handlers_direct.c \
	services/frontend/broker_link.c services/frontend/broker_link.h \
	services/frontend/broker_pool.c services/frontend/broker_pool.h \
	services/frontend/delivery.c services/frontend/delivery.h \
	services/frontend/walltime.c services/frontend/walltime.h \
	services/frontend/allocator.c services/frontend/allocator.h \
	services/frontend/allocator_backend.h services/frontend/allocator_builtin.c \
	services/frontend/allocator_slurm.c \
	services/frontend/handlers_stage.c
# Relay failover (issue 14): a helper's resume of a broken relay, passed on to the broker.
FRONTEND_SERVICE_SOURCES += services/frontend/handlers_resume.c
sbin_PROGRAMS += services/frontend/qcg-frontend
services_frontend_qcg_frontend_SOURCES = services/frontend/frontend_main.c \
	$(FRONTEND_SERVICE_SOURCES)
services_frontend_qcg_frontend_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/services/frontend \
	$(QCG_SOAP_CPPFLAGS)
services_frontend_qcg_frontend_LDADD = services/frontend/libfrontend.a $(QCG_SOAP_LIBS) -lpthread

# The integration tests' client for the front-end's operations.
check_PROGRAMS += tests/integration/frontend_call
tests_integration_frontend_call_SOURCES = tests/integration/frontend_call.c \
	tests/integration/call_cli.c tests/integration/call_cli.h
tests_integration_frontend_call_CPPFLAGS = $(AM_CPPFLAGS) $(QCG_SOAP_CPPFLAGS)
tests_integration_frontend_call_LDADD = $(QCG_SOAP_LIBS)

# Integration tests on loopback: fresh CA, real qcg-broker, real qcg-frontend.
TESTS += tests/integration/test_frontend.sh
EXTRA_DIST += tests/integration/test_frontend.sh

# Unit tests of the plain modules.
FRONTEND_TEST_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/services/frontend -I$(top_srcdir)/tests/unit
check_PROGRAMS += services/frontend/test_fe_config services/frontend/test_resolve_cache \
	services/frontend/test_reservations
services_frontend_test_fe_config_SOURCES = services/frontend/test_fe_config.c
services_frontend_test_fe_config_CPPFLAGS = $(FRONTEND_TEST_CPPFLAGS)
services_frontend_test_fe_config_LDADD = services/frontend/libfrontend.a lib/libqcgcommon.a
services_frontend_test_resolve_cache_SOURCES = services/frontend/test_resolve_cache.c
services_frontend_test_resolve_cache_CPPFLAGS = $(FRONTEND_TEST_CPPFLAGS)
services_frontend_test_resolve_cache_LDADD = services/frontend/libfrontend.a -lpthread
services_frontend_test_reservations_SOURCES = services/frontend/test_reservations.c
services_frontend_test_reservations_CPPFLAGS = $(FRONTEND_TEST_CPPFLAGS)
services_frontend_test_reservations_LDADD = services/frontend/libfrontend.a lib/libqcgcommon.a \
	-lpthread
TESTS += services/frontend/test_fe_config services/frontend/test_resolve_cache \
	services/frontend/test_reservations
# The helpers' listener lists (issue 15).
check_PROGRAMS += services/frontend/test_local_listeners
services_frontend_test_local_listeners_SOURCES = services/frontend/test_local_listeners.c
services_frontend_test_local_listeners_CPPFLAGS = $(FRONTEND_TEST_CPPFLAGS)
services_frontend_test_local_listeners_LDADD = services/frontend/libfrontend.a -lpthread
TESTS += services/frontend/test_local_listeners
check_PROGRAMS += services/frontend/test_stage
services_frontend_test_stage_SOURCES = services/frontend/test_stage.c
services_frontend_test_stage_CPPFLAGS = $(FRONTEND_TEST_CPPFLAGS)
services_frontend_test_stage_LDADD = services/frontend/libfrontend.a -lpthread
TESTS += services/frontend/test_stage
EXTRA_DIST += doc/qcg-frontend.conf.example
# Needs services/helper/qcg-helper; skips (77) when it is not built.
TESTS += tests/integration/test_frontend_helper.sh
EXTRA_DIST += tests/integration/test_frontend_helper.sh

# The multicast groups helpers ask for (mca_coll_qcg's multicast broadcast), relayed to the broker.
services_frontend_qcg_frontend_SOURCES += services/frontend/handlers_mcast.c

# The Slurm allocator's command lines and output parsing (issue 16), without Slurm.
check_PROGRAMS += services/frontend/test_slurm_parse
services_frontend_test_slurm_parse_SOURCES = services/frontend/test_slurm_parse.c
services_frontend_test_slurm_parse_CPPFLAGS = $(FRONTEND_TEST_CPPFLAGS)
services_frontend_test_slurm_parse_LDADD = services/frontend/libfrontend.a
TESTS += services/frontend/test_slurm_parse
check_PROGRAMS += services/frontend/test_slurm_cmd
services_frontend_test_slurm_cmd_SOURCES = services/frontend/test_slurm_cmd.c
services_frontend_test_slurm_cmd_CPPFLAGS = $(FRONTEND_TEST_CPPFLAGS)
services_frontend_test_slurm_cmd_LDADD = services/frontend/libfrontend.a
TESTS += services/frontend/test_slurm_cmd
EXTRA_DIST += services/frontend/README.md
# Decisions per cluster pair (issue 15).
check_PROGRAMS += services/frontend/test_pair_cache
services_frontend_test_pair_cache_SOURCES = services/frontend/test_pair_cache.c
services_frontend_test_pair_cache_CPPFLAGS = $(FRONTEND_TEST_CPPFLAGS)
services_frontend_test_pair_cache_LDADD = services/frontend/libfrontend.a -lpthread
TESTS += services/frontend/test_pair_cache

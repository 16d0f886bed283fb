# services/proxy: qcg-proxy, the relay (issue 3). The data plane is a library of its own so that
# the SOAP side, the unit tests and the fuzzers link the same code the daemon runs.
noinst_LIBRARIES += services/proxy/librelay.a
services_proxy_librelay_a_SOURCES = \
	services/proxy/relay.c services/proxy/relay.h \
	services/proxy/relay_table.c services/proxy/relay_table.h \
	services/proxy/relay_splice.c services/proxy/relay_splice.h \
	services/proxy/relay_net.c services/proxy/relay_net.h \
	services/proxy/relay_worker.c services/proxy/relay_worker.h \
	services/proxy/relay_leg.c \
	services/proxy/relay_join.c \
	services/proxy/relay_control.c services/proxy/relay_control.h \
	services/proxy/proxy_config.c services/proxy/proxy_config.h
services_proxy_librelay_a_CPPFLAGS = $(AM_CPPFLAGS) $(QCG_PROTO_CPPFLAGS)

# The daemon adds the SOAP side: the broker link and the control service (all four WSDLs are
# generated together; this daemon defines only __qp__GetStatistics).
sbin_PROGRAMS += services/proxy/qcg-proxy
services_proxy_qcg_proxy_SOURCES = services/proxy/proxy_main.c \
	services/proxy/proxy_config_services.c \
	services/proxy/proxy_broker.c services/proxy/proxy_broker.h \
	services/proxy/proxy_soap.c services/proxy/proxy_soap.h
services_proxy_qcg_proxy_CPPFLAGS = $(AM_CPPFLAGS) $(QCG_PROTO_CPPFLAGS) $(QCG_SOAP_CPPFLAGS)
services_proxy_qcg_proxy_LDADD = services/proxy/librelay.a $(QCG_PROTO_LIBS) $(QCG_SOAP_LIBS) \
	-lpthread

# Tests (run against the built qcg-proxy; each starts and stops its own instances).
PROXY_TEST_UTIL = tests/integration/test_proxy_util.c tests/integration/test_proxy_util.h
PROXY_TEST_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/services/proxy $(QCG_PROTO_CPPFLAGS) \
	-I$(top_srcdir)/tests/unit
PROXY_TEST_LDADD = services/proxy/librelay.a $(QCG_PROTO_LIBS) lib/libqcgcommon.a -lpthread

check_PROGRAMS += tests/integration/test_proxy_refuse
tests_integration_test_proxy_refuse_SOURCES = tests/integration/test_proxy_refuse.c \
	$(PROXY_TEST_UTIL)
tests_integration_test_proxy_refuse_CPPFLAGS = $(PROXY_TEST_CPPFLAGS)
tests_integration_test_proxy_refuse_LDADD = $(PROXY_TEST_LDADD)
TESTS += tests/integration/test_proxy_refuse

check_PROGRAMS += tests/integration/test_proxy_bulk
tests_integration_test_proxy_bulk_SOURCES = tests/integration/test_proxy_bulk.c \
	$(PROXY_TEST_UTIL)
tests_integration_test_proxy_bulk_CPPFLAGS = $(PROXY_TEST_CPPFLAGS)
tests_integration_test_proxy_bulk_LDADD = $(PROXY_TEST_LDADD)
TESTS += tests/integration/test_proxy_bulk

check_PROGRAMS += tests/integration/test_proxy_many
tests_integration_test_proxy_many_SOURCES = tests/integration/test_proxy_many.c \
	$(PROXY_TEST_UTIL)
tests_integration_test_proxy_many_CPPFLAGS = $(PROXY_TEST_CPPFLAGS)
tests_integration_test_proxy_many_LDADD = $(PROXY_TEST_LDADD)
TESTS += tests/integration/test_proxy_many

check_PROGRAMS += tests/integration/test_proxy_chain
tests_integration_test_proxy_chain_SOURCES = tests/integration/test_proxy_chain.c \
	$(PROXY_TEST_UTIL)
tests_integration_test_proxy_chain_CPPFLAGS = $(PROXY_TEST_CPPFLAGS)
tests_integration_test_proxy_chain_LDADD = $(PROXY_TEST_LDADD)
TESTS += tests/integration/test_proxy_chain

# A leg that arrives before its relay id is announced waits for the announcement (the race
# between the broker's paths to the target's helper and to the proxy; issue 5).
check_PROGRAMS += tests/net/test_relay_unannounced
tests_net_test_relay_unannounced_SOURCES = tests/net/test_relay_unannounced.c \
	$(PROXY_TEST_UTIL)
tests_net_test_relay_unannounced_CPPFLAGS = $(PROXY_TEST_CPPFLAGS) -I$(top_srcdir)/tests/integration
tests_net_test_relay_unannounced_LDADD = $(PROXY_TEST_LDADD)
TESTS += tests/net/test_relay_unannounced

# No-socket tests of the proxy's state machine and text inputs.
check_PROGRAMS += tests/integration/test_proxy_table tests/integration/test_proxy_config
tests_integration_test_proxy_table_SOURCES = tests/integration/test_proxy_table.c
tests_integration_test_proxy_table_CPPFLAGS = $(PROXY_TEST_CPPFLAGS)
tests_integration_test_proxy_table_LDADD = $(PROXY_TEST_LDADD)
tests_integration_test_proxy_config_SOURCES = tests/integration/test_proxy_config.c
tests_integration_test_proxy_config_CPPFLAGS = $(PROXY_TEST_CPPFLAGS)
tests_integration_test_proxy_config_LDADD = $(PROXY_TEST_LDADD)
TESTS += tests/integration/test_proxy_table tests/integration/test_proxy_config

# The SOAP side, end to end with a broker and a fresh CA (tests/integration/test_proxy_soap.sh):
# legs that exchange bytes through relays the broker decided, and a GetStatistics client.
check_PROGRAMS += tests/integration/proxy_legs tests/integration/proxy_call
tests_integration_proxy_legs_SOURCES = tests/integration/proxy_legs.c $(PROXY_TEST_UTIL)
tests_integration_proxy_legs_CPPFLAGS = $(PROXY_TEST_CPPFLAGS)
tests_integration_proxy_legs_LDADD = $(PROXY_TEST_LDADD)
tests_integration_proxy_call_SOURCES = tests/integration/proxy_call.c \
	tests/integration/call_cli.c tests/integration/call_cli.h
tests_integration_proxy_call_CPPFLAGS = $(AM_CPPFLAGS) $(QCG_SOAP_CPPFLAGS)
tests_integration_proxy_call_LDADD = $(QCG_SOAP_LIBS)
TESTS += tests/integration/test_proxy_soap.sh
EXTRA_DIST += tests/integration/test_proxy_soap.sh
# proxy.networks = 10.0.0.1/8 (host bits set) refuses to start with FILE:LINE and the reason.
TESTS += tests/integration/test_proxy_networks_host_bits.sh
EXTRA_DIST += tests/integration/test_proxy_networks_host_bits.sh

# What a broker relay event makes the proxy do, without sockets.
check_PROGRAMS += tests/integration/proxy_plan
tests_integration_proxy_plan_SOURCES = tests/integration/proxy_plan.c \
	services/proxy/proxy_broker.c services/proxy/proxy_broker.h
tests_integration_proxy_plan_CPPFLAGS = $(PROXY_TEST_CPPFLAGS) $(QCG_SOAP_CPPFLAGS)
tests_integration_proxy_plan_LDADD = services/proxy/librelay.a $(QCG_PROTO_LIBS) $(QCG_SOAP_LIBS) \
	-lpthread
TESTS += tests/integration/proxy_plan

# The same race on the testbed, through the real broker, front-ends and helpers: 24 relays
# between a nat and a closed site, 8 at a time in both directions (holds the testbed lock).
TESTS += tests/testbed/relay_race.test
EXTRA_DIST += tests/testbed/relay_race.test

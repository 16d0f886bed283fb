# tests/: unit tests (tests/unit), integration tests on loopback (tests/integration).
# Other parts register their own tests in their local.mk; these cover lib/ and the broker.

check_PROGRAMS += tests/integration/broker_call
tests_integration_broker_call_SOURCES = tests/integration/broker_call.c \
	tests/integration/call_cli.c tests/integration/call_cli.h
tests_integration_broker_call_CPPFLAGS = $(AM_CPPFLAGS) $(QCG_SOAP_CPPFLAGS)
tests_integration_broker_call_LDADD = $(QCG_SOAP_LIBS)
include tests/unit/lib.mk

# Integration tests on loopback: a fresh CA per run, real TLS, a real qcg-broker and SQLite file.
TESTS += tests/integration/test_broker.sh tests/integration/test_broker_proxy_owner.sh \
	tests/integration/test_broker_prune.sh
EXTRA_DIST += tests/integration/test_broker.sh tests/integration/test_broker_proxy_owner.sh \
	tests/integration/test_broker_prune.sh \
	tests/integration/grid_fixture.sh \
	tests/integration/soap_raw.py tests/integration/zeep_query.py

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
	tests/integration/test_broker_prune.sh tests/integration/test_soap_idle.sh \
	tests/integration/test_liveness.sh tests/integration/test_tls_identity.sh \
	tests/integration/test_crl_reload.sh tests/integration/test_broker_registry_input.sh \
	tests/integration/test_tls_verify_log_limit.sh
EXTRA_DIST += tests/integration/test_tls_identity.sh tests/integration/test_crl_reload.sh \
	tests/integration/test_tls_verify_log_limit.sh \
	tests/integration/cert_forge.sh
EXTRA_DIST += tests/integration/test_broker.sh tests/integration/test_broker_proxy_owner.sh \
	tests/integration/test_broker_prune.sh tests/integration/test_soap_idle.sh \
	tests/integration/nil_requests.py tests/integration/test_liveness.sh \
	tests/integration/test_broker_registry_input.sh \
	tests/integration/keepalive_probe.py \
	tests/integration/grid_fixture.sh tests/wait.sh \
	tests/integration/soap_raw.py tests/integration/zeep_query.py

# The network edge of lib/soap_server (issue 17): silent TCP, slow-loris and 500 idle TLS
# connections beside a normal client, the attribute flood, pipelined requests, a body not XML.
TESTS += tests/integration/test_soap_edge.sh
EXTRA_DIST += tests/integration/test_soap_edge.sh tests/integration/edge_probe.py

# Every operation of all four services with nil, empty and missing request elements (the
# operations come from wsdl/, so a new one is covered without touching the test).
TESTS += tests/integration/test_nil_requests.sh
EXTRA_DIST += tests/integration/test_nil_requests.sh

# The life of a job's multicast groups in the registry (mca_coll_qcg's multicast broadcast).
check_PROGRAMS += tests/unit/test_mcast_registry
TESTS += tests/unit/test_mcast_registry
tests_unit_test_mcast_registry_SOURCES = tests/unit/test_mcast_registry.c tests/unit/check.h
tests_unit_test_mcast_registry_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/unit $(SQLITE3_CFLAGS)
tests_unit_test_mcast_registry_LDADD = db/libqcgdb.a lib/libqcgcommon.a $(SQLITE3_LIBS)

# The helper's multicast-group request and answer (parser limits, malformed input).
check_PROGRAMS += tests/unit/test_helper_mcast_proto
TESTS += tests/unit/test_helper_mcast_proto
tests_unit_test_helper_mcast_proto_SOURCES = tests/unit/test_helper_mcast_proto.c tests/unit/check.h
tests_unit_test_helper_mcast_proto_CPPFLAGS = $(AM_CPPFLAGS) $(QCG_PROTO_CPPFLAGS) \
	-I$(top_srcdir)/tests/unit
tests_unit_test_helper_mcast_proto_LDADD = $(QCG_PROTO_LIBS)

# Fuzz targets: every corpus replayed here, libFuzzer builds with --enable-fuzzing.
include tests/fuzz/local.mk

# -n in all four daemons (lib/daemon_serve.h): good and bad configurations with FILE:LINE, and
# qcg-proxy's keys and options of the earlier release, which still work and warn.
TESTS += tests/integration/test_daemon_check.sh
EXTRA_DIST += tests/integration/test_daemon_check.sh

# A job's clusters and their batch jobs (Slurm job ids) in the registry (issue 16).
check_PROGRAMS += tests/unit/test_job_clusters_registry
TESTS += tests/unit/test_job_clusters_registry
tests_unit_test_job_clusters_registry_SOURCES = tests/unit/test_job_clusters_registry.c tests/unit/check.h
tests_unit_test_job_clusters_registry_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/unit $(SQLITE3_CFLAGS)
tests_unit_test_job_clusters_registry_LDADD = db/libqcgdb.a lib/libqcgcommon.a $(SQLITE3_LIBS)

# Relay failover (issue 14): the broker's resume of a relay whose proxy died, with two real
# proxies: only the relay's two ends may resume it, both get the same new relay on the other
# proxy, qcg-query connections shows it, and with no other proxy it is refused saying why.
TESTS += tests/integration/test_broker_resume.sh
EXTRA_DIST += tests/integration/test_broker_resume.sh

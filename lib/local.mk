# lib/: code that several parts share.

# The libc-only helpers, also built position independent for the preloaded libqcgnet.so and
# the Open MPI component mca_coll_qcg.so (no logging, no OpenSSL: they must carry nothing in;
# the component parses its multicast range with cidr).
QCG_BASE_SOURCES = \
	lib/cidr.c lib/cidr.h \
	lib/random_bytes.c lib/random_bytes.h \
	lib/net_socket.c lib/net_socket.h lib/monotonic_ms.h
noinst_LTLIBRARIES += lib/libqcgbase.la
lib_libqcgbase_la_SOURCES = $(QCG_BASE_SOURCES)

noinst_LIBRARIES += lib/libqcgcommon.a
lib_libqcgcommon_a_CPPFLAGS = $(AM_CPPFLAGS) $(GSOAP_CFLAGS) $(OPENSSL_CFLAGS)
lib_libqcgcommon_a_SOURCES = \
	lib/log.c lib/log.h \
	lib/log_limit.c lib/log_limit.h \
	lib/model.c lib/model.h \
	lib/config_file.c lib/config_file.h \
	lib/dn_line.c lib/dn_line.h lib/hex_digit.h \
	lib/gridmap.c lib/gridmap.h \
	lib/acl.c lib/acl.h \
	lib/tls.c lib/tls.h lib/tls_identity.c lib/tls_trust.c lib/tls_trust.h \
	lib/signing_policy.c lib/signing_policy.h \
	lib/daemon_args.c lib/daemon_args.h lib/daemon_serve.c lib/daemon_serve.h \
	lib/soap_server.c lib/soap_server.h lib/xml_bounds.c lib/xml_bounds.h \
	lib/http_head.c lib/http_head.h lib/net_text.c lib/net_text.h \
	lib/http_stream.c lib/http_stream.h \
	lib/soap_client.c lib/soap_client.h lib/soap_faults.h \
	lib/json_write.c lib/json_write.h \
	lib/relay_id.c lib/relay_id.h \
	lib/proc_identity.c lib/proc_identity.h \
	lib/batch_thread.c lib/batch_thread.h \
	$(QCG_BASE_SOURCES)

EXTRA_DIST += lib/README.md

# Staged names (stage_path.h) are checked by qcg-submit and qcg-frontend alike: each of their
# libraries compiles it (libjobdesc.a, libfrontend.a), as neither links the other's.

# What a program without SOAP links; SOAP programs use QCG_SOAP_LIBS (wsdl/local.mk).
QCG_COMMON_LIBS = lib/libqcgcommon.a $(OPENSSL_LIBS)

# Relay ids as text: one implementation for the broker, the proxy and the helpers.
check_PROGRAMS += tests/unit/test_relay_id
tests_unit_test_relay_id_SOURCES = tests/unit/test_relay_id.c tests/unit/check.h
tests_unit_test_relay_id_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/unit
tests_unit_test_relay_id_LDADD = lib/libqcgcommon.a
TESTS += tests/unit/test_relay_id

# The batching threads' start (batch_thread.h): monotonic deadlines and the thread.
check_PROGRAMS += tests/unit/test_batch_thread
tests_unit_test_batch_thread_SOURCES = tests/unit/test_batch_thread.c tests/unit/check.h
tests_unit_test_batch_thread_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/unit
tests_unit_test_batch_thread_LDADD = lib/libqcgcommon.a -lpthread
TESTS += tests/unit/test_batch_thread

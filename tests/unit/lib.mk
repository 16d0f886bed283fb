# tests/unit/lib.mk: unit tests of lib/ (configuration, grid-mapfile, ACL, identity, JSON) and
# the replay of the fuzz corpora in tests/fuzz, which run as ordinary regression tests.

LIBTEST_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/unit $(GSOAP_CFLAGS) $(OPENSSL_CFLAGS)
# Tests of the parts of lib/ that need neither gSOAP nor OpenSSL link only the archive: with
# $(GSOAP_LIBS) on the line, a link that keeps libgsoapssl (as sanitizer builds do) needs the
# serializers of generated code, which these tests have no business with.
LIBTEST_PLAIN_LIBS = lib/libqcgcommon.a

check_PROGRAMS += tests/unit/test_config
tests_unit_test_config_SOURCES = tests/unit/test_config.c tests/unit/check.h
tests_unit_test_config_CPPFLAGS = $(LIBTEST_CPPFLAGS)
tests_unit_test_config_LDADD = $(LIBTEST_PLAIN_LIBS)
TESTS += tests/unit/test_config

check_PROGRAMS += tests/unit/test_gridmap_acl
tests_unit_test_gridmap_acl_SOURCES = tests/unit/test_gridmap_acl.c tests/unit/check.h
tests_unit_test_gridmap_acl_CPPFLAGS = $(LIBTEST_CPPFLAGS)
tests_unit_test_gridmap_acl_LDADD = $(LIBTEST_PLAIN_LIBS)
TESTS += tests/unit/test_gridmap_acl

# test_identity is run by test_identity.sh, which first makes the certificates it checks.
# It needs only lib/tls_identity.c (OpenSSL, no gSOAP).
check_PROGRAMS += tests/unit/test_identity
tests_unit_test_identity_SOURCES = tests/unit/test_identity.c tests/unit/check.h
tests_unit_test_identity_CPPFLAGS = $(LIBTEST_CPPFLAGS)
tests_unit_test_identity_LDADD = $(QCG_COMMON_LIBS)
TESTS += tests/unit/test_identity.sh
EXTRA_DIST += tests/unit/test_identity.sh

check_PROGRAMS += tests/unit/test_signing_policy
tests_unit_test_signing_policy_SOURCES = tests/unit/test_signing_policy.c tests/unit/check.h
tests_unit_test_signing_policy_CPPFLAGS = $(LIBTEST_CPPFLAGS)
tests_unit_test_signing_policy_LDADD = $(LIBTEST_PLAIN_LIBS)
TESTS += tests/unit/test_signing_policy

check_PROGRAMS += tests/unit/test_json_write
tests_unit_test_json_write_SOURCES = tests/unit/test_json_write.c tests/unit/check.h
tests_unit_test_json_write_CPPFLAGS = $(LIBTEST_CPPFLAGS)
tests_unit_test_json_write_LDADD = $(LIBTEST_PLAIN_LIBS)
TESTS += tests/unit/test_json_write

# Fuzz corpora replayed as regression tests: each fuzz target linked with tests/fuzz/replay.c
# runs every file of tests/fuzz/corpus_<target>/ (libFuzzer builds: tests/fuzz/README.md).
FUZZ_TARGETS = config gridmap acl signing_policy
check_PROGRAMS += tests/fuzz/replay_config tests/fuzz/replay_gridmap tests/fuzz/replay_acl \
	tests/fuzz/replay_signing_policy
tests_fuzz_replay_config_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_config.c
tests_fuzz_replay_config_CPPFLAGS = $(LIBTEST_CPPFLAGS) -DFUZZ_TARGET=\"config\"
tests_fuzz_replay_config_LDADD = $(LIBTEST_PLAIN_LIBS)
tests_fuzz_replay_gridmap_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_gridmap.c
tests_fuzz_replay_gridmap_CPPFLAGS = $(LIBTEST_CPPFLAGS) -DFUZZ_TARGET=\"gridmap\"
tests_fuzz_replay_gridmap_LDADD = $(LIBTEST_PLAIN_LIBS)
tests_fuzz_replay_acl_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_acl.c
tests_fuzz_replay_acl_CPPFLAGS = $(LIBTEST_CPPFLAGS) -DFUZZ_TARGET=\"acl\"
tests_fuzz_replay_acl_LDADD = $(LIBTEST_PLAIN_LIBS)
tests_fuzz_replay_signing_policy_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_signing_policy.c
tests_fuzz_replay_signing_policy_CPPFLAGS = $(LIBTEST_CPPFLAGS) -DFUZZ_TARGET=\"signing_policy\"
tests_fuzz_replay_signing_policy_LDADD = $(LIBTEST_PLAIN_LIBS)
TESTS += tests/fuzz/replay_config tests/fuzz/replay_gridmap tests/fuzz/replay_acl \
	tests/fuzz/replay_signing_policy
EXTRA_DIST += tests/fuzz/README.md tests/fuzz/corpus_config tests/fuzz/corpus_gridmap \
	tests/fuzz/corpus_acl tests/fuzz/corpus_signing_policy

# The parsers in front of the SOAP servers: XML shape bounds, HTTP request completeness, and
# the address and URL syntax the registry accepts (issue 17).
check_PROGRAMS += tests/unit/test_edge_parsers
tests_unit_test_edge_parsers_SOURCES = tests/unit/test_edge_parsers.c tests/unit/check.h
tests_unit_test_edge_parsers_CPPFLAGS = $(LIBTEST_CPPFLAGS)
tests_unit_test_edge_parsers_LDADD = $(LIBTEST_PLAIN_LIBS)
TESTS += tests/unit/test_edge_parsers

# The shared small ideas of lib/ (issue 13): the one CIDR parser and its reasons, random
# bytes, and the timed connect (loopback only) with its socket flag helpers.
check_PROGRAMS += tests/unit/test_cidr tests/unit/test_random_bytes tests/unit/test_net_socket
tests_unit_test_cidr_SOURCES = tests/unit/test_cidr.c tests/unit/check.h
tests_unit_test_cidr_CPPFLAGS = $(LIBTEST_CPPFLAGS)
tests_unit_test_cidr_LDADD = $(LIBTEST_PLAIN_LIBS)
tests_unit_test_random_bytes_SOURCES = tests/unit/test_random_bytes.c tests/unit/check.h
tests_unit_test_random_bytes_CPPFLAGS = $(LIBTEST_CPPFLAGS)
tests_unit_test_random_bytes_LDADD = lib/libqcgbase.la
tests_unit_test_net_socket_SOURCES = tests/unit/test_net_socket.c tests/unit/check.h
tests_unit_test_net_socket_CPPFLAGS = $(LIBTEST_CPPFLAGS)
tests_unit_test_net_socket_LDADD = lib/libqcgbase.la
TESTS += tests/unit/test_cidr tests/unit/test_random_bytes tests/unit/test_net_socket

# A recorded pid is signalled only while it still names the same process (qcg-cancel).
check_PROGRAMS += tests/unit/test_proc_identity
tests_unit_test_proc_identity_SOURCES = tests/unit/test_proc_identity.c tests/unit/check.h
tests_unit_test_proc_identity_CPPFLAGS = $(LIBTEST_CPPFLAGS)
tests_unit_test_proc_identity_LDADD = $(LIBTEST_PLAIN_LIBS)
TESTS += tests/unit/test_proc_identity

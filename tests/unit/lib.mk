# tests/unit/lib.mk: unit tests of lib/ (configuration, grid-mapfile, ACL, identity, JSON) and
# the replay of the fuzz corpora in tests/fuzz, which run as ordinary regression tests.

LIBTEST_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/unit $(GSOAP_CFLAGS) $(OPENSSL_CFLAGS)

check_PROGRAMS += tests/unit/test_config
tests_unit_test_config_SOURCES = tests/unit/test_config.c tests/unit/check.h
tests_unit_test_config_CPPFLAGS = $(LIBTEST_CPPFLAGS)
tests_unit_test_config_LDADD = $(QCG_COMMON_LIBS)
TESTS += tests/unit/test_config

check_PROGRAMS += tests/unit/test_gridmap_acl
tests_unit_test_gridmap_acl_SOURCES = tests/unit/test_gridmap_acl.c tests/unit/check.h
tests_unit_test_gridmap_acl_CPPFLAGS = $(LIBTEST_CPPFLAGS)
tests_unit_test_gridmap_acl_LDADD = $(QCG_COMMON_LIBS)
TESTS += tests/unit/test_gridmap_acl

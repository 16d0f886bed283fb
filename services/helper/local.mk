# services/helper: qcg-helper, one per node (issue 3): the local API for the MPI glue over a unix
# socket, the node side of reversal and traversal, and launching processes for the front-end.

# The local API's client side: libc only, position independent, for libqcgnet.so (issue 5) to
# link; the proxy's relay hello encoder comes along so the glue can open relay legs.
noinst_LTLIBRARIES += services/helper/libqcghelperclient.la
services_helper_libqcghelperclient_la_SOURCES = \
	services/helper/helper_proto.c services/helper/helper_proto.h \
	services/helper/helper_wire.c services/helper/helper_wire.h \
	services/helper/helper_client.c services/helper/helper_client.h \
	services/proxy/relay_hello.c services/proxy/relay_hello.h
services_helper_libqcghelperclient_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/services/proxy

HELPER_TEST_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/services/helper \
	-I$(top_srcdir)/services/proxy -I$(top_srcdir)/tests/unit

# Parser unit test and the fuzz corpus replayed as a regression test.
check_PROGRAMS += tests/unit/test_helper_proto services/helper/replay_helper_proto
tests_unit_test_helper_proto_SOURCES = tests/unit/test_helper_proto.c tests/unit/check.h
tests_unit_test_helper_proto_CPPFLAGS = $(HELPER_TEST_CPPFLAGS)
tests_unit_test_helper_proto_LDADD = services/helper/libqcghelperclient.la
services_helper_replay_helper_proto_SOURCES = tests/fuzz/replay.c \
	services/helper/fuzz_helper_proto.c
services_helper_replay_helper_proto_CPPFLAGS = $(HELPER_TEST_CPPFLAGS) \
	-DFUZZ_TARGET=\"helper_proto\"
services_helper_replay_helper_proto_LDADD = services/helper/libqcghelperclient.la
TESTS += tests/unit/test_helper_proto tests/integration/test_helper_proto_replay.sh
EXTRA_DIST += services/helper/corpus_helper_proto tests/integration/test_helper_proto_replay.sh

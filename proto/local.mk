# proto/: the binary wire formats (see proto/README.md): the helper's local API and the relay
# hello. libc only and position independent, so that the daemons and the preloaded
# libqcgnet.so link the same code; services and mpi-glue depend on this folder, never on each
# other's.
noinst_LTLIBRARIES += proto/libqcgproto.la
proto_libqcgproto_la_SOURCES = \
	proto/helper_proto.c proto/helper_proto.h \
	proto/helper_wire.c proto/helper_wire.h \
	proto/helper_client.c proto/helper_client.h \
	proto/helper_decision.c proto/helper_decision.h \
	proto/relay_hello.c proto/relay_hello.h
EXTRA_DIST += proto/README.md

# What a user of the formats adds to its CPPFLAGS and LDADD.
QCG_PROTO_CPPFLAGS = -I$(top_srcdir)/proto
QCG_PROTO_LIBS = proto/libqcgproto.la

# The local API's parser: unit test, and the fuzz corpus replayed as a regression test.
check_PROGRAMS += tests/unit/test_helper_proto proto/replay_helper_proto
tests_unit_test_helper_proto_SOURCES = tests/unit/test_helper_proto.c tests/unit/check.h
tests_unit_test_helper_proto_CPPFLAGS = $(AM_CPPFLAGS) $(QCG_PROTO_CPPFLAGS) \
	-I$(top_srcdir)/tests/unit
tests_unit_test_helper_proto_LDADD = $(QCG_PROTO_LIBS)
proto_replay_helper_proto_SOURCES = tests/fuzz/replay.c proto/fuzz_helper_proto.c
proto_replay_helper_proto_CPPFLAGS = $(AM_CPPFLAGS) $(QCG_PROTO_CPPFLAGS) \
	-DFUZZ_TARGET=\"helper_proto\"
proto_replay_helper_proto_LDADD = $(QCG_PROTO_LIBS)
TESTS += tests/unit/test_helper_proto tests/integration/test_helper_proto_replay.sh
EXTRA_DIST += proto/corpus_helper_proto tests/integration/test_helper_proto_replay.sh

# The relay hello's encoder and parser.
check_PROGRAMS += tests/unit/test_relay_hello
tests_unit_test_relay_hello_SOURCES = tests/unit/test_relay_hello.c
tests_unit_test_relay_hello_CPPFLAGS = $(AM_CPPFLAGS) $(QCG_PROTO_CPPFLAGS) \
	-I$(top_srcdir)/tests/unit
tests_unit_test_relay_hello_LDADD = $(QCG_PROTO_LIBS) lib/libqcgcommon.a
TESTS += tests/unit/test_relay_hello

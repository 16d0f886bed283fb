# services/broker/decision.mk: the connection decision (a library the broker links) and its
# unit test. Included from services/broker/local.mk.
noinst_LIBRARIES += services/broker/libdecision.a
services_broker_libdecision_a_SOURCES = services/broker/decision.c services/broker/decision.h

check_PROGRAMS += tests/unit/test_decision
TESTS += tests/unit/test_decision
tests_unit_test_decision_SOURCES = tests/unit/test_decision.c tests/unit/check.h
tests_unit_test_decision_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/services/broker
tests_unit_test_decision_LDADD = services/broker/libdecision.a lib/libqcgcommon.a

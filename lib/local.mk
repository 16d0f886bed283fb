# lib/: code that several parts share.
noinst_LIBRARIES += lib/libqcgcommon.a
lib_libqcgcommon_a_CPPFLAGS = $(AM_CPPFLAGS) $(GSOAP_CFLAGS) $(OPENSSL_CFLAGS)
lib_libqcgcommon_a_SOURCES = \
	lib/log.c lib/log.h \
	lib/model.c lib/model.h

# lib/: code that several parts share.
noinst_LIBRARIES += lib/libqcgcommon.a
lib_libqcgcommon_a_CPPFLAGS = $(AM_CPPFLAGS) $(GSOAP_CFLAGS) $(OPENSSL_CFLAGS)
lib_libqcgcommon_a_SOURCES = \
	lib/log.c lib/log.h \
	lib/model.c lib/model.h \
	lib/config_file.c lib/config_file.h \
	lib/dn_line.c lib/dn_line.h \
	lib/gridmap.c lib/gridmap.h \
	lib/acl.c lib/acl.h \
	lib/tls.c lib/tls.h \
	lib/soap_server.c lib/soap_server.h \
	lib/soap_client.c lib/soap_client.h \
	lib/json_write.c lib/json_write.h

# What a program without SOAP links; SOAP programs use QCG_SOAP_LIBS (wsdl/local.mk).
QCG_COMMON_LIBS = lib/libqcgcommon.a $(OPENSSL_LIBS)

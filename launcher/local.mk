# launcher/: user commands.
bin_PROGRAMS += launcher/qcg-query
launcher_qcg_query_SOURCES = launcher/qcg_query.c
launcher_qcg_query_CPPFLAGS = $(AM_CPPFLAGS) -Igen/broker -I$(top_srcdir)/wsdl $(GSOAP_CFLAGS) \
	$(OPENSSL_CFLAGS)
launcher_qcg_query_LDADD = gen/libbroker_client.a $(QCG_COMMON_LIBS)

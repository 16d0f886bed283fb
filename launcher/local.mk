# launcher/: user commands.
bin_PROGRAMS += launcher/qcg-query
launcher_qcg_query_SOURCES = launcher/qcg_query.c
launcher_qcg_query_CPPFLAGS = $(AM_CPPFLAGS) $(QCG_SOAP_CPPFLAGS)
launcher_qcg_query_LDADD = $(QCG_SOAP_LIBS)

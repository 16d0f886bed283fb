# launcher/: user commands.
bin_PROGRAMS += launcher/qcg-query
launcher_qcg_query_SOURCES = launcher/qcg_query.c
launcher_qcg_query_CPPFLAGS = $(AM_CPPFLAGS) $(QCG_SOAP_CPPFLAGS)
launcher_qcg_query_LDADD = $(QCG_SOAP_LIBS)

# What several launcher commands share: credentials, the qcg-rsh hosts map, the environment
# allow-list, and running a command through a front-end.
noinst_LIBRARIES += launcher/liblauncher.a
launcher_liblauncher_a_SOURCES = \
	launcher/user_creds.c launcher/user_creds.h \
	launcher/rsh_map.c launcher/rsh_map.h \
	launcher/env_allow.c launcher/env_allow.h \
	launcher/remote_run.c launcher/remote_run.h
launcher_liblauncher_a_CPPFLAGS = $(AM_CPPFLAGS) $(QCG_SOAP_CPPFLAGS)
LAUNCHER_LIBS = launcher/liblauncher.a $(QCG_SOAP_LIBS)

bin_PROGRAMS += launcher/qcg-rsh
launcher_qcg_rsh_SOURCES = launcher/qcg_rsh.c
launcher_qcg_rsh_CPPFLAGS = $(AM_CPPFLAGS) $(QCG_SOAP_CPPFLAGS)
launcher_qcg_rsh_LDADD = $(LAUNCHER_LIBS)
dist_man_MANS += doc/qcg-rsh.1

# Tests on loopback with a real broker, front-ends and helpers (tests/integration/grid_fixture.sh).
TESTS += tests/launcher/test_qcg_rsh.sh
EXTRA_DIST += tests/launcher/test_qcg_rsh.sh

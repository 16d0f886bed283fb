# launcher/: user commands.
bin_PROGRAMS += launcher/qcg-query
launcher_qcg_query_SOURCES = launcher/qcg_query.c
launcher_qcg_query_CPPFLAGS = $(AM_CPPFLAGS) $(QCG_SOAP_CPPFLAGS)
launcher_qcg_query_LDADD = $(QCG_SOAP_LIBS)

# What several launcher commands share: credentials, the qcg-rsh hosts map, the environment
# allow-list, and running a command through a front-end.
noinst_LIBRARIES += launcher/liblauncher.a
launcher_liblauncher_a_SOURCES = \
	launcher/user_creds.c launcher/user_creds.h launcher/user_client.c launcher/user_client.h \
	launcher/rsh_map.c launcher/rsh_map.h \
	launcher/env_allow.c launcher/env_allow.h \
	launcher/remote_run.c launcher/remote_run.h \
	launcher/proxy_make.c launcher/proxy_make.h \
	launcher/coalloc.c launcher/coalloc.h launcher/frontend_links.c launcher/frontend_links.h \
	launcher/job_files.c launcher/job_files.h \
	launcher/job_topology.c launcher/job_topology.h \
	launcher/broker_jobs.c launcher/broker_jobs.h launcher/startup_watch.c launcher/startup_watch.h \
	launcher/submit_run.c launcher/submit_run.h \
	launcher/node_env.c launcher/node_env.h launcher/stage.c launcher/stage.h \
	launcher/proxy_delegate.c launcher/proxy_delegate.h \
	launcher/submit_remote.c launcher/submit_remote.h
launcher_liblauncher_a_CPPFLAGS = $(AM_CPPFLAGS) $(QCG_SOAP_CPPFLAGS) \
	-DQCG_LIBDIR=\"$(libdir)\" -DQCG_COMPONENT_DIR=\"$(QCG_COMPONENT_DIR)\" \
	-DQCG_OMPI_PKGLIBDIR=\"$(OMPI_PKGLIBDIR)\"
LAUNCHER_LIBS = launcher/liblauncher.a $(QCG_SOAP_LIBS)

bin_PROGRAMS += launcher/qcg-rsh
launcher_qcg_rsh_SOURCES = launcher/qcg_rsh.c
launcher_qcg_rsh_CPPFLAGS = $(AM_CPPFLAGS) $(QCG_SOAP_CPPFLAGS)
launcher_qcg_rsh_LDADD = $(LAUNCHER_LIBS)
dist_man_MANS += doc/qcg-rsh.1

# Tests on loopback with a real broker, front-ends and helpers (tests/integration/grid_fixture.sh).
TESTS += tests/launcher/test_qcg_rsh.sh
EXTRA_DIST += tests/launcher/test_qcg_rsh.sh

# Job descriptions: one internal form (job_desc.h), one parser per format, one validation.
# job.xsd is compiled in (job_xsd.c, generated) so a description means the same everywhere.
noinst_LIBRARIES += launcher/libjobdesc.a
launcher_libjobdesc_a_SOURCES = \
	launcher/job_desc.c launcher/job_desc.h \
	launcher/job_xml_util.c launcher/job_xml_util.h \
	launcher/job_xml.c launcher/job_simple.c launcher/job_jsdl.c launcher/job_validate.c \
	lib/stage_path.c lib/stage_path.h
nodist_launcher_libjobdesc_a_SOURCES = launcher/job_xsd.c
launcher_libjobdesc_a_CPPFLAGS = $(AM_CPPFLAGS) $(LIBXML2_CFLAGS)
JOBDESC_LIBS = launcher/libjobdesc.a $(LIBXML2_LIBS)
BUILT_SOURCES += launcher/job_xsd.c
CLEANFILES += launcher/job_xsd.c
dist_pkgdata_DATA += launcher/job.xsd
launcher/job_xsd.c: launcher/job.xsd
	@$(MKDIR_P) launcher
	$(AM_V_GEN){ echo '/* Generated from launcher/job.xsd; do not edit. */'; \
	  echo 'extern const char job_xsd_text[];'; \
	  echo 'const char job_xsd_text[] ='; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $(srcdir)/launcher/job.xsd; \
	  echo ';'; } >$@

check_PROGRAMS += tests/launcher/test_job_desc
tests_launcher_test_job_desc_SOURCES = tests/launcher/test_job_desc.c tests/unit/check.h
tests_launcher_test_job_desc_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/launcher \
	-I$(top_srcdir)/tests/unit $(LIBXML2_CFLAGS)
tests_launcher_test_job_desc_LDADD = $(JOBDESC_LIBS)
TESTS += tests/launcher/test_job_desc

# The QCG-Simple fuzz target, its corpus replayed as a regression test (tests/fuzz/README.md).
check_PROGRAMS += tests/launcher/replay_job_simple
tests_launcher_replay_job_simple_SOURCES = tests/fuzz/replay.c tests/launcher/fuzz_job.c
tests_launcher_replay_job_simple_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/launcher \
	$(LIBXML2_CFLAGS) -DFUZZ_TARGET=\"job_simple\"
tests_launcher_replay_job_simple_LDADD = $(JOBDESC_LIBS)
TESTS += tests/launcher/test_job_simple_replay.sh
EXTRA_DIST += tests/launcher/test_job_simple_replay.sh tests/launcher/corpus_job_simple

bin_PROGRAMS += launcher/qcg-proxy-init
launcher_qcg_proxy_init_SOURCES = launcher/qcg_proxy_init.c
launcher_qcg_proxy_init_CPPFLAGS = $(AM_CPPFLAGS) $(QCG_SOAP_CPPFLAGS)
launcher_qcg_proxy_init_LDADD = $(LAUNCHER_LIBS)
dist_man_MANS += doc/qcg-proxy-init.1
TESTS += tests/launcher/test_qcg_proxy_init.sh
EXTRA_DIST += tests/launcher/test_qcg_proxy_init.sh tests/launcher/make_expired_proxy.py

bin_PROGRAMS += launcher/qcg-submit
launcher_qcg_submit_SOURCES = launcher/qcg_submit.c
launcher_qcg_submit_CPPFLAGS = $(AM_CPPFLAGS) $(QCG_SOAP_CPPFLAGS) -DQCG_BINDIR=\"$(bindir)\"
launcher_qcg_submit_LDADD = $(LAUNCHER_LIBS) $(JOBDESC_LIBS)
TESTS += tests/launcher/test_qcg_submit.sh tests/launcher/test_qcg_submit_wait.sh
EXTRA_DIST += tests/launcher/test_qcg_submit.sh tests/launcher/test_qcg_submit_wait.sh
TESTS += tests/launcher/test_qcg_submit_in_job.sh
EXTRA_DIST += tests/launcher/test_qcg_submit_in_job.sh

bin_PROGRAMS += launcher/qcg-status launcher/qcg-cancel
launcher_qcg_status_SOURCES = launcher/qcg_status.c
launcher_qcg_status_CPPFLAGS = $(AM_CPPFLAGS) $(QCG_SOAP_CPPFLAGS)
launcher_qcg_status_LDADD = $(LAUNCHER_LIBS)
launcher_qcg_cancel_SOURCES = launcher/qcg_cancel.c
launcher_qcg_cancel_CPPFLAGS = $(AM_CPPFLAGS) $(QCG_SOAP_CPPFLAGS)
launcher_qcg_cancel_LDADD = $(LAUNCHER_LIBS)

# On the testbed (tests/launcher/tb_submit.sh brings up 3 sites with their services; each test
# holds the testbed lock).
TESTS += tests/launcher/bad_descriptions.test tests/launcher/failed_reservation.test \
	tests/launcher/cancel.test tests/launcher/proxies.test tests/launcher/stage.test \
	tests/launcher/examples.test tests/launcher/placement.test \
	tests/launcher/faults_setup.test tests/launcher/faults_running.test \
	tests/launcher/crossed_requests.test tests/launcher/separate_fs.test
TESTS += tests/launcher/stage_large.test
EXTRA_DIST += tests/launcher/stage_large.test
EXTRA_DIST += launcher/README.md tests/launcher/tb_submit.sh tests/launcher/bad_descriptions.test \
	tests/launcher/failed_reservation.test tests/launcher/cancel.test \
	tests/launcher/examples.test tests/launcher/proxies.test tests/launcher/stage.test \
	tests/launcher/placement.test tests/launcher/tb_faults.sh tests/launcher/fault_rank.c \
	tests/launcher/faults_setup.test tests/launcher/faults_running.test \
	tests/launcher/crossed_requests.test tests/launcher/separate_fs.test

check_PROGRAMS += tests/launcher/test_node_env
tests_launcher_test_node_env_SOURCES = tests/launcher/test_node_env.c tests/unit/check.h
tests_launcher_test_node_env_CPPFLAGS = $(AM_CPPFLAGS) $(QCG_SOAP_CPPFLAGS) \
	-I$(top_srcdir)/launcher -I$(top_srcdir)/tests/unit
tests_launcher_test_node_env_LDADD = $(LAUNCHER_LIBS) $(JOBDESC_LIBS)
TESTS += tests/launcher/test_node_env

# The component path qcg-submit gives mpirun (mca_coll_qcg ahead of Open MPI's own directory).
check_PROGRAMS += tests/launcher/mpirun_argv
tests_launcher_mpirun_argv_SOURCES = tests/launcher/mpirun_argv.c
tests_launcher_mpirun_argv_CPPFLAGS = $(AM_CPPFLAGS) $(QCG_SOAP_CPPFLAGS) \
	-I$(top_srcdir)/launcher -DQCG_COMPONENT_DIR=\"$(QCG_COMPONENT_DIR)\"
tests_launcher_mpirun_argv_LDADD = $(LAUNCHER_LIBS) $(JOBDESC_LIBS)
TESTS += tests/launcher/test_component_path.sh
EXTRA_DIST += tests/launcher/test_component_path.sh

check_PROGRAMS += tests/launcher/test_startup_watch
tests_launcher_test_startup_watch_SOURCES = tests/launcher/test_startup_watch.c tests/unit/check.h
tests_launcher_test_startup_watch_CPPFLAGS = $(AM_CPPFLAGS) $(QCG_SOAP_CPPFLAGS) \
	-I$(top_srcdir)/launcher -I$(top_srcdir)/tests/unit
tests_launcher_test_startup_watch_LDADD = $(LAUNCHER_LIBS) $(JOBDESC_LIBS)
TESTS += tests/launcher/test_startup_watch

# qcg-submit across Slurm sites and a builtin one (issue 16; skips without Slurm).
TESTS += tests/launcher/slurm_submit.test
EXTRA_DIST += tests/launcher/slurm_submit.test

# Staging on loopback: many chunks on one kept-alive connection, and back (lib/soap_server.c's
# XML shape check, the node's stage-out command).
TESTS += tests/launcher/test_stage_loopback.sh
EXTRA_DIST += tests/launcher/test_stage_loopback.sh
# A stage-in's bytes as a PUT body, and every bad body refused without a trace.
TESTS += tests/launcher/test_stage_put.sh
EXTRA_DIST += tests/launcher/test_stage_put.sh

# The examples' expected output, shared by examples.test and slurm_submit.test.
EXTRA_DIST += tests/launcher/examples_output.sh

# mpirun inside the job from a workstation running no qcg service (qcg-testbed up --workstation).
TESTS += tests/launcher/workstation.test
EXTRA_DIST += tests/launcher/workstation.test
TESTS += tests/launcher/two_users.test
EXTRA_DIST += tests/launcher/two_users.test

# The examples in three formats with the program staged from a workstation (issue 12).
TESTS += tests/launcher/examples_staged.test
EXTRA_DIST += tests/launcher/examples_staged.test

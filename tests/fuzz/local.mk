# tests/fuzz/: libFuzzer targets for every parser that takes outside input (README.md here).
#
# Each target NAME is one fuzz_NAME.c with LLVMFuzzerTestOneInput, built twice:
# - tests/fuzz/replay_NAME (always, in make check): the target linked with replay.c, which
#   feeds it every file of its corpus with the normal compiler, so CI replays each corpus;
# - tests/fuzz/fuzz_NAME (make fuzz, only in a build configured with --enable-fuzzing): the
#   target linked with libFuzzer, what bench/fuzz/run.sh runs.
# The targets of lib/ (config, gridmap, acl), the helper protocol and QCG-Simple keep their
# replays where they were (tests/unit/lib.mk, services/helper, launcher); their fuzzers are here.

FUZZ_LINK = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
QCG_FUZZERS = tests/fuzz/fuzz_config tests/fuzz/fuzz_gridmap tests/fuzz/fuzz_acl \
	tests/fuzz/fuzz_signing_policy tests/fuzz/fuzz_helper_proto tests/fuzz/fuzz_privsep_proto tests/fuzz/fuzz_job_simple tests/fuzz/fuzz_job_xml \
	tests/fuzz/fuzz_job_jsdl tests/fuzz/fuzz_relay_hello tests/fuzz/fuzz_topo_colors \
	tests/fuzz/fuzz_topo_file tests/fuzz/fuzz_delayline_conf tests/fuzz/fuzz_soap_broker \
	tests/fuzz/fuzz_soap_frontend tests/fuzz/fuzz_soap_helper tests/fuzz/fuzz_soap_proxy
EXTRA_PROGRAMS = $(QCG_FUZZERS)
CLEANFILES += $(QCG_FUZZERS)

if FUZZING
# The generated gSOAP code and job_xsd.c first: `all` would build them, `fuzz` alone does not.
fuzz: $(BUILT_SOURCES)
	$(MAKE) $(AM_MAKEFLAGS) $(QCG_FUZZERS)
else
fuzz:
	@echo "make fuzz needs a build configured with CC=clang --enable-fuzzing (tests/fuzz/README.md)" >&2
	@exit 1
endif
.PHONY: fuzz

# --- lib/: configuration, grid-mapfile, ACL ---------------------------------------------------
tests_fuzz_fuzz_config_SOURCES = tests/fuzz/fuzz_config.c
tests_fuzz_fuzz_config_CPPFLAGS = $(tests_fuzz_replay_config_CPPFLAGS)
tests_fuzz_fuzz_config_LDADD = $(tests_fuzz_replay_config_LDADD)
tests_fuzz_fuzz_config_LDFLAGS = $(FUZZ_LINK)
tests_fuzz_fuzz_gridmap_SOURCES = tests/fuzz/fuzz_gridmap.c
tests_fuzz_fuzz_gridmap_CPPFLAGS = $(tests_fuzz_replay_gridmap_CPPFLAGS)
tests_fuzz_fuzz_gridmap_LDADD = $(tests_fuzz_replay_gridmap_LDADD)
tests_fuzz_fuzz_gridmap_LDFLAGS = $(FUZZ_LINK)
tests_fuzz_fuzz_acl_SOURCES = tests/fuzz/fuzz_acl.c
tests_fuzz_fuzz_acl_CPPFLAGS = $(tests_fuzz_replay_acl_CPPFLAGS)
tests_fuzz_fuzz_acl_LDADD = $(tests_fuzz_replay_acl_LDADD)
tests_fuzz_fuzz_acl_LDFLAGS = $(FUZZ_LINK)
tests_fuzz_fuzz_signing_policy_SOURCES = tests/fuzz/fuzz_signing_policy.c
tests_fuzz_fuzz_signing_policy_CPPFLAGS = $(tests_fuzz_replay_signing_policy_CPPFLAGS)
tests_fuzz_fuzz_signing_policy_LDADD = $(tests_fuzz_replay_signing_policy_LDADD)
tests_fuzz_fuzz_signing_policy_LDFLAGS = $(FUZZ_LINK)

# --- the helper's local API ----------------------------------------------------------------
tests_fuzz_fuzz_helper_proto_SOURCES = proto/fuzz_helper_proto.c
tests_fuzz_fuzz_helper_proto_CPPFLAGS = $(proto_replay_helper_proto_CPPFLAGS)
tests_fuzz_fuzz_helper_proto_LDADD = $(proto_replay_helper_proto_LDADD)
tests_fuzz_fuzz_helper_proto_LDFLAGS = $(FUZZ_LINK)
tests_fuzz_fuzz_privsep_proto_SOURCES = services/helper/fuzz_privsep_proto.c
tests_fuzz_fuzz_privsep_proto_CPPFLAGS = $(services_helper_replay_privsep_proto_CPPFLAGS)
tests_fuzz_fuzz_privsep_proto_LDADD = $(services_helper_replay_privsep_proto_LDADD)
tests_fuzz_fuzz_privsep_proto_LDFLAGS = $(FUZZ_LINK)

# --- job descriptions: one target source, one parser each ----------------------------------
FUZZ_JOB_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/launcher $(LIBXML2_CFLAGS)
tests_fuzz_fuzz_job_simple_SOURCES = tests/launcher/fuzz_job.c
tests_fuzz_fuzz_job_simple_CPPFLAGS = $(FUZZ_JOB_CPPFLAGS) -DFUZZ_JOB_PARSER=job_parse_simple
tests_fuzz_fuzz_job_simple_LDADD = $(JOBDESC_LIBS)
tests_fuzz_fuzz_job_simple_LDFLAGS = $(FUZZ_LINK)
check_PROGRAMS += tests/fuzz/replay_job_xml tests/fuzz/replay_job_jsdl
TESTS += tests/fuzz/replay_job_xml tests/fuzz/replay_job_jsdl
tests_fuzz_replay_job_xml_SOURCES = tests/fuzz/replay.c tests/launcher/fuzz_job.c
tests_fuzz_replay_job_xml_CPPFLAGS = $(FUZZ_JOB_CPPFLAGS) -DFUZZ_JOB_PARSER=job_parse_xml \
	-DFUZZ_TARGET=\"job_xml\"
tests_fuzz_replay_job_xml_LDADD = $(JOBDESC_LIBS)
tests_fuzz_fuzz_job_xml_SOURCES = tests/launcher/fuzz_job.c
tests_fuzz_fuzz_job_xml_CPPFLAGS = $(FUZZ_JOB_CPPFLAGS) -DFUZZ_JOB_PARSER=job_parse_xml
tests_fuzz_fuzz_job_xml_LDADD = $(JOBDESC_LIBS)
tests_fuzz_fuzz_job_xml_LDFLAGS = $(FUZZ_LINK)
tests_fuzz_replay_job_jsdl_SOURCES = tests/fuzz/replay.c tests/launcher/fuzz_job.c
tests_fuzz_replay_job_jsdl_CPPFLAGS = $(FUZZ_JOB_CPPFLAGS) -DFUZZ_JOB_PARSER=job_parse_jsdl \
	-DFUZZ_TARGET=\"job_jsdl\"
tests_fuzz_replay_job_jsdl_LDADD = $(JOBDESC_LIBS)
tests_fuzz_fuzz_job_jsdl_SOURCES = tests/launcher/fuzz_job.c
tests_fuzz_fuzz_job_jsdl_CPPFLAGS = $(FUZZ_JOB_CPPFLAGS) -DFUZZ_JOB_PARSER=job_parse_jsdl
tests_fuzz_fuzz_job_jsdl_LDADD = $(JOBDESC_LIBS)
tests_fuzz_fuzz_job_jsdl_LDFLAGS = $(FUZZ_LINK)

# --- the relay hello (qcg-proxy's data plane) -----------------------------------------------
FUZZ_RELAY_CPPFLAGS = $(AM_CPPFLAGS) $(QCG_PROTO_CPPFLAGS)
FUZZ_RELAY_LIBS = $(QCG_PROTO_LIBS) lib/libqcgcommon.a
check_PROGRAMS += tests/fuzz/replay_relay_hello
TESTS += tests/fuzz/replay_relay_hello
tests_fuzz_replay_relay_hello_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_relay_hello.c
tests_fuzz_replay_relay_hello_CPPFLAGS = $(FUZZ_RELAY_CPPFLAGS) -DFUZZ_TARGET=\"relay_hello\"
tests_fuzz_replay_relay_hello_LDADD = $(FUZZ_RELAY_LIBS)
tests_fuzz_fuzz_relay_hello_SOURCES = tests/fuzz/fuzz_relay_hello.c
tests_fuzz_fuzz_relay_hello_CPPFLAGS = $(FUZZ_RELAY_CPPFLAGS)
tests_fuzz_fuzz_relay_hello_LDADD = $(FUZZ_RELAY_LIBS)
tests_fuzz_fuzz_relay_hello_LDFLAGS = $(FUZZ_LINK)

# --- the topology: QCG_TOPOLOGY_COLORS and the topology file --------------------------------
FUZZ_TOPO_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/mpi-glue/topo
check_PROGRAMS += tests/fuzz/replay_topo_colors tests/fuzz/replay_topo_file
TESTS += tests/fuzz/replay_topo_colors tests/fuzz/replay_topo_file
tests_fuzz_replay_topo_colors_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_topo_colors.c \
	mpi-glue/topo/qcg_topo_source.c
tests_fuzz_replay_topo_colors_CPPFLAGS = $(FUZZ_TOPO_CPPFLAGS) -DFUZZ_TARGET=\"topo_colors\"
tests_fuzz_fuzz_topo_colors_SOURCES = tests/fuzz/fuzz_topo_colors.c mpi-glue/topo/qcg_topo_source.c
tests_fuzz_fuzz_topo_colors_CPPFLAGS = $(FUZZ_TOPO_CPPFLAGS)
tests_fuzz_fuzz_topo_colors_LDFLAGS = $(FUZZ_LINK)
tests_fuzz_replay_topo_file_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_topo_file.c \
	mpi-glue/topo/qcg_topo_source.c
tests_fuzz_replay_topo_file_CPPFLAGS = $(FUZZ_TOPO_CPPFLAGS) -DFUZZ_TARGET=\"topo_file\"
tests_fuzz_fuzz_topo_file_SOURCES = tests/fuzz/fuzz_topo_file.c mpi-glue/topo/qcg_topo_source.c
tests_fuzz_fuzz_topo_file_CPPFLAGS = $(FUZZ_TOPO_CPPFLAGS)
tests_fuzz_fuzz_topo_file_LDFLAGS = $(FUZZ_LINK)

# --- the delay line's configuration (its command line) ------------------------------------
FUZZ_DELAYLINE_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/deploy/delayline
FUZZ_DELAYLINE_SOURCES = deploy/delayline/dl_conf.c deploy/delayline/dl_frame.c \
	deploy/delayline/dl_sched.c
check_PROGRAMS += tests/fuzz/replay_delayline_conf
TESTS += tests/fuzz/replay_delayline_conf
tests_fuzz_replay_delayline_conf_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_delayline_conf.c \
	$(FUZZ_DELAYLINE_SOURCES)
tests_fuzz_replay_delayline_conf_CPPFLAGS = $(FUZZ_DELAYLINE_CPPFLAGS) \
	-DFUZZ_TARGET=\"delayline_conf\"
tests_fuzz_replay_delayline_conf_LDADD = lib/libqcgcommon.a -lm
tests_fuzz_fuzz_delayline_conf_SOURCES = tests/fuzz/fuzz_delayline_conf.c $(FUZZ_DELAYLINE_SOURCES)
tests_fuzz_fuzz_delayline_conf_CPPFLAGS = $(FUZZ_DELAYLINE_CPPFLAGS)
tests_fuzz_fuzz_delayline_conf_LDADD = lib/libqcgcommon.a -lm
tests_fuzz_fuzz_delayline_conf_LDFLAGS = $(FUZZ_LINK)

# --- SOAP request handling of the services, in memory (fuzz_soap.h) ------------------------
FUZZ_SOAP_SOURCES = tests/fuzz/fuzz_soap.c tests/fuzz/fuzz_soap.h

FUZZ_BROKER_SOURCES = $(FUZZ_SOAP_SOURCES) tests/fuzz/fuzz_soap_broker.c $(BROKER_SERVICE_SOURCES)
FUZZ_BROKER_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/services/broker -I$(top_srcdir)/tests/fuzz \
	$(QCG_SOAP_CPPFLAGS) $(SQLITE3_CFLAGS)
FUZZ_BROKER_LIBS = services/broker/libdecision.a db/libqcgdb.a $(QCG_SOAP_LIBS) \
	$(SQLITE3_LIBS) -lpthread
check_PROGRAMS += tests/fuzz/replay_soap_broker
TESTS += tests/fuzz/replay_soap_broker
tests_fuzz_replay_soap_broker_SOURCES = tests/fuzz/replay.c $(FUZZ_BROKER_SOURCES)
tests_fuzz_replay_soap_broker_CPPFLAGS = $(FUZZ_BROKER_CPPFLAGS) -DFUZZ_TARGET=\"soap_broker\"
tests_fuzz_replay_soap_broker_LDADD = $(FUZZ_BROKER_LIBS)
tests_fuzz_fuzz_soap_broker_SOURCES = $(FUZZ_BROKER_SOURCES)
tests_fuzz_fuzz_soap_broker_CPPFLAGS = $(FUZZ_BROKER_CPPFLAGS)
tests_fuzz_fuzz_soap_broker_LDADD = $(FUZZ_BROKER_LIBS)
tests_fuzz_fuzz_soap_broker_LDFLAGS = $(FUZZ_LINK)

FUZZ_FRONTEND_SOURCES = $(FUZZ_SOAP_SOURCES) tests/fuzz/fuzz_soap_frontend.c \
	$(FRONTEND_SERVICE_SOURCES)
FUZZ_FRONTEND_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/services/frontend \
	-I$(top_srcdir)/tests/fuzz $(QCG_SOAP_CPPFLAGS) -DFUZZ_QCG_CA=\"$(abs_top_srcdir)/deploy/qcg-ca\"
FUZZ_FRONTEND_LIBS = services/frontend/libfrontend.a $(QCG_SOAP_LIBS) -lpthread
check_PROGRAMS += tests/fuzz/replay_soap_frontend
TESTS += tests/fuzz/replay_soap_frontend
tests_fuzz_replay_soap_frontend_SOURCES = tests/fuzz/replay.c $(FUZZ_FRONTEND_SOURCES)
tests_fuzz_replay_soap_frontend_CPPFLAGS = $(FUZZ_FRONTEND_CPPFLAGS) \
	-DFUZZ_TARGET=\"soap_frontend\"
tests_fuzz_replay_soap_frontend_LDADD = $(FUZZ_FRONTEND_LIBS)
tests_fuzz_fuzz_soap_frontend_SOURCES = $(FUZZ_FRONTEND_SOURCES)
tests_fuzz_fuzz_soap_frontend_CPPFLAGS = $(FUZZ_FRONTEND_CPPFLAGS)
tests_fuzz_fuzz_soap_frontend_LDADD = $(FUZZ_FRONTEND_LIBS)
tests_fuzz_fuzz_soap_frontend_LDFLAGS = $(FUZZ_LINK)

FUZZ_HELPER_SOURCES = $(FUZZ_SOAP_SOURCES) tests/fuzz/fuzz_soap_helper.c \
	$(HELPER_SERVICE_SOURCES)
FUZZ_HELPER_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/services/helper \
	$(QCG_PROTO_CPPFLAGS) -I$(top_srcdir)/tests/fuzz $(QCG_SOAP_CPPFLAGS)
FUZZ_HELPER_LIBS = services/helper/libhelper.a $(HWLOC_LIBS) $(QCG_PROTO_LIBS) \
	$(QCG_SOAP_LIBS) -lpthread
check_PROGRAMS += tests/fuzz/replay_soap_helper
TESTS += tests/fuzz/replay_soap_helper
tests_fuzz_replay_soap_helper_SOURCES = tests/fuzz/replay.c $(FUZZ_HELPER_SOURCES)
tests_fuzz_replay_soap_helper_CPPFLAGS = $(FUZZ_HELPER_CPPFLAGS) -DFUZZ_TARGET=\"soap_helper\"
tests_fuzz_replay_soap_helper_LDADD = $(FUZZ_HELPER_LIBS)
tests_fuzz_fuzz_soap_helper_SOURCES = $(FUZZ_HELPER_SOURCES)
tests_fuzz_fuzz_soap_helper_CPPFLAGS = $(FUZZ_HELPER_CPPFLAGS)
tests_fuzz_fuzz_soap_helper_LDADD = $(FUZZ_HELPER_LIBS)
tests_fuzz_fuzz_soap_helper_LDFLAGS = $(FUZZ_LINK)

FUZZ_PROXY_SOURCES = $(FUZZ_SOAP_SOURCES) tests/fuzz/fuzz_soap_proxy.c \
	services/proxy/proxy_soap.c services/proxy/proxy_soap.h
FUZZ_PROXY_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/services/proxy $(QCG_PROTO_CPPFLAGS) \
	-I$(top_srcdir)/tests/fuzz $(QCG_SOAP_CPPFLAGS)
FUZZ_PROXY_LIBS = services/proxy/librelay.a $(QCG_PROTO_LIBS) $(QCG_SOAP_LIBS) -lpthread
check_PROGRAMS += tests/fuzz/replay_soap_proxy
TESTS += tests/fuzz/replay_soap_proxy
tests_fuzz_replay_soap_proxy_SOURCES = tests/fuzz/replay.c $(FUZZ_PROXY_SOURCES)
tests_fuzz_replay_soap_proxy_CPPFLAGS = $(FUZZ_PROXY_CPPFLAGS) -DFUZZ_TARGET=\"soap_proxy\"
tests_fuzz_replay_soap_proxy_LDADD = $(FUZZ_PROXY_LIBS)
tests_fuzz_fuzz_soap_proxy_SOURCES = $(FUZZ_PROXY_SOURCES)
tests_fuzz_fuzz_soap_proxy_CPPFLAGS = $(FUZZ_PROXY_CPPFLAGS)
tests_fuzz_fuzz_soap_proxy_LDADD = $(FUZZ_PROXY_LIBS)
tests_fuzz_fuzz_soap_proxy_LDFLAGS = $(FUZZ_LINK)

EXTRA_DIST += tests/fuzz/corpus_job_xml tests/fuzz/corpus_job_jsdl \
	tests/fuzz/corpus_relay_hello tests/fuzz/corpus_topo_colors tests/fuzz/corpus_topo_file \
	tests/fuzz/corpus_delayline_conf tests/fuzz/corpus_soap_broker \
	tests/fuzz/corpus_soap_frontend tests/fuzz/corpus_soap_helper tests/fuzz/corpus_soap_proxy

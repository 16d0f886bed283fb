# wsdl/: the service contract. gSOAP code is generated from it at build time, into gen/ in the
# build directory, and never committed. Each service is generated on its own (-p<service> -n),
# so its functions and namespace table carry the service's name.
WSDL2H_FLAGS = -c -t $(srcdir)/wsdl/typemap.dat
# -c C, -s strict validation code, -x no sample messages, -w no WSDL/XSD copies, -L no libs
SOAPCPP2_FLAGS = -c -s -x -w -L -I$(GSOAP_IMPORT_DIR)
EXTRA_DIST += wsdl/typemap.dat
dist_pkgdata_DATA += wsdl/qcg-types.xsd wsdl/broker.wsdl

BROKER_GENERATED = gen/broker/brokerC.c gen/broker/brokerServer.c gen/broker/brokerClient.c \
	gen/broker/brokerStub.h gen/broker/brokerH.h gen/broker/broker.nsmap
BUILT_SOURCES += gen/broker/generated.stamp
CLEANFILES += gen/broker/broker.h gen/broker/generated.stamp $(BROKER_GENERATED)

gen/broker/broker.h: $(srcdir)/wsdl/broker.wsdl $(srcdir)/wsdl/qcg-types.xsd $(srcdir)/wsdl/typemap.dat
	@$(MKDIR_P) gen/broker
	$(AM_V_GEN)$(WSDL2H) $(WSDL2H_FLAGS) -o $@ $(srcdir)/wsdl/broker.wsdl >/dev/null
gen/broker/generated.stamp: gen/broker/broker.h
	$(AM_V_GEN)$(SOAPCPP2) $(SOAPCPP2_FLAGS) -d gen/broker -pbroker -n gen/broker/broker.h >/dev/null
	@touch $@
$(BROKER_GENERATED): gen/broker/generated.stamp

# Generated code is compiled without -Werror (it is not ours to fix) but with the same gSOAP
# defines as everything else, so that struct soap has one layout in every unit.
GEN_BROKER_CPPFLAGS = -I$(top_builddir) -Igen/broker -I$(top_srcdir)/wsdl $(GSOAP_CFLAGS)
noinst_LIBRARIES += gen/libbroker_server.a gen/libbroker_client.a
nodist_gen_libbroker_server_a_SOURCES = gen/broker/brokerC.c gen/broker/brokerServer.c
gen_libbroker_server_a_SOURCES = wsdl/broker_namespaces.c
gen_libbroker_server_a_CPPFLAGS = $(GEN_BROKER_CPPFLAGS)
gen_libbroker_server_a_CFLAGS = $(GEN_CFLAGS) $(SANITIZER_FLAGS)
nodist_gen_libbroker_client_a_SOURCES = gen/broker/brokerC.c gen/broker/brokerClient.c
gen_libbroker_client_a_SOURCES = wsdl/broker_namespaces.c
gen_libbroker_client_a_CPPFLAGS = $(GEN_BROKER_CPPFLAGS)
gen_libbroker_client_a_CFLAGS = $(GEN_CFLAGS) $(SANITIZER_FLAGS)

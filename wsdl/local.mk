# wsdl/: the service contract. gSOAP code is generated from it at build time into gen/ in the
# build directory, and never committed.
#
# All four WSDLs are generated together: gSOAP's C runtime wants one type registry per program
# (soap_getelement and friends), and the front-end, for one, is a broker client and a server
# at once. Each daemon defines its own operations; gen/unoffered.c gives every other operation
# a weak default that answers with a SOAP fault (see wsdl/gen_unoffered.sh).
WSDL_SOURCES = wsdl/broker.wsdl wsdl/frontend.wsdl wsdl/helper.wsdl wsdl/proxy.wsdl
WSDL2H_FLAGS = -c -t $(srcdir)/wsdl/typemap.dat
# -c C, -s strict validation code, -x no sample messages, -w no WSDL/XSD copies, -L no libs
SOAPCPP2_FLAGS = -c -s -x -w -L -I$(GSOAP_IMPORT_DIR)
EXTRA_DIST += wsdl/typemap.dat wsdl/gen_unoffered.sh
dist_pkgdata_DATA += wsdl/qcg-types.xsd $(WSDL_SOURCES)

SOAP_GENERATED = gen/soapC.c gen/soapServer.c gen/soapClient.c gen/soapStub.h gen/soapH.h \
	gen/BrokerBinding.nsmap gen/FrontendBinding.nsmap gen/HelperBinding.nsmap \
	gen/ProxyBinding.nsmap
BUILT_SOURCES += gen/generated.stamp gen/unoffered.c
CLEANFILES += gen/qcg.h gen/generated.stamp gen/unoffered.c $(SOAP_GENERATED)

WSDL_SOURCE_PATHS = $(srcdir)/wsdl/broker.wsdl $(srcdir)/wsdl/frontend.wsdl \
	$(srcdir)/wsdl/helper.wsdl $(srcdir)/wsdl/proxy.wsdl
gen/qcg.h: $(WSDL_SOURCE_PATHS) $(srcdir)/wsdl/qcg-types.xsd $(srcdir)/wsdl/typemap.dat
	@$(MKDIR_P) gen
	$(AM_V_GEN)$(WSDL2H) $(WSDL2H_FLAGS) -o $@ $(WSDL_SOURCE_PATHS) >/dev/null
gen/generated.stamp: gen/qcg.h
	$(AM_V_GEN)$(SOAPCPP2) $(SOAPCPP2_FLAGS) -d gen gen/qcg.h >/dev/null
	@touch $@
$(SOAP_GENERATED): gen/generated.stamp
gen/unoffered.c: gen/generated.stamp $(srcdir)/wsdl/gen_unoffered.sh
	$(AM_V_GEN)$(SHELL) $(srcdir)/wsdl/gen_unoffered.sh gen/soapStub.h >$@

# Generated code is compiled without -Werror (it is not ours to fix) but with the same gSOAP
# defines as everything else, so that struct soap has one layout in every unit.
noinst_LIBRARIES += gen/libqcgsoap.a
nodist_gen_libqcgsoap_a_SOURCES = gen/soapC.c gen/soapClient.c gen/soapServer.c gen/unoffered.c
gen_libqcgsoap_a_SOURCES = wsdl/qcg_namespaces.c
gen_libqcgsoap_a_CPPFLAGS = -I$(top_builddir) -Igen $(GSOAP_CFLAGS)
gen_libqcgsoap_a_CFLAGS = $(GEN_CFLAGS) $(SANITIZER_FLAGS)

# The one module that converts between the generated qcg__* types and the model (lib/model.h),
# with the static asserts that tie the XSD's enumerations to the model's enums. Ours, so it is
# compiled with the project's warnings, unlike gen/.
noinst_LIBRARIES += wsdl/libqcgsoapmodel.a
wsdl_libqcgsoapmodel_a_SOURCES = wsdl/soap_model.c wsdl/soap_model.h wsdl/soap_model_request.c \
	wsdl/soap_model_client.c
wsdl_libqcgsoapmodel_a_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/wsdl -Igen $(GSOAP_CFLAGS) \
	$(OPENSSL_CFLAGS)

# What a SOAP program adds to its CPPFLAGS and LDADD (the conversions before lib/, lib/ before
# gen/: lib/ uses the namespace table gen/ defines).
QCG_SOAP_CPPFLAGS = -I$(top_srcdir)/wsdl -Igen $(GSOAP_CFLAGS) $(OPENSSL_CFLAGS)
QCG_SOAP_LIBS = wsdl/libqcgsoapmodel.a lib/libqcgcommon.a gen/libqcgsoap.a $(GSOAP_LIBS) \
	$(OPENSSL_LIBS)

# The conversions against gSOAP's own serialisers: every model value has its XSD name, and the
# XSD has no value the model lacks.
check_PROGRAMS += tests/unit/test_soap_model
tests_unit_test_soap_model_SOURCES = tests/unit/test_soap_model.c tests/unit/check.h
tests_unit_test_soap_model_CPPFLAGS = $(AM_CPPFLAGS) $(QCG_SOAP_CPPFLAGS) -I$(top_srcdir)/tests/unit
tests_unit_test_soap_model_LDADD = $(QCG_SOAP_LIBS)
TESTS += tests/unit/test_soap_model

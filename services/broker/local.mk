# services/broker/: qcg-broker, the grid's connection broker.
include services/broker/decision.mk

# The service without its main: the daemon and the SOAP fuzz target (tests/fuzz) serve the same.
BROKER_SERVICE_SOURCES = services/broker/broker.h \
	services/broker/broker_auth.c \
	services/broker/handlers_registration.c \
	services/broker/handlers_connect.c \
	services/broker/handlers_query.c \
	services/broker/handlers_outcomes.c \
	services/broker/handlers_bulk.c \
	services/broker/resolve.c services/broker/resolve.h \
	services/broker/events.c services/broker/events.h \
	services/broker/prune.c services/broker/prune.h \
	services/broker/liveness.c services/broker/liveness.h
# Relay failover (issue 14): resuming a relay whose proxy died on another proxy.
BROKER_SERVICE_SOURCES += services/broker/resume.c services/broker/resume.h \
	services/broker/handlers_resume.c
sbin_PROGRAMS += services/broker/qcg-broker
services_broker_qcg_broker_SOURCES = services/broker/broker_main.c $(BROKER_SERVICE_SOURCES)
services_broker_qcg_broker_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/services/broker \
	$(QCG_SOAP_CPPFLAGS) $(SQLITE3_CFLAGS)
services_broker_qcg_broker_LDADD = services/broker/libdecision.a db/libqcgdb.a \
	$(QCG_SOAP_LIBS) $(SQLITE3_LIBS) -lpthread

/*
 * broker_namespaces.h: the broker's namespace table, defined once in broker_namespaces.c from
 * the generated broker.nsmap (soapcpp2 -n names it after the service).
 */
#ifndef QCG_BROKER_NAMESPACES_H
#define QCG_BROKER_NAMESPACES_H

#include <stdsoap2.h>

extern SOAP_NMAC struct Namespace broker_namespaces[];

#endif

/*
 * soap_namespaces.c: the default namespace table libgsoap expects to find under the global name
 * `namespaces`. Each service is generated with its own table (soapcpp2 -n: broker_namespaces,
 * ...), and every context selects its table with soap_set_namespaces; this one, holding only
 * the SOAP envelope and schema namespaces, is what a context has before that.
 */
#include "config.h"

#include <stdsoap2.h>

SOAP_NMAC struct Namespace namespaces[] = {
	{ "SOAP-ENV", "http://schemas.xmlsoap.org/soap/envelope/", "http://www.w3.org/*/soap-envelope", NULL },
	{ "SOAP-ENC", "http://schemas.xmlsoap.org/soap/encoding/", "http://www.w3.org/*/soap-encoding", NULL },
	{ "xsi", "http://www.w3.org/2001/XMLSchema-instance", "http://www.w3.org/*/XMLSchema-instance", NULL },
	{ "xsd", "http://www.w3.org/2001/XMLSchema", "http://www.w3.org/*/XMLSchema", NULL },
	{ NULL, NULL, NULL, NULL },
};

/*
 * qcg_namespaces.c: the one definition of the XML namespace table (`namespaces`, which libgsoap
 * looks up by that name) for every qcg service: SOAP envelope, the shared types (qcg) and the
 * broker (qb), front-end (qf), helper (qh) and proxy (qp) namespaces. soapcpp2 writes the same
 * table once per binding; any one of them will do.
 */
#include "config.h"

#include "soapH.h"
#include "BrokerBinding.nsmap"

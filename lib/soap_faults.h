/*
 * soap_faults.h: the kinds of SOAP Client fault that callers act on, not only report. A server
 * raises one with soap_fault_client_kind (soap_server.h); a client reads it with
 * soap_client_fault_kind (soap_client.h). On the wire the kind refines the SOAP 1.1 code:
 * "SOAP-ENV:Client.NoMethod".
 */
#ifndef QCG_SOAP_FAULTS_H
#define QCG_SOAP_FAULTS_H

#define QCG_FAULT_NO_METHOD "NoMethod"            /* no (further) method connects the pair */
#define QCG_FAULT_NO_ACCESS_POINT "NoAccessPoint" /* nothing of the job listens there */
#define QCG_FAULT_BUSY "Busy"                     /* a front-end's slots are held by other
                                                   * reservations now: retry later */

#endif

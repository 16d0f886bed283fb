# wsdl/: the service contract; gSOAP code is generated from it at build time.

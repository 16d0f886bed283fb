/*
 * proxy_config_services.c: the settings of qcg-proxy that need lib/soap_server and lib/tls
 * (proxy_config.h, proxy_config_services): kept out of librelay.a, whose users (tests,
 * benchmarks) link neither gSOAP nor OpenSSL.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "config_file.h"
#include "proxy_config.h"

int
proxy_config_services(const struct config *cfg, struct proxy_config *out, char *err,
    size_t errlen)
{
	long workers;

	if (out->control_enabled) {
		/* [control] listen is not a key: [proxy] control_listen says where. */
		struct soap_server_settings s;
		if (soap_server_settings_from_config(cfg, "control", &s, err, errlen) != 0 ||
		    config_get_int(cfg, "control.workers", PROXY_CONTROL_WORKERS_DEFAULT, 1, 1024,
			&workers, err, errlen) != 0)
			return -1;
		memcpy(s.host, out->control.host, sizeof(s.host));
		s.port = out->control.port;
		s.workers = (int)workers;
		out->control = s;
	}
	if ((out->broker_url[0] || out->control_enabled) &&
	    tls_settings_from_config(cfg, "tls", &out->tls, false, err, errlen) != 0)
		return -1;
	return 0;
}

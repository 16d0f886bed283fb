/*
 * helper_config.c: read and check qcg-helper's [helper] settings.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_file.h"
#include "helper_config.h"

static int
get_mode(const struct config *cfg, mode_t *out, char *err, size_t errlen)
{
	const char *v = config_get(cfg, "helper.socket_mode", "0660");
	char *end;
	long mode = strtol(v, &end, 8);
	if (*v == '\0' || *end != '\0' || mode < 0 || mode > 0777) {
		snprintf(err, errlen, "helper.socket_mode must be octal permissions like 0660, got '%.32s'",
		    v);
		return -1;
	}
	*out = (mode_t)mode;
	return 0;
}

static int
get_ints(const struct config *cfg, struct helper_config *out, char *err, size_t errlen)
{
	static const struct {
		const char *key;
		long fallback, min, max;
	} spec[] = {
		{ "helper.max_clients", 256, 1, 4096 },
		{ "helper.client_io_timeout", 10, 1, 300 },
		{ "helper.max_setups", 64, 1, 1024 },
		{ "helper.rendezvous_timeout", 10, 1, 300 },
		{ "helper.park_timeout", 10, 1, 300 },
		{ "helper.frontend_timeout", 30, 1, 600 },
		{ "helper.max_launches", 64, 1, 4096 },
		{ "helper.output_cap", 16L * 1024 * 1024, 4096, 1024L * 1024 * 1024 },
	};
	long v[8];
	for (size_t i = 0; i < 8; i++)
		if (config_get_int(cfg, spec[i].key, spec[i].fallback, spec[i].min, spec[i].max, &v[i],
			err, errlen) != 0)
			return -1;
	out->max_clients = (int)v[0];
	out->client_io_ms = (int)v[1] * 1000;
	out->max_setups = (int)v[2];
	out->rendezvous_ms = (int)v[3] * 1000;
	out->park_ms = (int)v[4] * 1000;
	out->frontend_timeout = (int)v[5];
	out->max_launches = (int)v[6];
	out->output_cap = (size_t)v[7];
	/* how long a batch of REGISTERs waits for more after its first (helper_registrations.h) */
	if (config_get_int(cfg, "helper.register_window_ms", 2, 0, 5000, &v[0], err, errlen) != 0)
		return -1;
	out->register_window_ms = (int)v[0];
	/* whether the node keeps the decisions per cluster pair (helper_paircache.h) */
	return config_get_bool(cfg, "helper.pair_cache", true, &out->pair_cache, err, errlen);
}

/*
 * helper.rendezvous_ports = MIN-MAX: a reversal's target connects to the initiator's rendezvous
 * listener, so in a cluster whose firewall admits only a port range that listener must take a
 * port of the range. Absent or empty: any free port.
 */
static int
get_rendezvous_ports(const struct config *cfg, struct helper_config *out, char *err,
    size_t errlen)
{
	const char *v = config_get(cfg, "helper.rendezvous_ports", "");
	unsigned long lo, hi;
	char *end;
	if (v[0] == '\0')
		return 0;
	errno = 0;
	lo = strtoul(v, &end, 10);
	if (end != v && *end == '-') {
		const char *p = end + 1;
		hi = strtoul(p, &end, 10);
		if (end != p && *end == '\0' && errno == 0 && lo >= 1 && lo <= hi && hi <= 65535) {
			out->rendezvous_port_min = (uint16_t)lo;
			out->rendezvous_port_max = (uint16_t)hi;
			return 0;
		}
	}
	snprintf(err, errlen, "helper.rendezvous_ports: expected MIN-MAX with 1 <= MIN <= MAX <= "
	    "65535, got '%.64s'", v);
	return -1;
}

/* helper.topology_xml: "auto" (the default) is the socket's path with ".topology.xml", beside
 * it where the job's processes already reach; "off" turns it off; else an absolute path. */
static int
get_topology_xml(const struct config *cfg, struct helper_config *out, char *err, size_t errlen)
{
	char v[PATH_MAX];
	if (config_copy(cfg, "helper.topology_xml", "auto", v, sizeof(v), err, errlen))
		return -1;
	if (strcmp(v, "off") == 0) {
		out->topology_xml[0] = '\0';
		return 0;
	}
	if (strcmp(v, "auto") != 0 && v[0] != '/') {
		snprintf(err, errlen, "helper.topology_xml must be auto, off or an absolute path, "
		    "got '%.64s'", v);
		return -1;
	}
	int n = strcmp(v, "auto") == 0 ?
	    snprintf(out->topology_xml, sizeof(out->topology_xml), "%s.topology.xml",
		out->socket_path) :
	    snprintf(out->topology_xml, sizeof(out->topology_xml), "%s", v);
	if (n >= (int)sizeof(out->topology_xml)) {
		snprintf(err, errlen, "helper.topology_xml: path too long");
		return -1;
	}
	return 0;
}

int
helper_config_load(const struct config *cfg, struct helper_config *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (config_copy_required(cfg, "helper.node", NULL, out->node, sizeof(out->node), err,
		errlen) ||
	    config_copy_required(cfg, "helper.cluster", NULL, out->cluster, sizeof(out->cluster),
		err, errlen) ||
	    config_copy_required(cfg, "helper.address", NULL, out->address, sizeof(out->address),
		err, errlen) ||
	    config_copy_required(cfg, "helper.frontend", NULL, out->frontend_url,
		sizeof(out->frontend_url), err, errlen) ||
	    config_copy(cfg, "helper.acl", "/etc/qcg/helper.acl", out->acl_path,
		sizeof(out->acl_path), err, errlen) ||
	    config_copy(cfg, "helper.socket", "/run/qcg/helper.sock", out->socket_path,
		sizeof(out->socket_path), err, errlen) ||
	    config_copy(cfg, "helper.socket_group", "", out->socket_group,
		sizeof(out->socket_group), err, errlen) ||
	    config_copy(cfg, "helper.token_file", "", out->token_file, sizeof(out->token_file),
		err, errlen) ||
	    config_copy(cfg, "helper.user", "", out->user, sizeof(out->user), err, errlen) ||
	    config_copy(cfg, "helper.grid_mapfile", "/etc/grid-security/grid-mapfile",
		out->grid_mapfile, sizeof(out->grid_mapfile), err, errlen) ||
	    get_mode(cfg, &out->socket_mode, err, errlen) || get_ints(cfg, out, err, errlen) ||
	    get_rendezvous_ports(cfg, out, err, errlen) ||
	    config_get_bool(cfg, "helper.allow_root_launch", false, &out->allow_root_launch, err,
		errlen))
		return -1;
	if (out->socket_path[0] != '/') {
		snprintf(err, errlen, "helper.socket must be an absolute path, got '%.64s'",
		    out->socket_path);
		return -1;
	}
	return get_topology_xml(cfg, out, err, errlen);
}

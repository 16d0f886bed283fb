/*
 * proxy_config.c: qcg-proxy's settings from a lib/config_file configuration (keys in
 * proxy_config.h).
 */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cidr.h"
#include "config_file.h"
#include "log.h"
#include "proxy_config.h"

/* Every key [proxy] may hold; anything else is a typo and refused. */
static const char *const proxy_keys[] = {
	"listen", "threads", "max_legs", "max_ids", "pipe_size", "hello_timeout_ms",
	"partner_timeout_ms", "unknown_id_wait_ms", "used_id_ttl_ms", "accept_any_id", "control",
	"port_file", "stats_interval", "log_level", "syslog", "broker", "advertise", "networks",
	"cluster", "control_listen", "acl", "gridmap", "id_ttl", "broker_wait",
};

/* The keys an earlier release spelled with hyphens (and ready-file, now port_file as the other
 * daemons' --port-file): read for one more release, with a warning naming the new spelling. */
static const struct renamed_key {
	const char *old, *new;
} renamed_keys[] = {
	{ "proxy.max-legs", "proxy.max_legs" },
	{ "proxy.max-ids", "proxy.max_ids" },
	{ "proxy.pipe-size", "proxy.pipe_size" },
	{ "proxy.hello-timeout-ms", "proxy.hello_timeout_ms" },
	{ "proxy.partner-timeout-ms", "proxy.partner_timeout_ms" },
	{ "proxy.unknown-id-wait-ms", "proxy.unknown_id_wait_ms" },
	{ "proxy.used-id-ttl-ms", "proxy.used_id_ttl_ms" },
	{ "proxy.accept-any-id", "proxy.accept_any_id" },
	{ "proxy.ready-file", "proxy.port_file" },
	{ "proxy.stats-interval", "proxy.stats_interval" },
	{ "proxy.log-level", "proxy.log_level" },
	{ "proxy.id-ttl", "proxy.id_ttl" },
	{ "proxy.broker-wait", "proxy.broker_wait" },
};
#define RENAMED_KEYS (sizeof(renamed_keys) / sizeof(renamed_keys[0]))

/* The key to read for setting key (the new spelling): itself, or its old spelling when only
 * that is set, so that an error names what the administrator wrote. */
static const char *
pc_key(const struct config *cfg, const char *key)
{
	for (size_t i = 0; i < RENAMED_KEYS; i++)
		if (strcmp(renamed_keys[i].new, key) == 0 && config_get(cfg, key, NULL) == NULL &&
		    config_get(cfg, renamed_keys[i].old, NULL) != NULL)
			return renamed_keys[i].old;
	return key;
}

/* One warning per old spelling in cfg. */
static void
warn_old_spellings(const struct config *cfg)
{
	for (size_t i = 0; i < RENAMED_KEYS; i++) {
		const struct renamed_key *r = &renamed_keys[i];
		if (config_get(cfg, r->old, NULL) == NULL)
			continue;
		if (config_get(cfg, r->new, NULL) != NULL)
			log_warn("%s is the old spelling of %s, which is set too and wins: remove %s",
			    r->old, r->new, r->old);
		else
			log_warn("%s is the old spelling and goes in the next release: write %s",
			    r->old, r->new);
	}
}

static int
check_known_keys(const struct config *cfg, char *err, size_t errlen)
{
	for (size_t i = 0; i < cfg->count; i++) {
		const char *key = cfg->entries[i].key;
		if (strncmp(key, "proxy.", 6) != 0)
			continue;
		bool known = false;
		for (size_t k = 0; k < sizeof(proxy_keys) / sizeof(proxy_keys[0]) && !known; k++)
			known = strcmp(key + 6, proxy_keys[k]) == 0;
		for (size_t k = 0; k < RENAMED_KEYS && !known; k++)
			known = strcmp(key, renamed_keys[k].old) == 0;
		if (!known) {
			snprintf(err, errlen, "unknown setting '%.60s' (see proxy_config.h)", key);
			return -1;
		}
	}
	return 0;
}

int
proxy_parse_hostport(const char *what, const char *value, bool port_optional, char *host,
    size_t hostlen, uint16_t *port, char *err, size_t errlen)
{
	const char *colon, *host_start = value;
	size_t len;
	long p = 0;

	if (value[0] == '[') { /* "[V6]" or "[V6]:PORT" */
		const char *close = strchr(value, ']');
		if (close == NULL || (close[1] != '\0' && close[1] != ':')) {
			snprintf(err, errlen, "%s: expected [ADDRESS]:PORT, got '%.60s'", what, value);
			return -1;
		}
		host_start = value + 1;
		len = (size_t)(close - host_start);
		colon = close[1] == ':' ? close + 1 : NULL;
	} else {
		colon = strchr(value, ':');
		if (colon != NULL && strchr(colon + 1, ':') != NULL) {
			snprintf(err, errlen, "%s: write IPv6 addresses in brackets, got '%.60s'", what,
			    value);
			return -1;
		}
		len = colon ? (size_t)(colon - value) : strlen(value);
	}
	if (colon == NULL && !port_optional) {
		snprintf(err, errlen, "%s: expected HOST:PORT, got '%.60s'", what, value);
		return -1;
	}
	if (colon != NULL) {
		char *end;
		p = strtol(colon + 1, &end, 10);
		if (colon[1] < '0' || colon[1] > '9' || *end != '\0' || p > 65535) {
			snprintf(err, errlen, "%s: port must be a whole number in 0..65535, got '%.60s'",
			    what, value);
			return -1;
		}
	}
	if (len == 1 && host_start[0] == '*')
		len = 0;
	if (len >= hostlen) {
		snprintf(err, errlen, "%s: host longer than %zu bytes", what, hostlen - 1);
		return -1;
	}
	memcpy(host, host_start, len);
	host[len] = '\0';
	*port = (uint16_t)p;
	return 0;
}

/* An unsigned setting with its bounds and where it goes. */
struct unsigned_key {
	const char *key;
	unsigned long min, max;
	size_t offset; /* of an unsigned in struct proxy_config */
};

#define PC_OFF(field) offsetof(struct proxy_config, field)

static const struct unsigned_key unsigned_keys[] = {
	{ "proxy.threads", 0, RELAY_MAX_THREADS, PC_OFF(relay.threads) },
	{ "proxy.max_legs", 2, RELAY_MAX_LEGS_LIMIT, PC_OFF(relay.max_legs) },
	{ "proxy.max_ids", 1, 10ul * RELAY_MAX_LEGS_LIMIT, PC_OFF(relay.max_ids) },
	{ "proxy.pipe_size", RELAY_PIPE_SIZE_MIN, RELAY_PIPE_SIZE_MAX, PC_OFF(relay.pipe_size) },
	{ "proxy.hello_timeout_ms", 1, RELAY_TIMEOUT_MAX_MS, PC_OFF(relay.hello_timeout_ms) },
	{ "proxy.partner_timeout_ms", 1, RELAY_TIMEOUT_MAX_MS, PC_OFF(relay.partner_timeout_ms) },
	{ "proxy.used_id_ttl_ms", 1, RELAY_TIMEOUT_MAX_MS, PC_OFF(relay.used_id_ttl_ms) },
	{ "proxy.unknown_id_wait_ms", 0, RELAY_TIMEOUT_MAX_MS, PC_OFF(relay.unknown_id_wait_ms) },
	{ "proxy.stats_interval", 0, PROXY_STATS_INTERVAL_MAX, PC_OFF(stats_interval_s) },
	{ "proxy.id_ttl", 1, RELAY_ID_TTL_MAX_S, PC_OFF(id_ttl_s) },
	{ "proxy.broker_wait", 1, PROXY_BROKER_WAIT_MAX, PC_OFF(broker_wait_s) },
};

static int
read_unsigned(const struct config *cfg, struct proxy_config *out, char *err, size_t errlen)
{
	for (size_t i = 0; i < sizeof(unsigned_keys) / sizeof(unsigned_keys[0]); i++) {
		const struct unsigned_key *k = &unsigned_keys[i];
		unsigned *field = (unsigned *)((char *)out + k->offset);
		long v;
		if (config_get_int(cfg, pc_key(cfg, k->key), (long)*field, (long)k->min, (long)k->max, &v, err,
		    errlen) != 0)
			return -1;
		*field = (unsigned)v;
	}
	return 0;
}

static int
read_plane(const struct config *cfg, struct proxy_config *out, char *err, size_t errlen)
{
	const char *listen = config_get(cfg, "proxy.listen", NULL);
	const char *level_key = pc_key(cfg, "proxy.log_level");
	const char *level = config_get(cfg, level_key, "info");

	if (listen != NULL && proxy_parse_hostport("proxy.listen", listen, false,
	    out->relay.listen_host, sizeof(out->relay.listen_host), &out->relay.listen_port, err,
	    errlen) != 0)
		return -1;
	if (read_unsigned(cfg, out, err, errlen) != 0 ||
	    config_get_bool(cfg, pc_key(cfg, "proxy.accept_any_id"), false,
		&out->relay.accept_any_id, err, errlen) != 0 ||
	    config_get_bool(cfg, "proxy.syslog", false, &out->use_syslog, err, errlen) != 0 ||
	    config_copy(cfg, "proxy.control", NULL, out->control_path, sizeof(out->control_path), err,
		errlen) < 0 ||
	    config_copy(cfg, pc_key(cfg, "proxy.port_file"), NULL, out->port_file,
		sizeof(out->port_file), err, errlen) < 0)
		return -1;
	out->log_level = log_level_parse(level);
	if (out->log_level < 0) {
		snprintf(err, errlen, "%s: expected error, warn, info or debug, got '%.40s'",
		    level_key, level);
		return -1;
	}
	return relay_config_check(&out->relay, err, errlen);
}

/* The broker skips a proxy whose networks do not parse (services/broker/decision.c), so a
 * list it would not understand is refused here, where the administrator sees it, with the
 * same rules (lib/cidr): "10.0.0.1/8" would start a proxy that the broker never uses. */
static int
check_networks(const struct config *cfg, const char *networks, char *err, size_t errlen)
{
	char why[256];

	if (cidr_list_parse(networks, NULL, why, sizeof(why)) != 0)
		return config_error(cfg, "proxy.networks", err, errlen, "%s (a comma-separated "
		    "list of ADDRESS/PREFIX without spaces; 0.0.0.0/0 is the WAN)", why);
	return 0;
}

/* The broker link's settings; advertise defaults to listen's host when that is not a
 * wildcard (a wildcard is no address a leg can connect to). */
static int
read_broker(const struct config *cfg, struct proxy_config *out, char *err, size_t errlen)
{
	const char *advertise = config_get(cfg, "proxy.advertise", NULL);

	if (config_copy(cfg, "proxy.broker", NULL, out->broker_url, sizeof(out->broker_url), err,
	    errlen) < 0 ||
	    config_copy(cfg, "proxy.networks", NULL, out->networks, sizeof(out->networks), err,
		errlen) < 0 ||
	    config_copy(cfg, "proxy.cluster", NULL, out->cluster, sizeof(out->cluster), err,
		errlen) < 0 ||
	    check_networks(cfg, out->networks, err, errlen) != 0)
		return -1;
	if (advertise != NULL) {
		if (proxy_parse_hostport("proxy.advertise", advertise, true, out->advertise_host,
		    sizeof(out->advertise_host), &out->advertise_port, err, errlen) != 0)
			return -1;
	} else
		strcpy(out->advertise_host, out->relay.listen_host);
	if (out->broker_url[0] == '\0')
		return 0;
	if (out->advertise_host[0] == '\0') {
		snprintf(err, errlen, "proxy.advertise must name the relay endpoint's host when "
		    "proxy.listen is a wildcard address");
		return -1;
	}
	if (out->relay.accept_any_id) {
		snprintf(err, errlen, "%s would let anyone relay through a proxy "
		    "the broker hands out; it is for benchmarks without a broker only",
		    pc_key(cfg, "proxy.accept_any_id"));
		return -1;
	}
	return 0;
}

/* Where the SOAP control service listens, and who may read; the server's tunables and TLS are
 * read by proxy_config_services (they need lib/soap_server and lib/tls). */
static int
read_control(const struct config *cfg, struct proxy_config *out, char *err, size_t errlen)
{
	const char *listen = config_get(cfg, "proxy.control_listen", NULL);
	uint16_t port;

	if (config_copy(cfg, "proxy.acl", NULL, out->acl_path, sizeof(out->acl_path), err,
	    errlen) < 0 ||
	    config_copy(cfg, "proxy.gridmap", NULL, out->gridmap_path, sizeof(out->gridmap_path), err,
		errlen) < 0)
		return -1;
	if (listen == NULL || listen[0] == '\0')
		return 0;
	out->control_enabled = true;
	if (proxy_parse_hostport("proxy.control_listen", listen, false, out->control.host,
	    sizeof(out->control.host), &port, err, errlen) != 0)
		return -1;
	if (out->control.host[0] == '\0')
		strcpy(out->control.host, "0.0.0.0");
	out->control.port = port;
	if (out->acl_path[0] == '\0' && out->gridmap_path[0] == '\0') {
		snprintf(err, errlen, "proxy.control_listen needs proxy.acl or proxy.gridmap: "
		    "they say who may read the statistics");
		return -1;
	}
	return 0;
}

int
proxy_config_read(const struct config *cfg, struct proxy_config *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	relay_config_defaults(&out->relay);
	out->stats_interval_s = 60;
	out->log_level = LOG_LEVEL_INFO;
	strcpy(out->networks, "0.0.0.0/0");
	out->id_ttl_s = 60;
	out->broker_wait_s = 30;

	warn_old_spellings(cfg);
	if (check_known_keys(cfg, err, errlen) != 0 || read_plane(cfg, out, err, errlen) != 0 ||
	    read_broker(cfg, out, err, errlen) != 0 || read_control(cfg, out, err, errlen) != 0)
		return -1;
	return 0;
}

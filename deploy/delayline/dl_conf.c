/*
 * dl_conf.c: the delay line's command line (see dl_conf.h).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dl_conf.h"
#include "dl_sched.h"
#include "log.h"

struct dl_unit {
	const char *suffix;
	double factor;
};

/*
 * Parse a non-negative decimal number followed by one of `units` (or by nothing, meaning
 * `bare`), and check the result against `max`. `what` names the thing in error messages.
 */
static int
dl_parse_scaled(const char *s, const struct dl_unit *units, double bare, double max,
    const char *what, uint64_t *out, char *err, size_t errlen)
{
	char *end;
	double v, factor = 0;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno != 0 || !isfinite(v) || v < 0) {
		snprintf(err, errlen, "%s '%s': not a non-negative number", what, s);
		return -1;
	}
	if (*end == '\0')
		factor = bare;
	for (const struct dl_unit *u = units; factor == 0 && u->suffix != NULL; u++)
		if (strcasecmp(end, u->suffix) == 0)
			factor = u->factor;
	if (factor == 0) {
		snprintf(err, errlen, "%s '%s': unknown unit '%s'", what, s, end);
		return -1;
	}
	v *= factor;
	if (v > max) {
		snprintf(err, errlen, "%s '%s': above the limit of %.0f", what, s, max);
		return -1;
	}
	*out = (uint64_t)llround(v);
	return 0;
}

int
dl_parse_delay(const char *s, uint64_t *ns, char *err, size_t errlen)
{
	static const struct dl_unit units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { NULL, 0 },
	};
	return dl_parse_scaled(s, units, 1e6, (double)DL_DELAY_MAX_NS, "delay", ns, err, errlen);
}

int
dl_parse_rate(const char *s, uint64_t *bps, char *err, size_t errlen)
{
	static const struct dl_unit units[] = {
		{ "bit", 1 }, { "kbit", 1e3 }, { "mbit", 1e6 }, { "gbit", 1e9 }, { NULL, 0 },
	};
	if (dl_parse_scaled(s, units, 1e6, (double)DL_RATE_MAX_BPS, "rate", bps, err, errlen) < 0)
		return -1;
	/* Below 8 kbit/s a full frame takes more than a second: surely a typo. */
	if (*bps != 0 && *bps < 8000) {
		snprintf(err, errlen, "rate '%s': below 8kbit (0 means unlimited)", s);
		return -1;
	}
	return 0;
}

int
dl_parse_size(const char *s, uint64_t *bytes, char *err, size_t errlen)
{
	static const struct dl_unit units[] = {
		{ "b", 1 }, { "k", 1024 }, { "m", 1048576 }, { NULL, 0 },
	};
	return dl_parse_scaled(s, units, 1, (double)DL_QUEUE_MAX_BYTES, "queue", bytes, err,
	    errlen);
}

int
dl_parse_port(const char *s, struct dl_port_conf *p, char *err, size_t errlen)
{
	const char *colon = strchr(s, ':');
	size_t hlen, wlen;

	if (colon == NULL) {
		snprintf(err, errlen, "port '%s': expected HOSTIF:WANIF", s);
		return -1;
	}
	hlen = (size_t)(colon - s);
	wlen = strlen(colon + 1);
	if (hlen == 0 || wlen == 0 || hlen >= IF_NAMESIZE || wlen >= IF_NAMESIZE) {
		snprintf(err, errlen, "port '%s': interface names must be 1 to %d characters", s,
		    IF_NAMESIZE - 1);
		return -1;
	}
	if (strchr(colon + 1, ':') != NULL || strchr(s, '/') != NULL) {
		snprintf(err, errlen, "port '%s': interface names may not contain ':' or '/'", s);
		return -1;
	}
	memcpy(p->host_if, s, hlen);
	p->host_if[hlen] = '\0';
	memcpy(p->wan_if, colon + 1, wlen + 1);
	if (strcmp(p->host_if, p->wan_if) == 0) {
		snprintf(err, errlen, "port '%s': both sides are the same interface", s);
		return -1;
	}
	return 0;
}

/* The queue a port gets when none is given: 100 ms of transmission, at least 64 KiB. */
static uint64_t
dl_default_queue(uint64_t rate_bps)
{
	uint64_t q = rate_bps / 8 / 10;

	return q < DL_QUEUE_MIN_DEFAULT ? DL_QUEUE_MIN_DEFAULT :
	    q > DL_QUEUE_MAX_BYTES ? DL_QUEUE_MAX_BYTES : q;
}

static int
dl_conf_add_port(struct dl_conf *c, const char *spec, const struct dl_port_conf *cur,
    int queue_set, char *err, size_t errlen)
{
	struct dl_port_conf *p;

	if (c->nports >= DL_PORTS_MAX) {
		snprintf(err, errlen, "too many ports (at most %d)", DL_PORTS_MAX);
		return -1;
	}
	p = &c->ports[c->nports];
	*p = *cur;
	if (dl_parse_port(spec, p, err, errlen) < 0)
		return -1;
	for (size_t i = 0; i < c->nports; i++) {
		const struct dl_port_conf *o = &c->ports[i];
		const char *names[] = { o->host_if, o->wan_if };

		for (int k = 0; k < 2; k++)
			if (strcmp(names[k], p->host_if) == 0 || strcmp(names[k], p->wan_if) == 0) {
				snprintf(err, errlen, "port '%s': interface %s is already used",
				    spec, names[k]);
				return -1;
			}
	}
	if (!queue_set)
		p->queue_bytes = dl_default_queue(p->rate_bps);
	c->nports++;
	return 0;
}

/* Handle one option of dl_conf_parse; `cur` holds the settings for the next ports. */
static int
dl_conf_option(int opt, const char *arg, struct dl_conf *c, struct dl_port_conf *cur,
    int *queue_set, char *err, size_t errlen)
{
	uint64_t v;

	switch (opt) {
	case 'd':
		return dl_parse_delay(arg, &cur->delay_ns, err, errlen);
	case 'r':
		return dl_parse_rate(arg, &cur->rate_bps, err, errlen);
	case 'q':
		*queue_set = 1;
		return dl_parse_size(arg, &cur->queue_bytes, err, errlen);
	case 'p':
		c->pid_file = arg;
		return 0;
	case 'l':
		if ((c->log_level = log_level_parse(arg)) < 0) {
			snprintf(err, errlen, "log level '%s': expected error, warn, info or debug",
			    arg);
			return -1;
		}
		return 0;
	case 'n':
	case 's':
	case 'P':
		if (dl_parse_scaled(arg, (const struct dl_unit[]){ { NULL, 0 } }, 1,
			opt == 'n' ? DL_POOL_FRAMES_MAX : opt == 's' ? 86400 : 99,
			opt == 'n' ? "pool-frames" : opt == 's' ? "stats-interval" : "rt-priority",
			&v, err, errlen) < 0)
			return -1;
		if (opt == 'n')
			c->pool_frames = (size_t)v;
		else if (opt == 's')
			c->stats_interval = (unsigned)v;
		else
			c->rt_priority = (int)v;
		return 0;
	default:
		snprintf(err, errlen, "unknown option (see qcg-delayline --help)");
		return -1;
	}
}

/*
 * Name the option getopt refused. Inside a cluster of short options ("-xy") getopt leaves
 * optind on the cluster until its last letter is handled, so argv[optind - 1] is then the word
 * before it (argv[0], the program, for a first one): name the letter instead, escaped when it
 * is not printable. Otherwise (an unknown long option, a missing value, a lone "-x") the word.
 */
static void
dl_conf_bad_option(int argc, char **argv, char *err, size_t errlen)
{
	const char *word = argv[optind - 1];
	const char *cur = optind < argc ? argv[optind] : NULL;
	unsigned char letter = (unsigned char)optopt; /* a char, negative when above 0x7f */

	if (letter != 0 && cur != NULL && cur[0] == '-' && cur[1] != '-' &&
	    strchr(cur + 1, letter) != NULL) {
		if (isprint(letter))
			snprintf(err, errlen, "bad option '-%c'", letter);
		else
			snprintf(err, errlen, "bad option '-\\x%02x'", letter);
	} else {
		snprintf(err, errlen, "bad option '%s'", word);
	}
}

int
dl_conf_parse(int argc, char **argv, struct dl_conf *c, char *err, size_t errlen)
{
	static const struct option longopts[] = {
		{ "delay", required_argument, NULL, 'd' },
		{ "rate", required_argument, NULL, 'r' },
		{ "queue", required_argument, NULL, 'q' },
		{ "pid-file", required_argument, NULL, 'p' },
		{ "log-level", required_argument, NULL, 'l' },
		{ "pool-frames", required_argument, NULL, 'n' },
		{ "stats-interval", required_argument, NULL, 's' },
		{ "rt-priority", required_argument, NULL, 'P' },
		{ NULL, 0, NULL, 0 },
	};
	struct dl_port_conf cur = { .delay_ns = 0 };
	int queue_set = 0, opt;

	memset(c, 0, sizeof(*c));
	c->pool_frames = DL_POOL_FRAMES_DEFAULT;
	c->log_level = LOG_LEVEL_INFO;
	/* 0, not 1: glibc then forgets where it was inside a cluster of short options ("-xy").
	 * With 1 a parse that failed inside one left getopt pointing into the previous argv, so
	 * the next parse in the same process (a test suite, a fuzzer) refused a valid command
	 * line and read memory its caller may have freed. */
	optind = 0;
	opterr = 0;
	while (optind < argc) {
		/* '+': stop at the first port so that options apply to the ports after them. */
		while ((opt = getopt_long(argc, argv, "+", longopts, NULL)) != -1)
			if (dl_conf_option(opt, optarg, c, &cur, &queue_set, err, errlen) < 0) {
				if (opt == '?' || opt == ':')
					dl_conf_bad_option(argc, argv, err, errlen);
				return -1;
			}
		if (optind < argc && dl_conf_add_port(c, argv[optind++], &cur, queue_set, err,
					 errlen) < 0)
			return -1;
	}
	if (c->nports == 0) {
		snprintf(err, errlen, "no port given (HOSTIF:WANIF)");
		return -1;
	}
	if (c->pool_frames == 0) {
		snprintf(err, errlen, "pool-frames must be at least 1");
		return -1;
	}
	return 0;
}

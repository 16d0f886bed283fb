/*
 * dl_conf.h: the delay line's command line, parsed into a configuration.
 *
 *   qcg-delayline [--pid-file F] [--log-level L] [--pool-frames N] [--stats-interval S]
 *                 [--rt-priority P]
 *                 [--delay D] [--rate R] [--queue Q] HOSTIF:WANIF [[--delay D] ... HOSTIF:WANIF]...
 *
 * --delay, --rate and --queue apply to the ports named after them, so ports may differ.
 * Parsing is separate from I/O so that bad input is tested without sockets.
 */
#ifndef QCG_DL_CONF_H
#define QCG_DL_CONF_H

#include <net/if.h>
#include <stddef.h>
#include <stdint.h>

#define DL_PORTS_MAX 64                 /* ports (interface pairs) one process serves */
#define DL_POOL_FRAMES_DEFAULT 65536    /* about 100 MiB of frames in flight at most */
#define DL_POOL_FRAMES_MAX (1u << 22)
#define DL_QUEUE_MIN_DEFAULT (64u << 10) /* default queue: 100 ms at the rate, at least this */

struct dl_port_conf {
	char host_if[IF_NAMESIZE];      /* the interface facing the attached host */
	char wan_if[IF_NAMESIZE];       /* the interface facing the WAN bridge */
	uint64_t delay_ns;              /* one-way delay, each direction */
	uint64_t rate_bps;              /* each direction; 0 = unlimited */
	uint64_t queue_bytes;           /* transmitter queue limit, each direction */
};

struct dl_conf {
	struct dl_port_conf ports[DL_PORTS_MAX];
	size_t nports;
	size_t pool_frames;             /* cap on frame buffers, all ports together */
	unsigned stats_interval;        /* seconds between statistics lines; 0 = only at exit */
	int rt_priority;                /* SCHED_FIFO priority 1-99; 0 = ordinary scheduling */
	const char *pid_file;           /* NULL = none */
	int log_level;                  /* enum log_level */
};

/* Parse "5ms", "250us", "1.5s", "800ns" or a bare number of milliseconds. */
int dl_parse_delay(const char *s, uint64_t *ns, char *err, size_t errlen);
/* Parse "10mbit", "1.5gbit", "640kbit", "9600bit" or a bare number of Mbit/s; 0 = unlimited. */
int dl_parse_rate(const char *s, uint64_t *bps, char *err, size_t errlen);
/* Parse "65536", "64k", "2m" (bytes, binary multiples). */
int dl_parse_size(const char *s, uint64_t *bytes, char *err, size_t errlen);
/* Parse "HOSTIF:WANIF" into p's interface names. */
int dl_parse_port(const char *s, struct dl_port_conf *p, char *err, size_t errlen);

/* Parse the whole command line. Returns 0, or -1 with the reason in err. */
int dl_conf_parse(int argc, char **argv, struct dl_conf *c, char *err, size_t errlen);

#endif

/*
 * delayline_main.c: qcg-delayline, the testbed's userspace WAN emulator.
 *
 * The kernel of the test machines has no netem, so qcg-testbed puts this program between every
 * WAN-attached host and the WAN bridge: each port is a pair of interfaces (the host's side and
 * the bridge's side), and every frame crossing it waits the port's one-way delay and, if a rate
 * is set, its transmission time. See dl_sched.h for the model and README-testbed.md for use.
 */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "dl_conf.h"
#include "dl_line.h"
#include "log.h"

static void
usage(FILE *out)
{
	fprintf(out,
	    "usage: qcg-delayline [--pid-file F] [--log-level L] [--pool-frames N]\n"
	    "                     [--stats-interval SEC] [--rt-priority P]\n"
	    "                     [--delay D] [--rate R] [--queue Q]\n"
	    "                     HOSTIF:WANIF [[--delay D] [--rate R] [--queue Q] HOSTIF:WANIF]...\n"
	    "Forwards every frame between HOSTIF and WANIF after a one-way delay D (5ms, 250us;\n"
	    "bare numbers are ms) at rate R (10mbit, 1gbit; bare numbers are Mbit/s; 0 = unlimited)\n"
	    "with a transmit queue of Q bytes (default 100 ms at R, at least 64k). Options apply\n"
	    "to the ports named after them. --rt-priority runs the line under SCHED_FIFO so that a\n"
	    "busy machine does not delay frames beyond D. SIGUSR1 prints statistics; SIGTERM stops.\n");
}

static int
write_pid_file(const char *path)
{
	FILE *f = fopen(path, "w");

	if (f == NULL)
		return -1;
	fprintf(f, "%ld\n", (long)getpid());
	return fclose(f);
}

/* A descriptor delivering SIGTERM, SIGINT, SIGHUP and SIGUSR1, which are blocked. */
static int
signals_open(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGUSR1);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -1;
	return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

static int
stats_timer_open(unsigned interval)
{
	struct itimerspec its = { { (time_t)interval, 0 }, { (time_t)interval, 0 } };
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);

	if (fd >= 0 && timerfd_settime(fd, 0, &its, NULL) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The epoll tags of main's own descriptors. They must be addresses that serve() and main()
 * both see: a parameter's address differs from the caller's variable, and an unmatched tag
 * left the statistics timer unread, so its level-triggered tick woke the loop for ever.
 */
static const char signal_tag, stats_tag;

/* Serve until a terminating signal. Returns the exit code. */
static int
serve(struct dl_line *line, int sigfd, int statfd)
{
	for (;;) {
		void *tag = dl_line_run(line);
		struct signalfd_siginfo si;
		uint64_t ticks;

		if (tag == NULL) {
			log_error("epoll_wait: %s", strerror(errno));
			return 1;
		}
		if (tag == &stats_tag) {
			if (read(statfd, &ticks, sizeof(ticks)) > 0)
				dl_line_print_stats(line, stderr);
			continue;
		}
		while (read(sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
			if (si.ssi_signo == SIGUSR1) {
				dl_line_print_stats(line, stderr);
				continue;
			}
			log_info("signal %u: stopping", si.ssi_signo);
			return 0;
		}
	}
}

int
main(int argc, char **argv)
{
	static struct dl_conf conf;
	static struct dl_line line;
	char err[256];
	int sigfd, statfd = -1, rc;

	log_init("qcg-delayline", LOG_LEVEL_INFO, 0);
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		usage(stdout);
		return 0;
	}
	if (dl_conf_parse(argc, argv, &conf, err, sizeof(err)) < 0) {
		fprintf(stderr, "qcg-delayline: %s\n", err);
		usage(stderr);
		return 2;
	}
	log_set_level(conf.log_level);
	/* The default 50 us timer slack would add that much jitter to every delay. */
	if (prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL) < 0)
		log_warn("PR_SET_TIMERSLACK: %s", strerror(errno));
	/*
	 * A wire must not wait for the CPU: on a loaded machine ordinary scheduling made frames
	 * leave up to 160 ms late. The loop only sleeps in epoll_wait, so FIFO cannot hog a core.
	 */
	if (conf.rt_priority > 0) {
		struct sched_param sp = { .sched_priority = conf.rt_priority };

		if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0)
			log_warn("SCHED_FIFO priority %d: %s (running unprioritised)",
			    conf.rt_priority, strerror(errno));
	}
	if ((sigfd = signals_open()) < 0)
		fatal("signalfd: %s", strerror(errno));
	if (dl_line_open(&line, &conf, err, sizeof(err)) < 0)
		fatal("%s", err);
	if (dl_line_watch(&line, sigfd, (void *)&signal_tag) < 0)
		fatal("epoll: %s", strerror(errno));
	if (conf.stats_interval > 0 && ((statfd = stats_timer_open(conf.stats_interval)) < 0 ||
					   dl_line_watch(&line, statfd, (void *)&stats_tag) < 0))
		fatal("statistics timer: %s", strerror(errno));
	if (conf.pid_file != NULL && write_pid_file(conf.pid_file) < 0)
		fatal("pid file %s: %s", conf.pid_file, strerror(errno));
	for (size_t i = 0; i < conf.nports; i++)
		log_info("port %s:%s delay %llu us rate %llu kbit/s queue %llu bytes",
		    conf.ports[i].host_if, conf.ports[i].wan_if,
		    (unsigned long long)(conf.ports[i].delay_ns / 1000),
		    (unsigned long long)(conf.ports[i].rate_bps / 1000),
		    (unsigned long long)conf.ports[i].queue_bytes);
	rc = serve(&line, sigfd, statfd);
	dl_line_print_stats(&line, stderr);
	dl_line_close(&line);
	if (conf.pid_file != NULL)
		unlink(conf.pid_file);
	return rc;
}

/*
 * qcg_submit.c: qcg-submit, one Open MPI job over the clusters a description names
 * (DESIGN.md section 4).
 *
 *   qcg-submit [--broker URL] [--tag-output] [--reserve-timeout SEC] [--startup-timeout SEC]
 *              [--mpirun-in-job | --mpirun-here] FILE
 *
 * In order, and nothing is reserved before the first three pass: the description is parsed
 * and validated (native XML, QCG-Simple or JSDL SPMD); the user's credentials are found and
 * checked; the broker records the job (refusing an unmapped DN) and names each cluster's
 * front-end. Then co-allocation (reserve all, commit all, or release all; while a cluster's
 * nodes are held by other jobs the job is queued and waits up to the reserve timeout, from
 * --reserve-timeout, else the description, else 60 s: coalloc.h), the job directory
 * /tmp/qcg-jobs-<uid>/<JOB>/ (hostfile, hosts, topology), mpirun with qcg-rsh, and at the end
 * Release everywhere and the final state at the broker.
 *
 * Where mpirun runs: on this host (--mpirun-here), or on the job's first node, started through
 * its front-end (--mpirun-in-job, submit_remote.h), so that this host needs no qcg service and
 * no inbound connection. The default is in the job unless a helper serves this host
 * (QCG_HELPER_SOCKET): a local mpirun's listeners can be reached from a closed site only
 * through such a helper, and a workstation has none. Ctrl-C, SIGTERM and `qcg-cancel JOB`
 * (seen at the broker within QCG_SUBMIT_POLL seconds) stop everything everywhere.
 *
 * Exit codes: the job's (mpirun's) exit code once it ran; otherwise 2 bad usage or description,
 * 3 authentication or authorization refused, 4 co-allocation failed, 5 other failures
 * (broker or front-end unreachable, files), 6 stopped at the end of its wall time, 128 + the
 * signal when interrupted by SIGINT, SIGTERM or SIGHUP (130, 143, 129), whether it ran or not,
 * and 143 when qcg-cancel stopped it.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "soapH.h"
#include "broker_jobs.h"
#include "coalloc.h"
#include "frontend_links.h"
#include "job_files.h"
#include "job_topology.h"
#include "node_env.h"
#include "proc_identity.h"
#include "proxy_delegate.h"
#include "soap_client.h"
#include "stage.h"
#include "startup_watch.h"
#include "submit_remote.h"
#include "submit_run.h"
#include "user_client.h"

enum { EXIT_USAGE = 2, EXIT_AUTH = 3, EXIT_COALLOC = 4, EXIT_FAILED = 5, EXIT_WALLTIME = 6 };
#define SUBMIT_POLL 2          /* seconds between looks at the broker for a cancellation */
#define SUBMIT_KILL_GRACE 5    /* seconds mpirun gets after SIGTERM */
#define SUBMIT_RESERVE_TIMEOUT 60 /* seconds, when neither option nor description says */
/* Seconds the front-ends add to the wall time before they release the job themselves: room
 * for stage-in (the wall time counts from mpirun's start here, from the commit there) and for
 * our own clean stop, which should come first and say why. */
#define SUBMIT_WALLTIME_GRACE 120

static volatile sig_atomic_t stop_signal;

static void
on_stop(int sig)
{
	stop_signal = sig;
}

struct submit {
	const char *broker;
	bool tag_output;
	int reserve_timeout;       /* --reserve-timeout; 0: not given */
	bool queued;               /* told the broker the job waits for busy nodes */
	bool cancelled_queued;     /* qcg-cancel came while it waited */
	time_t next_poll;          /* next look at the broker for a cancellation while queued */
	time_t broker_away_since;  /* when the broker stopped answering our polls; 0: it answers */
	struct job_desc *job;
	struct user_creds creds;
	struct soap *soap;
	struct coalloc alloc;
	char id[QCG_NAME_MAX];
	char dir[4096];
	char self_dir[4096];
	char token[NODE_ENV_TOKEN_LEN + 1];
	int launcher_port;
	int startup_timeout;         /* seconds for every orted to reach mpirun, 0: no limit */
	bool watch_startup;          /* libqcgnet runs, so the broker sees the start-up */
	struct startup_watch watch;  /* the start-up, until every orted reached mpirun */
	bool mpirun_in_job;          /* mpirun on the job's first node (submit_remote.h) */
	/* While mpirun runs in the job: what remote_next_signal decided. */
	time_t next_poll_running;    /* next look at the broker */
	time_t deadline;             /* the wall time's end, 0: none */
	time_t stop_sent;            /* when SIGTERM went to mpirun, 0: not yet */
	bool kill_sent;              /* SIGKILL followed it */
	bool cancelled, overtime;
	int stop_code;               /* the exit code a stop decided, 0: none */
};

/* A whole number of seconds from min to max in option name's text: 0, or -1 with a message
 * (atoi would take "abc" for 0 and "10s" for 10). */
static int
option_seconds(const char *name, const char *text, long min, long max, int *out)
{
	char *end;
	errno = 0;
	long v = strtol(text, &end, 10);
	if (*text == '\0' || *end != '\0' || errno != 0 || v < min || v > max) {
		fprintf(stderr, "qcg-submit: %s must be a whole number of seconds from %ld to %ld, "
		    "got '%s'\n", name, min, max, text);
		return -1;
	}
	*out = (int)v;
	return 0;
}

static int
parse_options(int argc, char **argv, struct submit *s)
{
	static const struct option options[] = {
		{ "broker", required_argument, NULL, 'b' }, { "tag-output", no_argument, NULL, 't' },
		{ "reserve-timeout", required_argument, NULL, 'r' },
		{ "startup-timeout", required_argument, NULL, 's' },
		{ "mpirun-in-job", no_argument, NULL, 'j' }, { "mpirun-here", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	int opt;
	s->broker = user_broker_url();
	s->startup_timeout = STARTUP_TIMEOUT_DEFAULT;
	s->mpirun_in_job = getenv("QCG_HELPER_SOCKET") == NULL;
	while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (opt) {
		case 'b': s->broker = optarg; break;
		case 't': s->tag_output = true; break;
		case 'r':
			if (option_seconds("--reserve-timeout", optarg, 1, JOB_RESERVE_TIMEOUT_MAX,
			    &s->reserve_timeout) != 0)
				return -1;
			break;
		case 's':
			if (option_seconds("--startup-timeout", optarg, 0, STARTUP_TIMEOUT_MAX,
			    &s->startup_timeout) != 0)
				return -1;
			break;
		case 'j': s->mpirun_in_job = true; break;
		case 'l': s->mpirun_in_job = false; break;
		case 'h':
			printf("usage: qcg-submit [--broker URL] [--tag-output] [--reserve-timeout SEC] "
			    "[--startup-timeout SEC] [--mpirun-in-job | --mpirun-here] FILE\n");
			exit(0);
		default: return -1;
		}
	}
	return argc - optind == 1 ? 0 : -1;
}

/* A job id nobody else has: the description's name (or "job") and 8 random hex digits. */
static int
make_job_id(struct submit *s)
{
	unsigned char r[4];
	FILE *f = fopen("/dev/urandom", "r");
	if (f == NULL || fread(r, 1, sizeof(r), f) != sizeof(r)) {
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	snprintf(s->id, sizeof(s->id), "%.40s-%02x%02x%02x%02x", s->job->name.line ?
	    s->job->name.text : "job", r[0], r[1], r[2], r[3]);
	return 0;
}

/* "clusters a@site-a:2 b@site-b:2 file=PATH": what qcg-status shows of the job, and what the
 * broker reads to know which clusters' front-ends have a part in it (description_names_cluster
 * in services/broker/handlers_registration.c): keep the "clusters NAME@" form. */
static void
summary(const struct submit *s, const char *file, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "clusters");
	for (int i = 0; i < s->job->cluster_count && n < len; i++) {
		const struct job_cluster *c = &s->job->cluster[i];
		n += (size_t)snprintf(buf + n, len - n, " %s@%s:%d", c->name, c->site, c->processes);
	}
	if (n < len)
		snprintf(buf + n, len - n, " file=%s", file);
}

static int
make_job_dir(struct submit *s, enum job_files_form form, char *err, size_t errlen)
{
	char root[64];
	snprintf(root, sizeof(root), "/tmp/qcg-jobs-%u", (unsigned)getuid());
	if (mkdir(root, 0700) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "%s: %s", root, strerror(errno));
		return -1;
	}
	struct stat st;
	if (lstat(root, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid()) {
		snprintf(err, errlen, "%s is not a directory of ours", root);
		return -1;
	}
	snprintf(s->dir, sizeof(s->dir), "%s/%s", root, s->id);
	if (mkdir(s->dir, 0700) != 0) {
		snprintf(err, errlen, "%.900s: %s", s->dir, strerror(errno));
		return -1;
	}
	return job_files_write(s->dir, &s->alloc, form, err, errlen);
}

/* The job's token, the nodes' port windows, and mpirun's helper (if its host has one). */
static int
prepare_net(struct submit *s, char *err, size_t errlen)
{
	const char *tokens = getenv("QCG_HELPER_TOKEN_FILE");
	if (node_env_token(s->token) != 0) {
		snprintf(err, errlen, "no random bytes for the job's token");
		return -1;
	}
	if (node_env_assign(&s->alloc, &s->launcher_port, err, errlen) != 0)
		return -1;
	if (!s->mpirun_in_job && getenv("QCG_HELPER_SOCKET") && tokens && tokens[0])
		return node_env_register_token(tokens, s->id, s->token, err, errlen);
	return 0;
}

/* The record qcg-cancel reads on this host: our pid and start time, then each front-end and
 * reservation; with mpirun inside the job also the job directory and each node ("node K
 * NAME", K the reservation's line), so that a qcg-cancel finding us dead removes the
 * directories (the delegated proxy is in one) before it releases. */
static void
write_record(const struct submit *s)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/record", s->dir);
	FILE *f = fopen(path, "w");
	if (f == NULL)
		return;
	/* with its start time: a pid alone may name another process by the time qcg-cancel reads it */
	struct proc_identity me = { getpid(), 0 };
	proc_identity_of(me.pid, &me);
	fprintf(f, "pid %ld %llu\n", (long)me.pid, me.start);
	for (int i = 0; i < s->alloc.count; i++)
		fprintf(f, "reservation %s %s\n", s->alloc.part[i].frontend_url,
		    s->alloc.part[i].reservation);
	if (s->mpirun_in_job) {
		fprintf(f, "jobdir " SUBMIT_REMOTE_DIR_FMT "\n", s->id);
		for (int i = 0; i < s->alloc.count; i++)
			for (int n = 0; n < s->alloc.part[i].node_count; n++)
				fprintf(f, "node %d %s\n", i, s->alloc.part[i].node[n].name);
	}
	fclose(f);
}

/* mpirun's process group, for a qcg-cancel that finds us dead. */
static void
record_mpirun(const struct submit *s, pid_t pid)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/record", s->dir);
	FILE *f = fopen(path, "a");
	if (f == NULL)
		return;
	struct proc_identity mpirun = { pid, 0 };
	proc_identity_of(pid, &mpirun);
	fprintf(f, "mpirun %ld %llu\n", (long)pid, mpirun.start);
	fclose(f);
}

/* Stop mpirun's process group: SIGTERM, then SIGKILL after the grace period. */
static int
stop_mpirun(pid_t pid)
{
	int status = 0;
	kill(-pid, SIGTERM);
	for (int i = 0; i < SUBMIT_KILL_GRACE * 10; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return status;
		usleep(100000);
	}
	kill(-pid, SIGKILL);
	waitpid(pid, &status, 0);
	return status;
}

/* A poll of the broker, begun at asked_at, while the job goes on: call_err is its failure, or
 * NULL when it answered. An outage is said once when it starts (with the reason) and once
 * when it ends (with its length), not at every poll: a long outage must not bury the job's
 * output. It counts from the failed call's start: a broker that hangs fails it only after
 * the receive timeout. */
static void
note_broker(struct submit *s, const char *call_err, time_t asked_at, const char *meanwhile)
{
	time_t now = time(NULL);
	if (call_err != NULL && s->broker_away_since == 0) {
		s->broker_away_since = asked_at;
		fprintf(stderr, "qcg-submit: job %s: the broker stopped answering (%s); the job %s "
		    "meanwhile\n", s->id, call_err, meanwhile);
	} else if (call_err == NULL && s->broker_away_since != 0) {
		fprintf(stderr, "qcg-submit: job %s: the broker answers again after %ld s\n", s->id,
		    (long)(now - s->broker_away_since));
		s->broker_away_since = 0;
	}
}

/* Whether the job's start-up cannot go on (startup_watch.h); why goes to err. broker_err is
 * GetJob's error of this poll, or NULL: a broker that did not answer is not asked again, only
 * the time limit is checked, and a failure names it, as every orted's connection is asked of
 * it. A failed call of the watch's own goes to call_err (empty when none failed). */
static bool
startup_stuck(struct submit *s, const char *broker_err, char *call_err, size_t call_errlen,
    char *err, size_t errlen)
{
	char why[1024];
	call_err[0] = '\0';
	enum startup_state st = broker_err ?
	    startup_watch_check_time(&s->watch, s->id, why, sizeof(why)) :
	    startup_watch_poll(&s->watch, s->soap, s->broker, s->id, why, sizeof(why), call_err,
		call_errlen);
	if (st == STARTUP_DONE)
		s->watch_startup = false;
	if (st != STARTUP_FAILED)
		return false;
	if (broker_err != NULL || call_err[0] != '\0')
		snprintf(err, errlen, "%s; the broker, which every connection is asked of, did not "
		    "answer (%s)", why, broker_err ? broker_err : call_err);
	else
		snprintf(err, errlen, "%s", why);
	return true;
}

/* Wait for mpirun, looking at the broker for a cancellation and at our signals. Returns the
 * job's exit code; *cancelled when it was stopped. */
static int
supervise(struct submit *s, pid_t pid, bool *cancelled)
{
	char err[1024];
	int status = 0;
	time_t next_poll = time(NULL) + SUBMIT_POLL;
	time_t deadline = s->job->walltime > 0 ? time(NULL) + s->job->walltime : 0;
	bool overtime = false;
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		enum job_state st = JOB_RUNNING;
		if (!stop_signal && time(NULL) >= next_poll) {
			time_t asked_at = time(NULL);
			next_poll = asked_at + SUBMIT_POLL;
			bool asked = broker_get_state(s->soap, s->broker, s->id, &st, err,
			    sizeof(err)) == 0;
			char stuck[3072], watch_err[600] = "";
			bool failed = s->watch_startup && startup_stuck(s, asked ? NULL : err,
			    watch_err, sizeof(watch_err), stuck, sizeof(stuck));
			note_broker(s, !asked ? err : watch_err[0] ? watch_err : NULL, asked_at,
			    "goes on");
			if (failed) {
				fprintf(stderr, "qcg-submit: job %s: %s; stopping it everywhere\n", s->id,
				    stuck);
				stop_mpirun(pid);
				return EXIT_FAILED;
			}
		}
		if (deadline && time(NULL) >= deadline && !stop_signal) {
			fprintf(stderr, "qcg-submit: job %s: its wall time of %ld s is over; stopping "
			    "it everywhere\n", s->id, s->job->walltime);
			overtime = true;
			status = stop_mpirun(pid);
			break;
		}
		/* qcg-cancel on this host sends SIGTERM after marking the job: say which it was. */
		if (stop_signal == SIGTERM && broker_get_state(s->soap, s->broker, s->id, &st, err,
		    sizeof(err)) == 0 && st == JOB_CANCELLED)
			stop_signal = 0;
		if (stop_signal || st == JOB_CANCELLED) {
			fprintf(stderr, "qcg-submit: job %s: %s; stopping it everywhere\n", s->id,
			    stop_signal ? "interrupted" : "cancelled (qcg-cancel)");
			*cancelled = true;
			stop_mpirun(pid);
			/* 128 + the signal, as a shell reports it (130 Ctrl-C, 143 SIGTERM), not
			 * whatever mpirun made of our SIGTERM; qcg-cancel is a SIGTERM too, from
			 * wherever it came. */
			return 128 + (stop_signal ? stop_signal : SIGTERM);
		}
		usleep(100000);
	}
	if (overtime)
		return EXIT_WALLTIME;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* The job cannot start: say why, release everything, record it failed. */
static int
abandon(struct submit *s, const char *why)
{
	char err[1024];
	fprintf(stderr, "qcg-submit: job %s: %s; nothing runs and every reservation is released\n",
	    s->id, why);
	coalloc_release(s->soap, &s->alloc);
	broker_set_state(s->soap, s->broker, s->id, JOB_FAILED, EXIT_FAILED, err, sizeof(err));
	return EXIT_FAILED;
}

/* After mpirun, wherever it ran: stage-out (unless stopped), the staged files and the
 * node's job directory removed, Release everywhere, the final state. Returns code. */
static int
finish_job(struct submit *s, struct submit_remote *remote, int code, bool cancelled)
{
	char err[1024];
	if (!cancelled && stage_out(s->soap, &s->alloc, s->job, err, sizeof(err)) != 0) {
		fprintf(stderr, "qcg-submit: job %s: %s\n", s->id, err);
		code = code ? code : EXIT_FAILED;
	}
	/* A kept job directory keeps what was staged into it too. */
	if (remote == NULL || !s->job->keep_directory_line)
		stage_clean(s->soap, &s->alloc, s->job);
	if (remote != NULL)
		submit_remote_clean(remote); /* the delegated proxy with it */
	coalloc_release(s->soap, &s->alloc); /* and whatever still runs under it */
	enum job_state final = cancelled ? JOB_CANCELLED : code == 0 ? JOB_DONE : JOB_FAILED;
	if (broker_set_state(s->soap, s->broker, s->id, final, code, err, sizeof(err)) != 0 &&
	    !cancelled)
		fprintf(stderr, "qcg-submit: %s\n", err);
	fprintf(stderr, "qcg-submit: job %s %s, exit code %d\n", s->id, job_state_name(final), code);
	return code;
}

/* The job whose mpirun runs on a node, for remote_next_signal (remote_run.h's signal source
 * takes no argument). */
static struct submit *remote_job;

/* Decide mpirun's stop: between two ReadOutputs of its output, look at our signals, the wall
 * time, the broker (a cancellation, the start-up watch) as supervise does for a local
 * mpirun, and hand out SIGTERM once, then SIGKILL after the grace period. */
static int
remote_next_signal(void)
{
	struct submit *s = remote_job;
	char err[1024], stuck[3072], watch_err[600] = "";
	time_t now = time(NULL);
	enum job_state st = JOB_RUNNING;
	if (s->stop_sent) {
		if (!s->kill_sent && now >= s->stop_sent + SUBMIT_KILL_GRACE) {
			s->kill_sent = true;
			return SIGKILL;
		}
		return 0;
	}
	if (!stop_signal && now >= s->next_poll_running) {
		s->next_poll_running = now + SUBMIT_POLL;
		bool asked = broker_get_state(s->soap, s->broker, s->id, &st, err, sizeof(err)) == 0;
		bool failed = s->watch_startup && startup_stuck(s, asked ? NULL : err, watch_err,
		    sizeof(watch_err), stuck, sizeof(stuck));
		note_broker(s, !asked ? err : watch_err[0] ? watch_err : NULL, now, "goes on");
		if (failed) {
			fprintf(stderr, "qcg-submit: job %s: %s; stopping it everywhere\n", s->id, stuck);
			s->stop_code = EXIT_FAILED;
			s->stop_sent = now;
			return SIGTERM;
		}
	}
	if (s->deadline && now >= s->deadline && !stop_signal) {
		fprintf(stderr, "qcg-submit: job %s: its wall time of %ld s is over; stopping it "
		    "everywhere\n", s->id, s->job->walltime);
		s->overtime = true;
		s->stop_code = EXIT_WALLTIME;
		s->stop_sent = now;
		return SIGTERM;
	}
	if (stop_signal == SIGTERM && broker_get_state(s->soap, s->broker, s->id, &st, err,
	    sizeof(err)) == 0 && st == JOB_CANCELLED)
		stop_signal = 0; /* qcg-cancel on this host: say which it was */
	if (stop_signal || st == JOB_CANCELLED) {
		fprintf(stderr, "qcg-submit: job %s: %s; stopping it everywhere\n", s->id,
		    stop_signal ? "interrupted" : "cancelled (qcg-cancel)");
		s->cancelled = true;
		s->stop_code = 128 + (stop_signal ? stop_signal : SIGTERM);
		s->stop_sent = now;
		return SIGTERM;
	}
	return 0;
}

/* mpirun inside the job (submit_remote.h): on the first node, its output streamed here. The
 * job's directories exist and stage-in is done. */
static int
run_in_job(struct submit *s, struct submit_plan *plan, struct submit_remote *remote)
{
	char err[1024];
	FILE *out = stdout, *errout = stderr;
	struct submit_remote r = *remote;
	if (submit_remote_prepare(&r, err, sizeof(err)) != 0) {
		stage_clean(s->soap, &s->alloc, s->job);
		submit_remote_clean(&r);
		return abandon(s, err);
	}
	plan->dir = r.own_dir;
	plan->launcher_helper = true; /* the node's helper admits mpirun's listeners */
	/* The description's stdout and stderr files are here, where the output arrives. */
	if ((s->job->out.line && (out = fopen(s->job->out.text, "w")) == NULL) ||
	    (s->job->err.line && (errout = fopen(s->job->err.text, "w")) == NULL)) {
		snprintf(err, sizeof(err), "%.900s: %s", s->job->out.line && out == NULL ?
		    s->job->out.text : s->job->err.text, strerror(errno));
		if (out && out != stdout)
			fclose(out);
		stage_clean(s->soap, &s->alloc, s->job);
		submit_remote_clean(&r);
		return abandon(s, err);
	}
	s->watch_startup = plan->net_lib != NULL;
	startup_watch_init(&s->watch, &s->alloc, submit_remote_node(&r), s->startup_timeout);
	s->deadline = s->job->walltime > 0 ? time(NULL) + s->job->walltime : 0;
	s->next_poll_running = time(NULL) + SUBMIT_POLL;
	remote_job = s;
	fprintf(stderr, "qcg-submit: job %s: mpirun runs on %s (cluster %s), in %s\n", s->id,
	    submit_remote_node(&r), s->alloc.part[0].cluster->name, r.node_dir);
	struct remote_status st = { 0 };
	int code;
	if (submit_remote_start(&r, plan, err, sizeof(err)) != 0) {
		fprintf(stderr, "qcg-submit: job %s: starting mpirun: %s\n", s->id, err);
		code = EXIT_FAILED;
	} else if (submit_remote_wait(&r, remote_next_signal, out, errout, &st, err,
	    sizeof(err)) != 0) {
		fprintf(stderr, "qcg-submit: job %s: mpirun's output: %s\n", s->id, err);
		code = s->stop_code ? s->stop_code : EXIT_FAILED;
	} else
		code = s->stop_code ? s->stop_code : remote_status_code(&st);
	if (out != stdout)
		fclose(out);
	if (errout != stderr)
		fclose(errout);
	return finish_job(s, &r, code, s->cancelled);
}

/* Tell the broker the job runs on its clusters; a failure is said and the job goes on. */
static void
record_running(struct submit *s)
{
	char err[1024];
	if (broker_set_running(s->soap, s->broker, s->id, &s->alloc, err, sizeof(err)) != 0)
		fprintf(stderr, "qcg-submit: %s\n", err);
}

/* Everything after co-allocation: files, stage-in, mpirun, stage-out, the end. Returns the
 * exit code. */
static int
run_job(struct submit *s)
{
	char err[1024], rsh[4200];
	const char *net_lib = submit_find_net_lib(s->self_dir);
	/* mpirun's QCG_NET=1 would put qcg-rsh's own calls to the front-ends through the shim:
	 * they are no job's connections. orted gets QCG_NET=1 from its hosts-map line. */
	snprintf(rsh, sizeof(rsh), "env -u QCG_NET %s/qcg-rsh", s->self_dir);
	struct submit_plan plan = { s->job, s->dir, getenv("QCG_MPIRUN") ? getenv("QCG_MPIRUN") :
		"mpirun", rsh, net_lib, s->tag_output, job_total_processes(s->job), s->id,
		s->token, 0, getenv("QCG_HELPER_SOCKET") != NULL, JOB_FILES_SLOTS,
		submit_component_path(s->self_dir), NULL, false };
	char self[256] = "";
	/* mpirun's host: this one, or the job's first node. */
	if (s->mpirun_in_job)
		snprintf(self, sizeof(self), "%s", s->alloc.part[0].node[0].name);
	else
		gethostname(self, sizeof(self) - 1);
	plan.form = job_files_form(&s->alloc, self);
	static char topology_word[JOB_TOPOLOGY_WORD_MAX]; /* putenv keeps it: not on the stack */
	if (!s->mpirun_in_job &&
	    job_topology_local_word(&s->alloc, self, topology_word, sizeof(topology_word)))
		plan.topology_word = topology_word;
	if (plan.form == JOB_FILES_SEQ && s->job->binding != JOB_BIND_NONE) {
		/* --map-by seq keeps the order but leaves the other nodes' ranks unbound. */
		snprintf(err, sizeof(err), "%s:%d: binding %s cannot be honoured when qcg-submit "
		    "runs on %s, one of the job's nodes but not its first (Open MPI would place "
		    "the first ranks on it); submit from another host or ask for binding none",
		    s->job->origin, s->job->binding_line, job_binding_name(s->job->binding), self);
		return abandon(s, err);
	}
	/* Clusters with programs of their own: every node's hosts-map line names its program
	 * (the job's for the others), and every rank starts it from there. */
	if (s->mpirun_in_job && job_has_cluster_executables(s->job)) {
		plan.exec_per_node = true;
		for (int i = 0; i < s->job->cluster_count; i++)
			if (!s->job->cluster[i].executable.line) {
				s->job->cluster[i].executable = s->job->executable;
				s->job->cluster[i].executable.line = -1;
			}
	}
	if (prepare_net(s, err, sizeof(err)) != 0 ||
	    make_job_dir(s, plan.form, err, sizeof(err)) != 0)
		return abandon(s, err);
	write_record(s);
	if (plan.net_lib == NULL)
		fprintf(stderr, "qcg-submit: note: libqcgnet.so not found; running without it (only "
		    "clusters that reach each other directly can talk)\n");
	/* With nothing to do before a local mpirun, the broker hears "running" (and the
	 * clusters' batch jobs, for qcg-status) right after mpirun is started: the call, a TLS
	 * handshake across the WAN, then overlaps mpirun's own start-up instead of preceding it
	 * (issue 15). Stage-in and mpirun inside the job are part of the running job: before
	 * them. */
	bool running_after_start = !s->mpirun_in_job && s->job->stage_in_count == 0;
	if (!running_after_start)
		record_running(s);
	fprintf(stderr, "qcg-submit: job %s: %d processes on %d clusters, files in %s\n", s->id,
	    plan.processes, s->alloc.count, s->dir);
	plan.launcher_port = s->launcher_port;
	struct submit_remote remote = { .soap = s->soap, .alloc = &s->alloc, .job = s->job,
		.creds = &s->creds, .local_dir = s->dir, .self_dir = s->self_dir,
		.proxy_seconds = proxy_delegate_lifetime(s->job->walltime, SUBMIT_WALLTIME_GRACE) };
	if (s->mpirun_in_job) {
		/* Every node's job directory, before anything is staged into it. */
		if (submit_remote_make_dirs(&remote, err, sizeof(err)) != 0) {
			submit_remote_clean(&remote);
			return abandon(s, err);
		}
		/* The ranks' working directory when the description names none (line -1: set
		 * here, not by the description); stage-in files go there. */
		if (!s->job->workdir.line) {
			snprintf(s->job->workdir.text, sizeof(s->job->workdir.text), "%s",
			    remote.node_dir);
			s->job->workdir.line = -1;
		}
	}
	if (stage_in(s->soap, &s->creds.tls, &s->alloc, s->job, err, sizeof(err)) != 0) {
		stage_clean(s->soap, &s->alloc, s->job); /* what reached some nodes goes again */
		if (s->mpirun_in_job)
			submit_remote_clean(&remote);
		return abandon(s, err);
	}
	if (s->mpirun_in_job)
		return run_in_job(s, &plan, &remote);
	/* The broker sees the start-up only when libqcgnet runs and mpirun's listeners are
	 * registered through a helper on this host; else orted reach mpirun by plain connects
	 * that nobody logs (startup_watch.h). */
	s->watch_startup = plan.net_lib != NULL && plan.launcher_helper;
	startup_watch_init(&s->watch, &s->alloc, self, s->startup_timeout);
	pid_t pid = submit_start(&plan, err, sizeof(err));
	if (pid < 0) {
		stage_clean(s->soap, &s->alloc, s->job);
		return abandon(s, err);
	}
	if (running_after_start)
		record_running(s);
	record_mpirun(s, pid);
	bool cancelled = false;
	int code = supervise(s, pid, &cancelled);
	return finish_job(s, NULL, code, cancelled);
}

/* coalloc's waiting hook: the first time a cluster is busy the job becomes queued (at the
 * broker, and said on stderr); every SUBMIT_POLL seconds the broker is asked whether
 * qcg-cancel came meanwhile. Nonzero stops the waiting. */
static int
on_queued(void *arg, const struct coalloc_part *busy, const char *why)
{
	struct submit *s = arg;
	char err[1024];
	enum job_state st = JOB_QUEUED;
	if (!s->queued) {
		s->queued = true;
		fprintf(stderr, "qcg-submit: job %s queued: cluster %s is busy (%s); waiting up to "
		    "%d s for it\n", s->id, busy->cluster->name, why, s->alloc.reserve_timeout);
		time_t asked_at = time(NULL);
		note_broker(s, broker_set_state(s->soap, s->broker, s->id, JOB_QUEUED, 0, err,
		    sizeof(err)) ? err : NULL, asked_at, "waits for its nodes");
		s->next_poll = time(NULL) + SUBMIT_POLL;
		return 0;
	}
	if (time(NULL) < s->next_poll)
		return 0;
	time_t asked_at = time(NULL);
	s->next_poll = asked_at + SUBMIT_POLL;
	note_broker(s, broker_get_state(s->soap, s->broker, s->id, &st, err, sizeof(err)) ? err :
	    NULL, asked_at, "waits for its nodes");
	s->cancelled_queued = st == JOB_CANCELLED;
	return s->cancelled_queued;
}

/* Open the connections to the job's front-ends at once (frontend_links.h), to overlap the
 * broker's RecordJob; without them (no thread, no memory) each call connects by itself. */
static void
open_frontend_links(struct submit *s, const struct soap_client_settings *settings)
{
	const char *urls[JOB_CLUSTERS_MAX];
	char err[512];
	for (int i = 0; i < s->alloc.count; i++)
		urls[i] = s->alloc.part[i].frontend_url;
	s->alloc.links = frontend_links_open(urls, s->alloc.count, &s->creds.tls, settings, err,
	    sizeof(err));
	if (s->alloc.links == NULL)
		fprintf(stderr, "qcg-submit: %s; connecting to each front-end when it is needed\n",
		    err);
}

/* Description, credentials, broker: everything that must pass before anything is reserved. */
static int
prepare(struct submit *s, const char *file)
{
	char err[2048], text[1024];
	int auth = 0;
	if ((s->job = job_load(file, err, sizeof(err))) == NULL) {
		fprintf(stderr, "qcg-submit: %s\n", err);
		return EXIT_USAGE;
	}
	if (job_has_cluster_executables(s->job) && !s->mpirun_in_job) {
		fprintf(stderr, "qcg-submit: %s: a cluster names its own installed executable, which "
		    "only mpirun inside the job can honour (each node runs a link to its own); "
		    "submit with --mpirun-in-job\n", s->job->origin);
		return EXIT_USAGE;
	}
	struct soap_client_settings settings = { 30, 30, 16 * 1024 * 1024 };
	if ((s->soap = user_client_open(&s->creds, &settings, err, sizeof(err))) == NULL) {
		fprintf(stderr, "qcg-submit: %s\n", err);
		return EXIT_AUTH;
	}
	s->alloc.count = s->job->cluster_count;
	for (int i = 0; i < s->alloc.count; i++)
		s->alloc.part[i].cluster = &s->job->cluster[i];
	/* The option wins over the description, which wins over the default. */
	s->alloc.reserve_timeout = s->reserve_timeout ? s->reserve_timeout :
	    s->job->reserve_timeout ? (int)s->job->reserve_timeout : SUBMIT_RESERVE_TIMEOUT;
	s->alloc.waiting = on_queued;
	s->alloc.waiting_arg = s;
	s->alloc.stop = &stop_signal;
	s->alloc.helper_socket = getenv(NODE_ENV_SOCKET_VAR);
	s->alloc.tls = &s->creds.tls; /* the commits go to every cluster at once */
	summary(s, file, text, sizeof(text));
	if (make_job_id(s) != 0) {
		fprintf(stderr, "qcg-submit: no random bytes for the job's id (/dev/urandom)\n");
		return EXIT_FAILED;
	}
	int found = broker_find_frontends(s->soap, s->broker, s->job->origin, &s->alloc, &auth,
	    err, sizeof(err));
	if (found == 0)
		open_frontend_links(s, &settings);
	if (found != 0 ||
	    broker_record_job(s->soap, s->broker, s->id, text, &auth, err, sizeof(err)) != 0) {
		fprintf(stderr, "qcg-submit: %s\n", err);
		/* A cluster the broker does not know is the description's mistake, not the grid's. */
		return found == BROKER_UNKNOWN_CLUSTER ? EXIT_USAGE : auth ? EXIT_AUTH : EXIT_FAILED;
	}
	s->alloc.job_id = s->id;
	if (s->job->walltime > 0)
		s->alloc.walltime = s->job->walltime > INT_MAX - SUBMIT_WALLTIME_GRACE ? INT_MAX
		    : (int)s->job->walltime + SUBMIT_WALLTIME_GRACE;
	return 0;
}

int
main(int argc, char **argv)
{
	static struct submit s;
	char err[2048];
	int rc;

	ssize_t n = readlink("/proc/self/exe", s.self_dir, sizeof(s.self_dir) - 1);
	if (n <= 0 || strrchr(s.self_dir, '/') == NULL)
		snprintf(s.self_dir, sizeof(s.self_dir), "%s", QCG_BINDIR);
	else
		*strrchr(s.self_dir, '/') = '\0';
	if (parse_options(argc, argv, &s) != 0) {
		fprintf(stderr, "usage: qcg-submit [--broker URL] [--tag-output] "
		    "[--reserve-timeout SEC] [--startup-timeout SEC] [--mpirun-in-job | "
		    "--mpirun-here] FILE\n");
		return EXIT_USAGE;
	}
	struct sigaction sa = { .sa_handler = on_stop };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if ((rc = prepare(&s, argv[optind])) != 0)
		goto out;
	if (coalloc_acquire(s.soap, &s.alloc, err, sizeof(err)) != 0 || stop_signal) {
		/* qcg-cancel while queued is a SIGTERM too, as it is while the job runs. */
		int sig = stop_signal ? stop_signal : s.cancelled_queued ? SIGTERM : 0;
		if (stop_signal)
			coalloc_release(s.soap, &s.alloc);
		fprintf(stderr, "qcg-submit: job %s: %s; nothing was started and every reservation "
		    "is released\n", s.id, stop_signal ? "interrupted" : s.cancelled_queued ?
		    "cancelled (qcg-cancel) while queued" : err);
		broker_set_state(s.soap, s.broker, s.id, sig ? JOB_CANCELLED : JOB_FAILED,
		    sig ? 128 + sig : EXIT_COALLOC, err, sizeof(err));
		rc = sig ? 128 + sig : EXIT_COALLOC;
		goto out;
	}
	rc = run_job(&s);
out:
	/* Not closed right after the commits: closing a TLS connection may wait for the
	 * front-end's close_notify, which mpirun's start need not wait for; idle, they cost the
	 * front-ends little until their keep-alive idle timeout closes them. */
	frontend_links_close(s.alloc.links);
	soap_client_free(s.soap);
	free(s.job);
	return rc;
}

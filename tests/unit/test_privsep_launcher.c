/*
 * test_privsep_launcher.c: forged requests from a compromised network half against a real,
 * forked qcg-helper launcher (privsep_launcher.h) over its socketpair. Each forgery (launch as
 * root, as an unmapped or unknown uid, oversized, truncated, miscounted and unknown packets,
 * a forged launch mark, a reused id, signals to what it did not start) is refused with a
 * reason, and after each the launcher still starts a real process as the mapped account.
 * Needs root (the launcher switches accounts); skips otherwise.
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "privsep_client.h"
#include "privsep_launcher.h"
#include "privsep_proto.h"

static int sock = -1;              /* the forger's end: raw packets */
static struct privsep_client *client; /* the same socket, for well-formed requests */
static pid_t launcher_pid;
static uid_t nobody_uid, daemon_uid;
static unsigned long seq;

/* Send a raw packet; the reply, or ok = 2 when none came. Closes any fds it carries. */
static struct privsep_reply_msg
raw(const void *pkt, size_t len)
{
	struct privsep_reply_msg reply;
	memset(&reply, 0, sizeof(reply));
	reply.ok = 2;
	if (send(sock, pkt, len, MSG_NOSIGNAL) != (ssize_t)len) {
		fprintf(stderr, "send %zu bytes: %s\n", len, strerror(errno));
		return reply;
	}
	union { struct cmsghdr h; char buf[CMSG_SPACE(2 * sizeof(int))]; } ctl;
	struct iovec iov = { &reply, sizeof(reply) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
		.msg_controllen = sizeof(ctl.buf) };
	if (recvmsg(sock, &msg, 0) != (ssize_t)sizeof(reply))
		reply.ok = 2;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm))
		if (cm->cmsg_type == SCM_RIGHTS) {
			int fds[2];
			memcpy(fds, CMSG_DATA(cm), sizeof(fds));
			close(fds[0]);
			close(fds[1]);
		}
	return reply;
}

/* Whether a raw packet is refused with a reason containing want. */
static int
refused(const void *pkt, size_t len, const char *want)
{
	struct privsep_reply_msg r = raw(pkt, len);
	if (r.ok == 0 && strstr(r.reason, want) != NULL)
		return 1;
	fprintf(stderr, "  expected a refusal with '%s', got ok=%u reason '%s'\n", want, r.ok,
	    r.reason);
	return 0;
}

/* A LAUNCH packet of sh -c script as uid, with env; malloc'ed. */
static uint8_t *
launch_packet(uid_t uid, const char *script, char *const *env, int envc, char *id,
    size_t *len)
{
	char *argv[] = { "/bin/sh", "-c", (char *)script };
	uint8_t *pkt;
	char err[256];
	snprintf(id, LAUNCH_ID_MAX, "test.%lu", ++seq);
	if (privsep_launch_encode(id, uid, "/", argv, 3, env, envc, &pkt, len, err,
		sizeof(err)) != 0) {
		fprintf(stderr, "encode: %s\n", err);
		exit(1);
	}
	return pkt;
}

/* Read a pipe to its end, bounded by 20 s. */
static void
read_all(int fd, char *buf, size_t cap)
{
	size_t n = 0;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	while (n + 1 < cap && poll(&p, 1, 20000) == 1) {
		ssize_t r = read(fd, buf + n, cap - 1 - n);
		if (r > 0)
			n += (size_t)r;
		else if (r == 0 || errno != EAGAIN)
			break;
	}
	buf[n] = '\0';
}

/* The exit status of pid through REAP, waiting up to 20 s; -1 when it never came. */
static int
reap_status(pid_t pid)
{
	struct privsep_reaped r[PRIVSEP_REAP_MAX];
	char err[256];
	for (int tick = 0; tick < 200; tick++) {
		int n = privsep_client_reap(client, r, err, sizeof(err));
		for (int i = 0; i < n; i++)
			if (r[i].pid == pid)
				return r[i].status;
		struct timespec pause = { 0, 100 * 1000000L };
		nanosleep(&pause, NULL);
	}
	return -1;
}

/* The launcher still starts a real process as nobody: its output is "uid mark". */
static int
still_serves(void)
{
	char id[LAUNCH_ID_MAX], out[256], want[256], err[256];
	char *argv[] = { "/bin/sh", "-c", "echo $(id -u) $QCG_HELPER_LAUNCH_ID" };
	char *env[] = { "PATH=/usr/bin:/bin", "QCG_HELPER_LAUNCH_ID=forged" };
	pid_t pid;
	int ofd, efd, ifd;
	snprintf(id, sizeof(id), "serve.%lu", ++seq);
	if (privsep_client_launch(client, id, nobody_uid, "/", argv, 3, env, 2, &pid, &ofd, &efd,
		&ifd, err, sizeof(err)) != 0) {
		fprintf(stderr, "  the launcher no longer launches: %s\n", err);
		return 0;
	}
	read_all(ofd, out, sizeof(out));
	close(ofd);
	close(efd);
	close(ifd);
	int status = reap_status(pid);
	/* the forged mark was replaced by the launcher's own */
	snprintf(want, sizeof(want), "%u %s\n", (unsigned)nobody_uid, id);
	if (strcmp(out, want) != 0 || status != 0) {
		fprintf(stderr, "  got '%s' status %d, want '%s' status 0\n", out, status, want);
		return 0;
	}
	return 1;
}

static void
launch_as_root_refused_even_when_mapped(void)
{
	char id[LAUNCH_ID_MAX];
	size_t len;
	uint8_t *pkt = launch_packet(0, "id", NULL, 0, id, &len);
	CHECK(refused(pkt, len, "refusing to launch as root"));
	free(pkt);
	CHECK(still_serves());
}

static void
launch_as_unmapped_account_refused(void)
{
	char id[LAUNCH_ID_MAX];
	size_t len;
	uint8_t *pkt = launch_packet(daemon_uid, "id", NULL, 0, id, &len);
	CHECK(refused(pkt, len, "is not an account of the grid-mapfile"));
	free(pkt);
	pkt = launch_packet(54321, "id", NULL, 0, id, &len);
	CHECK(refused(pkt, len, "no local account has uid 54321"));
	free(pkt);
	CHECK(still_serves());
}

static void
oversized_packet_refused(void)
{
	size_t len = PRIVSEP_MSG_MAX + 4096;
	uint8_t *pkt = calloc(1, len);
	struct privsep_hdr h = { PRIVSEP_LAUNCH, (uint32_t)len };
	memcpy(pkt, &h, sizeof(h));
	CHECK(refused(pkt, len, "a request of"));
	free(pkt);
	CHECK(still_serves());
}

static void
truncated_and_miscounted_packets_refused(void)
{
	char id[LAUNCH_ID_MAX];
	size_t len;
	uint8_t *pkt = launch_packet(nobody_uid, "echo x", NULL, 0, id, &len);
	/* cut short: the header still claims the whole length */
	CHECK(refused(pkt, len - 3, "the header says"));
	/* cut short with the header adjusted: the last string loses its NUL */
	struct privsep_hdr h = { PRIVSEP_LAUNCH, (uint32_t)(len - 1) };
	memcpy(pkt, &h, sizeof(h));
	CHECK(refused(pkt, len - 1, "not NUL-terminated"));
	h.len = (uint32_t)len;
	memcpy(pkt, &h, sizeof(h));
	/* one argument more announced than sent */
	struct privsep_launch_msg m;
	memcpy(&m, pkt, sizeof(m));
	m.argc++;
	memcpy(pkt, &m, sizeof(m));
	CHECK(refused(pkt, len, "strings, 5 announced"));
	/* fewer: the strings area holds more than announced */
	m.argc -= 2;
	memcpy(pkt, &m, sizeof(m));
	CHECK(refused(pkt, len, "more than the"));
	/* an id without its NUL */
	m.argc += 1;
	memset(m.id, 'x', sizeof(m.id));
	memcpy(pkt, &m, sizeof(m));
	CHECK(refused(pkt, len, "launch id"));
	CHECK(refused(pkt, 3, "a request of 3 bytes"));
	h.len = (uint32_t)(sizeof(m) - 1);
	memcpy(pkt, &h, sizeof(h));
	CHECK(refused(pkt, sizeof(m) - 1, "shorter than its fixed part"));
	free(pkt);
	CHECK(still_serves());
}

static void
unknown_type_and_bad_sizes_refused(void)
{
	struct privsep_hdr h = { 99, sizeof(h) };
	CHECK(refused(&h, sizeof(h), "unknown request type 99"));
	h = (struct privsep_hdr){ PRIVSEP_REPLY, sizeof(h) };
	CHECK(refused(&h, sizeof(h), "unknown request type"));
	uint8_t big[sizeof(h) + 8] = { 0 };
	h = (struct privsep_hdr){ PRIVSEP_REAP, sizeof(big) };
	memcpy(big, &h, sizeof(h));
	CHECK(refused(big, sizeof(big), "REAP: 16 bytes"));
	struct privsep_signal_msg s = { { PRIVSEP_SIGNAL, sizeof(s) - 1 }, SIGKILL, "x" };
	CHECK(refused(&s, sizeof(s) - 1, "SIGNAL"));
	CHECK(still_serves());
}

static void
signal_reaches_only_launches_it_started(void)
{
	struct privsep_signal_msg s = { { PRIVSEP_SIGNAL, sizeof(s) }, SIGKILL, "no-such-launch" };
	CHECK(refused(&s, sizeof(s), "no launch 'no-such-launch'"));
	s.sig = 0;
	CHECK(refused(&s, sizeof(s), "bad launch id or signal 0"));
	s.sig = 1000;
	CHECK(refused(&s, sizeof(s), "bad launch id or signal 1000"));
	CHECK(still_serves());
}

static void
running_launch_id_cannot_be_reused_and_is_signalled(void)
{
	char id[LAUNCH_ID_MAX], err[256];
	char *env[] = { "PATH=/usr/bin:/bin" };
	size_t len;
	uint8_t *pkt = launch_packet(nobody_uid, "exec sleep 60", env, 1, id, &len);
	struct privsep_reply_msg r = raw(pkt, len);
	CHECK(r.ok == 1 && r.pid > 0);
	CHECK(refused(pkt, len, "is in use"));
	free(pkt);
	CHECK(privsep_client_signal(client, id, SIGKILL, err, sizeof(err)) == 0);
	int status = reap_status(r.pid);
	CHECK(status != -1 && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	CHECK(still_serves());
}

/* One signal reaches each of a launch's processes once: its group by the group's signal,
 * and only what left the group (a daemon) by its mark. A second wave to the group killed
 * the clean-up a trapped signal had started (a stage-in receiver's rm). */
static void
signal_reaches_each_process_once(void)
{
	char id[LAUNCH_ID_MAX], path[64], comm[32] = "";
	char *env[] = { "PATH=/usr/bin:/bin" };
	size_t len;
	/* a daemon leaves the group; then the leader becomes sleep 61 */
	uint8_t *pkt = launch_packet(nobody_uid,
	    "setsid sleep 60 & e=$!\n"
	    "while [ \"$(cut -d' ' -f5 /proc/$e/stat)\" = \"$(cut -d' ' -f5 /proc/$$/stat)\" ]; do\n"
	    "\tsleep 0.01\n"
	    "done\n"
	    "exec sleep 61", env, 1, id, &len);
	struct privsep_reply_msg r = raw(pkt, len);
	free(pkt);
	CHECK(r.ok == 1 && r.pid > 0);
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)r.pid);
	for (int tick = 0; tick < 200 && strcmp(comm, "sleep\n") != 0; tick++) {
		struct timespec pause = { 0, 50 * 1000000L };
		nanosleep(&pause, NULL);
		FILE *f = fopen(path, "r");
		if (f == NULL || fgets(comm, sizeof(comm), f) == NULL)
			comm[0] = '\0';
		if (f)
			fclose(f);
	}
	CHECK(strcmp(comm, "sleep\n") == 0);
	struct privsep_signal_msg s = { { PRIVSEP_SIGNAL, sizeof(s) }, SIGKILL, "" };
	snprintf(s.id, sizeof(s.id), "%s", id);
	struct privsep_reply_msg k = raw(&s, sizeof(s));
	CHECK(k.ok == 1);
	if (k.signalled != 2)
		fprintf(stderr, "  signalled %u, not 2 (the group and the daemon)\n", k.signalled);
	CHECK(k.signalled == 2);
	int status = reap_status(r.pid);
	CHECK(status != -1 && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	CHECK(still_serves());
}

static void
launcher_exits_when_the_helper_closes(void)
{
	int status = -1;
	privsep_client_free(client); /* closes sock too */
	client = NULL;
	for (int tick = 0; tick < 200; tick++) {
		if (waitpid(launcher_pid, &status, WNOHANG) == launcher_pid)
			break;
		struct timespec pause = { 0, 100 * 1000000L };
		nanosleep(&pause, NULL);
	}
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int
main(void)
{
	struct privsep_launcher_config cfg = { .allow_root = false, .max_launches = 4 };
	struct passwd *pw;
	char err[256], dir[] = "/tmp/qcg-privsep-test.XXXXXX";
	if (geteuid() != 0) {
		printf("SKIP: the launcher switches accounts only as root\n");
		return 77;
	}
	if ((pw = getpwnam("daemon")) == NULL) {
		printf("SKIP: no account 'daemon' to stand for an unmapped account\n");
		return 77;
	}
	daemon_uid = pw->pw_uid;
	if ((pw = getpwnam("nobody")) == NULL) {
		printf("SKIP: no account 'nobody' to launch as\n");
		return 77;
	}
	nobody_uid = pw->pw_uid;
	/* root is mapped too: the root refusal must not rest on the mapping */
	if (mkdtemp(dir) == NULL)
		return 1;
	snprintf(cfg.grid_mapfile, sizeof(cfg.grid_mapfile), "%s/grid-mapfile", dir);
	FILE *f = fopen(cfg.grid_mapfile, "w");
	if (f == NULL)
		return 1;
	fprintf(f, "\"/O=Grid/CN=someone\" nobody\n\"/O=Grid/CN=admin\" root\n");
	fclose(f);
	signal(SIGPIPE, SIG_IGN);
	launcher_pid = privsep_launcher_fork(&cfg, &sock, err, sizeof(err));
	if (launcher_pid < 0 || (client = privsep_client_new(sock)) == NULL) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	struct timeval tv = { 20, 0 }; /* a launcher that stops answering fails, not hangs */
	setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	RUN(launch_as_root_refused_even_when_mapped);
	RUN(launch_as_unmapped_account_refused);
	RUN(oversized_packet_refused);
	RUN(truncated_and_miscounted_packets_refused);
	RUN(unknown_type_and_bad_sizes_refused);
	RUN(signal_reaches_only_launches_it_started);
	RUN(running_launch_id_cannot_be_reused_and_is_signalled);
	RUN(signal_reaches_each_process_once);
	RUN(launcher_exits_when_the_helper_closes);
	unlink(cfg.grid_mapfile);
	rmdir(dir);
	return check_exit();
}

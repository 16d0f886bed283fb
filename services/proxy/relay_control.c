/*
 * relay_control.c: the local control socket of the data plane (protocol in relay_control.h).
 */
#define _GNU_SOURCE /* accept4, pipe2 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "log.h"
#include "relay_control.h"

struct relay_control {
	struct relay_plane *plane;
	int listen_fd;
	int stop_pipe[2]; /* a byte written here ends the thread's poll */
	pthread_t thread;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
};

/* Parse a decimal ttl in 1..RELAY_ID_TTL_MAX_S. */
static int
parse_ttl(const char *text, unsigned *out)
{
	char *end;

	if (text == NULL || text[0] < '0' || text[0] > '9')
		return -1;
	errno = 0;
	unsigned long v = strtoul(text, &end, 10);
	if (errno != 0 || *end != '\0' || v < 1 || v > RELAY_ID_TTL_MAX_S)
		return -1;
	*out = (unsigned)v;
	return 0;
}

int
relay_control_parse(const char *line, struct relay_control_command *cmd, char *err,
    size_t errlen)
{
	char copy[RELAY_CONTROL_LINE_MAX], *save = NULL, *words[5];
	size_t n = 0;

	if (strlen(line) >= sizeof(copy)) {
		snprintf(err, errlen, "line longer than %d bytes", RELAY_CONTROL_LINE_MAX - 1);
		return -1;
	}
	strcpy(copy, line);
	for (char *w = strtok_r(copy, " \t\r", &save); w != NULL; w = strtok_r(NULL, " \t\r", &save)) {
		if (n == 5) {
			snprintf(err, errlen, "too many words");
			return -1;
		}
		words[n++] = w;
	}
	memset(cmd, 0, sizeof(*cmd));
	if (n == 1 && strcmp(words[0], "stats") == 0) {
		cmd->verb = RELAY_CONTROL_STATS;
		return 0;
	}
	if (n == 3 && strcmp(words[0], "expect") == 0) {
		cmd->verb = RELAY_CONTROL_EXPECT;
	} else if (n == 4 && strcmp(words[0], "forward") == 0) {
		cmd->verb = RELAY_CONTROL_FORWARD;
		if (strlen(words[2]) >= sizeof(cmd->next_hop)) {
			snprintf(err, errlen, "next hop longer than %zu bytes", sizeof(cmd->next_hop) - 1);
			return -1;
		}
		strcpy(cmd->next_hop, words[2]);
	} else {
		snprintf(err, errlen, "expected 'expect ID TTL', 'forward ID HOST:PORT TTL' or 'stats'");
		return -1;
	}
	if (relay_id_parse_hex(words[1], &cmd->id) < 0) {
		snprintf(err, errlen, "relay id must be %d hex digits", RELAY_ID_HEX_LEN);
		return -1;
	}
	if (parse_ttl(words[n - 1], &cmd->ttl_s) < 0) {
		snprintf(err, errlen, "ttl must be whole seconds in 1..%u", RELAY_ID_TTL_MAX_S);
		return -1;
	}
	return 0;
}

/* Run one command line; the reply (with its newline) goes into reply. */
static void
control_execute(struct relay_control *ctl, const char *line, char *reply, size_t len)
{
	struct relay_control_command cmd;
	struct relay_stats st;
	char err[256];
	int rc = 0;

	if (relay_control_parse(line, &cmd, err, sizeof(err)) < 0) {
		snprintf(reply, len, "error %s\n", err);
		return;
	}
	switch (cmd.verb) {
	case RELAY_CONTROL_EXPECT:
		rc = relay_expect(ctl->plane, &cmd.id, cmd.ttl_s, err, sizeof(err));
		break;
	case RELAY_CONTROL_FORWARD:
		rc = relay_forward(ctl->plane, &cmd.id, cmd.next_hop, cmd.ttl_s, err, sizeof(err));
		break;
	case RELAY_CONTROL_STATS:
		relay_stats(ctl->plane, &st);
		snprintf(reply, len, "ok ");
		relay_stats_format(&st, reply + 3, len - 4);
		strcat(reply, "\n");
		return;
	}
	snprintf(reply, len, rc == 0 ? "ok\n" : "error %s\n", err);
}

/* Serve one client until it closes, misbehaves or idles out. */
static void
control_serve(struct relay_control *ctl, int fd)
{
	char buf[RELAY_CONTROL_LINE_MAX], reply[1024];
	size_t have = 0;
	struct timeval idle = { RELAY_CONTROL_IDLE_MS / 1000, 0 };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &idle, sizeof(idle));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &idle, sizeof(idle));
	for (;;) {
		char *nl = memchr(buf, '\n', have);
		if (nl == NULL) {
			if (have == sizeof(buf)) {
				log_warn("control: line longer than %d bytes, client dropped",
				    RELAY_CONTROL_LINE_MAX - 1);
				return;
			}
			ssize_t n = recv(fd, buf + have, sizeof(buf) - have, 0);
			if (n <= 0)
				return;
			have += (size_t)n;
			continue;
		}
		*nl = '\0';
		control_execute(ctl, buf, reply, sizeof(reply));
		if (send(fd, reply, strlen(reply), MSG_NOSIGNAL) < 0)
			return;
		size_t used = (size_t)(nl + 1 - buf);
		memmove(buf, nl + 1, have - used);
		have -= used;
	}
}

static void *
control_run(void *arg)
{
	struct relay_control *ctl = arg;
	struct pollfd pfd[2] = { { .fd = ctl->listen_fd, .events = POLLIN },
		{ .fd = ctl->stop_pipe[0], .events = POLLIN } };

	for (;;) {
		if (poll(pfd, 2, -1) < 0 && errno != EINTR) {
			log_error("control: poll: %s", strerror(errno));
			return NULL;
		}
		if (pfd[1].revents != 0)
			return NULL;
		if (pfd[0].revents == 0)
			continue;
		int fd = accept4(ctl->listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		control_serve(ctl, fd);
		close(fd);
	}
}

/* Bind the unix socket owner-only; replaces a stale socket, refuses to clobber anything else. */
static int
control_listen(const char *path, char *err, size_t errlen)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct stat st;

	if (strlen(path) >= sizeof(sun.sun_path)) {
		snprintf(err, errlen, "control socket path '%s': longer than %zu bytes", path,
		    sizeof(sun.sun_path) - 1);
		return -1;
	}
	strcpy(sun.sun_path, path);
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			snprintf(err, errlen, "control socket path '%s': exists and is not a socket",
			    path);
			return -1;
		}
		unlink(path);
	}
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	mode_t old = umask(0177);
	int rc = fd < 0 ? -1 : bind(fd, (struct sockaddr *)&sun, sizeof(sun));
	umask(old);
	if (rc < 0 || listen(fd, 16) < 0) {
		snprintf(err, errlen, "control socket '%s': %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

struct relay_control *
relay_control_start(struct relay_plane *plane, const char *path, char *err, size_t errlen)
{
	struct relay_control *ctl = calloc(1, sizeof(*ctl));

	if (ctl == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	ctl->plane = plane;
	ctl->listen_fd = control_listen(path, err, errlen);
	if (ctl->listen_fd < 0) {
		free(ctl);
		return NULL;
	}
	snprintf(ctl->path, sizeof(ctl->path), "%s", path);
	if (pipe2(ctl->stop_pipe, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "control socket '%s': pipe: %s", path, strerror(errno));
		goto fail;
	}
	int rc = pthread_create(&ctl->thread, NULL, control_run, ctl);
	if (rc != 0) {
		snprintf(err, errlen, "control socket '%s': thread: %s", path, strerror(rc));
		close(ctl->stop_pipe[0]);
		close(ctl->stop_pipe[1]);
		goto fail;
	}
	log_info("control socket on %s", path);
	return ctl;
fail:
	close(ctl->listen_fd);
	unlink(path);
	free(ctl);
	return NULL;
}

void
relay_control_stop(struct relay_control *ctl)
{
	if (ctl == NULL)
		return;
	if (write(ctl->stop_pipe[1], "x", 1) < 0)
		log_warn("control: stop: %s", strerror(errno));
	pthread_join(ctl->thread, NULL);
	close(ctl->stop_pipe[0]);
	close(ctl->stop_pipe[1]);
	close(ctl->listen_fd);
	unlink(ctl->path);
	free(ctl);
}

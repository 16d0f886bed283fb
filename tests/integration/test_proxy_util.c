/*
 * test_proxy_util.c: a real qcg-proxy for the integration tests, and leg helpers.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_proxy_util.h"

#define TP_MAX_ARGS 32
#define TP_START_TIMEOUT_MS 30000 /* qcg-proxy starts slowly on a loaded machine */
#define TP_IO_TIMEOUT_S 10

long long
tp_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
tp_exec_proxy(struct tp_proxy *p, const char *binary, const char *const *extra_args)
{
	char ready[160], control[160];
	const char *argv[TP_MAX_ARGS];
	int n = 0;

	snprintf(ready, sizeof(ready), "%s/ready", p->dir);
	argv[n++] = binary;
	snprintf(control, sizeof(control), "proxy.control=%s", p->control);
	argv[n++] = "-s";
	argv[n++] = "proxy.listen=127.0.0.1:0";
	argv[n++] = "-s";
	argv[n++] = "proxy.threads=2";
	argv[n++] = "-s";
	argv[n++] = "proxy.stats_interval=0";
	argv[n++] = "-s";
	argv[n++] = control;
	argv[n++] = "--port-file";
	argv[n++] = ready;
	for (int i = 0; extra_args != NULL && extra_args[i] != NULL && n < TP_MAX_ARGS - 1; i++)
		argv[n++] = extra_args[i];
	argv[n] = NULL;

	int logfd = open(p->log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (logfd >= 0) {
		dup2(logfd, STDERR_FILENO);
		close(logfd);
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the test */
	execv(binary, (char *const *)argv);
	fprintf(stderr, "exec %s: %s\n", binary, strerror(errno));
	_exit(127);
}

/* Wait for the ready file ("HOST:PORT") and parse it. */
static int
tp_wait_ready(struct tp_proxy *p)
{
	char path[160], line[128];

	snprintf(path, sizeof(path), "%s/ready", p->dir);
	for (long long deadline = tp_now_ms() + TP_START_TIMEOUT_MS; tp_now_ms() < deadline;) {
		FILE *f = fopen(path, "r");
		if (f != NULL) {
			char *ok = fgets(line, sizeof(line), f);
			fclose(f);
			char *colon = ok ? strrchr(line, ':') : NULL;
			if (colon == NULL)
				return -1;
			*colon = '\0';
			snprintf(p->host, sizeof(p->host), "%s", line);
			p->port = (uint16_t)atoi(colon + 1);
			return 0;
		}
		if (waitpid(p->pid, NULL, WNOHANG) == p->pid) {
			p->pid = -1;
			return -1;
		}
		usleep(10000);
	}
	return -1;
}

void
tp_proxy_start(struct tp_proxy *p, const char *const *extra_args)
{
	const char *top = getenv("top_builddir");
	char binary[512];

	memset(p, 0, sizeof(*p));
	snprintf(binary, sizeof(binary), "%s/services/proxy/qcg-proxy", top ? top : ".");
	if (access(binary, X_OK) != 0) {
		printf("SKIP: %s not built (set top_builddir)\n", binary);
		exit(77);
	}
	snprintf(p->dir, sizeof(p->dir), "/tmp/qcg-proxy-test.XXXXXX");
	if (mkdtemp(p->dir) == NULL) {
		perror("mkdtemp");
		exit(1);
	}
	snprintf(p->control, sizeof(p->control), "%s/ctl", p->dir);
	snprintf(p->log, sizeof(p->log), "%s/log", p->dir);
	fflush(NULL);
	p->pid = fork();
	if (p->pid < 0) {
		perror("fork");
		exit(1);
	}
	if (p->pid == 0)
		tp_exec_proxy(p, binary, extra_args);
	if (tp_wait_ready(p) < 0) {
		fprintf(stderr, "qcg-proxy did not come up within %d ms\n", TP_START_TIMEOUT_MS);
		tp_proxy_stop(p, true);
		exit(1);
	}
}

static void
tp_print_log(const struct tp_proxy *p)
{
	char line[1024];
	FILE *f = fopen(p->log, "r");

	if (f == NULL)
		return;
	fprintf(stderr, "--- qcg-proxy log (%s) ---\n", p->log);
	while (fgets(line, sizeof(line), f) != NULL)
		fputs(line, stderr);
	fclose(f);
}

int
tp_proxy_stop(struct tp_proxy *p, bool print_log)
{
	int status = 0, rc = 0;
	char path[160];

	if (p->pid > 0) {
		kill(p->pid, SIGTERM);
		long long deadline = tp_now_ms() + 5000;
		while (waitpid(p->pid, &status, WNOHANG) == 0) {
			if (tp_now_ms() > deadline) {
				fprintf(stderr, "qcg-proxy %d ignored SIGTERM; killing it\n", p->pid);
				kill(p->pid, SIGKILL);
				waitpid(p->pid, &status, 0);
				break;
			}
			usleep(5000);
		}
		rc = WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
		p->pid = -1;
	}
	if (print_log || rc != 0)
		tp_print_log(p);
	snprintf(path, sizeof(path), "%s/ready", p->dir);
	unlink(path);
	unlink(p->log);
	unlink(p->control);
	rmdir(p->dir);
	return rc;
}

const char *
tp_control(struct tp_proxy *p, const char *fmt, ...)
{
	static char reply[2048];
	char line[600];
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	va_list ap;
	size_t have = 0;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	strcat(line, "\n");
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", p->control);
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0 ||
	    tp_write_all(fd, line, strlen(line)) < 0) {
		snprintf(reply, sizeof(reply), "error (test) control socket: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return reply;
	}
	while (have < sizeof(reply) - 1) {
		ssize_t n = read(fd, reply + have, 1);
		if (n <= 0 || reply[have] == '\n')
			break;
		have++;
	}
	reply[have] = '\0';
	close(fd);
	return reply;
}

long long
tp_stat(struct tp_proxy *p, const char *name)
{
	char key[80];
	const char *reply = tp_control(p, "stats");

	snprintf(key, sizeof(key), " %s=", name);
	const char *at = strstr(reply, key);
	return at ? atoll(at + strlen(key)) : -1;
}

long long
tp_wait_stat(struct tp_proxy *p, const char *name, long long want, int timeout_ms)
{
	long long deadline = tp_now_ms() + timeout_ms, v;

	while ((v = tp_stat(p, name)) != want && tp_now_ms() < deadline)
		usleep(5000);
	return v;
}

void
tp_random_id(struct relay_id *id)
{
	if (getrandom(id->bytes, sizeof(id->bytes), 0) != sizeof(id->bytes)) {
		perror("getrandom");
		exit(1);
	}
}

void
tp_expect(struct tp_proxy *p, const struct relay_id *id, unsigned ttl_s)
{
	char hex[RELAY_ID_HEX_LEN + 1];

	relay_id_format(id->bytes, hex);
	const char *reply = tp_control(p, "expect %s %u", hex, ttl_s);
	if (strcmp(reply, "ok") != 0) {
		fprintf(stderr, "expect %s: %s\n", hex, reply);
		exit(1);
	}
}

int
tp_connect(const char *host, uint16_t port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
	/* A proxy that fails to pass something on makes a blocking read fail, not hang. */
	struct timeval io_timeout = { TP_IO_TIMEOUT_S, 0 };
	int one = 1;

	if (inet_pton(AF_INET, host, &sin.sin_addr) != 1)
		return -1;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &io_timeout, sizeof(io_timeout));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &io_timeout, sizeof(io_timeout));
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int
tp_leg(struct tp_proxy *p, const struct relay_id *id)
{
	return tp_leg_flags(p, id, 0);
}

int
tp_leg_flags(struct tp_proxy *p, const struct relay_id *id, uint8_t flags)
{
	uint8_t hello[RELAY_HELLO_SIZE];
	int fd = tp_connect(p->host, p->port);

	relay_hello_encode(hello, id, flags);
	if (fd < 0 || tp_write_all(fd, hello, sizeof(hello)) < 0) {
		fprintf(stderr, "leg to %s:%u: %s\n", p->host, p->port, strerror(errno));
		exit(1);
	}
	return fd;
}

int
tp_write_all(int fd, const void *buf, size_t len)
{
	const char *b = buf;

	while (len > 0) {
		ssize_t n = send(fd, b, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EAGAIN) { /* a non-blocking end: wait for room */
			struct pollfd p = { .fd = fd, .events = POLLOUT };
			poll(&p, 1, 1000);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		b += n;
		len -= (size_t)n;
	}
	return 0;
}

int
tp_read_all(int fd, void *buf, size_t len)
{
	char *b = buf;

	while (len > 0) {
		ssize_t n = read(fd, b, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		b += n;
		len -= (size_t)n;
	}
	return 0;
}

long
tp_wait_closed(int fd, int timeout_ms, size_t *extra)
{
	long long start = tp_now_ms(), deadline = start + timeout_ms;
	char buf[4096];

	for (;;) {
		long long left = deadline - tp_now_ms();
		if (left < 0)
			return -1;
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int rc = poll(&pfd, 1, (int)left);
		if (rc == 0)
			return -1;
		if (rc < 0 && errno == EINTR)
			continue;
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n > 0) {
			if (extra != NULL)
				*extra += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		return (long)(tp_now_ms() - start);
	}
}

long
tp_raise_nofile(long want)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return -1;
	if ((long)rl.rlim_cur < want) {
		rl.rlim_cur = (rlim_t)want;
		if (rl.rlim_max != RLIM_INFINITY && (long)rl.rlim_max < want)
			rl.rlim_max = (rlim_t)want; /* only root may; then the soft raise fails below */
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0) {
			getrlimit(RLIMIT_NOFILE, &rl);
			rl.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	return (long)rl.rlim_cur;
}

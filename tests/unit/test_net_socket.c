/*
 * test_net_socket.c: lib/net_socket's timed connect on loopback only: to a listening port, to
 * a closed port, to a listener whose accept queue is full (its SYNs are dropped: the deadline
 * case without contacting anything beyond loopback), with signals interrupting the wait (the
 * deadline holds: the clock is not restarted), through a connect function passed in (as
 * libqcgnet.so passes libc's), and the socket's own flags restored.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "check.h"
#include "monotonic_ms.h"
#include "net_socket.h"

/* A generous bound that only proves "no hang" on a loaded machine. */
#define NO_HANG_MS 6000

/* A loopback TCP socket bound to a free port, listening with backlog (or not, backlog < 0). */
static int
loopback_socket(int backlog, struct sockaddr_in *addr)
{
	socklen_t len = sizeof(*addr);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(addr, 0, sizeof(*addr));
	addr->sin_family = AF_INET;
	addr->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)addr, sizeof(*addr)) != 0 ||
	    getsockname(fd, (struct sockaddr *)addr, &len) != 0 ||
	    (backlog >= 0 && listen(fd, backlog) != 0)) {
		perror("test_net_socket: loopback socket");
		_exit(99);
	}
	return fd;
}

static int
tcp_socket(void)
{
	return socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
}

static void
connects_to_a_listening_port_and_restores_blocking_mode(void)
{
	struct sockaddr_in to;
	int lfd = loopback_socket(8, &to), fd = tcp_socket();

	CHECK_INT_EQ(net_connect_timed(fd, (struct sockaddr *)&to, sizeof(to), 5000, NULL), 0);
	CHECK_INT_EQ(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
	close(fd);
	/* A socket that was non-blocking stays so. */
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	CHECK_INT_EQ(net_connect_timed(fd, (struct sockaddr *)&to, sizeof(to), 5000, NULL), 0);
	CHECK(fcntl(fd, F_GETFL) & O_NONBLOCK);
	close(fd);
	close(lfd);
}

static void
a_closed_port_is_refused_at_once(void)
{
	struct sockaddr_in to;
	int bound = loopback_socket(-1, &to), fd = tcp_socket(); /* bound, not listening */
	long start = monotonic_ms();

	errno = 0;
	CHECK_INT_EQ(net_connect_timed(fd, (struct sockaddr *)&to, sizeof(to), NO_HANG_MS, NULL),
	    -1);
	CHECK_INT_EQ(errno, ECONNREFUSED);
	CHECK(monotonic_ms() - start < NO_HANG_MS);
	CHECK_INT_EQ(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
	close(fd);
	close(bound);
}

/* A loopback listener whose accept queue is full (never accepted): SYNs to it are dropped, so
 * a connect to it waits for its deadline. */
struct full_listener {
	struct sockaddr_in addr;
	int fd;
	int held[16]; /* the connections that filled the queue */
	size_t count;
};

static void
full_listener_open(struct full_listener *f)
{
	f->fd = loopback_socket(0, &f->addr);
	f->count = 0;
	while (f->count < 16) {
		int fd = tcp_socket();
		if (net_connect_timed(fd, (struct sockaddr *)&f->addr, sizeof(f->addr), 300,
		    NULL) != 0) {
			close(fd);
			break;
		}
		f->held[f->count++] = fd;
	}
	CHECK(f->count < 16); /* the queue did fill */
}

static void
full_listener_close(struct full_listener *f)
{
	while (f->count > 0)
		close(f->held[--f->count]);
	close(f->fd);
}

static void
a_full_accept_queue_times_out_at_the_deadline(void)
{
	struct full_listener full;
	int fd;
	long start, took;

	full_listener_open(&full);
	fd = tcp_socket();
	start = monotonic_ms();
	errno = 0;
	CHECK_INT_EQ(net_connect_timed(fd, (struct sockaddr *)&full.addr, sizeof(full.addr), 400,
	    NULL), -1);
	took = monotonic_ms() - start;
	CHECK_INT_EQ(errno, ETIMEDOUT);
	CHECK(took >= 400);
	CHECK(took < NO_HANG_MS);
	close(fd);
	full_listener_close(&full);
}

static volatile sig_atomic_t alarms;

static void
on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/* SIGALRM every 20 ms, without SA_RESTART, so that poll is interrupted again and again. */
static void
interrupt_often(bool on)
{
	struct sigaction sa;
	struct itimerval every = { .it_interval = { 0, 20000 }, .it_value = { 0, 20000 } };
	struct itimerval off = { 0 };

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on ? on_alarm : SIG_IGN;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, on ? &every : &off, NULL);
}

static void
signals_neither_restart_the_clock_nor_end_the_wait(void)
{
	struct full_listener full;
	struct sockaddr_in to;
	int lfd, fd;
	long start, took;

	full_listener_open(&full);
	fd = tcp_socket();
	alarms = 0;
	interrupt_often(true);
	start = monotonic_ms();
	errno = 0;
	/* Restarting 500 ms at each of the 25 signals a second would never end; giving up at the
	 * first signal would end after 20 ms. */
	CHECK_INT_EQ(net_connect_timed(fd, (struct sockaddr *)&full.addr, sizeof(full.addr), 500,
	    NULL), -1);
	took = monotonic_ms() - start;
	interrupt_often(false);
	CHECK_INT_EQ(errno, ETIMEDOUT);
	CHECK(alarms > 0);
	CHECK(took >= 500);
	CHECK(took < NO_HANG_MS);
	close(fd);
	full_listener_close(&full);

	/* A connection that can complete does, signals or not. */
	lfd = loopback_socket(8, &to);
	fd = tcp_socket();
	interrupt_often(true);
	CHECK_INT_EQ(net_connect_timed(fd, (struct sockaddr *)&to, sizeof(to), 5000, NULL), 0);
	interrupt_often(false);
	close(fd);
	close(lfd);
}

static int connect_fn_calls;

/* What libqcgnet.so does: its own connect is interposed, so it passes the real one. */
static int
counting_connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	connect_fn_calls++;
	return connect(fd, addr, len);
}

static void
the_connect_function_passed_in_is_the_one_used(void)
{
	struct sockaddr_in to;
	int lfd = loopback_socket(8, &to), fd = tcp_socket();

	connect_fn_calls = 0;
	CHECK_INT_EQ(net_connect_timed(fd, (struct sockaddr *)&to, sizeof(to), 5000,
	    counting_connect), 0);
	CHECK_INT_EQ(connect_fn_calls, 1);
	close(fd);
	close(lfd);
}

static void
flag_helpers_set_what_they_say(void)
{
	int fd = tcp_socket(), v = 0;
	socklen_t len = sizeof(v);

	CHECK_INT_EQ(net_set_nonblock(fd, true), 0);
	CHECK(fcntl(fd, F_GETFL) & O_NONBLOCK);
	CHECK_INT_EQ(net_set_nonblock(fd, false), 0);
	CHECK_INT_EQ(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
	CHECK_INT_EQ(net_set_cloexec(fd, false), 0);
	CHECK_INT_EQ(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
	CHECK_INT_EQ(net_set_cloexec(fd, true), 0);
	CHECK(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	CHECK_INT_EQ(net_set_nodelay(fd), 0);
	CHECK_INT_EQ(getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &v, &len), 0);
	CHECK(v != 0);
	close(fd);
	CHECK_INT_EQ(net_set_nonblock(fd, true), -1); /* closed: the error comes back */
	CHECK_INT_EQ(errno, EBADF);
}

int
main(void)
{
	RUN(connects_to_a_listening_port_and_restores_blocking_mode);
	RUN(a_closed_port_is_refused_at_once);
	RUN(a_full_accept_queue_times_out_at_the_deadline);
	RUN(signals_neither_restart_the_clock_nor_end_the_wait);
	RUN(the_connect_function_passed_in_is_the_one_used);
	RUN(flag_helpers_set_what_they_say);
	return check_exit();
}

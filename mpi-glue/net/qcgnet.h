/*
 * qcgnet.h: the private interface between the files of libqcgnet.so, the socket shim preloaded
 * into mpirun, orted and every rank (DESIGN.md section 3, issue 5). See mpi-glue/net/README.md
 * for what it does and the environment that drives it.
 *
 * Files, one responsibility each:
 *   qcgnet_real.c     the libc functions the shim wraps, found with dlsym(RTLD_NEXT)
 *   qcgnet_state.c    activation and settings (environment), logging, the fork rules and the
 *                     process's control connection to qcg-helper
 *   qcgnet_fdtab.c    the per-descriptor table: substituted peer addresses, recorded socket
 *                     options, listeners; installing a set-up socket onto an application fd
 *   qcgnet_ports.c    the job's port window: binding listeners inside it
 *   qcgnet_listen.c   bind(), listen(): registration and the per-listener inbound thread
 *   qcgnet_accept.c   accept(), accept4(): handed-off sockets out of the application's accept
 *   qcgnet_connect.c  connect(): resolve, the method loop, reports
 *   qcgnet_method.c   carrying out one method (direct, hand-off, relay leg)
 *   qcgnet_wrap.c     close(), getpeername(), setsockopt()
 *   qcgnet_resume_send.c  write(), writev(), send(), sendmsg() on a resumable relay's end
 *   qcgnet_setpgid.c  setpgid(): plm_rsh's parent losing the race to its child's exec
 *   qcgnet_resume.c   relay legs, and resumable relays: the leg kept in the resumable stream
 *                     (qcgnet_resume_stream.h), the application given a socketpair end
 */
#ifndef QCG_QCGNET_H
#define QCG_QCGNET_H

#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "helper_client.h"

#define QN_FD_MAX 65536     /* descriptors the table covers; higher ones are left alone */
#define QN_OPTS_MAX 8       /* socket options recorded per descriptor */
#define QN_OPT_BYTES 16     /* the largest option value recorded (struct linger is 8) */
#define QN_QUEUE_MAX 64     /* handed-off sockets waiting for the application's accept() */
#define QN_METHOD_TRIES 7   /* RESOLVE rounds per connect(): every method once, plus one */

/* Settings read once from the environment when the shim activates (qcgnet_state.c). */
struct qn_config {
	int loopback;              /* QCG_NET_LOOPBACK=1: 127.0.0.0/8 peers go through the helper */
	char address[INET_ADDRSTRLEN]; /* QCG_NET_ADDRESS: registered for listeners, or "" */
	uint16_t port_min, port_max;   /* QCG_NET_PORTS window, 0/0 when none */
	int connect_ms;            /* QCG_NET_CONNECT_TIMEOUT_MS: one direct/relay connect */
	int handoff_ms;            /* QCG_NET_HANDOFF_TIMEOUT_MS: wait for a reversal/traversal */
	int resolve_wait_ms;       /* QCG_NET_RESOLVE_WAIT_MS: retry a failing RESOLVE this long */
	int resume_timeout_ms;     /* QCG_NET_RESUME_TIMEOUT_MS: a resumable relay whose leg broke
	                            * fails when no new leg came within this (issue 14) */
	int resume_app_read;       /* QCG_NET_RESUME_APP_READ=0: the stream's I/O thread delivers
	                            * every byte through the socketpair (default 1: the
	                            * application's epoll-driven reads take them off the leg) */
	int resume_spin_us;        /* QCG_NET_RESUME_SPIN_US: the stream's I/O thread polls without
	                            * sleeping this long after activity (0, the default: never) */
	int debug;                 /* QCG_NET_DEBUG=1: say what happens on stderr */
	char process[QCG_PROCESS_MAX]; /* identity sent with REGISTER */
};

extern int qn_active;               /* 0: every wrapper calls the real function at once */
extern struct qn_config qn_cfg;

/* --- qcgnet_real.c ---------------------------------------------------------------------- */
struct epoll_event;
struct qn_real {
	int (*bind)(int, const struct sockaddr *, socklen_t);
	int (*listen)(int, int);
	int (*accept)(int, struct sockaddr *, socklen_t *);
	int (*accept4)(int, struct sockaddr *, socklen_t *, int);
	int (*connect)(int, const struct sockaddr *, socklen_t);
	int (*close)(int);
	int (*getpeername)(int, struct sockaddr *, socklen_t *);
	int (*setpgid)(pid_t, pid_t);
	ssize_t (*write)(int, const void *, size_t);       /* these five: qcgnet_resume_send.c */
	ssize_t (*writev)(int, const struct iovec *, int);
	ssize_t (*send)(int, const void *, size_t, int);
	ssize_t (*sendmsg)(int, const struct msghdr *, int);
	int (*shutdown)(int, int);
	ssize_t (*read)(int, void *, size_t);             /* these nine: qcgnet_resume_recv.c */
	ssize_t (*read_chk)(int, void *, size_t, size_t);
	ssize_t (*readv)(int, const struct iovec *, int);
	ssize_t (*recv)(int, void *, size_t, int);
	ssize_t (*recv_chk)(int, void *, size_t, size_t, int);
	ssize_t (*recvfrom)(int, void *, size_t, int, struct sockaddr *, socklen_t *);
	ssize_t (*recvmsg)(int, struct msghdr *, int);
	int (*epoll_ctl)(int, int, int, struct epoll_event *);
	int (*poll)(struct pollfd *, nfds_t, int);
	int (*setsockopt)(int, int, int, const void *, socklen_t);
};
extern struct qn_real qn_real;
/* Find the real functions; safe to call more than once, from any thread. */
void qn_real_init(void);
/* The real function f, found first if nothing has looked yet (setsockopt is stored last). */
#define QN_REAL(f)                                                                              \
	(__builtin_expect(__atomic_load_n(&qn_real.setsockopt, __ATOMIC_ACQUIRE) != NULL, 1) ?      \
		qn_real.f : (qn_real_init(), qn_real.f))

/* --- qcgnet_state.c --------------------------------------------------------------------- */
void qn_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));   /* always */
void qn_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2))); /* QCG_NET_DEBUG */
/* The process's control connection (REGISTER, RESOLVE, REPORT): lock, get (opened on first
 * use; NULL with err when the helper cannot be reached), drop after an I/O error, unlock. */
void qn_ctl_lock(void);
struct helper_client *qn_ctl_get(char *err, size_t errlen);
void qn_ctl_drop(void);
void qn_ctl_unlock(void);
/* Parse "MIN-MAX" (1..65535, MIN <= MAX). 0, or -1 with err. Pure, for the unit test. */
int qn_parse_ports(const char *text, uint16_t *min, uint16_t *max, char *err, size_t errlen);
long qn_now_us(void);

/* --- qcgnet_fdtab.c --------------------------------------------------------------------- */
struct qn_listener;
struct qn_opt {
	int level, name;
	socklen_t len;
	unsigned char value[QN_OPT_BYTES];
};

void qn_fdtab_init(void);
/* fork(): hold the table's lock across it (pthread_atfork prepare and parent handlers). */
void qn_fdtab_prepare_fork(void);
void qn_fdtab_parent_fork(void);
/* Whether optname at level is one the shim replays onto a replacement socket. */
int qn_fdtab_opt_wanted(int level, int name, socklen_t len);
void qn_fdtab_record_opt(int fd, int level, int name, const void *value, socklen_t len);
/* Copy fd's recorded options into out (QN_OPTS_MAX entries); returns how many. */
int qn_fdtab_opts(int fd, struct qn_opt *out);
void qn_fdtab_set_peer(int fd, const struct sockaddr_in *peer);
/* 1 and *out when fd has a substituted peer address, else 0. */
int qn_fdtab_peer(int fd, struct sockaddr_in *out);
void qn_fdtab_set_listener(int fd, struct qn_listener *l);
struct qn_listener *qn_fdtab_listener(int fd);
/* Forget fd (close() or a replacement): returns its listener, if any, for the caller to stop. */
struct qn_listener *qn_fdtab_forget(int fd);
/* After fork() in the child: the parent's listeners and their threads are not ours. */
void qn_fdtab_child_reset(void (*drop_listener)(struct qn_listener *));
/*
 * Make the application's descriptor fd the connected socket newfd: its file status flags
 * (O_NONBLOCK), close-on-exec flag and recorded options go onto newfd, which is then dup2'ed
 * onto fd and closed. peer (or NULL) becomes what getpeername(fd) says. 0 or -1 (errno).
 */
int qn_fdtab_install(int fd, int newfd, const struct sockaddr_in *peer);
/* Write sin into an application's (addr, len) pair the way the kernel does: truncating. */
void qn_copy_sockaddr(const struct sockaddr_in *sin, struct sockaddr *addr, socklen_t *len);

/* --- qcgnet_ports.c --------------------------------------------------------------------- */
int qn_port_in_window(uint16_t port);
/* bind() for an IPv4 stream socket of the job: a wildcard or explicit-port listener goes to
 * the first free port of the window. Returns what bind() returns. */
int qn_ports_bind(int fd, const struct sockaddr_in *want);
/* Before listen(): move a socket bound (or not bound) outside the window inside it. 0/-1. */
int qn_ports_before_listen(int fd);

/* --- qcgnet_listen.c -------------------------------------------------------------------- */
/* Take the next handed-off socket for a doorbell that came out of the listener: 1 with *fd and
 * *peer when from is one of l's doorbells (the doorbell is consumed), 0 when from is an
 * ordinary client. */
int qn_listener_claim(struct qn_listener *l, const struct sockaddr_in *from, int *fd,
    struct sockaddr_in *peer);
/* Stop the inbound thread and free l; queued sockets are closed. */
void qn_listener_stop(struct qn_listener *l);
/* In a forked child: free l without touching its thread (which the child does not have). */
void qn_listener_forget(struct qn_listener *l);

/* --- qcgnet_origin.c -------------------------------------------------------------------- */
/* Send the origin preamble (this socket's own address) on a just-connected fd: 0 or -1. */
int qn_origin_send(int fd);
/* Wait up to timeout_ms for a preamble at the head of fd's stream: 1 with *origin (the 16
 * bytes consumed), 0 when the stream starts otherwise or nothing came (nothing consumed), -1
 * when it could not be consumed. */
int qn_origin_take(int fd, int timeout_ms, struct sockaddr_in *origin);

/* --- qcgnet_method.c -------------------------------------------------------------------- */
/*
 * Carry out decision d for a connect() of app_fd towards to: returns a connected socket (app_fd
 * itself for direct and port range, a new descriptor otherwise) or -1 with err.
 */
int qn_method_run(struct helper_client *c, int app_fd, const struct decision *d,
    char *err, size_t errlen);
/* Connect fd to sin within timeout_ms whatever fd's blocking mode; 0 or -1 (errno). */
int qn_connect_timed(int fd, const struct sockaddr_in *sin, int timeout_ms);
int qn_sockaddr_of(const char *host, uint16_t port, struct sockaddr_in *out);

/* --- qcgnet_resume.c ------------------------------------------------------------------- */
/* A relay leg: connect to the proxy at endpoint ("host:port") within timeout_ms and send the
 * hello for relay_id; a leg for the resumable stream asks for the proxy's peer-gone mark
 * (relay_hello.h). The socket, or -1 with err. */
int qn_relay_leg(const char *endpoint, const uint8_t relay_id[QCG_RELAY_ID_BYTES], int resumable,
    int timeout_ms, char *err, size_t errlen);
/* Keep leg (a relay leg of a resumable relay, hello sent) in the resumable stream and return
 * the application's end of its socketpair, or -1 with err (leg closed). initiator: 1 on the
 * connecting side (its proxy is the first of a chain), 0 on the accepting side (the last). */
int qn_resume_wrap(int leg, const uint8_t relay_id[QCG_RELAY_ID_BYTES], int initiator, char *err,
    size_t errlen);

#endif

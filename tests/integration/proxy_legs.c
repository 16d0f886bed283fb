/*
 * proxy_legs.c: relay legs for the shell tests of qcg-proxy (test_proxy_soap.sh), one action
 * per run:
 *
 *   proxy_legs pair ID HOST:PORT HOST:PORT [BYTES]
 *       a first leg to the first endpoint and a second to the other (the same proxy, or the
 *       two ends of a chain), each sending the hello with ID, then BYTES random bytes (default
 *       1 MiB) each way at once; each side checks what it got and that a half-close comes
 *       through. Prints "ok BYTES bytes each way", exit 0; else the reason, exit 1.
 *   proxy_legs refused ID HOST:PORT
 *       one leg with ID: exit 0 when the proxy closes it within 2 s, 1 when it stays open.
 *   proxy_legs wait-stat CONTROL-SOCKET NAME MIN TIMEOUT-MS
 *       poll the proxy's control socket until counter NAME is at least MIN; prints it; exit
 *       0, or 1 at the timeout.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "test_proxy_util.h"

#define LEGS_BYTES_DEFAULT (1u << 20)
#define LEGS_BYTES_MAX (256u << 20)

/* One direction's sender, in its own thread so that both directions flow at once. */
struct sender {
	int fd;
	const uint8_t *buf;
	size_t len;
	int rc;
};

static void *
send_then_half_close(void *arg)
{
	struct sender *s = arg;

	s->rc = tp_write_all(s->fd, s->buf, s->len);
	shutdown(s->fd, SHUT_WR);
	return NULL;
}

static void
parse_endpoint(const char *text, struct tp_proxy *p)
{
	const char *colon = strrchr(text, ':');

	memset(p, 0, sizeof(*p));
	if (colon == NULL || (size_t)(colon - text) >= sizeof(p->host) || atoi(colon + 1) <= 0 ||
	    atoi(colon + 1) > 65535) {
		fprintf(stderr, "proxy_legs: '%s' is not HOST:PORT\n", text);
		exit(2);
	}
	memcpy(p->host, text, (size_t)(colon - text));
	p->port = (uint16_t)atoi(colon + 1);
}

static void
parse_id(const char *text, struct relay_id *id)
{
	if (relay_id_parse_hex(text, id) != 0) {
		fprintf(stderr, "proxy_legs: '%s' is not a relay id\n", text);
		exit(2);
	}
}

static uint8_t *
random_bytes(size_t len)
{
	uint8_t *b = malloc(len ? len : 1);

	for (size_t got = 0; b != NULL && got < len;) {
		ssize_t n = getrandom(b + got, len - got, 0);
		if (n <= 0) {
			perror("getrandom");
			exit(1);
		}
		got += (size_t)n;
	}
	return b;
}

/* Read len bytes, compare with want, then expect EOF (the peer's half-close). */
static int
receive_and_check(int fd, const uint8_t *want, size_t len, const char *who)
{
	uint8_t *got = malloc(len ? len : 1);
	int rc = 0;

	if (got == NULL || tp_read_all(fd, got, len) != 0) {
		fprintf(stderr, "%s: fewer than %zu bytes arrived\n", who, len);
		rc = -1;
	} else if (memcmp(got, want, len) != 0) {
		fprintf(stderr, "%s: the bytes differ from those sent\n", who);
		rc = -1;
	} else if (tp_wait_closed(fd, TP_STATE_WAIT_MS, NULL) < 0) {
		fprintf(stderr, "%s: the half-close did not come through\n", who);
		rc = -1;
	}
	free(got);
	return rc;
}

static int
cmd_pair(int argc, char **argv)
{
	struct tp_proxy first, second;
	struct relay_id id;
	size_t len = argc > 5 ? strtoul(argv[5], NULL, 10) : LEGS_BYTES_DEFAULT;

	if (len > LEGS_BYTES_MAX) {
		fprintf(stderr, "proxy_legs: at most %u bytes\n", LEGS_BYTES_MAX);
		return 2;
	}
	parse_id(argv[2], &id);
	parse_endpoint(argv[3], &first);
	parse_endpoint(argv[4], &second);
	uint8_t *a = random_bytes(len), *b = random_bytes(len);
	int fa = tp_leg(&first, &id), fb = tp_leg(&second, &id);
	struct sender sa = { fa, a, len, 0 }, sb = { fb, b, len, 0 };
	pthread_t ta, tb;

	pthread_create(&ta, NULL, send_then_half_close, &sa);
	pthread_create(&tb, NULL, send_then_half_close, &sb);
	int rc = receive_and_check(fb, a, len, "second leg") | receive_and_check(fa, b, len,
	    "first leg");
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	if (sa.rc != 0 || sb.rc != 0) {
		fprintf(stderr, "a leg could not send its bytes\n");
		rc = -1;
	}
	if (rc == 0)
		printf("ok %zu bytes each way\n", len);
	close(fa);
	close(fb);
	free(a);
	free(b);
	return rc == 0 ? 0 : 1;
}

static int
cmd_refused(char **argv)
{
	struct tp_proxy p;
	struct relay_id id;

	parse_id(argv[2], &id);
	parse_endpoint(argv[3], &p);
	int fd = tp_leg(&p, &id);
	long ms = tp_wait_closed(fd, 2000, NULL);
	close(fd);
	if (ms < 0) {
		printf("still open after 2 s\n");
		return 1;
	}
	printf("closed after %ld ms\n", ms);
	return 0;
}

static int
cmd_wait_stat(char **argv)
{
	struct tp_proxy p;
	long long min = atoll(argv[4]), deadline = tp_now_ms() + atoll(argv[5]), v;

	memset(&p, 0, sizeof(p));
	snprintf(p.control, sizeof(p.control), "%s", argv[2]);
	while ((v = tp_stat(&p, argv[3])) < min && tp_now_ms() < deadline)
		usleep(10000);
	printf("%s=%lld\n", argv[3], v);
	return v >= min ? 0 : 1;
}

int
main(int argc, char **argv)
{
	if (argc >= 5 && strcmp(argv[1], "pair") == 0)
		return cmd_pair(argc, argv);
	if (argc == 4 && strcmp(argv[1], "refused") == 0)
		return cmd_refused(argv);
	if (argc == 6 && strcmp(argv[1], "wait-stat") == 0)
		return cmd_wait_stat(argv);
	fprintf(stderr, "usage: proxy_legs pair ID HOST:PORT HOST:PORT [BYTES] | refused ID "
	    "HOST:PORT | wait-stat CONTROL NAME MIN TIMEOUT-MS\n");
	return 2;
}

/*
 * test_proxy_bulk.c: 100 MiB of random bytes each way, at the same time, through qcg-proxy,
 * arrive identical; and a half-close goes through while the other direction keeps flowing.
 *
 * Each direction's bytes come from a random seed; the receiver regenerates the same stream,
 * compares every byte, and both ends keep a checksum (FNV-1a over 64-bit words) to report.
 */
#include "config.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "test_proxy_util.h"

#define BULK_BYTES (100ull * 1024 * 1024) /* a whole number of chunks */
#define BULK_CHUNK (256 * 1024)

struct stream {
	int fd;
	uint64_t seed;      /* the sender's and the receiver's generator start from it */
	uint64_t bytes;     /* sent, or received */
	uint64_t checksum;
	uint64_t first_mismatch; /* receiver: offset of the first wrong byte, or UINT64_MAX */
	int failed;         /* an I/O error */
};

/* xorshift64*: fast, and what matters is only that both ends produce the same bytes. */
static void
fill_random(uint64_t *state, uint8_t *buf, size_t len)
{
	for (size_t i = 0; i < len; i += 8) {
		*state ^= *state >> 12;
		*state ^= *state << 25;
		*state ^= *state >> 27;
		uint64_t v = *state * 0x2545f4914f6cdd1dull;
		memcpy(buf + i, &v, 8);
	}
}

static uint64_t
checksum_update(uint64_t h, const uint8_t *buf, size_t len)
{
	for (size_t i = 0; i + 8 <= len; i += 8) {
		uint64_t w;
		memcpy(&w, buf + i, 8);
		h = (h ^ w) * 0x100000001b3ull;
	}
	return h;
}

static void *
sender(void *arg)
{
	struct stream *s = arg;
	uint8_t *buf = malloc(BULK_CHUNK);
	uint64_t state = s->seed;

	s->checksum = 0xcbf29ce484222325ull;
	while (buf != NULL && s->bytes < BULK_BYTES) {
		fill_random(&state, buf, BULK_CHUNK);
		s->checksum = checksum_update(s->checksum, buf, BULK_CHUNK);
		if (tp_write_all(s->fd, buf, BULK_CHUNK) < 0) {
			s->failed = 1;
			break;
		}
		s->bytes += BULK_CHUNK;
	}
	shutdown(s->fd, SHUT_WR);
	free(buf);
	return NULL;
}

/* Read up to EOF, comparing with the regenerated stream chunk by chunk. */
static void *
receiver(void *arg)
{
	struct stream *s = arg;
	uint8_t *got = malloc(BULK_CHUNK), *want = malloc(BULK_CHUNK);
	uint64_t state = s->seed;

	s->checksum = 0xcbf29ce484222325ull;
	s->first_mismatch = UINT64_MAX;
	for (;;) {
		ssize_t n = 0;
		size_t have = 0;
		while (have < BULK_CHUNK && (n = read(s->fd, got + have, BULK_CHUNK - have)) > 0)
			have += (size_t)n;
		if (n < 0)
			s->failed = 1;
		if (have == 0)
			break;
		fill_random(&state, want, BULK_CHUNK);
		if (s->first_mismatch == UINT64_MAX && memcmp(got, want, have) != 0)
			for (size_t i = 0; i < have; i++)
				if (got[i] != want[i]) {
					s->first_mismatch = s->bytes + i;
					break;
				}
		s->checksum = checksum_update(s->checksum, got, have);
		s->bytes += have;
		if (have < BULK_CHUNK)
			break;
	}
	free(got);
	free(want);
	return NULL;
}

static void
random_100mb_each_way_at_once_arrive_identical(void)
{
	static const char *const args[] = { NULL };
	struct tp_proxy p;
	struct relay_id id;
	struct stream out[2], in[2];
	pthread_t th[4];

	tp_proxy_start(&p, args);
	tp_random_id(&id);
	tp_expect(&p, &id, 60);
	int leg[2] = { tp_leg(&p, &id), tp_leg(&p, &id) };
	memset(out, 0, sizeof(out));
	memset(in, 0, sizeof(in));
	for (int i = 0; i < 2; i++) {
		CHECK(getrandom(&out[i].seed, sizeof(out[i].seed), 0) == sizeof(out[i].seed));
		out[i].seed |= 1; /* xorshift needs a non-zero state */
		out[i].fd = leg[i];
		in[1 - i].fd = leg[1 - i];
		in[1 - i].seed = out[i].seed; /* leg 1 receives what leg 0 sends, and back */
	}
	long long start = tp_now_ms();
	for (int i = 0; i < 2; i++) {
		pthread_create(&th[i], NULL, sender, &out[i]);
		pthread_create(&th[2 + i], NULL, receiver, &in[i]);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	long long ms = tp_now_ms() - start;
	for (int i = 0; i < 2; i++) {
		printf("leg %d -> leg %d: sent %llu bytes (checksum %016llx), received %llu "
		    "(checksum %016llx)\n", i, 1 - i, (unsigned long long)out[i].bytes,
		    (unsigned long long)out[i].checksum, (unsigned long long)in[1 - i].bytes,
		    (unsigned long long)in[1 - i].checksum);
		CHECK(!out[i].failed && !in[1 - i].failed);
		CHECK_INT_EQ(in[1 - i].bytes, BULK_BYTES);
		CHECK(in[1 - i].first_mismatch == UINT64_MAX);
		CHECK(in[1 - i].checksum == out[i].checksum);
	}
	printf("2 x 100 MiB relayed in %lld ms\n", ms);
	close(leg[0]);
	close(leg[1]);
	CHECK_INT_EQ(tp_wait_stat(&p, "relays_completed", 1, TP_STATE_WAIT_MS), 1);
	CHECK_INT_EQ(tp_stat(&p, "bytes_first_to_second"), BULK_BYTES);
	CHECK_INT_EQ(tp_stat(&p, "bytes_second_to_first"), BULK_BYTES);
	CHECK_INT_EQ(tp_wait_stat(&p, "legs_open", 0, TP_STATE_WAIT_MS), 0);
	CHECK_INT_EQ(tp_proxy_stop(&p, false), 0);
}

static void
half_close_goes_through_and_the_other_way_keeps_flowing(void)
{
	struct tp_proxy p;
	struct relay_id id;
	char buf[64];

	tp_proxy_start(&p, NULL);
	tp_random_id(&id);
	tp_expect(&p, &id, 60);
	int a = tp_leg(&p, &id), b = tp_leg(&p, &id);

	CHECK(tp_write_all(a, "request", 7) == 0);
	CHECK(shutdown(a, SHUT_WR) == 0); /* a is done writing, still reading */
	CHECK(tp_read_all(b, buf, 7) == 0 && memcmp(buf, "request", 7) == 0);
	CHECK_INT_EQ(read(b, buf, sizeof(buf)), 0); /* the FIN arrived as EOF, nothing more */

	/* After a's half-close, b still sends and a still receives, in several pieces. */
	for (int i = 0; i < 3; i++) {
		CHECK(tp_write_all(b, "reply", 5) == 0);
		CHECK(tp_read_all(a, buf, 5) == 0 && memcmp(buf, "reply", 5) == 0);
	}
	CHECK_INT_EQ(tp_stat(&p, "relays_active"), 1); /* one way closed is not the end */
	CHECK(shutdown(b, SHUT_WR) == 0);
	CHECK_INT_EQ(read(a, buf, sizeof(buf)), 0); /* EOF propagated back */
	CHECK_INT_EQ(tp_wait_stat(&p, "relays_completed", 1, TP_STATE_WAIT_MS), 1);
	CHECK_INT_EQ(tp_stat(&p, "relays_aborted"), 0);
	/* With both ways closed the proxy closes both legs: each end sees its socket end. */
	CHECK(tp_wait_closed(a, TP_STATE_WAIT_MS, NULL) >= 0);
	CHECK(tp_wait_closed(b, TP_STATE_WAIT_MS, NULL) >= 0);
	close(a);
	close(b);
	CHECK_INT_EQ(tp_proxy_stop(&p, false), 0);
}

static void
bytes_sent_before_the_partner_arrives_are_delivered(void)
{
	struct tp_proxy p;
	struct relay_id id;
	uint8_t early[RELAY_HELLO_SIZE + 5];
	char buf[16];

	tp_proxy_start(&p, NULL);
	tp_random_id(&id);
	tp_expect(&p, &id, 60);
	/* The hello and the first payload in one segment, then a half-close, all before the
	 * partner exists: the proxy must read only the hello and keep the rest for the partner. */
	relay_hello_encode(early, &id, 0);
	memcpy(early + RELAY_HELLO_SIZE, "early", 5);
	int a = tp_connect(p.host, p.port);
	CHECK(a >= 0 && tp_write_all(a, early, sizeof(early)) == 0 && shutdown(a, SHUT_WR) == 0);
	CHECK_INT_EQ(tp_wait_stat(&p, "legs_waiting", 1, TP_STATE_WAIT_MS), 1);
	int b = tp_leg(&p, &id);
	CHECK(tp_read_all(b, buf, 5) == 0 && memcmp(buf, "early", 5) == 0);
	CHECK_INT_EQ(read(b, buf, sizeof(buf)), 0);
	CHECK(tp_write_all(b, "late", 4) == 0 && shutdown(b, SHUT_WR) == 0);
	CHECK(tp_read_all(a, buf, 4) == 0 && memcmp(buf, "late", 4) == 0);
	CHECK_INT_EQ(read(a, buf, sizeof(buf)), 0);
	CHECK_INT_EQ(tp_wait_stat(&p, "relays_completed", 1, TP_STATE_WAIT_MS), 1);
	close(a);
	close(b);
	CHECK_INT_EQ(tp_proxy_stop(&p, false), 0);
}

int
main(void)
{
	alarm(120); /* watchdog: a hung case fails the test; the proxies die with it */
	RUN(half_close_goes_through_and_the_other_way_keeps_flowing);
	RUN(bytes_sent_before_the_partner_arrives_are_delivered);
	RUN(random_100mb_each_way_at_once_arrive_identical);
	return check_exit();
}

/*
 * dl_sched.c: the timing model of one direction of an emulated WAN link (see dl_sched.h).
 */
#include "config.h"

#include "dl_sched.h"

void
dl_sched_init(struct dl_sched *s, uint64_t delay_ns, uint64_t rate_bps, uint64_t queue_limit)
{
	s->delay_ns = delay_ns;
	s->rate_bps = rate_bps;
	s->queue_limit = queue_limit;
	s->tx_free_ns = 0;
	s->last_due_ns = 0;
}

uint64_t
dl_sched_backlog(const struct dl_sched *s, uint64_t now_ns)
{
	if (s->rate_bps == 0 || s->tx_free_ns <= now_ns)
		return 0;
	/*
	 * The backlog never exceeds queue_limit + one frame, so the time to drain it is below
	 * (256 MiB + 64 KiB) * 8 / rate seconds, and time * rate stays below 2^64 / 2: no overflow.
	 */
	return (s->tx_free_ns - now_ns) * s->rate_bps / (8 * DL_NSEC_PER_SEC);
}

int
dl_sched_admit(struct dl_sched *s, uint64_t now_ns, uint32_t len, uint64_t *due_ns)
{
	uint64_t due;

	if (s->rate_bps == 0) {
		due = now_ns + s->delay_ns;
	} else {
		uint64_t start = s->tx_free_ns > now_ns ? s->tx_free_ns : now_ns;

		/* An idle transmitter takes any frame, whatever the limit: idle links never drop. */
		if (start > now_ns && dl_sched_backlog(s, now_ns) + len > s->queue_limit)
			return -1;
		/* len < 2^32 and 8e9 < 2^33: the product fits in 64 bits. */
		s->tx_free_ns = start + (uint64_t)len * 8 * DL_NSEC_PER_SEC / s->rate_bps;
		due = s->tx_free_ns + s->delay_ns;
	}
	/* The clock is monotonic, so this only guards against a caller passing an older `now`. */
	if (due < s->last_due_ns)
		due = s->last_due_ns;
	s->last_due_ns = due;
	*due_ns = due;
	return 0;
}

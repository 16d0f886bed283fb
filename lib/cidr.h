/*
 * cidr.h: network blocks written as ADDRESS/PREFIX ("10.1.0.0/24", "fd00::/8"), and
 * comma-separated lists of them, with one set of rules for every part of the grid: the broker
 * (which proxies serve which networks), the proxy and the front-end (their configurations).
 *
 * Strict, so that what one part accepts the others accept too: an IPv4 or IPv6 literal, '/',
 * a decimal prefix (no sign, no leading zero) within the family's width, no host bits set
 * ("10.0.0.1/8" is refused: it names an address, not a network), no white space anywhere, no
 * empty list entries. libc only.
 */
#ifndef QCG_CIDR_H
#define QCG_CIDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One entry's text at most: an IPv6 address (45), '/', three digits. */
#define CIDR_TEXT_MAX 49

struct cidr {
	int family;       /* AF_INET or AF_INET6 */
	uint8_t addr[16]; /* the network, in network byte order (4 bytes used for IPv4) */
	unsigned prefix;  /* 0-32 or 0-128 */
};

/* What a list holds, for those that care beyond "it parses". */
struct cidr_list_info {
	size_t count;  /* entries */
	bool ipv4_any; /* one entry is 0.0.0.0/0: the WAN, in the grid's terms */
};

/*
 * Parse one entry of len bytes (need not be NUL-terminated). 0 with *out filled; -1 with why
 * holding the reason, which quotes the entry (e.g. "host bits set in 10.0.0.1/8 (the network
 * is 10.0.0.0/8)", "prefix 33 out of range in 10.0.0.0/33 (0-32 for IPv4)").
 */
int cidr_parse(const char *s, size_t len, struct cidr *out, char *why, size_t whylen);

/*
 * Parse a comma-separated list such as "10.1.0.0/24,0.0.0.0/0". 0 with *info filled (info may
 * be NULL); -1 with why holding the reason for the first bad entry, or "the list is empty".
 */
int cidr_list_parse(const char *list, struct cidr_list_info *info, char *why, size_t whylen);

/* Whether address (an IPv4 or IPv6 literal) lies in one of list's networks. A list or an
 * address that does not parse, or an empty list, contains nothing. */
bool cidr_list_contains(const char *list, const char *address);

#endif

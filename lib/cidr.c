/*
 * cidr.c: ADDRESS/PREFIX blocks and lists of them (cidr.h).
 */
#include "config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "cidr.h"

/* How much of a bad entry a reason quotes: enough to find it, never a whole line of junk. */
#define CIDR_QUOTE_MAX 64

/* Parse a decimal prefix of len bytes: digits only, no leading zero. -1 when it is not one. */
static int
prefix_digits(const char *s, size_t len, unsigned *out)
{
	unsigned v = 0;

	if (len == 0 || len > 3 || (len > 1 && s[0] == '0'))
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	*out = v;
	return 0;
}

/* Clear every bit of addr (bytes long) after the first prefix bits; true when one was set. */
static bool
clear_host_bits(uint8_t *addr, size_t bytes, unsigned prefix)
{
	bool any = false;

	for (size_t i = 0; i < bytes; i++) {
		unsigned first = (unsigned)i * 8; /* index of this byte's first bit */
		uint8_t mask;
		if (first + 8 <= prefix)
			continue;
		mask = first >= prefix ? 0xff : (uint8_t)(0xff >> (prefix - first));
		any = any || (addr[i] & mask) != 0;
		addr[i] &= (uint8_t)~mask;
	}
	return any;
}

int
cidr_parse(const char *s, size_t len, struct cidr *out, char *why, size_t whylen)
{
	char text[CIDR_TEXT_MAX + 1], network[INET6_ADDRSTRLEN];
	int quoted = len > CIDR_QUOTE_MAX ? CIDR_QUOTE_MAX : (int)len;
	const char *slash;
	size_t addr_len;

	if (len == 0) {
		snprintf(why, whylen, "empty entry (write ADDRESS/PREFIX)");
		return -1;
	}
	for (size_t i = 0; i < len; i++)
		if (isspace((unsigned char)s[i]) || s[i] == '\0') {
			snprintf(why, whylen, "'%.*s': white space or NUL inside", quoted, s);
			return -1;
		}
	if (len > CIDR_TEXT_MAX) {
		snprintf(why, whylen, "'%.*s...' is longer than %d bytes", quoted, s, CIDR_TEXT_MAX);
		return -1;
	}
	slash = memchr(s, '/', len);
	if (slash == NULL) {
		snprintf(why, whylen, "'%.*s' has no /PREFIX (write ADDRESS/PREFIX)", quoted, s);
		return -1;
	}
	addr_len = (size_t)(slash - s);
	memcpy(text, s, addr_len);
	text[addr_len] = '\0';
	out->family = memchr(text, ':', addr_len) ? AF_INET6 : AF_INET;
	memset(out->addr, 0, sizeof(out->addr));
	if (inet_pton(out->family, text, out->addr) != 1) {
		snprintf(why, whylen, "'%s' in %.*s is not an IPv4 or IPv6 address", text, quoted, s);
		return -1;
	}
	unsigned width = out->family == AF_INET ? 32 : 128;
	if (prefix_digits(slash + 1, len - addr_len - 1, &out->prefix) != 0) {
		snprintf(why, whylen, "prefix '%.*s' in %.*s is not a decimal number without leading "
		    "zeros", (int)(len - addr_len - 1), slash + 1, quoted, s);
		return -1;
	}
	if (out->prefix > width) {
		snprintf(why, whylen, "prefix %u out of range in %.*s (0-%u for %s)", out->prefix,
		    quoted, s, width, out->family == AF_INET ? "IPv4" : "IPv6");
		return -1;
	}
	if (clear_host_bits(out->addr, width / 8, out->prefix)) {
		inet_ntop(out->family, out->addr, network, sizeof(network));
		snprintf(why, whylen, "host bits set in %.*s (the network is %s/%u)", quoted, s,
		    network, out->prefix);
		return -1;
	}
	return 0;
}

int
cidr_list_parse(const char *list, struct cidr_list_info *info, char *why, size_t whylen)
{
	struct cidr_list_info seen = { 0 };
	const char *s = list;

	if (list[0] == '\0') {
		snprintf(why, whylen, "the list is empty (comma-separated ADDRESS/PREFIX)");
		return -1;
	}
	for (;;) {
		const char *comma = strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);
		struct cidr c;
		if (cidr_parse(s, len, &c, why, whylen) != 0)
			return -1;
		seen.count++;
		seen.ipv4_any = seen.ipv4_any || (c.family == AF_INET && c.prefix == 0);
		if (comma == NULL)
			break;
		s = comma + 1;
	}
	if (info != NULL)
		*info = seen;
	return 0;
}

/* Whether the first prefix bits of a and b agree. */
static bool
prefix_matches(const uint8_t *a, const uint8_t *b, unsigned prefix)
{
	unsigned whole = prefix / 8, rest = prefix % 8;
	if (memcmp(a, b, whole) != 0)
		return false;
	if (rest == 0)
		return true;
	uint8_t mask = (uint8_t)(0xff << (8 - rest));
	return (a[whole] & mask) == (b[whole] & mask);
}

bool
cidr_list_contains(const char *list, const char *address)
{
	uint8_t addr[16];
	int family = strchr(address, ':') ? AF_INET6 : AF_INET;
	char why[128];

	if (list[0] == '\0' || inet_pton(family, address, addr) != 1)
		return false;
	for (const char *s = list;;) {
		const char *comma = strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);
		struct cidr c;
		if (cidr_parse(s, len, &c, why, sizeof(why)) != 0)
			return false; /* a list that does not parse holds nothing */
		if (c.family == family && prefix_matches(c.addr, addr, c.prefix))
			return true;
		if (comma == NULL)
			return false;
		s = comma + 1;
	}
}

/*
 * net_text.c: syntax checks of addresses, endpoints and URLs (net_text.h).
 */
#include "config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <string.h>

#include "net_text.h"

#define HOST_MAX 253

bool
net_text_is_ip(const char *s)
{
	unsigned char addr[16];
	return inet_pton(AF_INET, s, addr) == 1 || inet_pton(AF_INET6, s, addr) == 1;
}

/* A DNS name of len bytes at s (not terminated). */
static bool
dns_name_valid(const char *s, size_t len)
{
	size_t label = 0;
	if (len == 0 || len > HOST_MAX)
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '.') {
			if (label == 0 || s[i - 1] == '-')
				return false;
			label = 0;
		} else if (isalnum(c) || (c == '-' && label > 0)) {
			if (++label > 63)
				return false;
		} else {
			return false;
		}
	}
	return label > 0 && s[len - 1] != '-';
}

/* host (len bytes at s) is an IP literal or a DNS name; bracketed: an IPv6 literal. */
static bool
host_valid(const char *s, size_t len, bool bracketed)
{
	char text[HOST_MAX + 1];
	unsigned char addr[16];
	if (len == 0 || len > HOST_MAX)
		return false;
	memcpy(text, s, len);
	text[len] = '\0';
	if (bracketed)
		return inet_pton(AF_INET6, text, addr) == 1;
	return inet_pton(AF_INET, text, addr) == 1 || dns_name_valid(text, len);
}

bool
net_text_is_host(const char *s)
{
	return net_text_is_ip(s) || dns_name_valid(s, strlen(s));
}

/* Parse "host:port" at s up to end (exclusive); true when both are valid. */
static bool
host_port_valid(const char *s, const char *end)
{
	const char *colon;
	bool bracketed = s < end && s[0] == '[';
	if (bracketed) {
		const char *close = memchr(s, ']', (size_t)(end - s));
		if (close == NULL || close + 1 >= end || close[1] != ':')
			return false;
		if (!host_valid(s + 1, (size_t)(close - s - 1), true))
			return false;
		colon = close + 1;
	} else {
		colon = memchr(s, ':', (size_t)(end - s));
		if (colon == NULL || memchr(colon + 1, ':', (size_t)(end - colon - 1)) != NULL ||
		    !host_valid(s, (size_t)(colon - s), false))
			return false;
	}
	long port = 0;
	const char *p = colon + 1;
	if (p == end || end - p > 5)
		return false;
	for (; p < end; p++) {
		if (*p < '0' || *p > '9')
			return false;
		port = port * 10 + (*p - '0');
	}
	return port >= 1 && port <= 65535;
}

bool
net_text_is_host_port(const char *s)
{
	return host_port_valid(s, s + strlen(s));
}

bool
net_text_is_https_url(const char *s)
{
	if (strncmp(s, "https://", 8) != 0)
		return false;
	const char *authority = s + 8, *slash = strchr(authority, '/');
	const char *end = slash ? slash : authority + strlen(authority);
	size_t len = (size_t)(end - authority);
	const char *v6_end = authority[0] == '[' ? memchr(authority, ']', len) : NULL;
	bool has_port = v6_end ? v6_end + 1 < end : memchr(authority, ':', len) != NULL;
	bool valid;
	if (has_port)
		valid = host_port_valid(authority, end);
	else if (v6_end)
		valid = v6_end + 1 == end &&
		    host_valid(authority + 1, (size_t)(v6_end - authority - 1), true);
	else
		valid = host_valid(authority, len, false);
	if (!valid)
		return false;
	for (const char *p = end; *p; p++)
		if (!isgraph((unsigned char)*p))
			return false;
	return true;
}

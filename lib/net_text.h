/*
 * net_text.h: whether a string is a network address, host:port or https URL, as the services
 * store and hand out (a registry that stores garbage addresses hands them to every process
 * that connects). Syntax only: nothing is resolved.
 */
#ifndef QCG_NET_TEXT_H
#define QCG_NET_TEXT_H

#include <stdbool.h>

/* An IPv4 or IPv6 literal (no brackets, no zone). */
bool net_text_is_ip(const char *s);

/* An IP literal or a DNS host name (RFC 1123: labels of letters, digits and '-', not at a
 * label's ends, at most 63 bytes each and 253 in all). */
bool net_text_is_host(const char *s);

/* host:port or [IPv6]:port, port 1-65535 in decimal. */
bool net_text_is_host_port(const char *s);

/* https://host[:port][/path], the path of printable characters without spaces. */
bool net_text_is_https_url(const char *s);

#endif

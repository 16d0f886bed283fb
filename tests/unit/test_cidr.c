/*
 * test_cidr.c: lib/cidr, the one ADDRESS/PREFIX parser of the broker, the proxy and the
 * front-end: what it accepts, and the reason it gives for each thing it refuses.
 */
#include "config.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "check.h"
#include "cidr.h"

/* One entry that must be refused with `reason` inside the message. */
static void
expect_refused(const char *entry, const char *reason)
{
	struct cidr c;
	char why[256] = "";

	CHECK_INT_EQ(cidr_parse(entry, strlen(entry), &c, why, sizeof(why)), -1);
	if (strstr(why, reason) == NULL)
		fprintf(stderr, "  '%s': got '%s', want '%s'\n", entry, why, reason);
	CHECK(strstr(why, reason) != NULL);
}

static void
ipv4_and_ipv6_networks_parse(void)
{
	struct cidr c;
	char why[256] = "";
	const uint8_t ten[4] = { 10, 1, 0, 0 };

	CHECK_INT_EQ(cidr_parse("10.1.0.0/24", 11, &c, why, sizeof(why)), 0);
	CHECK_INT_EQ(c.family, AF_INET);
	CHECK_INT_EQ(c.prefix, 24);
	CHECK(memcmp(c.addr, ten, 4) == 0);
	CHECK_INT_EQ(cidr_parse("fd00::/8", 8, &c, why, sizeof(why)), 0);
	CHECK_INT_EQ(c.family, AF_INET6);
	CHECK_INT_EQ(c.prefix, 8);
	CHECK_INT_EQ(cidr_parse("0.0.0.0/0", 9, &c, why, sizeof(why)), 0);
	CHECK_INT_EQ(cidr_parse("10.1.2.3/32", 11, &c, why, sizeof(why)), 0);
	CHECK_INT_EQ(cidr_parse("::1/128", 7, &c, why, sizeof(why)), 0);
	/* The length bounds the entry: what follows is not looked at. */
	CHECK_INT_EQ(cidr_parse("10.0.0.0/8,junk", 10, &c, why, sizeof(why)), 0);
}

static void
each_refusal_says_why(void)
{
	expect_refused("10.0.0.1/8", "host bits set in 10.0.0.1/8 (the network is 10.0.0.0/8)");
	expect_refused("fd00::1/64", "host bits set in fd00::1/64 (the network is fd00::/64)");
	expect_refused("10.0.0.0/33", "prefix 33 out of range in 10.0.0.0/33 (0-32 for IPv4)");
	expect_refused("fd00::/129", "prefix 129 out of range in fd00::/129 (0-128 for IPv6)");
	expect_refused("10.0.0.300/24", "'10.0.0.300' in 10.0.0.300/24 is not an IPv4 or IPv6");
	expect_refused("host.example/24", "is not an IPv4 or IPv6 address");
	expect_refused("10.0.0.0", "'10.0.0.0' has no /PREFIX");
	expect_refused("10.0.0.0/", "prefix '' in 10.0.0.0/ is not a decimal number");
	expect_refused("10.0.0.0/08", "prefix '08' in 10.0.0.0/08 is not a decimal number");
	expect_refused("10.0.0.0/+8", "is not a decimal number");
	expect_refused("10.0.0.0/8/8", "is not a decimal number");
	expect_refused("10.0.0.0/ 8", "'10.0.0.0/ 8': white space or NUL inside");
	expect_refused(" 10.0.0.0/8", "white space");
	expect_refused("10.0.0.0/8\t", "white space");
	expect_refused("", "empty entry");
	expect_refused("00000000001111111111222222222233333333334444444444/8",
	    "longer than 49 bytes");
}

static void
lists_are_strict_and_report_the_wan(void)
{
	struct cidr_list_info info;
	char why[256] = "";

	CHECK_INT_EQ(cidr_list_parse("10.3.0.0/24,0.0.0.0/0", &info, why, sizeof(why)), 0);
	CHECK_INT_EQ(info.count, 2);
	CHECK(info.ipv4_any);
	CHECK_INT_EQ(cidr_list_parse("10.3.0.0/24,fd00::/8", &info, why, sizeof(why)), 0);
	CHECK_INT_EQ(info.count, 2);
	CHECK(!info.ipv4_any);
	CHECK_INT_EQ(cidr_list_parse("::/0", &info, why, sizeof(why)), 0);
	CHECK(!info.ipv4_any); /* the WAN, in the grid's terms, is IPv4's 0.0.0.0/0 */
	CHECK_INT_EQ(cidr_list_parse("10.3.0.0/24", NULL, why, sizeof(why)), 0);

	CHECK_INT_EQ(cidr_list_parse("", &info, why, sizeof(why)), -1);
	CHECK(strstr(why, "the list is empty") != NULL);
	CHECK_INT_EQ(cidr_list_parse("10.3.0.0/24,,0.0.0.0/0", &info, why, sizeof(why)), -1);
	CHECK(strstr(why, "empty entry") != NULL);
	CHECK_INT_EQ(cidr_list_parse("10.3.0.0/24,", &info, why, sizeof(why)), -1);
	CHECK(strstr(why, "empty entry") != NULL);
	CHECK_INT_EQ(cidr_list_parse("10.3.0.0/24, 0.0.0.0/0", &info, why, sizeof(why)), -1);
	CHECK(strstr(why, "' 0.0.0.0/0': white space") != NULL);
	/* The first bad entry is the one named. */
	CHECK_INT_EQ(cidr_list_parse("10.3.0.0/24,10.4.0.1/16,x", &info, why, sizeof(why)), -1);
	CHECK(strstr(why, "host bits set in 10.4.0.1/16") != NULL);
}

static void
a_long_entry_is_quoted_shortened(void)
{
	char entry[400], why[512] = "";
	struct cidr c;

	memset(entry, '1', sizeof(entry) - 1);
	entry[sizeof(entry) - 1] = '\0';
	CHECK_INT_EQ(cidr_parse(entry, strlen(entry), &c, why, sizeof(why)), -1);
	CHECK(strlen(why) < 120);
}

static void
list_contains_addresses_inside_its_networks_only(void)
{
	CHECK(cidr_list_contains("10.1.0.0/24,127.0.0.2/32", "10.1.0.77"));
	CHECK(cidr_list_contains("10.1.0.0/24,127.0.0.2/32", "127.0.0.2"));
	CHECK(!cidr_list_contains("10.1.0.0/24,127.0.0.2/32", "127.0.0.3"));
	CHECK(!cidr_list_contains("10.1.0.0/24", "10.1.1.1"));
	CHECK(cidr_list_contains("10.1.0.0/23", "10.1.1.1"));     /* a prefix inside a byte */
	CHECK(!cidr_list_contains("10.1.0.0/23", "10.1.2.1"));
	CHECK(cidr_list_contains("0.0.0.0/0", "192.0.2.1"));
	CHECK(cidr_list_contains("fd00::/8", "fd12::1"));
	CHECK(!cidr_list_contains("fd00::/8", "10.1.0.1"));        /* families never mix */
	CHECK(!cidr_list_contains("0.0.0.0/0", "fd12::1"));
	CHECK(!cidr_list_contains("", "10.1.0.1"));
	CHECK(!cidr_list_contains("10.1.0.0/24", "10.1.0.300"));   /* not an address */
	CHECK(!cidr_list_contains("10.1.0.1/24", "10.1.0.1"));     /* a list that does not parse */
}

int
main(void)
{
	RUN(ipv4_and_ipv6_networks_parse);
	RUN(each_refusal_says_why);
	RUN(lists_are_strict_and_report_the_wan);
	RUN(a_long_entry_is_quoted_shortened);
	RUN(list_contains_addresses_inside_its_networks_only);
	return check_exit();
}

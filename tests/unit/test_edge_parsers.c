/*
 * test_edge_parsers.c: the plain parsers in front of the SOAP servers (issue 17): the XML
 * shape bounds (lib/xml_bounds.c), the HTTP request completeness check (lib/http_head.c) and
 * the address, endpoint and URL syntax the registry accepts (lib/net_text.c).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "http_head.h"
#include "net_text.h"
#include "xml_bounds.h"

static const struct xml_bounds_limits limits = {
	.elements = 100, .attributes = 50, .element_attributes = 8, .namespaces = 4,
	.attribute_names = 20,
};

#define HEAD "POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\n"

/* Feed text to a fresh scanner in pieces of step bytes; the bound it hit, or NULL. */
static const char *
scan(const char *text, size_t step)
{
	static struct xml_bounds b;
	xml_bounds_init(&b, &limits);
	size_t len = strlen(text);
	for (size_t i = 0; i < len; i += step)
		if (xml_bounds_feed(&b, text + i, len - i < step ? len - i : step) != 0)
			return b.exceeded;
	return NULL;
}

/* A message whose root element has n attributes named a0.. (distinct) or all "xsi:type"-like
 * repeats on n sibling elements. */
static char *
message_with_attributes(int n, int distinct, int per_element)
{
	char *s = malloc((size_t)n * 32 + 256), *p = s;
	p += sprintf(p, HEAD "<?xml version=\"1.0\"?><r>");
	for (int i = 0; i < n; i += per_element) {
		p += sprintf(p, "<e");
		for (int j = i; j < i + per_element && j < n; j++)
			p += sprintf(p, " a%d='1'", distinct ? j : j - i);
		p += sprintf(p, "/>");
	}
	sprintf(p, "</r>");
	return s;
}

static void
test_xml_bounds(void)
{
	CHECK(scan(HEAD "<r a='1' b=\"2\"><c/></r>", 1) == NULL);
	CHECK(scan(HEAD "<r a='1' b=\"2\"><c/></r>", 1000) == NULL);
	/* the HTTP head is not XML: '<' there counts for nothing */
	CHECK(scan("POST /<x a=1 b=2 c=3 d=4 e=5 f=6 g=7 h=8 i=9> HTTP/1.1\r\n\r\n<r/>", 3) == NULL);

	char *m = message_with_attributes(9, 1, 9);
	CHECK_STR_EQ(scan(m, 7), "more than 8 attributes on one element");
	free(m);
	m = message_with_attributes(8, 1, 8);
	CHECK(scan(m, 7) == NULL);
	free(m);
	/* gSOAP's list of names grows with distinct names only: repeats are cheap */
	m = message_with_attributes(21, 1, 3);
	CHECK_STR_EQ(scan(m, 5), "more than 20 distinct attribute names on one connection");
	free(m);
	m = message_with_attributes(48, 0, 3);
	CHECK(scan(m, 5) == NULL);
	free(m);
	m = message_with_attributes(51, 0, 3);
	CHECK_STR_EQ(scan(m, 5), "more than 50 attributes in one message");
	free(m);
	CHECK_STR_EQ(scan(HEAD "<r xmlns='u' xmlns:a='u'><b xmlns:c='u' xmlns:d='u'>"
	    "<e xmlns:f='u'/></b></r>", 2), "more than 4 namespace declarations in one message");
	/* "xmlnsfoo" is an attribute, not a declaration */
	CHECK(scan(HEAD "<r xmlnsa='1' xmlnsb='1' xmlnsc='1' xmlnsd='1' xmlnse='1'/>", 4) == NULL);

	char big[4096] = HEAD "<r>";
	for (int i = 0; i < 100; i++)
		strcat(big, "<e/>");
	strcat(big, "</r>");
	CHECK_STR_EQ(scan(big, 9), "more than 100 elements in one message");

	/* a quoted '>' or '=' does not end the tag or count; comments and PIs are not elements */
	CHECK(scan(HEAD "<!-- x --><?pi x?><r a='>=' b=\"=x=\"/>", 1) == NULL);

	/* pipelined messages are counted each on its own: two of 60 elements stay within 100 */
	char two[4096] = "";
	for (int k = 0; k < 2; k++) {
		strcat(two, HEAD "<r>");
		for (int i = 0; i < 59; i++)
			strcat(two, "<e/>");
		strcat(two, "</r>");
	}
	CHECK(scan(two, 11) == NULL);
}

static void
test_http_head(void)
{
	struct http_request_shape sh;
	const char *req = "POST / HTTP/1.1\r\nHost: x\r\ncontent-length: 5\r\n\r\n<a/>x";
	CHECK_INT_EQ(http_request_examine(req, 10, 16384, 1000, &sh), HTTP_REQUEST_INCOMPLETE);
	CHECK_INT_EQ(http_request_examine(req, strlen(req) - 1, 16384, 1000, &sh),
	    HTTP_REQUEST_INCOMPLETE);
	CHECK_INT_EQ(sh.total_len, strlen(req));
	CHECK_INT_EQ(http_request_examine(req, strlen(req), 16384, 1000, &sh), HTTP_REQUEST_READY);
	CHECK_INT_EQ(sh.head_len, strlen(req) - 5);
	CHECK(!sh.body_streams);
	/* a body over max_message is left to gSOAP, which answers it with a fault */
	CHECK_INT_EQ(http_request_examine(req, strlen(req) - 5, 16384, 4, &sh), HTTP_REQUEST_READY);
	CHECK(sh.body_streams);
	const char *chunked = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n";
	CHECK_INT_EQ(http_request_examine(chunked, strlen(chunked), 16384, 1000, &sh),
	    HTTP_REQUEST_READY);
	CHECK(sh.body_streams);
	const char *bad_length = "POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n";
	CHECK_INT_EQ(http_request_examine(bad_length, strlen(bad_length), 16384, 1000, &sh),
	    HTTP_REQUEST_BAD_HEAD);
	CHECK_INT_EQ(http_request_examine("\x16\x03\x01\r\n\r\n", 7, 16384, 1000, &sh),
	    HTTP_REQUEST_BAD_HEAD);
	char endless[200];
	memset(endless, 'a', sizeof(endless));
	CHECK_INT_EQ(http_request_examine(endless, sizeof(endless), 100, 1000, &sh),
	    HTTP_REQUEST_HEAD_TOO_LARGE);
	CHECK(http_body_looks_like_xml("\xEF\xBB\xBF \n<a/>", 9));
	CHECK(!http_body_looks_like_xml("hello <a/>", 10));
	CHECK(!http_body_looks_like_xml("   ", 3));
}

static void
test_net_text(void)
{
	CHECK(net_text_is_ip("10.2.0.5"));
	CHECK(net_text_is_ip("fd00::1"));
	CHECK(!net_text_is_ip("10.2.0.256"));
	CHECK(!net_text_is_ip("10.2.0.5 "));
	CHECK(!net_text_is_ip("<script>"));
	CHECK(net_text_is_host("gw-a.example.org"));
	CHECK(net_text_is_host("172.31.0.2"));
	CHECK(!net_text_is_host("-gw"));
	CHECK(!net_text_is_host("gw..a"));
	CHECK(!net_text_is_host("gw a"));
	CHECK(!net_text_is_host("'; DROP TABLE"));
	CHECK(!net_text_is_host(""));
	CHECK(net_text_is_host_port("172.31.0.9:7000"));
	CHECK(net_text_is_host_port("proxy-1:7000"));
	CHECK(net_text_is_host_port("[fd00::9]:7000"));
	CHECK(!net_text_is_host_port("fd00::9:7000"));
	CHECK(!net_text_is_host_port("proxy-1:0"));
	CHECK(!net_text_is_host_port("proxy-1:65536"));
	CHECK(!net_text_is_host_port("proxy-1:"));
	CHECK(!net_text_is_host_port(":7000"));
	CHECK(!net_text_is_host_port("garbage"));
	CHECK(net_text_is_https_url("https://gw-a:8443/"));
	CHECK(net_text_is_https_url("https://127.0.0.1:8443"));
	CHECK(net_text_is_https_url("https://[::1]:8443/qcg"));
	CHECK(!net_text_is_https_url("http://gw-a:8443/"));
	CHECK(net_text_is_https_url("https://frontend.invalid/"));
	CHECK(net_text_is_https_url("https://[::1]/"));
	CHECK(!net_text_is_https_url("https://gw-a:/"));
	CHECK(!net_text_is_https_url("https://[::1/"));
	CHECK(!net_text_is_https_url("https:///"));
	CHECK(!net_text_is_https_url("https://gw-a:8443/a b"));
	CHECK(!net_text_is_https_url("https://gw a:8443/"));
}

int
main(void)
{
	test_xml_bounds();
	test_http_head();
	test_net_text();
	return check_exit();
}

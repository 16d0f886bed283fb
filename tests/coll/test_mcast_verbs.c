/*
 * test_mcast_verbs.c: the InfiniBand UD multicast transport of the multicast broadcast
 * (mpi-glue/coll/coll_qcg_mcast_verbs.c), against the real rdma-core.
 *
 * Built twice. test_mcast_verbs_errors runs everywhere: a missing interface address and a host
 * or address without an RDMA device are refused with a sentence, never a crash.
 * test_mcast_verbs_roundtrip needs an RDMA device and QCG_TEST_IPOIB_ADDR (this node's IPoIB
 * IPv4 address): two queue pairs join one group, datagrams of several sizes go from one to the
 * other intact, an oversize send is refused and a short buffer is reported as truncated. It
 * skips (77), saying why, where there is no device (as on the project's CI machine).
 */
#include "config.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "coll_qcg_mcast_verbs.h"

static struct sockaddr_in
group_of(const char *addr)
{
	struct sockaddr_in g = { .sin_family = AF_INET };
	inet_pton(AF_INET, addr, &g.sin_addr);
	return g;
}

#ifndef ROUNDTRIP
static void
open_without_interface_address_says_what_is_missing(void)
{
	struct sockaddr_in g = group_of("239.255.7.1");
	struct in_addr any = { htonl(INADDR_ANY) };
	char err[256] = "";
	CHECK(qcg_mcast_verbs_open(&g, &any, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "coll_qcg_mcast_interface") != NULL);
}

static void
open_where_no_rdma_device_owns_the_address_is_refused(void)
{
	struct sockaddr_in g = group_of("239.255.7.2");
	struct in_addr lo;
	char err[256] = "";
	inet_pton(AF_INET, "127.0.0.1", &lo);
	/* Loopback is never an IPoIB address, device or not. */
	CHECK(qcg_mcast_verbs_open(&g, &lo, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "rdma_") != NULL);
	printf("    (%d RDMA devices here; refusal: %s)\n", qcg_mcast_verbs_devices(), err);
}

int
main(void)
{
	RUN(open_without_interface_address_says_what_is_missing);
	RUN(open_where_no_rdma_device_owns_the_address_is_refused);
	return check_exit();
}
#else
/* Wait up to 2 s for one datagram on v. */
static long
recv_wait(struct qcg_mcast_verbs *v, void *buf, size_t len)
{
	for (int i = 0; i < 2000; i++) {
		long n = qcg_mcast_verbs_recv(v, buf, len);
		if (n != 0)
			return n;
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	}
	return 0;
}

int
main(void)
{
	const char *ipoib = getenv("QCG_TEST_IPOIB_ADDR");
	if (qcg_mcast_verbs_devices() == 0) {
		printf("SKIP: no RDMA device on this host (ibv_get_device_list found none); the verbs "
		    "multicast transport is built against rdma-core but cannot run here\n");
		return 77;
	}
	if (ipoib == NULL || *ipoib == '\0') {
		printf("SKIP: set QCG_TEST_IPOIB_ADDR to this node's IPoIB IPv4 address\n");
		return 77;
	}
	struct sockaddr_in g = group_of("239.255.7.3");
	struct in_addr ifaddr;
	char err[256] = "";
	CHECK(inet_pton(AF_INET, ipoib, &ifaddr) == 1);
	struct qcg_mcast_verbs *a = qcg_mcast_verbs_open(&g, &ifaddr, err, sizeof(err));
	struct qcg_mcast_verbs *b = a ? qcg_mcast_verbs_open(&g, &ifaddr, err, sizeof(err)) : NULL;
	if (a == NULL || b == NULL) {
		fprintf(stderr, "open: %s\n", err);
		return 1;
	}
	size_t mtu = qcg_mcast_verbs_max_dgram(a);
	size_t sizes[] = { 1, 100, mtu };
	unsigned char *out = malloc(mtu + 1), *in = malloc(mtu + 1);
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		for (size_t i = 0; i < sizes[k]; i++)
			out[i] = (unsigned char)(i * 7 + k);
		CHECK_INT_EQ(qcg_mcast_verbs_send(a, out, sizes[k]), 0);
		CHECK_INT_EQ(recv_wait(b, in, mtu), (long)sizes[k]);
		CHECK(memcmp(in, out, sizes[k]) == 0);
	}
	CHECK_INT_EQ(qcg_mcast_verbs_send(a, out, mtu + 1), -1);
	CHECK_INT_EQ(qcg_mcast_verbs_send(a, out, 64), 0);
	CHECK_INT_EQ(recv_wait(b, in, 16), 17); /* did not fit: len + 1 */
	qcg_mcast_verbs_close(a);
	qcg_mcast_verbs_close(b);
	free(out);
	free(in);
	return check_exit();
}
#endif

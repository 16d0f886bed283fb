/*
 * mcast_group_call.c: play an MPI process asking its node's helper for a multicast group
 * (MCAST_GROUP, what cluster rank 0 of mca_coll_qcg does), for the services test.
 *
 * Usage: mcast_group_call SOCKET JOB TOKEN
 * Prints "group ADDRESS PORT" and exits 0, or "refused CODE: MESSAGE" and exits 1.
 */
#include "config.h"

#include <stdio.h>

#include "helper_client.h"

int
main(int argc, char **argv)
{
	struct helper_client c;
	char err[512], address[QCG_ADDR_MAX];
	uint16_t port;
	int code = 0;
	if (argc != 4) {
		fprintf(stderr, "usage: mcast_group_call SOCKET JOB TOKEN\n");
		return 2;
	}
	if (helper_client_open(&c, argv[1], argv[2], argv[3], err, sizeof(err)) != 0) {
		printf("refused hello: %s\n", err);
		return 1;
	}
	int rc = helper_client_mcast_group(&c, address, &port, &code, err, sizeof(err));
	helper_client_close(&c);
	if (rc != 0) {
		printf("refused %d: %s\n", code, err);
		return 1;
	}
	printf("group %s %u\n", address, port);
	return 0;
}

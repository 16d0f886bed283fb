/*
 * coll_qcg_mcast_broker.c: a multicast group from the broker, asked by cluster rank 0 through
 * its node's qcg-helper (MCAST_GROUP; the helper relays to its front-end, the front-end to the
 * broker's AllocateMulticastGroup). The broker hands out each group to one job only and takes
 * it back when the job ends, so concurrent jobs never collide (paper 001, section 3.1).
 */
#include "config.h"

#include <arpa/inet.h>
#include <stdio.h>

#include "coll_qcg_mcast.h"
#include "helper_client.h"

int
qcg_mcast_broker_group(uint32_t *address, uint32_t *port, char *err, size_t errlen)
{
	struct helper_client c;
	char group[QCG_ADDR_MAX];
	uint16_t p;
	struct in_addr in;
	if (helper_client_open_env(&c, err, errlen) != 0)
		return -1;
	int rc = helper_client_mcast_group(&c, group, &p, NULL, err, errlen);
	helper_client_close(&c);
	if (rc != 0)
		return -1;
	/* Not trusted blindly: what we join must be an IPv4 multicast group. */
	if (inet_pton(AF_INET, group, &in) != 1 || (ntohl(in.s_addr) & 0xf0000000u) != 0xe0000000u) {
		snprintf(err, errlen, "the broker's group '%s' is not an IPv4 multicast address",
		    group);
		return -1;
	}
	*address = in.s_addr;
	*port = htonl(p);
	return 0;
}

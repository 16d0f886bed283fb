/*
 * relay_net.c: listener and connector sockets of the data plane.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model.h"
#include "net_socket.h"
#include "relay_net.h"

/* Split "host:port" / "[v6]:port" into its parts; -1 when malformed. */
static int
endpoint_split(const char *endpoint, char *host, size_t hostlen, char *port, size_t portlen)
{
	const char *colon, *host_start = endpoint, *host_end;

	if (endpoint[0] == '[') {
		host_start = endpoint + 1;
		host_end = strchr(host_start, ']');
		if (host_end == NULL || host_end[1] != ':')
			return -1;
		colon = host_end + 1;
	} else {
		colon = strrchr(endpoint, ':');
		if (colon == NULL)
			return -1;
		host_end = colon;
	}
	size_t hl = (size_t)(host_end - host_start);
	size_t pl = strlen(colon + 1);
	if (hl == 0 || hl >= hostlen || pl == 0 || pl >= portlen)
		return -1;
	memcpy(host, host_start, hl);
	host[hl] = '\0';
	memcpy(port, colon + 1, pl + 1);
	for (size_t i = 0; i < pl; i++)
		if (port[i] < '0' || port[i] > '9')
			return -1;
	long p = strtol(port, NULL, 10);
	return p >= 1 && p <= 65535 ? 0 : -1;
}

int
relay_net_resolve(const char *endpoint, struct sockaddr_storage *addr, socklen_t *addrlen,
    char *err, size_t errlen)
{
	char host[QCG_ADDR_MAX], port[8];
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV };
	struct addrinfo *res;

	if (strlen(endpoint) >= QCG_ENDPOINT_MAX ||
	    endpoint_split(endpoint, host, sizeof(host), port, sizeof(port)) < 0) {
		snprintf(err, errlen, "endpoint '%.64s': expected host:port with a port in 1..65535",
		    endpoint);
		return -1;
	}
	int rc = getaddrinfo(host, port, &hints, &res);
	if (rc != 0) {
		snprintf(err, errlen, "endpoint '%s': %s", endpoint, gai_strerror(rc));
		return -1;
	}
	memcpy(addr, res->ai_addr, res->ai_addrlen);
	*addrlen = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

int
relay_net_listen(const char *host, uint16_t port, char *err, size_t errlen)
{
	char portstr[8];
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
		.ai_flags = AI_PASSIVE | AI_NUMERICSERV };
	struct addrinfo *res;
	int one = 1;

	snprintf(portstr, sizeof(portstr), "%u", port);
	int rc = getaddrinfo(host[0] ? host : NULL, portstr, &hints, &res);
	if (rc != 0) {
		snprintf(err, errlen, "listen address '%s': %s", host, gai_strerror(rc));
		return -1;
	}
	int fd = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) < 0 ||
	    bind(fd, res->ai_addr, res->ai_addrlen) < 0 || listen(fd, SOMAXCONN) < 0) {
		snprintf(err, errlen, "listen on %s:%u: %s", host[0] ? host : "*", port,
		    strerror(errno));
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	return fd;
}

uint16_t
relay_net_local_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
		return 0;
	if (ss.ss_family == AF_INET)
		return ntohs(((struct sockaddr_in *)&ss)->sin_port);
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return 0;
}

int
relay_net_tune_leg(int fd)
{
	return net_set_nodelay(fd);
}

int
relay_net_connect_start(const struct sockaddr *addr, socklen_t addrlen)
{
	int fd = socket(addr->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	if (relay_net_tune_leg(fd) < 0 || (connect(fd, addr, addrlen) < 0 && errno != EINPROGRESS)) {
		int saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

void
relay_net_format(const struct sockaddr *addr, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN] = "?";

	if (addr->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)addr;
		inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
		snprintf(buf, len, "%s:%u", host, ntohs(in->sin_port));
	} else if (addr->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)addr;
		inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
		snprintf(buf, len, "[%s]:%u", host, ntohs(in6->sin6_port));
	} else {
		snprintf(buf, len, "(family %d)", addr->sa_family);
	}
}

/*
 * node_env.c: per-node port windows, their hosts-map words, the job token (node_env.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "node_env.h"

#define NODE_ENV_PORT_TOP 65535
#define NODE_ENV_WINDOWS_MAX (JOB_CLUSTERS_MAX * COALLOC_SLOTS_MAX + 1)

struct windows {
	int start[NODE_ENV_WINDOWS_MAX], size[NODE_ENV_WINDOWS_MAX];
	int count;
};

static bool
taken(const struct windows *w, int start, int size)
{
	for (int i = 0; i < w->count; i++)
		if (start < w->start[i] + w->size[i] && w->start[i] < start + size)
			return true;
	return false;
}

/* The first free window of size ports at or above from that ends at or below top; 0 if none. */
static int
take(struct windows *w, int from, int top, int size)
{
	for (int s = from; s + size - 1 <= top; s += NODE_ENV_WINDOW)
		if (!taken(w, s, size) && w->count < NODE_ENV_WINDOWS_MAX) {
			w->start[w->count] = s;
			w->size[w->count++] = size;
			return s;
		}
	return 0;
}

int
node_env_window(int processes)
{
	return NODE_ENV_WINDOW + NODE_ENV_PER_PROCESS * (processes > 1 ? processes - 1 : 0);
}

int
node_env_assign(struct coalloc *c, int *launcher_port, char *err, size_t errlen)
{
	struct windows w = { .count = 0 };
	/* Port-range clusters first: their windows can only lie inside their range. */
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < c->count; i++) {
			struct coalloc_part *p = &c->part[i];
			bool ranged = p->port_min > 0;
			if (ranged != (pass == 0))
				continue;
			for (int n = 0; n < p->node_count; n++) {
				int size = node_env_window(p->node[n].count);
				p->node[n].port_count = size;
				p->node[n].port_min = ranged ? take(&w, p->port_min, p->port_max, size) :
				    take(&w, NODE_ENV_PORT_BASE, NODE_ENV_PORT_TOP, size);
				if (p->node[n].port_min == 0) {
					snprintf(err, errlen, "cluster %s: its open ports %d-%d hold no "
					    "window of %d ports for node %s", p->cluster->name,
					    p->port_min, p->port_max, size, p->node[n].name);
					return -1;
				}
			}
		}
	*launcher_port = take(&w, NODE_ENV_PORT_BASE, NODE_ENV_PORT_TOP, NODE_ENV_WINDOW);
	if (*launcher_port == 0) {
		snprintf(err, errlen, "no window of %d ports left for mpirun", NODE_ENV_WINDOW);
		return -1;
	}
	return 0;
}

/* socket_pattern with every %h replaced by node. */
static void
socket_path(const char *pattern, const char *node, char *out, size_t len)
{
	size_t n = 0;
	for (const char *p = pattern; *p && n + 1 < len; p++) {
		if (p[0] == '%' && p[1] == 'h') {
			n += (size_t)snprintf(out + n, len - n, "%s", node);
			p++;
		} else
			out[n++] = *p;
	}
	out[n < len ? n : len - 1] = '\0';
}

int
node_env_words(const struct coalloc_node *nd, const char *socket_pattern, struct rsh_target *t)
{
	char sock[RSH_MAP_ENV_LEN - 32];
	socket_path(socket_pattern ? socket_pattern : NODE_ENV_DEFAULT_SOCKET, nd->name, sock,
	    sizeof(sock));
	if (sock[0] == '\0' || strpbrk(sock, " \t\n") != NULL)
		return -1; /* a map line's words are split on blanks */
	t->envc = 3;
	snprintf(t->env[0], sizeof(t->env[0]), "QCG_NET=1");
	snprintf(t->env[1], sizeof(t->env[1]), "QCG_HELPER_SOCKET=%s", sock);
	snprintf(t->env[2], sizeof(t->env[2]), "QCG_NET_PORTS=%d-%d", nd->port_min,
	    nd->port_min + nd->port_count - 1);
	return 0;
}

int
node_env_token(char token[NODE_ENV_TOKEN_LEN + 1])
{
	unsigned char r[NODE_ENV_TOKEN_LEN / 2];
	FILE *f = fopen("/dev/urandom", "r");
	size_t got = f ? fread(r, 1, sizeof(r), f) : 0;
	if (f)
		fclose(f);
	if (got != sizeof(r))
		return -1;
	for (size_t i = 0; i < sizeof(r); i++)
		snprintf(token + 2 * i, 3, "%02x", r[i]);
	return 0;
}

int
node_env_register_token(const char *path, const char *job, const char *token, char *err,
    size_t errlen)
{
	struct passwd *pw = getpwuid(getuid());
	int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (pw == NULL || fd < 0) {
		snprintf(err, errlen, "%s: %s", path, pw ? strerror(errno) : "no account name");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	char line[512];
	int n = snprintf(line, sizeof(line), "%s %s %s\n", job, token, pw->pw_name);
	flock(fd, LOCK_EX); /* one line at a time from concurrent submits */
	bool ok = n > 0 && (size_t)n < sizeof(line) && write(fd, line, (size_t)n) == n;
	close(fd);
	if (!ok)
		snprintf(err, errlen, "%s: could not add the job's token", path);
	return ok ? 0 : -1;
}

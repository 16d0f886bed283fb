/*
 * privsep_launcher.h: qcg-helper's privileged half. Started as root, before the helper drops
 * to its service user, it is the only process of the helper that keeps root: it starts the
 * launches (launch_exec), signals them, reaps them and kills them at the end, on the requests
 * of privsep_proto.h and nothing else. It reads no network input.
 *
 * It refuses to start a process as an account the grid-mapfile does not name, and as uid 0,
 * gid 0 or a member of group 0 unless helper.allow_root_launch was set when it started (the
 * unprivileged half cannot change that). It signals only processes of launches it started. When the helper
 * closes its end (it exited or died) the launcher kills what it started and exits.
 */
#ifndef QCG_PRIVSEP_LAUNCHER_H
#define QCG_PRIVSEP_LAUNCHER_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct privsep_launcher_config {
	char grid_mapfile[PATH_MAX];   /* the accounts it may launch as: re-read on every launch */
	bool allow_root;               /* uid 0 / gid 0 too (helper.allow_root_launch) */
	int max_launches;              /* running at once; twice that stay signalable */
};

/* Fork the launcher; *fd gets the helper's end of the socketpair (close-on-exec). Returns
 * the launcher's pid, or -1 with err. Call before starting threads. */
pid_t privsep_launcher_fork(const struct privsep_launcher_config *cfg, int *fd, char *err,
    size_t errlen);

/* Serve requests on fd until its peer closes it; then kill every launch and return. */
void privsep_launcher_serve(int fd, const struct privsep_launcher_config *cfg);

#endif

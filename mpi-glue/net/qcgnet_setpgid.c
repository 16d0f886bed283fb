/*
 * qcgnet_setpgid.c: setpgid() that reports success when the group it asks for is already the
 * child's.
 *
 * Open MPI's plm_rsh forks the rsh agent (qcg-rsh) and both sides put the child in its own
 * process group: the child with setpgid(0, 0) before it execs, the parent with setpgid(pid,
 * pid). When the child has exec'd first, which on a machine with a free core is the usual case,
 * the parent's call fails with EACCES, and mpirun prints "plm:rsh: Warning: setpgid(...) failed
 * in parent with errno=Permission denied(13)" for every daemon it starts, though the child is in
 * its own group as wanted. The wrapper turns exactly that failure into the success it is in
 * effect, whether or not QCG_NET is on: the race belongs to every launch, not to the network.
 */
#include "config.h"

#include <errno.h>
#include <unistd.h>

#include "qcgnet.h"

int
setpgid(pid_t pid, pid_t pgid)
{
	int rc = QN_REAL(setpgid)(pid, pgid);
	int saved = errno;

	if (rc != 0 && saved == EACCES && pid > 0 && pid != getpid()) {
		pid_t want = pgid == 0 ? pid : pgid;

		if (getpgid(pid) == want)
			return 0;
	}
	errno = saved;
	return rc;
}

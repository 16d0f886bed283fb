/*
 * privsep_drop.h: the helper's network half giving up root for good (relayd's way): the
 * service account's uid and gid, no supplementary groups, no capability left, and no way
 * back through set-user-id programs (PR_SET_NO_NEW_PRIVS).
 */
#ifndef QCG_PRIVSEP_DROP_H
#define QCG_PRIVSEP_DROP_H

#include <stddef.h>
#include <stdint.h>

/* PR_SET_NO_NEW_PRIVS for this process and the threads it starts from now on (the flag is
 * per thread and inherited): call before the first thread. -1 with err. */
int privsep_no_new_privs(char *err, size_t errlen);

/* Become account user; -1 with err when the account is unknown or root, a step fails, or
 * a capability is still effective afterwards. */
int privsep_drop_to(const char *user, char *err, size_t errlen);

/* The effective capability set from /proc/self/status (CapEff); -1 when unreadable. */
int privsep_cap_effective(uint64_t *caps);

#endif

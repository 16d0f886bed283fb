/*
 * privsep_drop.c: dropping root in the helper's network half (privsep_drop.h).
 */
#define _GNU_SOURCE /* setresuid, setresgid */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "privsep_drop.h"

int
privsep_cap_effective(uint64_t *caps)
{
	char line[256];
	int found = 0;
	FILE *f = fopen("/proc/self/status", "re");
	if (f == NULL)
		return -1;
	while (!found && fgets(line, sizeof(line), f) != NULL)
		found = sscanf(line, "CapEff: %" SCNx64, caps) == 1;
	fclose(f);
	return found ? 0 : -1;
}

int
privsep_no_new_privs(char *err, size_t errlen)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		snprintf(err, errlen, "PR_SET_NO_NEW_PRIVS: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int
privsep_drop_to(const char *user, char *err, size_t errlen)
{
	struct passwd pw, *pp = NULL;
	char buf[4096];
	uint64_t caps = ~(uint64_t)0;
	uid_t r, e, s;

	if (getpwnam_r(user, &pw, buf, sizeof(buf), &pp) != 0 || pp == NULL) {
		snprintf(err, errlen, "helper.user: no local account '%.64s'", user);
		return -1;
	}
	if (pw.pw_uid == 0 || pw.pw_gid == 0) {
		snprintf(err, errlen, "helper.user: '%s' is root (uid or gid 0): name an "
		    "unprivileged service account", user);
		return -1;
	}
	if (setgroups(1, &pw.pw_gid) != 0 || setresgid(pw.pw_gid, pw.pw_gid, pw.pw_gid) != 0 ||
	    setresuid(pw.pw_uid, pw.pw_uid, pw.pw_uid) != 0) {
		snprintf(err, errlen, "cannot become '%s': %s", user, strerror(errno));
		return -1;
	}
	if (getresuid(&r, &e, &s) != 0 || r != pw.pw_uid || e != pw.pw_uid || s != pw.pw_uid ||
	    setuid(0) == 0) {
		snprintf(err, errlen, "the switch to '%s' did not hold", user);
		return -1;
	}
	if (privsep_no_new_privs(err, errlen) != 0)
		return -1;
	if (privsep_cap_effective(&caps) != 0 || caps != 0) {
		snprintf(err, errlen, "capabilities left after becoming '%s': CapEff %016" PRIx64,
		    user, caps);
		return -1;
	}
	return 0;
}

/*
 * setpgid_race.c: plays Open MPI plm_rsh's launch with the race decided: the child puts itself
 * in its own process group (unless told "same-group") and execs; only once the exec has happened
 * (a close-on-exec pipe reads end-of-file) does the parent call setpgid(pid, pid), as plm_rsh
 * does. Prints "rc=R errno=NAME" for that call, so the driver can compare runs with and without
 * libqcgnet.so preloaded.
 *
 * usage: setpgid_race own-group|same-group
 */
#define _GNU_SOURCE /* pipe2, strerrorname_np */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	int fds[2], own, rc, err;
	char c;
	pid_t pid;

	if (argc != 2 || (strcmp(argv[1], "own-group") != 0 && strcmp(argv[1], "same-group") != 0)) {
		fprintf(stderr, "usage: setpgid_race own-group|same-group\n");
		return 2;
	}
	own = strcmp(argv[1], "own-group") == 0;
	if (pipe2(fds, O_CLOEXEC) < 0 || (pid = fork()) < 0) {
		perror("setpgid_race");
		return 1;
	}
	if (pid == 0) {
		close(fds[0]);
		if (own && setpgid(0, 0) != 0)
			_exit(126);
		execl("/bin/sleep", "sleep", "30", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	/* End of file: the child's copy closed on exec (or the child died). */
	while (read(fds[0], &c, 1) < 0 && errno == EINTR)
		;
	rc = setpgid(pid, pid);
	err = errno;
	printf("rc=%d errno=%s\n", rc, rc == 0 ? "0" : strerrorname_np(err));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return 0;
}

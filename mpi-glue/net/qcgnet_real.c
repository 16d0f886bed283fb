/*
 * qcgnet_real.c: the libc functions libqcgnet.so wraps, looked up with dlsym(RTLD_NEXT) so that
 * every wrapper can pass a call on unchanged. Looked up lazily too: another library's
 * constructor may open a socket before ours has run.
 */
#define _GNU_SOURCE /* RTLD_NEXT */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "qcgnet.h"

struct qn_real qn_real;

/* Without the real function there is nothing sensible left to do: say so and stop. */
static void *
must_find(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);
	if (f == NULL) {
		char msg[160];
		int n = snprintf(msg, sizeof(msg), "libqcgnet: cannot find the real %s: %s\n", name,
		    dlerror());
		if (n > 0) /* past the write wrapper, which would come back here */
			(void)!syscall(SYS_write, 2, msg, (size_t)n);
		abort();
	}
	return f;
}

void
qn_real_init(void)
{
	/* Plain stores of the same values: harmless when two threads race here. */
	if (qn_real.setsockopt != NULL)
		return;
	qn_real.bind = must_find("bind");
	qn_real.listen = must_find("listen");
	qn_real.accept = must_find("accept");
	qn_real.accept4 = must_find("accept4");
	qn_real.connect = must_find("connect");
	qn_real.close = must_find("close");
	qn_real.getpeername = must_find("getpeername");
	qn_real.setpgid = must_find("setpgid");
	qn_real.write = must_find("write");
	qn_real.writev = must_find("writev");
	qn_real.send = must_find("send");
	qn_real.sendmsg = must_find("sendmsg");
	qn_real.shutdown = must_find("shutdown");
	qn_real.read = must_find("read");
	qn_real.read_chk = must_find("__read_chk");
	qn_real.readv = must_find("readv");
	qn_real.recv = must_find("recv");
	qn_real.recv_chk = must_find("__recv_chk");
	qn_real.recvfrom = must_find("recvfrom");
	qn_real.recvmsg = must_find("recvmsg");
	qn_real.epoll_ctl = must_find("epoll_ctl");
	qn_real.poll = must_find("poll");
	__atomic_store_n(&qn_real.setsockopt, must_find("setsockopt"), __ATOMIC_RELEASE);
}

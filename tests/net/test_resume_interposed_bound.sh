#!/bin/bash
# test_resume_interposed_bound.sh: test_resume_interposed (100 MiB through five proxy kills,
# sends framed on the writers' threads and through the socketpair, every byte once and in
# order) with the whole process bound to one CPU, as a rank bound to a core is. There a send
# that finds the stream held by the I/O thread yields its CPU and tries again rather than take
# the socketpair at once (qcgnet_resume_stream.c, APP_SEND_WAIT_US): that path must keep the
# bytes' order too.
set -euo pipefail
command -v taskset >/dev/null || { echo "SKIP: taskset is not installed (util-linux)"; exit 77; }
# The first CPU this test may use (a CI runner may restrict the set).
cpu=$(taskset -pc $$ | sed 's/.*: *//; s/[-,].*//')
[[ $cpu =~ ^[0-9]+$ ]] || { echo "FAIL: no CPU from 'taskset -pc': $cpu"; exit 1; }
echo "bound to CPU $cpu"
exec taskset -c "$cpu" "$top_builddir/tests/net/test_resume_interposed"

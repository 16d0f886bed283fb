#!/bin/bash
# test_qcgnet_inert.sh: without QCG_NET=1 in the environment, libqcgnet.so does nothing: a
# preloaded program that listens and connects (with every other qcg variable set, and the
# helper's socket pointing nowhere) says nothing and never tries the helper. The same run with
# QCG_NET=1 does try it (and says that it cannot reach it): the check can fail. A program
# named in QCG_NET_SKIP (mpirun's rsh agent inherits the job's environment) stays inert.
: "${top_srcdir:?}" "${top_builddir:?}"
. "$top_srcdir/tests/wait.sh"
LIB=$top_builddir/mpi-glue/net/.libs/libqcgnet.so
PROBE=$top_builddir/tests/net/qcgnet_probe
[ -f "$LIB" ] || { echo "SKIP: $LIB is not built"; exit 77; }
D=$(mktemp -d /tmp/qcgnet-inert.XXXXXX)
trap 'kill $L 2>/dev/null; rm -rf "$D"' EXIT
failures=0

# run ACTIVATE NAME: a listener and a client under the preload; stderr into NAME.err
run() {
	local act=$1 name=$2
	env -u QCG_NET ${act:+QCG_NET=$act} ${SKIP:+QCG_NET_SKIP=$SKIP} LD_PRELOAD="$LIB" QCG_NET_LOOPBACK=1 \
		QCG_HELPER_SOCKET="$D/no-helper.sock" QCG_JOB_ID=job-x \
		QCG_JOB_TOKEN=0123456789abcdef0123 "$PROBE" listen 127.0.0.2 0 1 poll \
		>"$D/$name.out" 2>"$D/$name.err" &
	L=$!
	wait_until 300 grep -q '^listening' "$D/$name.out"
	local port
	port=$(sed -n 's/^listening //p' "$D/$name.out")
	env -u QCG_NET ${act:+QCG_NET=$act} ${SKIP:+QCG_NET_SKIP=$SKIP} LD_PRELOAD="$LIB" QCG_NET_LOOPBACK=1 \
		QCG_HELPER_SOCKET="$D/no-helper.sock" QCG_JOB_ID=job-x \
		QCG_JOB_TOKEN=0123456789abcdef0123 "$PROBE" connect 127.0.0.2 "$port" \
		>>"$D/$name.out" 2>>"$D/$name.err"
	wait "$L"
	grep -q "^connect=0 getpeername=127.0.0.2:$port got=echo:ping" "$D/$name.out"
}

if run "" inert && [ ! -s "$D/inert.err" ]; then
	echo "ok   unactivated_shim_passes_sockets_through_silently"
else
	echo "FAIL unactivated_shim_passes_sockets_through_silently: $(cat "$D/inert.out" "$D/inert.err")"
	failures=$((failures + 1))
fi
if run 0 zero && [ ! -s "$D/zero.err" ]; then
	echo "ok   QCG_NET_other_than_1_is_inert_too"
else
	echo "FAIL QCG_NET_other_than_1_is_inert_too: $(cat "$D/zero.err")"
	failures=$((failures + 1))
fi
if run 1 active && grep -q "cannot reach qcg-helper" "$D/active.err"; then
	echo "ok   activated_shim_tries_the_helper_and_falls_back_to_plain_sockets"
else
	echo "FAIL activated_shim_tries_the_helper_and_falls_back_to_plain_sockets: $(cat "$D/active.out" "$D/active.err")"
	failures=$((failures + 1))
fi
if SKIP=sh,qcgnet_probe run 1 skipped && [ ! -s "$D/skipped.err" ]; then
	echo "ok   a_program_named_in_QCG_NET_SKIP_stays_inert_with_QCG_NET_1"
else
	echo "FAIL a_program_named_in_QCG_NET_SKIP_stays_inert_with_QCG_NET_1: $(cat "$D/skipped.err")"
	failures=$((failures + 1))
fi
echo "$failures failed"
[ "$failures" -eq 0 ]

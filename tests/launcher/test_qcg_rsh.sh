#!/bin/bash
# test_qcg_rsh.sh: qcg-rsh on loopback with a real broker, front-end and helpers: the remote
# command's stdout, stderr and exit code come back; the words are joined and run by a shell as
# ssh does (Open MPI counts on it); only the allow-listed environment travels; a signal to
# qcg-rsh ends the remote command; unknown hosts, malformed maps and unmapped users fail with
# exit 255 and a reason.
. "$top_srcdir/tests/integration/grid_fixture.sh"
QCG_RSH="$top_builddir/launcher/qcg-rsh"
D=$FIXTURE_DIR

fixture_init
broker_start
site_start a open 2 b1 b2
out=$(frontend_as jane reserve job-rsh 4 30 2 b1 b2) || { echo "reserve failed: $out"; exit 99; }
R=$(echo "$out" | sed -n 's/^reservation=//p')
frontend_as jane commit "$R" >/dev/null || { echo "commit failed"; exit 99; }
printf '# written by the test\nb1 %s %s\nb2 %s %s\n' "$SITE_URL" "$R" "$SITE_URL" "$R" >"$D/map"
rsh() { as_user jane env QCG_RSH_MAP="$D/map" QCG_RSH_WORKDIR=/tmp "$QCG_RSH" "$@"; }

rsh b1 'echo out; echo err >&2; exit 7' >"$D/o" 2>"$D/e"
rc=$?
if [ $rc = 7 ] && [ "$(cat "$D/o")" = out ] && [ "$(cat "$D/e")" = err ]; then
	pass remote_stdout_stderr_and_exit_code_come_back
else
	fail remote_stdout_stderr_and_exit_code_come_back "rc=$rc out=$(cat "$D/o") err=$(cat "$D/e")"
fi

out=$(rsh b2 echo '"a;b"' 'c' '&&' echo '$((6*7))' 2>&1)
[ "$out" = "a;b c
42" ] && pass words_are_joined_and_run_by_the_remote_shell_like_ssh ||
	fail words_are_joined_and_run_by_the_remote_shell_like_ssh "got: $out"

out=$(QCG_TOPOLOGY_FILE=/x OMPI_MCA_btl=tcp,self PMIX_X=1 LD_PRELOAD= SECRET=s HOME=/root \
	rsh b1 'env | sort' 2>&1)
want_in="QCG_TOPOLOGY_FILE=/x OMPI_MCA_btl=tcp,self PMIX_X=1 QCG_RSH_WORKDIR=/tmp"
missing=""
for v in $want_in; do echo "$out" | grep -qx "$v" || missing="$missing $v"; done
leaked=$(echo "$out" | grep -E '^(SECRET|HOME|X509_[A-Z_]*|QCG_RSH_MAP)=' | tr '\n' ' ')
if [ -z "$missing" ] && [ -z "$leaked" ] && echo "$out" | grep -q '^PATH='; then
	pass only_the_allow_listed_environment_travels_and_never_credentials
else
	fail only_the_allow_listed_environment_travels_and_never_credentials "missing:$missing leaked: $leaked"
fi

for sig in TERM INT HUP; do
	# Started directly (not through a shell function) so that $! is qcg-rsh itself.
	X509_USER_PROXY=$(user_proxy_file jane) X509_CERT_DIR=$D/ca/certificates QCG_RSH_MAP=$D/map \
		QCG_RSH_WORKDIR=/tmp "$QCG_RSH" b2 'exec sleep 141.5' >/dev/null 2>&1 &
	pid=$!
	# Signalled before the remote sleep runs, the check below would pass with nothing to end.
	wait_until 300 pgrep -f '^sleep 141.5' >/dev/null ||
		fail "sig${sig}_setup" "the remote sleep did not start"
	kill -$sig $pid
	wait $pid
	rc=$?
	num=$(kill -l $sig)
	wait_while 300 pgrep -f '^sleep 141.5' >/dev/null # well below its 141.5 s
	if [ $rc = $((128 + num)) ] && ! pgrep -f '^sleep 141.5' >/dev/null; then
		pass "sig${sig}_to_qcg_rsh_ends_the_remote_command_and_gives_128_plus_signal"
	else
		fail "sig${sig}_to_qcg_rsh_ends_the_remote_command_and_gives_128_plus_signal" "rc=$rc; $(pgrep -af 'sleep 141.5')"
	fi
done

out=$(rsh b9 true 2>&1); rc=$?
[ $rc = 255 ] && echo "$out" | grep -q "host b9 is not in the hosts map" &&
	pass unknown_host_fails_with_255_and_says_so || fail unknown_host_fails_with_255_and_says_so "rc=$rc $out"

printf 'b1 %s\nb2 http://x/ r\n' "$SITE_URL" >"$D/badmap"
out=$(as_user jane "$QCG_RSH" -m "$D/badmap" b2 true 2>&1); rc=$?
[ $rc = 255 ] && echo "$out" | grep -q "$D/badmap:1: expected HOST FRONTEND-URL RESERVATION-ID" &&
	pass malformed_map_is_refused_with_file_and_line || fail malformed_map_is_refused_with_file_and_line "rc=$rc $out"

out=$(as_user bob env QCG_RSH_MAP="$D/map" "$QCG_RSH" b1 true 2>&1); rc=$?
[ $rc = 255 ] && echo "$out" | grep -qi "not authorized\|not in the grid-mapfile\|unmapped\|mapfile" &&
	pass unmapped_user_is_refused || fail unmapped_user_is_refused "rc=$rc $out"

out=$(env -u QCG_RSH_MAP "$QCG_RSH" b1 true 2>&1); rc=$?
[ $rc = 255 ] && echo "$out" | grep -q "no hosts map" && pass missing_map_is_an_error ||
	fail missing_map_is_an_error "rc=$rc $out"
fixture_exit

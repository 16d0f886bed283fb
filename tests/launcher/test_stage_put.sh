#!/bin/bash
# test_stage_put.sh: a stage-in's bytes as PUT /stage-in/<launch> on the front-end's TLS port
# (lib/http_stream.h), with a real broker, front-end and helper on loopback: the bytes arrive
# whole, and every bad body gets a clear answer and leaves nothing in the working directory
# (the node's receiver keeps the bytes in a temporary file until size and SHA-256 match):
# a truncated body, more bytes than StageIn declared, a wrong checksum, a caller not in the
# grid-mapfile, a caller without a certificate, an unknown launch, a chunked body.
. "$top_srcdir/tests/integration/grid_fixture.sh"
. "$top_srcdir/tests/wait.sh"
D=$FIXTURE_DIR

fixture_init
broker_start
site_start sa open 1 sa1
chmod 755 "$D"
WORK=$D/work # the node's working directory (the mapped account, nobody, writes there)
mkdir "$WORK" && chmod 1777 "$WORK"
head -c 3000000 /dev/urandom >"$D/in.bin"
head -c 1000 "$D/in.bin" >"$D/short.bin"
SUM=$(sha256sum <"$D/in.bin"); SUM=${SUM%% *}
SIZE=3000000

out=$(frontend_as jane reserve job-put 1 60 1 sa1)
R=$(echo "$out" | sed -n 's/^reservation=//p')
frontend_as jane commit "$R" >/dev/null || { echo "setup: commit failed: $out"; exit 99; }

# stage_in NAME [SIZE [SHA256]]: a receiver on sa1 for NAME; sets L to its launch id.
stage_in() {
	out=$(frontend_as jane stage-in "$R" sa1 "$WORK" "$1" "${2:-$SIZE}" "${3:-$SUM}")
	L=$(echo "$out" | sed -n 's/^launch=//p')
	[ -n "$L" ] || { echo "setup: StageIn failed: $out"; exit 99; }
}
# ended L: the receiver's last output (its stderr and "exit=N"/"signal=N") once it ended
ended_now() { RESULT=$(frontend_as jane read "$1" 0 0 0 2>&1); [[ $RESULT != *running* ]]; }
ended() { wait_until 150 ended_now "$1" || RESULT="still running: $RESULT"; }
left() { ls -A "$WORK"; }

stage_in whole.dat
put=$(frontend_as jane put "$L" "$D/in.bin")
ended "$L"
if [[ $put == "status=200 "* && $RESULT == *exit=0* ]] && cmp -s "$D/in.bin" "$WORK/whole.dat"; then
	pass the_bytes_arrive_whole_through_front_end_and_helper
else
	fail the_bytes_arrive_whole_through_front_end_and_helper "put: $put; receiver: $RESULT"
fi
rm -f "$WORK/whole.dat"

# The body ends before its Content-Length: the client goes away mid-file.
stage_in truncated.dat
put=$(frontend_as jane put "$L" "$D/short.bin" $SIZE)
ended "$L"
[[ $put != "status=200 "* && ($RESULT == *signal=15* || $RESULT == *exit=143*) && -z $(left) ]] &&
	pass a_truncated_body_is_refused_and_leaves_nothing ||
	fail a_truncated_body_is_refused_and_leaves_nothing "put: $put; receiver: $RESULT; left: $(left)"

# More bytes than StageIn declared (the quota was taken for the declared size).
stage_in longer.dat 1000
put=$(frontend_as jane put "$L" "$D/in.bin")
ended "$L"
[[ $RESULT == *"bytes arrived, 1000 were sent"* && $RESULT == *exit=1* && -z $(left) ]] &&
	pass more_bytes_than_declared_are_refused_and_leave_nothing ||
	fail more_bytes_than_declared_are_refused_and_leave_nothing "put: $put; receiver: $RESULT; left: $(left)"

stage_in corrupt.dat $SIZE "$(printf '%064d' 0)"
put=$(frontend_as jane put "$L" "$D/in.bin")
ended "$L"
[[ $RESULT == *"checksum mismatch"* && $RESULT == *exit=1* && -z $(left) ]] &&
	pass a_wrong_checksum_is_refused_and_leaves_nothing ||
	fail a_wrong_checksum_is_refused_and_leaves_nothing "put: $put; receiver: $RESULT; left: $(left)"

# Callers: one not in the grid-mapfile, one without a certificate; an unknown launch.
stage_in victim.dat
put=$(frontend_as bob put "$L" "$D/in.bin")
[[ $put == "status=403 "*"not in the front-end's grid-mapfile"* ]] &&
	pass a_caller_not_in_the_grid_mapfile_is_refused ||
	fail a_caller_not_in_the_grid_mapfile_is_refused "$put"
curl -sS --max-time 20 --cacert "$D/ca/certificates/"*.0 -T "$D/short.bin" \
	"${FRONTEND_URL%/}/stage-in/$L" >"$D/curl.out" 2>&1 && anon=ok || anon=refused
[[ $anon == refused ]] && pass a_caller_without_a_certificate_is_refused ||
	fail a_caller_without_a_certificate_is_refused "$(cat "$D/curl.out")"
signalled=$(frontend_as jane signal "$L" 15 2>&1)
ended "$L"
victim="signal: $signalled; receiver: $RESULT"
put=$(frontend_as jane put "no-such-launch" "$D/short.bin")
[[ $put == "status=404 "* ]] && pass an_unknown_launch_is_refused || fail an_unknown_launch_is_refused "$put"
# A chunked body has no length to check: refused before the service sees it.
fixture_tls jane
code=$(curl -sS --max-time 20 --cacert "$D/ca/certificates/"*.0 --cert "$D/jane-cert.pem" \
	--key "$D/jane-key.pem" -H "Transfer-Encoding: chunked" -T "$D/short.bin" \
	-o "$D/curl.out" -w '%{http_code}' "${FRONTEND_URL%/}/stage-in/$L" 2>&1)
[[ $code == 411 ]] && pass a_chunked_body_is_refused || fail a_chunked_body_is_refused "$code $(cat "$D/curl.out")"
[ -z "$(left)" ] && pass nothing_is_left_in_the_working_directory ||
	fail nothing_is_left_in_the_working_directory "$(left) (the signalled receiver: $victim)"
frontend_as jane release "$R" >/dev/null
fixture_exit

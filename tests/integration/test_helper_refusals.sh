#!/bin/bash
# test_helper_refusals.sh: what qcg-helper refuses, and that it keeps serving afterwards. On the
# local API: wrong token, wrong uid, requests before HELLO, malformed and oversized messages,
# too many connections. On SOAP: malformed XML, an oversized request, an unknown operation and a
# client without a certificate (tests/integration/soap_raw.py).
. "$top_srcdir/tests/integration/grid_fixture.sh"
D=$FIXTURE_DIR
TOKEN=0123456789abcdef0123456789abcdef

fixture_init
helper_start n1 127.0.0.1 https://127.0.0.1:9/ -s helper.max_clients=3 -s helper.client_io_timeout=1
echo "job-1 $TOKEN nobody" >>"$HELPER_TOKENS"
echo "job-2 short nobody" >>"$HELPER_TOKENS"

# --- local API ------------------------------------------------------------------------------
out=$(helper_local_as job-1 "$TOKEN" hello 2>&1)
[ "$out" = ok ] && pass right_token_from_root_accepted || fail right_token_from_root_accepted "$out"
as_uid() { local uid=$1; shift; setpriv --reuid="$uid" --regid="$uid" --clear-groups "$HELPER_LOCAL" "$HELPER_SOCKET" "$@"; }
out=$(as_uid 65534 job-1 "$TOKEN" hello 2>&1)
[ "$out" = ok ] && pass right_token_from_the_jobs_account_accepted ||
	fail right_token_from_the_jobs_account_accepted "$out"
out=$(as_uid 12345 job-1 "$TOKEN" hello 2>&1)
case $out in *"caller uid 12345 is not the job's account (uid 65534)"*) pass wrong_uid_refused ;;
*) fail wrong_uid_refused "$out" ;; esac
out=$(helper_local_as job-1 "${TOKEN%?}X" hello 2>&1)
case $out in *"unknown job or wrong token"*) pass wrong_token_refused ;; *) fail wrong_token_refused "$out" ;; esac
case $out in *"$TOKEN"*|*"${TOKEN%?}X"*) fail refusal_does_not_echo_tokens "$out" ;;
*) pass refusal_does_not_echo_tokens ;; esac
out=$(helper_local_as job-9 "$TOKEN" hello 2>&1)
case $out in *"unknown job or wrong token"*) pass unknown_job_refused ;; *) fail unknown_job_refused "$out" ;; esac
grep -q 'helper-n1.tokens:2: job name, token' "$D/helper-n1.log" && pass bad_token_file_line_logged_with_its_line ||
	fail bad_token_file_line_logged_with_its_line "$(grep tokens "$D/helper-n1.log")"

# raw bytes straight on the socket: a request before HELLO, garbage, a huge length
raw_answer() { # HEX: send it, print the helper's first answer
	"$top_builddir/tests/integration/helper_local" "$HELPER_SOCKET" job-1 "$TOKEN" raw-after-hello "$1" 2>&1
}
out=$(raw_answer 5143474801ff0000000000)        # HELLO done, then a message of type 255
case $out in *"ERR unknown message type 255"*) pass unknown_message_type_refused ;;
*) fail unknown_message_type_refused "$out" ;; esac
out=$(raw_answer 474554202f20485454502f312e310d0a0d0a)  # "GET / HTTP/1.1"
case $out in *"ERR bad magic"*) pass non_protocol_bytes_refused ;; *) fail non_protocol_bytes_refused "$out" ;; esac
out=$(raw_answer 514347480103000000100000)      # RESOLVE with a 1 MiB payload announced
case $out in *"ERR RESOLVE: payload of 1048576 bytes exceeds the limit"*) pass oversized_message_refused ;;
*) fail oversized_message_refused "$out" ;; esac
out=$(raw_answer 51434748010400000000000500)    # WAIT_INBOUND announcing 5 bytes, sending 1
case $out in *"ERR a message took longer than 1000 ms"*) pass truncated_message_times_out ;;
*) fail truncated_message_times_out "$out" ;; esac
out=$(raw_answer 514347480101000000000000)      # a second HELLO (empty payload: invalid anyway)
case $out in *"ERR HELLO: job truncated"*) pass malformed_hello_refused ;;
*) fail malformed_hello_refused "$out" ;; esac

# A REPORT without a RESOLVE before it has nothing to refer to.
out=$(helper_local_as job-1 "$TOKEN" report 2 10.0.0.1 5000 ok 10 2>&1)
case $out in *"no RESOLVE of 10.0.0.1:5000 on this connection"*) pass report_without_resolve_refused ;;
*) fail report_without_resolve_refused "$out" ;; esac

# Connection limit: three idle waiters fill max_clients=3; the fourth is told why.
for p in 1 2 3; do
	"$HELPER_LOCAL" "$HELPER_SOCKET" job-1 "$TOKEN" wait "4100$p" 1 >"$D/idle$p.out" 2>&1 &
	eval "IDLE$p=\$!"
done
# Each prints 'waiting' once the helper answered it: only then does it hold one of the 3.
for p in 1 2 3; do
	wait_for_log "$D/idle$p.out" '^waiting' || fail connection_limit_setup "idle $p: $(cat "$D/idle$p.out")"
done
out=$(helper_local_as job-1 "$TOKEN" hello 2>&1)
case $out in *"serves 3 connections already"*) pass connection_limit_enforced ;;
*) fail connection_limit_enforced "$out" ;; esac
kill "$IDLE1" "$IDLE2" "$IDLE3" 2>/dev/null
wait "$IDLE1" "$IDLE2" "$IDLE3" 2>/dev/null
# The helper frees a slot when its session thread sees the close: wait for that, bounded.
hello_ok() { out=$(helper_local_as job-1 "$TOKEN" hello 2>&1) && [ "$out" = ok ]; }
wait_until 300 hello_ok
[ "$out" = ok ] && pass local_api_serves_again_after_refusals || fail local_api_serves_again_after_refusals "$out"

# --- SOAP -----------------------------------------------------------------------------------
port=${HELPER_URL##*:}
port=${port%/}
raw() { /usr/bin/python3 "$top_srcdir/tests/integration/soap_raw.py" 127.0.0.1 "$port" \
	"$D/gw-a-cert.pem" "$D/gw-a-key.pem" "$D/ca/certificates" "$1"; }
out=$(raw malformed)
case $out in *"fault=yes"*) pass malformed_soap_gets_a_fault ;; *) fail malformed_soap_gets_a_fault "$out" ;; esac
out=$(raw oversized)
case $out in *"fault=yes"*|*"status=HTTP/1.1 413"*) pass oversized_soap_gets_a_fault ;;
*) fail oversized_soap_gets_a_fault "$out" ;; esac
out=$(raw unknown-op)
case $out in *"fault=yes"*) pass unknown_operation_gets_a_fault ;; *) fail unknown_operation_gets_a_fault "$out" ;; esac
out=$(raw no-cert)
case $out in *"refused="*|*"authentication failed"*) pass client_without_certificate_refused ;;
*) fail client_without_certificate_refused "$out" ;; esac
id=$(helper_as gw-a launch job-Z nobody -- /bin/echo still serving 2>&1)
out=$(helper_as gw-a collect "$id" 10 2>&1)
case $out in "still serving"*"--- exit=0") pass soap_serves_after_bad_requests ;;
*) fail soap_serves_after_bad_requests "$out" ;; esac

kill -0 "$HELPER_PID" 2>/dev/null && pass helper_still_running || fail helper_still_running "it died"
fixture_exit

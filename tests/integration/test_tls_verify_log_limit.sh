#!/bin/bash
# test_tls_verify_log_limit.sh: a client that keeps retrying with a certificate the broker
# cannot verify does not flood its log (issue 17): 50 refused handshakes in a row give the
# first "certificate verification failed" line in full, with its subject and reason, and a
# bounded number of lines; a later one reports how many were not logged.
. "$top_srcdir/tests/integration/grid_fixture.sh"
D=$FIXTURE_DIR

fixture_init
# A user of another CA, which the broker does not trust.
ca init --dir "$D/other-ca"
ca user --dir "$D/other-ca" --name "Mallory Elsewhere" --out "$D/mallory"
broker_start

health_as_mallory() {
	"$QCG_QUERY" --broker "$BROKER_URL" --cert "$D/mallory-cert.pem" \
		--key "$D/mallory-key.pem" --ca-dir "$D/ca/certificates" --timeout 10 health
}
ATTEMPTS=0
# one refused handshake; true when the broker refused it with its authentication fault
refused_once() {
	ATTEMPTS=$((ATTEMPTS + 1))
	! health_as_mallory >/dev/null 2>"$D/err" && grep -q 'authentication failed' "$D/err"
}
verify_lines() { grep -c 'certificate verification failed' "$D/broker.log"; }

start=$SECONDS
refused=0
for _ in $(seq 50); do
	refused_once && refused=$((refused + 1))
done
elapsed=$((SECONDS - start))
[ "$refused" -eq 50 ] && pass fifty_bad_handshakes_refused ||
	fail fifty_bad_handshakes_refused "only $refused of 50 refused: $(cat "$D/err")"

# Bounded: one line per 10 s interval the burst touched (and one for a boundary crossed).
lines=$(verify_lines)
if [ "$lines" -ge 1 ] && [ "$lines" -le $((elapsed / 10 + 2)) ]; then
	pass fifty_bad_handshakes_log_a_bounded_number_of_lines
	echo "     ($lines lines for 50 refusals in $elapsed s)"
else
	fail fifty_bad_handshakes_log_a_bounded_number_of_lines "$lines lines in $elapsed s"
fi
first=$(grep -m1 'certificate verification failed' "$D/broker.log")
case $first in
*"Mallory Elsewhere"*": "?*) pass first_refusal_logged_in_full_with_reason ;;
*) fail first_refusal_logged_in_full_with_reason "first line: $first" ;;
esac

# Once the interval is over, the next refusal is logged with the count of those that were not.
count_lines() { grep -c 'certificate verification failed.*more like it in the last' "$D/broker.log"; }
counts_before=$(count_lines)
next_is_counted() { refused_once; [ "$(count_lines)" -gt "$counts_before" ]; }
# 60 s: the interval is 10 s; the rest is margin for a loaded machine.
if wait_until 600 next_is_counted; then
	# every attempt so far is either a logged line or counted in one (a handshake can fail
	# at more than one depth, so at least as many)
	logged=$(verify_lines)
	suppressed=$(sed -n 's/.*certificate verification failed.*(and \([0-9]*\) more like it.*/\1/p' \
		"$D/broker.log" | awk '{ s += $1 } END { print s + 0 }')
	if [ $((logged + suppressed)) -ge "$ATTEMPTS" ] && [ "$suppressed" -gt 0 ]; then
		pass suppressed_refusals_are_counted
		echo "     ($logged lines + $suppressed counted for $ATTEMPTS refusals)"
	else
		fail suppressed_refusals_are_counted "$logged lines + $suppressed counted < $ATTEMPTS"
	fi
else
	fail suppressed_refusals_are_counted "no count logged: $(grep 'verification failed' "$D/broker.log" | tail -2)"
fi
kill -0 "$BROKER_PID" 2>/dev/null && pass broker_still_up || fail broker_still_up "it died"

fixture_exit

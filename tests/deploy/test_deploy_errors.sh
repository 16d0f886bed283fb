#!/bin/bash
# test_deploy_errors.sh: qcg-deploy refuses every kind of bad grid description in
# grid-errors.list with one clear line naming the file, the line and the reason (some through
# the daemons' own -n on the files written from it), writes nothing when it refuses (generate,
# and install without the grid's CA or for a host not in the grid), generate checks what it
# wrote with the daemons, and the shipped example is accepted (so a parser that refuses
# everything fails).
. "$top_srcdir/tests/deploy/lib.sh"

# check_case NAME EXPECTED: run `check` on $T/grid.txt and judge the error.
check_case() {
	local name=$1 expected=$2 rc want=$2
	# An expected line number is the one right after the file name.
	[[ $expected != :* ]] || want="grid.txt$expected"
	(cd "$T" && "$QCG_DEPLOY" check grid.txt) >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" -ne 1 ]; then
		fail "refuses_$name" "exit $rc, expected 1 (stderr: $(cat "$T/err"))"
	elif [ "$(wc -l <"$T/err")" -ne 1 ]; then
		fail "refuses_$name" "expected one line of error, got: $(cat "$T/err")"
	elif ! grep -qF -- "$want" "$T/err"; then
		fail "refuses_$name" "expected '$want', got: $(cat "$T/err")"
	elif ! grep -qF -- "grid.txt" "$T/err"; then
		fail "refuses_$name" "error does not name the file: $(cat "$T/err")"
	else
		pass "refuses_$name"
	fi
}

cases=0 name="" expected=""
while IFS= read -r line; do
	case $line in
	'#'*) continue ;;
	'== '*)
		[ -z "$name" ] || check_case "$name" "$expected"
		name=${line#== } name=${name%% | *} expected=${line#* | }
		cases=$((cases + 1))
		: >"$T/grid.txt" ;;
	*) printf '%s\n' "$line" >>"$T/grid.txt" ;;
	esac
done <"$top_srcdir/tests/deploy/grid-errors.list"
[ -z "$name" ] || check_case "$name" "$expected"
[ "$cases" -ge 20 ] && pass "list_has_${cases}_cases" || fail list_has_cases "only $cases cases read"

# A refused description leaves nothing behind: no output tree, no CA.
printf 'broker b address=127.0.0.1\nnode n1 cluster=z address=127.0.0.1\n' >"$T/grid.txt"
if "$QCG_DEPLOY" generate --out "$T/gen" "$T/grid.txt" 2>/dev/null; then
	fail generate_refuses_bad_description "exit 0"
elif [ -e "$T/gen" ]; then
	fail generate_writes_nothing_when_refused "$T/gen exists: $(ls -R "$T/gen" | head)"
else
	pass generate_writes_nothing_when_refused
fi

# install needs the grid's CA and a host of the grid, and writes nothing without them.
printf 'broker b address=127.0.0.1\ncluster a frontend=gw address=127.0.0.1 policy=open networks=127.0.0.0/8\nnode n1 cluster=a address=127.0.0.1\n' >"$T/grid.txt"
out=$("$QCG_DEPLOY" install --host n1 --root "$T/root" --ca "$T/no-ca" "$T/grid.txt" 2>&1)
if [ $? -eq 1 ] && grep -q "$T/no-ca is not a CA" <<<"$out" && [ ! -e "$T/root" ] && [ ! -e "$T/no-ca" ]; then
	pass install_refuses_a_missing_ca_and_makes_none
else
	fail install_refuses_a_missing_ca_and_makes_none "$out"
fi
out=$("$QCG_DEPLOY" install --host n9 --root "$T/root" --ca "$T/no-ca" "$T/grid.txt" 2>&1)
if [ $? -eq 1 ] && grep -q "host 'n9' has no service" <<<"$out" && [ ! -e "$T/root" ]; then
	pass install_refuses_a_host_not_in_the_grid
else
	fail install_refuses_a_host_not_in_the_grid "$out"
fi

# The shipped example is valid, and its plan names every host.
if out=$("$QCG_DEPLOY" check "$top_srcdir/doc/qcg-grid.example" 2>&1) &&
	grep -q 'is valid: 11 hosts, 3 clusters, 6 nodes, 2 proxies' <<<"$out"; then
	pass accepts_shipped_example
else
	fail accepts_shipped_example "$out"
fi

# generate runs each daemon's -n on the files it wrote: a value only the daemon checks (a CIDR)
# fails the generation, naming the grid line and the written file's own line.
printf 'broker b address=127.0.0.1\ncluster a frontend=gw address=127.0.0.1 policy=open networks=10.1.0.0/24,10.2.0.0/99\nnode n1 cluster=a address=10.1.0.11\n' >"$T/grid.txt"
out=$("$QCG_DEPLOY" generate --out "$T/gen-cidr" "$T/grid.txt" 2>&1 >/dev/null)
rc=$?
conf=$T/gen-cidr/gw/etc/qcg/frontend-a.conf
if [ "$rc" -eq 1 ] && [ -f "$conf" ] &&
	grep -qF "grid.txt:2: cluster a: qcg-frontend -n refused the file written for it: $conf:$(grep -n '^private_networks' "$conf" | cut -d: -f1): " <<<"$out"; then
	pass generate_checks_what_it_wrote_with_the_daemons
else
	fail generate_checks_what_it_wrote_with_the_daemons "exit $rc: $out"
fi

# Usage mistakes exit 2.
"$QCG_DEPLOY" generate >/dev/null 2>&1; rc=$?
[ "$rc" -eq 2 ] && pass usage_error_exits_2 || fail usage_error_exits_2 "exit $rc"

deploy_exit

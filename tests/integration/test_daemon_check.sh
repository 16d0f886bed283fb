#!/bin/bash
# test_daemon_check.sh: `-n` in all four daemons (lib/daemon_serve.h): a good configuration
# exits 0 and touches nothing; a bad value, a file it names that does not load, an override,
# each exits 1 with "FILE:LINE: reason" (or "command line (-s KEY)") on stderr; and qcg-proxy's
# keys and options of the earlier release still work, each with a warning naming the new
# spelling. Real certificates from the fixture's CA; no daemon listens except the last proxy.
. "$top_srcdir/tests/integration/grid_fixture.sh"
D=$FIXTURE_DIR
QCG_FRONTEND="$top_builddir/services/frontend/qcg-frontend"
QCG_HELPER="$top_builddir/services/helper/qcg-helper"
QCG_PROXY="$top_builddir/services/proxy/qcg-proxy"

fixture_init
BROKER_URL=https://localhost:1/ # -n connects to nothing: no broker needs to run

# check_good NAME BINARY CONF: -n exits 0 and says so.
check_good() {
	local out rc
	out=$("$2" -n -c "$3" 2>&1)
	rc=$?
	[ "$rc" -eq 0 ] && grep -q "configuration $3 is good" <<<"$out" &&
		pass "${1}_check_accepts_good_configuration" ||
		fail "${1}_check_accepts_good_configuration" "rc $rc: $out"
}

# check_bad NAME BINARY WANT [ARGS...]: -n with ARGS exits 1, and the last line of stderr (the
# log lines of what loaded before come first) starts with WANT (a place, "FILE:LINE: ") and
# names a reason after it.
check_bad() {
	local name=$1 bin=$2 want=$3 err rc
	shift 3
	err=$("$bin" -n "$@" 2>&1 >/dev/null | tail -n 1)
	"$bin" -n "$@" >/dev/null 2>&1
	rc=$?
	[ "$rc" -eq 1 ] && [ "${err#"$want"}" != "$err" ] && [ -n "${err#"$want"}" ] &&
		pass "$name" || fail "$name" "rc $rc, stderr '$err', want it to start with '$want'"
}

# line_of FILE PATTERN: the number of the first line of FILE matching the grep pattern.
line_of() { grep -n -m 1 -- "$2" "$1" | cut -d: -f1; }

# bad_copy CONF NEW SED-EXPRESSION: NEW is CONF edited by the sed expression.
bad_copy() { sed -e "$3" "$1" >"$2"; }

# --- qcg-broker --------------------------------------------------------------------------------
B=$D/broker.conf
check_good broker "$QCG_BROKER" "$B"
[ ! -e "$D/broker.db" ] && pass broker_check_opens_no_database ||
	fail broker_check_opens_no_database "$D/broker.db was created by -n"
bad_copy "$B" "$D/b-workers.conf" 's/^workers = .*/workers = many/'
check_bad broker_check_bad_value_gives_file_and_line "$QCG_BROKER" \
	"$D/b-workers.conf:$(line_of "$D/b-workers.conf" '^workers')": -c "$D/b-workers.conf"
bad_copy "$B" "$D/b-key.conf" "s|^key = .*|key = $D/nonexistent-key.pem|"
check_bad broker_check_missing_key_file_gives_its_line "$QCG_BROKER" \
	"$D/b-key.conf:$(line_of "$D/b-key.conf" '^key')": -c "$D/b-key.conf"
printf 'frontend "/O=Grid/*"\nnot-a-role "/O=Grid/*"\n' >"$D/bad.acl"
bad_copy "$B" "$D/b-acl.conf" "s|^acl = .*|acl = $D/bad.acl|"
check_bad broker_check_loads_the_acl_it_names "$QCG_BROKER" "$D/bad.acl:2:" -c "$D/b-acl.conf"
check_bad broker_check_override_names_the_command_line "$QCG_BROKER" \
	"command line (-s broker.workers):" -c "$B" -s broker.workers=0
printf '[broker]\nlisten = 127.0.0.1:0\n  nonsense\n' >"$D/b-syntax.conf"
check_bad broker_check_syntax_error_gives_file_and_line "$QCG_BROKER" "$D/b-syntax.conf:3:" \
	-c "$D/b-syntax.conf"
"$QCG_BROKER" -n >/dev/null 2>&1
[ $? -eq 2 ] && pass broker_check_without_config_is_a_usage_error ||
	fail broker_check_without_config_is_a_usage_error "exit status not 2"
# A start refuses what -n refuses, with the same place.
err=$("$QCG_BROKER" -c "$D/b-workers.conf" 2>&1)
grep -q "$D/b-workers.conf:$(line_of "$D/b-workers.conf" '^workers'): broker.workers" <<<"$err" &&
	pass broker_start_refuses_with_file_and_line ||
	fail broker_start_refuses_with_file_and_line "$err"

# --- qcg-frontend ------------------------------------------------------------------------------
host_cert gw-n
printf 'helper "/O=Grid/OU=qcg-ompi/CN=host/n1"\n' >"$D/fe.acl"
write_frontend_conf "$D/fe.conf" gw-n site-n open "$D/fe.acl" "$D/grid-mapfile" \
	"n1 = https://127.0.0.1:9/ 2"
check_good frontend "$QCG_FRONTEND" "$D/fe.conf"
bad_copy "$D/fe.conf" "$D/fe-policy.conf" 's/^policy = .*/policy = sideways/'
check_bad frontend_check_bad_value_gives_file_and_line "$QCG_FRONTEND" \
	"$D/fe-policy.conf:$(line_of "$D/fe-policy.conf" '^policy')": -c "$D/fe-policy.conf"
bad_copy "$D/fe.conf" "$D/fe-gridmap.conf" "s|^gridmap = .*|gridmap = $D/no-such-grid-mapfile|"
check_bad frontend_check_missing_gridmap_gives_its_line "$QCG_FRONTEND" \
	"$D/fe-gridmap.conf:$(line_of "$D/fe-gridmap.conf" '^gridmap')": -c "$D/fe-gridmap.conf"

# --- qcg-helper --------------------------------------------------------------------------------
write_helper_conf n1 127.0.0.1 https://127.0.0.1:9/
H=$D/helper-n1.conf
check_good helper "$QCG_HELPER" "$H"
[ ! -e "$HELPER_SOCKET_DIR/n1.sock" ] && pass helper_check_opens_no_socket ||
	fail helper_check_opens_no_socket "-n created the local API socket"
bad_copy "$H" "$D/h-timeout.conf" 's/^park_timeout = .*/park_timeout = -3/'
check_bad helper_check_bad_value_gives_file_and_line "$QCG_HELPER" \
	"$D/h-timeout.conf:$(line_of "$D/h-timeout.conf" '^park_timeout')": -c "$D/h-timeout.conf"
bad_copy "$H" "$D/h-cert.conf" "s|^cert = .*|cert = $D/bad.acl|"
check_bad helper_check_loads_the_certificate "$QCG_HELPER" \
	"$D/h-cert.conf:$(line_of "$D/h-cert.conf" '^cert')": -c "$D/h-cert.conf"

# --- qcg-proxy ---------------------------------------------------------------------------------
write_proxy_conf "$D/proxy.conf" proxy-1 0.0.0.0/0 ""
check_good proxy "$QCG_PROXY" "$D/proxy.conf"
bad_copy "$D/proxy.conf" "$D/p-legs.conf" '/^threads/a max_legs = 1'
check_bad proxy_check_bad_value_gives_file_and_line "$QCG_PROXY" \
	"$D/p-legs.conf:$(line_of "$D/p-legs.conf" '^max_legs')": -c "$D/p-legs.conf"
bad_copy "$D/proxy.conf" "$D/p-old.conf" '/^threads/a max-legs = 1'
check_bad proxy_check_old_key_error_names_it_as_written "$QCG_PROXY" \
	"$D/p-old.conf:$(line_of "$D/p-old.conf" '^max-legs')": -c "$D/p-old.conf"
bad_copy "$D/proxy.conf" "$D/p-typo.conf" '/^threads/a max_leg = 10'
check_bad proxy_check_refuses_unknown_key "$QCG_PROXY" \
	"$D/p-typo.conf:$(line_of "$D/p-typo.conf" '^max_leg ')": -c "$D/p-typo.conf"

# The earlier release's keys and options: the proxy starts, reads them, and warns for each.
cat >"$D/p-legacy.conf" <<CONF
[proxy]
listen = 127.0.0.1:0
ready-file = $D/p-legacy.ready
stats-interval = 0
log-level = debug
max-legs = 10
CONF
"$QCG_PROXY" -c "$D/p-legacy.conf" --threads=2 --accept-any-id >"$D/p-legacy.log" 2>&1 &
PROXY_PIDS=$!
trap 'proxy_stop_all; fixture_cleanup' EXIT
fixture_wait_ready qcg-proxy "$PROXY_PIDS" "$D/p-legacy.ready" "$D/p-legacy.log"
grep -q '^127\.0\.0\.1:[0-9][0-9]*$' "$D/p-legacy.ready" &&
	pass proxy_old_ready_file_key_still_writes_the_port_file ||
	fail proxy_old_ready_file_key_still_writes_the_port_file "$(cat "$D/p-legacy.ready")"
missing=""
for want in 'proxy.ready-file is the old spelling.*write proxy.port_file' \
	'proxy.stats-interval is the old spelling.*write proxy.stats_interval' \
	'proxy.log-level is the old spelling.*write proxy.log_level' \
	'proxy.max-legs is the old spelling.*write proxy.max_legs' \
	'option --threads is the old spelling.*-s proxy.threads=VALUE' \
	'option --accept-any-id is the old spelling.*-s proxy.accept_any_id=yes'; do
	grep -q -- "\[warn\] $want" "$D/p-legacy.log" || missing="$missing [$want]"
done
[ -z "$missing" ] && pass proxy_old_keys_and_options_warn_with_new_spelling ||
	fail proxy_old_keys_and_options_warn_with_new_spelling "not logged:$missing"
grep -q 'relay data plane on port [0-9]*: 2 workers, max 10 legs' "$D/p-legacy.log" &&
	pass proxy_old_key_and_option_values_take_effect ||
	fail proxy_old_key_and_option_values_take_effect "$(grep 'data plane' "$D/p-legacy.log")"
grep -q 'INSECURE: accept-any-id is on' "$D/p-legacy.log" &&
	pass proxy_old_flag_option_takes_effect ||
	fail proxy_old_flag_option_takes_effect "accept-any-id not on"
proxy_stop_all
[ ! -e "$D/p-legacy.ready" ] && pass proxy_removes_its_port_file_at_exit ||
	fail proxy_removes_its_port_file_at_exit "still there"

fixture_exit

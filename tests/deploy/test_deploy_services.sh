#!/bin/bash
# test_deploy_services.sh: on a sample grid description (two clusters, nat and port-range, on
# loopback), `qcg-deploy generate --paths-in-root` writes every host's tree; every daemon built
# in the tree accepts its generated configuration and starts with the generated certificates;
# the front-ends and the proxy register with the broker, qcg-query (a user certificate from the
# same CA, mapped by the generated grid-mapfile) lists them over TLS, and a command launched
# through a front-end runs on its node's helper. `install --root` writes one host DESTDIR-style.
. "$top_srcdir/tests/deploy/lib.sh"

B=$top_builddir
BROKER=$B/services/broker/qcg-broker PROXY=$B/services/proxy/qcg-proxy
FRONTEND=$B/services/frontend/qcg-frontend HELPER=$B/services/helper/qcg-helper
QUERY=$B/launcher/qcg-query FRONTEND_CALL=$B/tests/integration/frontend_call
for prog in "$BROKER" "$PROXY" "$FRONTEND" "$HELPER" "$QUERY" "$FRONTEND_CALL"; do
	[ -x "$prog" ] || { echo "SKIP: $prog is not built"; exit 77; }
done
[ "$(id -u)" -eq 0 ] || { echo "SKIP: qcg-helper launches as the mapped account only as root"; exit 77; }

# --- the grid description --------------------------------------------------------------------
PB=$(free_port) PR=$(free_port) PC=$(free_port) PFA=$(free_port) PFB=$(free_port)
PHA=$(free_port) PHB=$(free_port)
USER_DN="/O=Grid/OU=qcg-ompi/CN=Deploy Tester"
cat >"$T/grid.txt" <<GRID
# every host on loopback: URLs carry addresses, certificates name 127.0.0.1
option urls=addresses
broker qd-broker address=127.0.0.1 port=$PB
proxy qd-proxy address=127.0.0.1 port=$PR control_port=$PC
cluster a frontend=qd-gw-a address=127.0.0.1 policy=nat networks=127.0.0.0/8 port=$PFA
cluster b frontend=qd-gw-b address=127.0.0.1 policy=port-range:40000-40100 networks=127.0.0.0/8 port=$PFB
node qd-a1 cluster=a address=127.0.0.1 slots=2 port=$PHA
node qd-b1 cluster=b address=127.0.0.1 slots=3 port=$PHB
user nobody $USER_DN
GRID

mkdir -p "$T/sbin"
for prog in "$BROKER" "$PROXY" "$FRONTEND" "$HELPER"; do ln -s "$prog" "$T/sbin/"; done
O=$T/out
if "$QCG_DEPLOY" generate --out "$O" --sbindir "$T/sbin" --paths-in-root "$T/grid.txt" \
	>"$T/todo" 2>"$T/generate.err"; then
	pass generate_succeeds
else
	fail generate_succeeds "$(cat "$T/generate.err")"
	deploy_exit
	exit
fi

# Every host has its tree with configuration, key (0600) and trust store.
ok=1
for f in qd-broker/etc/qcg/broker.conf qd-broker/etc/qcg/broker.acl qd-proxy/etc/qcg/proxy.conf \
	qd-gw-a/etc/qcg/frontend-a.conf qd-gw-b/etc/qcg/frontend-b.acl qd-a1/etc/qcg/helper.conf \
	qd-b1/etc/qcg/helper.acl qd-broker/etc/grid-security/grid-mapfile \
	qd-a1/etc/systemd/system/qcg-helper.service qd-gw-a/etc/systemd/system/qcg-frontend@.service; do
	[ -s "$O/$f" ] || { fail generate_writes_every_file "$f missing"; ok=0; }
done
for h in qd-broker qd-proxy qd-gw-a qd-gw-b qd-a1 qd-b1; do
	[ "$(stat -c %a "$O/$h/etc/grid-security/hostkey.pem")" = 600 ] ||
		{ fail generate_writes_every_file "$h key not 0600"; ok=0; }
	subject=$(openssl x509 -in "$O/$h/etc/grid-security/hostcert.pem" -noout -subject -nameopt compat | tr -d '\\')
	[[ $subject == *"/CN=host/$h" ]] || { fail host_certificates_name_their_host "$h: $subject"; ok=0; }
done
[ "$ok" = 1 ] && pass generate_writes_every_file_and_host_certificates

# The port-range cluster's settings reach the front-end and its helpers.
grep -qx 'port_min = 40000' "$O/qd-gw-b/etc/qcg/frontend-b.conf" &&
	grep -qx 'rendezvous_ports = 40000-40100' "$O/qd-b1/etc/qcg/helper.conf" &&
	pass port_range_reaches_frontend_and_helpers ||
	fail port_range_reaches_frontend_and_helpers "$(cat "$O/qd-b1/etc/qcg/helper.conf")"

# The TODO names the firewall ports and the grid-mapfile entry.
grep -q "firewall: admit tcp/$PB" "$T/todo" && grep -q "firewall: admit tcp/$PHA from the front-end qd-gw-a" "$T/todo" &&
	grep -qF "\"$USER_DN\" nobody" "$T/todo" && pass todo_lists_ports_and_grid_mapfile ||
	fail todo_lists_ports_and_grid_mapfile "$(head -40 "$T/todo")"

# --- the daemons, each on its own generated files ---------------------------------------------
mkdir -p "$T/run"
# start NAME PROGRAM READY-FILE ARGS...: start a daemon and wait until READY-FILE is written.
start() {
	local name=$1 prog=$2 ready=$3 pid
	shift 3
	"$prog" "$@" >"$T/run/$name.log" 2>&1 &
	pid=$!
	PIDS="$PIDS $pid"
	for _ in $(seq 1 150); do
		[ -s "$ready" ] && { pass "${name}_accepts_generated_config_and_starts"; return 0; }
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	fail "${name}_accepts_generated_config_and_starts" "log: $(tail -5 "$T/run/$name.log")"
	return 1
}
start broker "$BROKER" "$T/run/broker.port" -c "$O/qd-broker/etc/qcg/broker.conf" \
	--port-file "$T/run/broker.port"
start proxy "$PROXY" "$T/run/proxy.ready" -c "$O/qd-proxy/etc/qcg/proxy.conf" \
	--port-file "$T/run/proxy.ready"
start frontend-a "$FRONTEND" "$T/run/fe-a.port" -c "$O/qd-gw-a/etc/qcg/frontend-a.conf" \
	--port-file "$T/run/fe-a.port"
start frontend-b "$FRONTEND" "$T/run/fe-b.port" -c "$O/qd-gw-b/etc/qcg/frontend-b.conf" \
	--port-file "$T/run/fe-b.port"
# The generated helper.conf drops to the service account qcg (privilege separation). Where this
# machine has no such account the helpers run unseparated; test_helper_launch_privsep.sh and
# tests/testbed/privsep.test prove the separation.
NOSEP=()
getent passwd qcg >/dev/null || NOSEP=(-s helper.user=)
start helper-a1 "$HELPER" "$T/run/a1.port" -c "$O/qd-a1/etc/qcg/helper.conf" --port-file "$T/run/a1.port" \
	"${NOSEP[@]}"
start helper-b1 "$HELPER" "$T/run/b1.port" -c "$O/qd-b1/etc/qcg/helper.conf" --port-file "$T/run/b1.port" \
	"${NOSEP[@]}"

# --- what a user sees, over TLS with the generated trust store --------------------------------
"$QCG_CA" user --dir "$O/ca" --name "Deploy Tester" --out "$T/user" >"$T/user.log" 2>&1 ||
	fail setup "qcg-ca user: $(cat "$T/user.log")"
query() {
	"$QUERY" --broker "https://127.0.0.1:$PB/" --cert "$T/user-cert.pem" --key "$T/user-key.pem" \
		--ca-dir "$O/qd-broker/etc/grid-security/certificates" --timeout 10 "$@"
}
# Registration follows the start by a moment: wait (bounded) for both clusters and the proxy.
for _ in $(seq 1 100); do
	clusters=$(query clusters 2>&1) proxies=$(query proxies 2>&1)
	grep -qw a <<<"$clusters" && grep -qw b <<<"$clusters" && grep -q "127.0.0.1:$PR" <<<"$proxies" && break
	sleep 0.2
done
if grep -Eq '^a[[:space:]].*nat' <<<"$clusters" && grep -Eq '^b[[:space:]]+port-range[[:space:]]+40000-40100 ' <<<"$clusters"; then
	pass qcg_query_over_tls_lists_both_clusters_with_their_policies
else
	fail qcg_query_over_tls_lists_both_clusters_with_their_policies "$clusters"
fi
grep -q "127.0.0.1:$PR" <<<"$proxies" && pass qcg_query_lists_the_registered_proxy ||
	fail qcg_query_lists_the_registered_proxy "$proxies"
# Its statistics come from the proxy's own control service (generated control_listen, ACL and
# grid-mapfile): numbers, not the '-' qcg-query prints when it cannot read them.
grep -Eq "^127\.0\.0\.1:$PR .* [0-9]+ +[0-9]+ +[0-9]+  alive" <<<"$proxies" &&
	pass proxy_control_service_serves_statistics_to_the_mapped_user ||
	fail proxy_control_service_serves_statistics_to_the_mapped_user "$proxies"

# A user the generated grid-mapfile does not map is refused by the same broker.
"$QCG_CA" user --dir "$O/ca" --name "Not Mapped" --out "$T/other" >>"$T/user.log" 2>&1
out=$("$QUERY" --broker "https://127.0.0.1:$PB/" --cert "$T/other-cert.pem" --key "$T/other-key.pem" \
	--ca-dir "$O/qd-broker/etc/grid-security/certificates" --timeout 10 clusters 2>&1)
[ $? -ne 0 ] && pass unmapped_user_is_refused || fail unmapped_user_is_refused "$out"

# Front-end to helper (generated [nodes], ACLs and certificates): run a command on node qd-a1.
fe() {
	"$FRONTEND_CALL" --url "https://127.0.0.1:$PFA/" --cert "$T/user-cert.pem" --key "$T/user-key.pem" \
		--ca-dir "$O/qd-gw-a/etc/grid-security/certificates" "$@"
}
R=$(fe reserve deploy-job 1 30 2>&1 | sed -n 's/^reservation=//p')
if [ -n "$R" ] && fe commit "$R" >/dev/null 2>&1; then
	out=$(fe --wd /tmp run "$R" qd-a1 /bin/sh -c 'echo ran-as-$(id -un)' 2>&1)
	case $out in
	*ran-as-nobody*exit=0*) pass frontend_runs_a_command_on_its_helper_as_the_mapped_account ;;
	*) fail frontend_runs_a_command_on_its_helper_as_the_mapped_account "$out" ;;
	esac
	fe release "$R" >/dev/null 2>&1
else
	fail frontend_runs_a_command_on_its_helper_as_the_mapped_account "reserve/commit failed: $(fe reserve deploy-job2 1 30 2>&1)"
fi

# --- install: one host, DESTDIR-style --------------------------------------------------------
if "$QCG_DEPLOY" install --host qd-a1 --root "$T/dest" --ca "$O/ca" "$T/grid.txt" >"$T/install.out" 2>&1 &&
	grep -qx 'socket = /run/qcg-helper/helper.sock' "$T/dest/etc/qcg/helper.conf" &&
	grep -qx 'user = qcg' "$T/dest/etc/qcg/helper.conf" &&
	grep -qx 'grid_mapfile = /etc/grid-security/grid-mapfile' "$T/dest/etc/qcg/helper.conf" &&
	grep -qx 'cert = /etc/grid-security/hostcert.pem' "$T/dest/etc/qcg/helper.conf" &&
	grep -q '^ExecStart=/usr/local/sbin/qcg-helper -c /etc/qcg/helper.conf$' \
		"$T/dest/etc/systemd/system/qcg-helper.service" &&
	cmp -s "$T/dest/etc/grid-security/hostcert.pem" "$O/qd-a1/etc/grid-security/hostcert.pem" &&
	! grep -rq "^[^#]*$T" "$T/dest/etc"; then # the grid-mapfile's comment names its source
	pass install_root_writes_final_paths_under_root_and_reuses_the_certificate
else
	fail install_root_writes_final_paths_under_root_and_reuses_the_certificate "$(cat "$T/install.out")"
fi

# helper_tokens and direct_networks (what qcg-testbed's grid declares) reach the files.
{ echo "option helper_tokens=yes"; sed 's|^cluster a .*|& direct_networks=127.0.0.0/8|' "$T/grid.txt"; } \
	>"$T/grid2.txt"
if "$QCG_DEPLOY" install --host qd-a1 --root "$T/dest2" --ca "$O/ca" "$T/grid2.txt" >"$T/install2.out" 2>&1 &&
	"$QCG_DEPLOY" install --host qd-gw-a --root "$T/dest2" --ca "$O/ca" "$T/grid2.txt" >>"$T/install2.out" 2>&1 &&
	grep -qx 'token_file = /etc/qcg/helper.tokens' "$T/dest2/etc/qcg/helper.conf" &&
	[ -f "$T/dest2/etc/qcg/helper.tokens" ] && [ ! -s "$T/dest2/etc/qcg/helper.tokens" ] &&
	[ "$(stat -c %a "$T/dest2/etc/qcg/helper.tokens")" = 640 ] &&
	grep -qx 'direct_networks = 127.0.0.0/8' "$T/dest2/etc/qcg/frontend-a.conf" &&
	! grep -q 'token_file' "$T/dest/etc/qcg/helper.conf"; then
	pass helper_tokens_and_direct_networks_reach_the_files
else
	fail helper_tokens_and_direct_networks_reach_the_files "$(cat "$T/install2.out")"
fi

deploy_exit

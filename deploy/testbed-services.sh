# shellcheck shell=bash
# testbed-services.sh: the grid's services on the testbed's hosts: credentials from qcg-ca,
# configurations from qcg-genconf.sh, and the daemons started in order (broker, proxies,
# front-ends, helpers), each ready before the next; then the environment files for jobs.
# Sourced by qcg-testbed; uses testbed-proc.sh to run the daemons.

## Services (started only when their programs exist) ------------------------------------------
#
# Each daemon reads DIR/etc/<daemon>.conf, written by deploy/qcg-genconf.sh (the generator
# qcg-deploy uses; it knows the keys each daemon's parser takes), and runs on its host as
# `PROGRAM --config FILE`, in this order, each group ready before the next starts:
#   qcg-broker    broker       WAN address :8443; SQLite registry DIR/run/broker.db
#   qcg-proxy     proxyK       WAN address :7300 (relay), :8446 (SOAP control)
#                 gw-<closed>  with --frontend-proxy: 0.0.0.0:7300, advertised at the gateway's
#                              WAN address, serving its site's /24 and the WAN; control :8446
#   qcg-frontend  gw-<site>    0.0.0.0:8444: helpers reach it at the site address, clients at
#                              the WAN address (the gateway's firewall admits 8444)
#   qcg-helper    each node    node address :8445; local API DIR/run/helper-<node>.sock
# Peers are named as in /etc/netns/*/hosts (https://broker:8443/, https://gw-a:8444/,
# https://a1:8445/), and every host certificate carries the host's name and addresses as
# subjectAltName, so TLS name checks pass whichever address a peer uses.

readonly BROKER_PORT=8443 FRONTEND_PORT=8444 HELPER_PORT=8445 PROXY_CONTROL_PORT=8446
readonly PROXY_PORT=7300
readonly DN_BASE=$GENCONF_DN_BASE              # qcg-ca's host certificate subjects
readonly USER_NAME="testbed user"              # the test user: /O=Grid/OU=qcg-ompi/CN=testbed user
# The account the grid-mapfiles map the user to. Everything in a testbed runs as root and the
# nodes share the machine's accounts, so the helpers are allowed to launch as root.
readonly USER_ACCOUNT=root
# The service account: the broker, proxies and front-ends run as it (they need no privilege),
# and each helper's network half drops to it (privilege separation: only its launcher keeps
# root). The testbed makes no account of its own; daemon exists on every Debian system and
# owns nothing the grid uses. It gets the host keys and DIR/run (databases, port files).
readonly SERVICE_USER=daemon
readonly USER_PROXY_HOURS=168                  # the user's RFC 3820 proxy lives a week
readonly NODE_SLOTS=4                          # slots each node offers its front-end
readonly SERVICE_WAIT_TENTHS=300               # a service must be ready/registered within 30 s
readonly UNIX_PATH_MAX=107                     # sun_path holds 108 bytes with the NUL
# Host `user` is a cluster of its own (open, one node, its own front-end): mpirun runs there, and
# orted of every site, the closed one included, must reach its listeners through the broker.
readonly USER_HOST=user USER_CLUSTER=user

# Record one line of DIR/services: daemon host pid-file-or-dash note.
tb_service_note() { printf '%s\t%s\t%s\t%s\n' "$@" >>"$DIR/services"; }

tb_ca() {
	"$CA_TOOL" "$@" >>"$DIR/log/ca.log" 2>&1 || die "qcg-ca $1 failed (log: $DIR/log/ca.log)"
}

# Where host $1's certificate and key live (DIR/certs/<base>-{cert,key}.pem). Host `user`
# gets host-user: DIR/certs/user-*.pem are the test user's own credentials.
tb_cert_base() {
	if [[ $1 == "$USER_HOST" ]]; then printf '%s/certs/host-%s' "$DIR" "$1"
	else printf '%s/certs/%s' "$DIR" "$1"; fi
}

# Issue host $1's certificate for addresses $2... (once).
tb_host_cert() {
	local h=$1 a ips=() base
	shift
	base=$(tb_cert_base "$h")
	[[ -f $base-cert.pem ]] && return 0
	for a in "$@"; do ips+=(--ip "$a"); done
	tb_ca host --dir "$DIR/ca" --name "$h" "${ips[@]}" --out "$base"
}

# The CA, the user's certificate and proxy, and a host certificate for every daemon host.
tb_make_credentials() {
	local name role site policy wan lan addrs
	mkdir -p "$DIR/certs"
	tb_ca init --dir "$DIR/ca"
	tb_ca user --dir "$DIR/ca" --name "$USER_NAME" --out "$DIR/certs/user"
	tb_ca proxy --cert "$DIR/certs/user-cert.pem" --key "$DIR/certs/user-key.pem" \
		--out "$DIR/certs/user-proxy.pem" --hours "$USER_PROXY_HOURS"
	"$CA_TOOL" grid-mapfile-line "$DIR/certs/user-cert.pem" "$USER_ACCOUNT" \
		>"$DIR/etc/grid-mapfile" || die "qcg-ca grid-mapfile-line failed"
	tbfs_users_credentials # up --users N: users 2..N, each mapped to an account of its own
	while IFS=$'\t' read -r name role site policy wan lan; do
		addrs=()
		[[ $wan == - ]] || addrs+=("$wan")
		[[ $lan == - ]] || addrs+=("$lan")
		case $role in broker | proxy | gw | node | user) tb_host_cert "$name" "${addrs[@]}" ;; esac
	done < <(tb_rows)
}

# Print the [tls] section of host $1's configuration (lib/tls.h reads it).
tb_tls_conf() {
	local base
	base=$(tb_cert_base "$1")
	genconf_tls "$base-cert.pem" "$base-key.pem" "$DIR/ca/certificates"
}

# Whether gateway $1 (policy $2) runs a proxy of its own.
tb_gw_has_proxy() { [[ $FRONTEND_PROXY == 1 && $2 == closed && -n $PROXY_BIN ]]; }

# Give the service account what daemon $1 on host $2 reads and writes after it became that
# account: its host key and DIR/run; die when it still cannot reach them (a --dir below a
# directory closed to it).
tb_service_account_files() {
	local name=$1 key
	key=$(tb_cert_base "$2")-key.pem
	chmod o+x "$DIR"
	chown "$SERVICE_USER" "$key" "$DIR/run"
	setpriv --reuid="$SERVICE_USER" --regid="$(id -g "$SERVICE_USER")" --clear-groups \
		test -r "$key" -a -r "$DIR/etc/$name.conf" -a -w "$DIR/run" ||
		die "$SERVICE_USER cannot reach the files of $name under $DIR: choose a --dir it can reach"
}

# Set TB_SERVICE_AS to the command prefix daemon $1 starts under. A helper starts as root and
# drops to the service account itself; the others run as it from the start, with no capability
# and no_new_privs. `up` and `restart` both start daemons through it.
tb_service_as() {
	TB_SERVICE_AS=()
	[[ $1 == helper-* ]] || tbs_service_as_root "$1" ||
		TB_SERVICE_AS=(setpriv --reuid="$SERVICE_USER" --regid="$(id -g "$SERVICE_USER")"
			--clear-groups --inh-caps=-all --bounding-set=-all --no-new-privs)
}

# Start daemon $1 from program $2 on host $3 with DIR/etc/$1.conf (and extra arguments).
tb_service_start() {
	local name=$1 bin=$2 h=$3
	shift 3
	tb_service_account_files "$name" "$h"
	tb_service_as "$name"
	tb_spawn "$name" "$h" "${TB_SERVICE_AS[@]}" "$bin" --config "$DIR/etc/$name.conf" "$@"
	tb_service_note "$name" "$h" "$DIR/pids/$name.pid" started
}

# The broker's ACL: each gateway is its site's front-end, proxy hosts (and gateways running a
# proxy) are proxies, the broker itself may read. Exact DNs: nothing else gets a role.
tb_broker_acl() {
	local name role site policy wan lan
	printf '# written by qcg-testbed: role "DN pattern" (lib/acl.h)\n'
	while IFS=$'\t' read -r name role site policy wan lan; do
		case $role in
		broker) genconf_acl_line broker "$(genconf_host_dn "$name")" ;;
		user) genconf_acl_line frontend "$(genconf_host_dn "$name")" ;;
		proxy) genconf_acl_line proxy "$(genconf_host_dn "$name")" ;;
		gw)
			genconf_acl_line frontend "$(genconf_host_dn "$name")"
			tb_gw_has_proxy "$name" "$policy" && genconf_acl_line proxy "$(genconf_host_dn "$name")"
			;;
		esac
	done < <(tb_rows)
}

tb_start_broker() {
	local h=$1 addr=$2
	tb_broker_acl >"$DIR/etc/broker.acl"
	{
		genconf_header qcg-testbed 'README.md "Running a broker"'
		# Workers for every front-end's kept-alive pool and long poll, and every proxy's
		# (qcg-genconf.sh says why; bench/net measured the starvation without them).
		genconf_broker "$addr:$BROKER_PORT" "$(genconf_broker_workers "$SITES" "$PROXIES")" \
			"$DIR/run/broker.db" "$DIR/etc/broker.acl" "$DIR/etc/grid-mapfile"
		tb_tls_conf "$h"
	} >"$DIR/etc/broker.conf"
	tb_service_start broker "$BROKER_BIN" "$h" --port-file "$DIR/run/broker.port"
	tb_wait_until broker "$DIR/pids/broker.pid" listen "$SERVICE_WAIT_TENTHS" \
		test -s "$DIR/run/broker.port"
}

# Proxy $1 on host $2: relay port on $3, advertised as $4 (also its control address), serving
# networks $5 for cluster $6 ("" on the WAN). Statistics: the grid's services and the user.
tb_start_proxy() {
	local name=$1 h=$2 listen=$3 advertise=$4 networks=$5 cluster=$6
	{
		genconf_header qcg-testbed services/proxy/proxy_config.h
		genconf_proxy "$listen:$PROXY_PORT" "$DIR/run/$name.ready" "$BROKER_URL" "$advertise" \
			"$networks" "$cluster" "$advertise:$PROXY_CONTROL_PORT" "$DIR/etc/broker.acl" \
			"$DIR/etc/grid-mapfile"
		tb_tls_conf "$h"
	} >"$DIR/etc/$name.conf"
	tb_service_start "$name" "$PROXY_BIN" "$h"
}

# The [frontend] lines that declare site $1's cluster: policy $2, gateway WAN address $3,
# site address $4 (a /24's .1).
tb_frontend_cluster() {
	local site=$1 policy=$2 wan=$3 lan=$4 networks public="" traversal="" direct=""
	# The user host's cluster is that one address; a site's is its /24.
	if [[ $site == "$USER_CLUSTER" ]]; then networks=$wan/32; else networks=${lan%.*}.0/24; fi
	# Nodes of nat and closed sites leave through the gateway's masquerade: that address is
	# the one peers see (traversal needs it for nat).
	case $policy in nat | closed) public=$wan ;; esac
	[[ $policy != nat ]] || traversal=yes
	# A site's nodes reach their own /24 directly, as its admin would declare: connects there
	# to the job's listeners are decided on the node, with no Resolve (issue 15). Safe with
	# overlapping ranges: only listeners this front-end's own helpers registered qualify.
	[[ $site == "$USER_CLUSTER" ]] || direct=$networks
	genconf_frontend_cluster "$site" "$policy" "$networks" "$public" "$traversal" "$direct"
}

# The nodes of cluster $1: a site's nodes, or the user host alone.
tb_cluster_nodes() {
	if [[ $1 == "$USER_CLUSTER" ]]; then echo "$USER_HOST"; return; fi
	tb_rows node | awk -F'\t' -v s="$1" '$3 == s { print $1 }'
}

# The host of cluster $1's front-end: its site's gateway, or the user host itself.
tb_cluster_frontend_host() {
	if [[ $1 == "$USER_CLUSTER" ]]; then echo "$USER_HOST"; else echo "gw-$1"; fi
}

# The front-end of site $2 on gateway $1 (WAN address $4, site address $5, policy $3).
tb_start_frontend() {
	local gw=$1 site=$2 policy=$3 wan=$4 lan=$5 name="frontend-$2" node
	{
		printf '# written by qcg-testbed: role "DN pattern" (lib/acl.h)\n'
		for node in $(tb_cluster_nodes "$site"); do
			genconf_acl_line helper "$(genconf_host_dn "$node")"
		done
	} >"$DIR/etc/$name.acl"
	{
		genconf_header qcg-testbed services/frontend/fe_config.h
		genconf_frontend "0.0.0.0:$FRONTEND_PORT" "$(genconf_url "$gw" "$FRONTEND_PORT")" \
			"$BROKER_URL"
		tb_frontend_cluster "$site" "$policy" "$wan" "$lan"
		genconf_frontend_access "$DIR/etc/$name.acl" "$DIR/etc/grid-mapfile"
		tbs_frontend_cluster "$site"
		genconf_frontend_nodes
		for node in $(tb_cluster_nodes "$site"); do
			genconf_frontend_node "$node" "$(genconf_url "$node" "$HELPER_PORT")" "$NODE_SLOTS" \
				"$(genconf_host_dn "$node")"
		done
		tb_tls_conf "$gw"
	} >"$DIR/etc/$name.conf"
	tb_service_start "$name" "$FRONTEND_BIN" "$gw" --port-file "$DIR/run/$name.port"
}

# The helper of node $1 of site $2 (policy $4) at address $3; its front-end is its gateway's.
tb_start_helper() {
	local node=$1 site=$2 addr=$3 policy=$4 name="helper-$1" sock="$DIR/run/helper-$1.sock" fe
	local range=""
	[[ $policy != port-range:* ]] || range=${policy#port-range:}
	((${#sock} <= UNIX_PATH_MAX)) ||
		die "the helper socket $sock is longer than $UNIX_PATH_MAX bytes: choose a shorter --dir"
	fe=$(tb_cluster_frontend_host "$site")
	genconf_acl_line frontend "$(genconf_host_dn "$fe")" >"$DIR/etc/$name.acl"
	# Jobs the helper did not launch itself prove themselves with a token listed here (tests).
	: >"$DIR/etc/$name.tokens"
	{
		genconf_header qcg-testbed services/helper/helper_config.c
		# Everything runs as root in a testbed: the helpers may launch as root.
		genconf_helper "$node" "$site" "$addr" "$(genconf_url "$fe" "$FRONTEND_PORT")" \
			"$DIR/etc/$name.acl" "$addr:$HELPER_PORT" "$sock" "$DIR/etc/$name.tokens" yes "$range"
		genconf_helper_privsep "$SERVICE_USER" "$DIR/etc/grid-mapfile"
		tbfs_helper_socket_group # up --users N: the job accounts reach the local API
		tb_tls_conf "$node"
	} >"$DIR/etc/$name.conf"
	tb_service_start "$name" "$HELPER_BIN" "$node" --port-file "$DIR/run/$name.port"
}

# Start the daemons of role $1 (proxy, gw or node), all at once, then wait for each.
tb_start_group() {
	local want=$1 name role site policy wan lan started=()
	while IFS=$'\t' read -r name role site policy wan lan; do
		case $want:$role in
		proxy:proxy)
			tb_start_proxy "proxy-$name" "$name" "$wan" "$wan" 0.0.0.0/0 ""
			started+=("proxy-$name:$DIR/run/proxy-$name.ready")
			;;
		proxy:gw)
			tb_gw_has_proxy "$name" "$policy" || continue
			tb_start_proxy "proxy-$name" "$name" 0.0.0.0 "$wan" "${lan%.*}.0/24,0.0.0.0/0" "$site"
			started+=("proxy-$name:$DIR/run/proxy-$name.ready")
			;;
		gw:gw)
			tb_start_frontend "$name" "$site" "$policy" "$wan" "$lan"
			started+=("frontend-$site:$DIR/run/frontend-$site.port")
			;;
		gw:user | node:user)
			# up --workstation: host user runs no qcg service (mpirun runs inside the job).
			((${WORKSTATION:-0})) && continue
			;;&
		gw:user)
			tb_start_frontend "$name" "$USER_CLUSTER" open "$wan" "$wan"
			started+=("frontend-$USER_CLUSTER:$DIR/run/frontend-$USER_CLUSTER.port")
			;;
		node:user)
			tb_start_helper "$name" "$USER_CLUSTER" "$wan" open
			started+=("helper-$name:$DIR/run/helper-$name.port")
			;;
		node:node)
			tb_start_helper "$name" "$site" "$lan" "$policy"
			started+=("helper-$name:$DIR/run/helper-$name.port")
			;;
		esac
	done < <(tb_rows)
	local s
	for s in "${started[@]}"; do
		tb_wait_until "${s%%:*}" "$DIR/pids/${s%%:*}.pid" listen "$SERVICE_WAIT_TENTHS" \
			test -s "${s#*:}"
	done
}

# Wait until every proxy and front-end has registered with the broker (their logs say so).
tb_wait_registrations() {
	local svc h pidf what
	while IFS=$'\t' read -r svc h pidf what; do
		case $svc in proxy-* | frontend-*) ;; *) continue ;; esac
		tb_wait_until "$svc" "$pidf" "register with the broker" "$SERVICE_WAIT_TENTHS" \
			grep -q 'registered with' "$DIR/log/$svc.log"
	done <"$DIR/services"
}

# The broker, the proxies, a front-end per gateway (and the user host's own), a helper per node
# (and the user host's), in that order, each on its host with a certificate from qcg-ca; `up`
# returns once the front-ends and proxies have registered with the broker.
tb_services_up() {
	local prog var
	: >"$DIR/services"
	if [[ $SERVICES == 0 ]]; then
		tb_service_note services - - "not started (--no-services)"
		return
	fi
	CA_TOOL=$(tb_find_bin qcg-ca) BROKER_BIN=$(tb_find_bin qcg-broker)
	PROXY_BIN=$(tb_find_bin qcg-proxy) FRONTEND_BIN=$(tb_find_bin qcg-frontend)
	HELPER_BIN=$(tb_find_bin qcg-helper)
	BROKER_URL="https://broker:$BROKER_PORT/"
	for prog in qcg-ca:CA_TOOL qcg-broker:BROKER_BIN; do
		var=${prog#*:}
		[[ -n ${!var} ]] && continue
		tb_service_note services - - "not started: ${prog%:*} not found; the network alone is up"
		return
	done
	for prog in qcg-proxy:PROXY_BIN qcg-frontend:FRONTEND_BIN qcg-helper:HELPER_BIN; do
		var=${prog#*:}
		[[ -n ${!var} ]] || tb_service_note "${prog%:*}" - - "not started: program not found"
	done
	tb_make_credentials
	tb_start_broker broker "$(tb_rows broker | cut -f5)"
	[[ -z $PROXY_BIN ]] || tb_start_group proxy
	[[ -z $FRONTEND_BIN ]] || tb_start_group gw
	[[ -z $HELPER_BIN ]] || tb_start_group node
	tb_wait_registrations
}

# DIR/env: what a client on host `user` (qcg-query, qcg-submit) needs, in shell syntax. The
# proxy certificate comes first (X509_USER_PROXY wins over /tmp/x509up_u<uid> and the rest).
tb_write_env() {
	local query site
	{
		printf '# source me: qcg-testbed %s\n' "$DIR"
		printf 'QCG_TESTBED_DIR=%q\nexport QCG_TESTBED_DIR\n' "$DIR"
		if [[ -f $DIR/certs/user-proxy.pem ]]; then
			printf 'QCG_BROKER_URL=%q\n' "https://broker:$BROKER_PORT/"
			printf 'X509_CERT_DIR=%q\n' "$DIR/ca/certificates"
			printf 'X509_USER_PROXY=%q\n' "$DIR/certs/user-proxy.pem"
			printf 'X509_USER_CERT=%q\n' "$DIR/certs/user-cert.pem"
			printf 'X509_USER_KEY=%q\n' "$DIR/certs/user-key.pem"
			printf 'export QCG_BROKER_URL X509_CERT_DIR X509_USER_PROXY X509_USER_CERT X509_USER_KEY\n'
			printf '# each site'"'"'s front-end, as the user host reaches it\n'
			printf 'QCG_TESTBED_SITES=%q\nexport QCG_TESTBED_SITES\n' \
				"$(tb_rows gw | cut -f3 | paste -sd' ')"
			for site in $(tb_rows gw | cut -f3); do
				printf 'QCG_FRONTEND_URL_%s=%q\nexport QCG_FRONTEND_URL_%s\n' "$site" \
					"https://gw-$site:$FRONTEND_PORT/" "$site"
			done
			tb_write_user_env
			query=$(tb_find_bin qcg-query)
			[[ -z $query ]] || printf 'PATH=%q:$PATH\n' "$(dirname "$query")"
		else
			printf '# services not started: no broker URL or credentials\n'
		fi
	} >"$DIR/env"
}

# libqcgnet.so of the build ($QCG_TESTBED_BIN entries) or of an installation; prints its path.
tb_find_net_lib() {
	local base cand
	local -a bases=()
	IFS=: read -r -a bases <<<"${QCG_TESTBED_BIN:-}"
	for base in "${bases[@]}" "$SCRIPT_DIR/.."; do
		[[ -n $base ]] || continue
		for cand in "$base/mpi-glue/net/.libs/libqcgnet.so" "$base/libqcgnet.so"; do
			[[ -f $cand ]] && { printf '%s\n' "$cand"; return 0; }
		done
	done
	for cand in /usr/local/lib/libqcgnet.so /usr/lib/libqcgnet.so; do
		[[ -f $cand ]] && { printf '%s\n' "$cand"; return 0; }
	done
	return 0
}

# The lines of DIR/env for a process of a job on host user (mpirun): its helper's socket, the
# token file that helper reads for jobs it did not launch, and the shim to preload.
tb_write_user_env() {
	local lib
	[[ -f $DIR/etc/helper-$USER_HOST.conf ]] || return 0
	printf '# host user is cluster %s: mpirun there reaches its helper here\n' "$USER_CLUSTER"
	printf 'QCG_USER_CLUSTER=%q\n' "$USER_CLUSTER"
	printf 'QCG_HELPER_SOCKET=%q\n' "$DIR/run/helper-$USER_HOST.sock"
	printf 'QCG_HELPER_TOKEN_FILE=%q\n' "$DIR/etc/helper-$USER_HOST.tokens"
	printf 'export QCG_USER_CLUSTER QCG_HELPER_SOCKET QCG_HELPER_TOKEN_FILE\n'
	lib=$(tb_find_net_lib)
	[[ -z $lib ]] || printf 'QCG_NET_LIB=%q\nexport QCG_NET_LIB\n' "$lib"
}

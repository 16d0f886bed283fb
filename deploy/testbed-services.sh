# shellcheck shell=bash
# testbed-services.sh: the grid's services on the testbed's hosts: the grid description
# DIR/grid.conf written from the host table, every host's files (roles, ACLs, certificates,
# configurations) generated from it by qcg-deploy, and the daemons started in order (broker,
# proxies, front-ends, helpers), each ready before the next; then the environment files for
# jobs. Sourced by qcg-testbed; uses testbed-proc.sh to run the daemons.

## Services (started only when their programs exist) ------------------------------------------
#
# `up` writes DIR/grid.conf (the format of qcg-deploy(8)) and runs `qcg-deploy generate
# --paths-in-root` on it with the testbed's CA: every host's tree is DIR/tree/<host>/ (etc/qcg,
# etc/grid-security, var/lib/qcg, run/qcg-helper), as an administrator would copy it to the
# host. DIR/etc/<daemon>.conf links to the daemon's file in its host's tree, and each daemon
# runs on its host as `PROGRAM --config FILE --port-file DIR/run/...`, in this order, each
# group ready before the next starts:
#   qcg-broker    broker       WAN address :8443; registry DIR/tree/broker/var/lib/qcg/broker.db
#   qcg-proxy     proxyK       WAN address :7300 (relay), :8446 (SOAP control)
#                 gw-<closed>  with --frontend-proxy: 0.0.0.0:7300, advertised at the gateway's
#                              WAN address, serving its site's /24 and the WAN; control :8446
#   qcg-frontend  gw-<site>    0.0.0.0:8444: helpers reach it at the site address, clients at
#                              the WAN address (the gateway's firewall admits 8444)
#   qcg-helper    each node    node address :8445; local API DIR/run/helper-<node>.sock (a link
#                              to run/qcg-helper/helper.sock in the node's tree), job tokens
#                              DIR/etc/helper-<node>.tokens (a link, option helper_tokens)
# Peers are named as in /etc/netns/*/hosts (https://broker:8443/, https://gw-a:8444/,
# https://a1:8445/), and every host certificate carries the host's name and addresses as
# subjectAltName, so TLS name checks pass whichever address a peer uses.

readonly BROKER_PORT=8443 FRONTEND_PORT=8444 HELPER_PORT=8445 PROXY_CONTROL_PORT=8446
readonly PROXY_PORT=7300
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
# Host `user` is a cluster of its own (open, one node, its own front-end): mpirun runs there, and
# orted of every site, the closed one included, must reach its listeners through the broker.
readonly USER_HOST=user USER_CLUSTER=user

# Record one line of DIR/services: daemon host pid-file-or-dash note.
tb_service_note() { printf '%s\t%s\t%s\t%s\n' "$@" >>"$DIR/services"; }

tb_ca() {
	"$CA_TOOL" "$@" >>"$DIR/log/ca.log" 2>&1 || die "qcg-ca $1 failed (log: $DIR/log/ca.log)"
}

# The CA and the test user's certificate and proxy. The hosts' certificates are qcg-deploy's
# (DIR/ca/hosts/<host>-{cert,key}.pem, copied into each host's tree).
tb_make_credentials() {
	mkdir -p "$DIR/certs"
	tb_ca init --dir "$DIR/ca"
	tb_ca user --dir "$DIR/ca" --name "$USER_NAME" --out "$DIR/certs/user"
	tb_ca proxy --cert "$DIR/certs/user-cert.pem" --key "$DIR/certs/user-key.pem" \
		--out "$DIR/certs/user-proxy.pem" --hours "$USER_PROXY_HOURS"
	tbfs_users_credentials # up --users N: users 2..N, each mapped to an account of its own
}

# The DN of the test user's certificate, as grid-mapfiles spell it.
tb_user_dn() {
	local line
	line=$("$CA_TOOL" grid-mapfile-line "$DIR/certs/user-cert.pem" "$USER_ACCOUNT") ||
		die "qcg-ca grid-mapfile-line failed"
	[[ $line =~ ^\"(/[^\"]+)\"\ ${USER_ACCOUNT}$ ]] || die "qcg-ca grid-mapfile-line printed '$line'"
	printf '%s\n' "${BASH_REMATCH[1]}"
}

# The tree qcg-deploy wrote for host $1: what the host would have at /.
tb_tree() { printf '%s/tree/%s' "$DIR" "$1"; }

# Whether gateway $1 (policy $2) runs a proxy of its own.
tb_gw_has_proxy() { [[ $FRONTEND_PROXY == 1 && $2 == closed && -n $PROXY_BIN ]]; }

# Give the service account what daemon $1 on host $2 reads and writes after it became that
# account, as an administrator does when installing the tree (the TODO of qcg-deploy says so):
# its host key, DIR/run (port files), the broker's state directory, a helper's token file and
# socket directory; die when it still cannot reach them (a --dir below a directory closed to it).
tb_service_account_files() {
	local name=$1 tree key own=()
	tree=$(tb_tree "$2")
	key=$tree/etc/grid-security/hostkey.pem
	chmod o+x "$DIR"
	own=("$key" "$DIR/run")
	case $name in
	broker) own+=("$tree/var/lib/qcg") ;;
	helper-*) own+=("$tree/run/qcg-helper")
		[[ ! -f $tree/etc/qcg/helper.tokens ]] || own+=("$tree/etc/qcg/helper.tokens") ;;
	esac
	chown "$SERVICE_USER" "${own[@]}"
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

## The grid description and qcg-deploy -----------------------------------------------------------

# The cluster and node lines of site $1 (gateway $2, policy $3, WAN address $4, site address
# $5): the site's /24, which its nodes also reach directly, as its admin would declare
# (connects there to the job's listeners are decided on the node, with no Resolve: issue 15;
# safe with overlapping ranges, as only listeners this front-end's own helpers registered
# qualify). nat and closed sites get the gateway's WAN address as public address, nat
# traversal, by qcg-deploy's defaults; Slurm sites their [cluster] keys.
tb_grid_site() {
	local site=$1 gw=$2 policy=$3 wan=$4 lan=$5 net node
	net=${lan%.*}.0/24
	# (up --no-traversal: not even for nat, so nat-to-nat connections take a WAN proxy's relay)
	local traversal=""
	[[ $policy != nat || ${NO_TRAVERSAL:-0} != 1 ]] || traversal=" traversal=no"
	printf 'cluster %s frontend=%s address=%s site_address=%s port=%s policy=%s networks=%s direct_networks=%s%s%s\n' \
		"$site" "$gw" "$wan" "$lan" "$FRONTEND_PORT" "$policy" "$net" "$net" "$traversal" \
		"$(tbs_grid_cluster_keys "$site")"
	tb_gw_has_proxy "$gw" "$policy" &&
		printf 'proxy %s address=%s listen=0.0.0.0 cluster=%s\n' "$gw" "$wan" "$site"
	for node in $(tb_rows node | awk -F'\t' -v s="$site" '$3 == s { print $1 "\t" $6 }' | tr '\t' =); do
		printf 'node %s cluster=%s address=%s port=%s slots=%s\n' "${node%%=*}" "$site" "${node#*=}" \
			"$HELPER_PORT" "$NODE_SLOTS"
	done
	return 0
}

# The grid's user lines: the test user mapped to USER_ACCOUNT, or with up --users N each user
# to the account of its own that tbfs_users_credentials wrote in DIR/etc/grid-mapfile.
tb_grid_users() {
	if ((${USERS:-1} == 1)); then
		printf 'user %s %s\n' "$USER_ACCOUNT" "$(tb_user_dn)"
		return
	fi
	local line
	while IFS= read -r line; do
		[[ $line =~ ^\"(/[^\"]+)\"\ ([a-z0-9_-]+)$ ]] ||
			die "$DIR/etc/grid-mapfile: unexpected line '$line'"
		printf 'user %s %s\n' "${BASH_REMATCH[2]}" "${BASH_REMATCH[1]}"
	done <"$DIR/etc/grid-mapfile"
}

# Write DIR/grid.conf, the grid this testbed runs in the format of qcg-deploy(8): the broker,
# the WAN proxies, each site's cluster (with a gateway proxy under --frontend-proxy) and nodes,
# host `user` as a cluster of its own (open, that one address; not with --workstation, where
# it runs no service), and the test user's grid-mapfile line. Everything runs as root in a
# testbed and the nodes share the machine's accounts: the helpers may launch as root; tests
# start jobs by hand with a token (helper_tokens).
tb_write_grid() {
	local name role site policy wan lan
	{
		printf '# written by qcg-testbed up from %s/hosts; qcg-deploy generate writes every host'"'"'s\n' "$DIR"
		printf '# files from it into %s/tree/HOST/ (see deploy/README-testbed.md).\n' "$DIR"
		# (up --users N: the job accounts reach the helpers' local API through their group)
		printf 'option urls=names service_user=%s allow_root_launch=yes helper_tokens=yes%s\n' \
			"$SERVICE_USER" "$( ((${USERS:-1} > 1)) && printf ' helper_socket_group=%s' "$TBFS_JOBS_GROUP")"
		while IFS=$'\t' read -r name role site policy wan lan; do
			case $role in
			broker) printf 'broker %s address=%s port=%s\n' "$name" "$wan" "$BROKER_PORT" ;;
			proxy) printf 'proxy %s address=%s port=%s control_port=%s\n' "$name" "$wan" \
				"$PROXY_PORT" "$PROXY_CONTROL_PORT" ;;
			gw) tb_grid_site "$site" "$name" "$policy" "$wan" "$lan" ;;
			user)
				((${WORKSTATION:-0})) && continue
				printf 'cluster %s frontend=%s address=%s listen=0.0.0.0 port=%s policy=open networks=%s/32\n' \
					"$USER_CLUSTER" "$name" "$wan" "$FRONTEND_PORT" "$wan"
				printf 'node %s cluster=%s address=%s port=%s slots=%s\n' "$name" "$USER_CLUSTER" "$wan" \
					"$HELPER_PORT" "$NODE_SLOTS" ;;
			esac
		done < <(tb_rows)
		tb_grid_users
	} >"$DIR/grid.conf"
}

# Every host's files from DIR/grid.conf by qcg-deploy generate (certificates from DIR/ca; each
# daemon's -n checks its file), then DIR/etc/<daemon>.conf, DIR/etc/helper-<node>.tokens and
# DIR/run/helper-<node>.sock as links into the trees: the names tests and `restart` use.
tb_deploy() {
	local deploy bin dirs="" name role site policy wan lan tree
	deploy=$(tb_find_bin qcg-deploy)
	[[ -n $deploy ]] || die "qcg-deploy not found (set QCG_TESTBED_BIN)"
	for bin in "$BROKER_BIN" "$PROXY_BIN" "$FRONTEND_BIN" "$HELPER_BIN"; do
		[[ -z $bin ]] || dirs+="${dirs:+ }$(dirname "$bin")"
	done
	QCG_DEPLOY_DAEMONS=$dirs "$deploy" generate --out "$DIR/tree" --ca "$DIR/ca" --paths-in-root \
		"$DIR/grid.conf" >"$DIR/log/deploy.log" 2>&1 ||
		die "qcg-deploy generate failed on $DIR/grid.conf: $(tail -n 3 "$DIR/log/deploy.log")"
	ln -sfn "$(tb_tree broker)/etc/qcg/broker.conf" "$DIR/etc/broker.conf"
	while IFS=$'\t' read -r name role site policy wan lan; do
		case $role in
		proxy) ln -sfn "$(tb_tree "$name")/etc/qcg/proxy.conf" "$DIR/etc/proxy-$name.conf" ;;
		gw)
			ln -sfn "$(tb_tree "$name")/etc/qcg/frontend-$site.conf" "$DIR/etc/frontend-$site.conf"
			tb_gw_has_proxy "$name" "$policy" &&
				ln -sfn "$(tb_tree "$name")/etc/qcg/proxy.conf" "$DIR/etc/proxy-$name.conf" ;;
		user)
			((${WORKSTATION:-0})) && continue
			ln -sfn "$(tb_tree "$name")/etc/qcg/frontend-$USER_CLUSTER.conf" \
				"$DIR/etc/frontend-$USER_CLUSTER.conf" ;;&
		node | user)
			tree=$(tb_tree "$name")
			ln -sfn "$tree/etc/qcg/helper.conf" "$DIR/etc/helper-$name.conf"
			ln -sfn "$tree/etc/qcg/helper.tokens" "$DIR/etc/helper-$name.tokens"
			ln -sfn "$tree/run/qcg-helper/helper.sock" "$DIR/run/helper-$name.sock" ;;
		esac
	done < <(tb_rows)
	return 0
}

# Start daemon $1 (a proxy: proxy-HOST) on host $2 from the file qcg-deploy wrote for it.
tb_start_proxy() { tb_service_start "$1" "$PROXY_BIN" "$2" --port-file "$DIR/run/$1.ready"; }

# --gateway-proxies K: the k-th proxy (k = 2..K) of gateway $1, proxy-$1-k on the k-th relay and
# control ports, so a relay through the gateway has another path when one dies (issue 14). An
# administrator runs one proxy per host, which is all qcg-deploy describes; this second
# instance on the same host is the testbed's failover rig, so its file is the gateway proxy's
# with the two ports moved.
tb_start_gateway_proxy() {
	local gw=$1 k=$2 name="proxy-$1-$2"
	sed -e "s/^\(listen = .*:\)$PROXY_PORT\$/\1$((PROXY_PORT + k - 1))/" \
		-e "s/^\(control_listen = .*:\)$PROXY_CONTROL_PORT\$/\1$((PROXY_CONTROL_PORT + k - 1))/" \
		"$DIR/etc/proxy-$gw.conf" >"$DIR/etc/$name.conf"
	grep -q "^listen = .*:$((PROXY_PORT + k - 1))\$" "$DIR/etc/$name.conf" &&
		grep -q "^control_listen = .*:$((PROXY_CONTROL_PORT + k - 1))\$" "$DIR/etc/$name.conf" ||
		die "$name: the gateway proxy's file has no listen/control_listen line to move"
	tb_start_proxy "$name" "$gw"
}

# The front-end of cluster $2 on host $1.
tb_start_frontend() {
	tb_service_start "frontend-$2" "$FRONTEND_BIN" "$1" --port-file "$DIR/run/frontend-$2.port"
}

# The helper of node $1.
tb_start_helper() {
	tb_service_start "helper-$1" "$HELPER_BIN" "$1" --port-file "$DIR/run/helper-$1.port"
}

# The broker, ready once it listens.
tb_start_broker() {
	tb_service_start broker "$BROKER_BIN" broker --port-file "$DIR/run/broker.port"
	tb_wait_until broker "$DIR/pids/broker.pid" listen "$SERVICE_WAIT_TENTHS" \
		test -s "$DIR/run/broker.port"
}

# Start the daemons of role $1 (proxy, gw or node), all at once, then wait for each.
tb_start_group() {
	local want=$1 name role site policy wan lan started=()
	while IFS=$'\t' read -r name role site policy wan lan; do
		case $want:$role in
		proxy:proxy)
			tb_start_proxy "proxy-$name" "$name"
			started+=("proxy-$name:$DIR/run/proxy-$name.ready")
			local k
			for ((k = 2; k <= ${GATEWAY_PROXIES:-1}; k++)); do
				tb_start_gateway_proxy "$name" "$k"
				started+=("proxy-$name-$k:$DIR/run/proxy-$name-$k.ready")
			done
			;;
		proxy:gw)
			tb_gw_has_proxy "$name" "$policy" || continue
			tb_start_proxy "proxy-$name" "$name"
			started+=("proxy-$name:$DIR/run/proxy-$name.ready")
			local k
			for ((k = 2; k <= ${GATEWAY_PROXIES:-1}; k++)); do
				tb_start_gateway_proxy "$name" "$k"
				started+=("proxy-$name-$k:$DIR/run/proxy-$name-$k.ready")
			done
			;;
		gw:gw)
			tb_start_frontend "$name" "$site"
			started+=("frontend-$site:$DIR/run/frontend-$site.port")
			;;
		gw:user | node:user)
			# up --workstation: host user runs no qcg service (mpirun runs inside the job).
			((${WORKSTATION:-0})) && continue
			;;&
		gw:user)
			tb_start_frontend "$name" "$USER_CLUSTER"
			started+=("frontend-$USER_CLUSTER:$DIR/run/frontend-$USER_CLUSTER.port")
			;;
		node:user)
			tb_start_helper "$name"
			started+=("helper-$name:$DIR/run/helper-$name.port")
			;;
		node:node)
			tb_start_helper "$name"
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
	tb_write_grid
	tb_deploy
	tb_start_broker
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

# qcg-deploy-parse.sh: the grid description parser of qcg-deploy (sourced; bash).
#
# gd_parse FILE reads a grid description, checks every line and the whole (exactly one broker,
# every node's cluster declared, no host port used twice, addresses inside the cluster's
# networks, ...) and fills the globals below. The first error ends the program with
# "qcg-deploy: FILE:LINE: what is wrong"; nothing has been written by then. What a daemon
# checks in its own file (a CIDR's syntax, say) is left to it: qcg-deploy runs each daemon's
# -n on the files written from the description.
#
#   option  KEY=VALUE...                   urls=names|addresses, service_user=, service_group=,
#                                          allow_root_launch=yes|no, helper_socket_group=
#   broker  HOST address=ADDR [port=8443] [listen=ADDR]
#   proxy   HOST address=ADDR [port=7300] [control_port=8446] [listen=ADDR] [cluster=NAME]
#   cluster NAME frontend=HOST address=ADDR policy=POLICY networks=CIDR[,CIDR...]
#           [site_address=ADDR] [public_address=ADDR] [traversal=yes|no] [port=8444] [listen=ADDR]
#           [allocator=builtin|slurm] [partition=P] [account=A] [qos=Q] [slurm_conf=PATH]
#           [pending_timeout=SECONDS]    (the last five with allocator=slurm only)
#   node    HOST cluster=NAME address=ADDR [slots=1] [port=8445]
#   user    ACCOUNT[,ACCOUNT...] DN        (the DN is the rest of the line)
#
# Globals set: OPT[], BROKER_{HOST,ADDR,PORT,LISTEN,URL}, PROXIES[] with P_{ADDR,PORT,CTRL,
# LISTEN,CLUSTER}[], CLUSTERS[] with C_{FE,ADDR,SITE,POLICY,NETS,PUBLIC,TRAV,PORT,LISTEN,NODES}[]
# and C_ALLOC[] (builtin|slurm) with C_SLURM_{PARTITION,ACCOUNT,QOS,CONF,PENDING}[],
# NODES[] with N_{CLUSTER,ADDR,SLOTS,PORT}[], USER_DNS[] with USER_ACCOUNT[], HOSTS[] (in order
# of appearance) with HOST_ADDRS[] (for its certificate), HOST_ROLES[] (broker, proxy,
# frontend:CLUSTER, node) and URL_PEERS[] (the host names its configuration uses).

readonly GD_NAME_MAX=63      # QCG_NAME_MAX in lib/model.h, without the NUL
readonly GD_DN_MAX=511       # QCG_DN_MAX, without the NUL

GD_FILE="" GD_LINE=0

gd_error() {
	if ((GD_LINE > 0)); then
		printf '%s: %s:%s: %s\n' "${PROG:-qcg-deploy}" "$GD_FILE" "$GD_LINE" "$*" >&2
	else
		printf '%s: %s: %s\n' "${PROG:-qcg-deploy}" "$GD_FILE" "$*" >&2
	fi
	exit 1
}
# An error about line $1 given explicitly (0: about the whole file, such as a missing line).
gd_error_at() { GD_LINE=$1; shift; gd_error "$@"; }

## Values --------------------------------------------------------------------------------------

gd_is_ipv4() {
	local IFS=. o
	[[ $1 =~ ^[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$ ]] || return 1
	for o in $1; do ((10#$o <= 255)) || return 1; done
}

gd_is_ipv6() { [[ $1 == *:* && $1 =~ ^[0-9A-Fa-f:.]{2,45}$ && $1 != *:::* ]]; }

# Check that key $1 holds a host address ($3 = wildcard to accept 0.0.0.0 and ::).
gd_check_addr() {
	gd_is_ipv4 "$2" || gd_is_ipv6 "$2" ||
		gd_error "$1='$2': expected an IPv4 or IPv6 address"
	[[ ${3:-} == wildcard ]] || [[ $2 != 0.0.0.0 && $2 != :: ]] ||
		gd_error "$1='$2': a wildcard is not an address peers can reach (use listen= for that)"
}

gd_check_port() {
	[[ $2 =~ ^[0-9]{1,5}$ ]] && ((10#$2 >= 1 && 10#$2 <= 65535)) ||
		gd_error "$1='$2': expected a port from 1 to 65535"
}

gd_check_int() {
	[[ $2 =~ ^[0-9]{1,6}$ ]] && ((10#$2 >= $3 && 10#$2 <= $4)) ||
		gd_error "$1='$2': expected an integer from $3 to $4"
}

gd_check_bool() { [[ $2 == yes || $2 == no ]] || gd_error "$1='$2': expected yes or no"; }

# A host name: DNS labels, what certificates (CN=host/NAME, DNS:NAME) and [nodes] keys take.
gd_check_host() {
	local label='[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?'
	[[ ${#2} -le $GD_NAME_MAX && $2 =~ ^$label(\.$label)*$ ]] ||
		gd_error "$1 '$2': expected a host name (letters, digits, '-' and '.', at most $GD_NAME_MAX)"
}

gd_check_cluster_name() {
	[[ ${#2} -le $GD_NAME_MAX && $2 =~ ^[A-Za-z0-9][A-Za-z0-9_.-]*$ ]] ||
		gd_error "$1 '$2': expected a name of letters, digits, '_', '.' and '-' (at most $GD_NAME_MAX)"
}

gd_check_policy() {
	local min max
	case $2 in
	open | nat | closed) return ;;
	port-range:*)
		[[ $2 =~ ^port-range:([0-9]{1,5})-([0-9]{1,5})$ ]] ||
			gd_error "$1='$2': expected port-range:MIN-MAX"
		min=$((10#${BASH_REMATCH[1]})) max=$((10#${BASH_REMATCH[2]}))
		((min >= 1 && max <= 65535 && min <= max)) ||
			gd_error "$1='$2': need 1 <= MIN <= MAX <= 65535"
		;;
	*) gd_error "$1='$2': expected open, nat, closed or port-range:MIN-MAX" ;;
	esac
}

gd_ipv4_int() {
	local IFS=. a b c d
	read -r a b c d <<<"$1"
	printf '%d\n' $(((10#$a << 24) | (10#$b << 16) | (10#$c << 8) | 10#$d))
}

# Whether IPv4 address $1 lies in one of the IPv4 CIDRs of list $2, which only a grid
# description can know (a daemon sees its own file). IPv6 entries are not judged, and neither is
# an entry that is no CIDR at all: the front-end's own check (qcg-frontend -n, run on the file
# written from the list) refuses that with its reason, so the list is not parsed twice here.
gd_in_networks() {
	local n a len mask
	gd_is_ipv4 "$1" || return 0
	a=$(gd_ipv4_int "$1")
	local -a list=()
	IFS=, read -r -a list <<<"$2"
	for n in "${list[@]}"; do
		[[ $n == */* && ${n#*/} =~ ^[0-9]{1,2}$ ]] && ((10#${n#*/} <= 32)) &&
			gd_is_ipv4 "${n%/*}" || return 0
		len=$((10#${n#*/}))
		mask=$(((0xffffffff << (32 - len)) & 0xffffffff))
		(((a & mask) == ($(gd_ipv4_int "${n%/*}") & mask))) && return 0
	done
	return 1
}

## Lines ---------------------------------------------------------------------------------------

# Split "key=value" words $3... into the associative array named $1, refusing keys not in the
# space-separated list $2 and repeated keys.
gd_keys() {
	local -n into=$1
	local allowed=" $2 " w k
	shift 2
	for w in "$@"; do
		[[ $w == ?*=* ]] || gd_error "'$w': expected KEY=VALUE"
		k=${w%%=*}
		[[ $allowed == *" $k "* ]] || gd_error "unknown key '$k' (expected one of:$(printf ' %s' $allowed))"
		[[ -z ${into[$k]+x} ]] || gd_error "key '$k' given twice"
		[[ -n ${w#*=} ]] || gd_error "key '$k' has an empty value"
		into[$k]=${w#*=}
	done
}

gd_require() {
	local -n from=$1
	local k
	for k in $2; do [[ -n ${from[$k]:-} ]] || gd_error "$3: missing $k="; done
}

# Record that host $1 has role $2 and addresses $3... (for its certificate).
gd_host() {
	local h=$1 role=$2 a
	shift 2
	[[ -n ${HOST_ROLES[$h]+x} ]] || { HOSTS+=("$h"); HOST_ROLES[$h]="" HOST_ADDRS[$h]=""; }
	HOST_ROLES[$h]=${HOST_ROLES[$h]:+${HOST_ROLES[$h]} }$role
	for a in "$@"; do
		[[ " ${HOST_ADDRS[$h]} " == *" $a "* ]] || HOST_ADDRS[$h]=${HOST_ADDRS[$h]:+${HOST_ADDRS[$h]} }$a
	done
}

# Claim port $2 on host $1 for what line $GD_LINE declares ($3 names it).
gd_port() {
	local key="$1:$2"
	[[ -z ${GD_PORTS[$key]:-} ]] ||
		gd_error "$3: host $1 port $2 is already taken by ${GD_PORTS[$key]}"
	GD_PORTS[$key]="$3 (line $GD_LINE)"
}

gd_option() {
	local -A kv=()
	local k
	gd_keys kv "urls service_user service_group allow_root_launch helper_socket_group helper_tokens" "$@"
	for k in "${!kv[@]}"; do
		case $k in
		urls) [[ ${kv[$k]} == names || ${kv[$k]} == addresses ]] ||
			gd_error "urls='${kv[$k]}': expected names or addresses" ;;
		allow_root_launch | helper_tokens) gd_check_bool "$k" "${kv[$k]}" ;;
		*) [[ ${kv[$k]} =~ ^[a-z_][a-z0-9_-]{0,31}$ ]] ||
			gd_error "$k='${kv[$k]}': expected a user or group name" ;;
		esac
		OPT[$k]=${kv[$k]}
	done
}

gd_broker() {
	local h=$1
	shift
	local -A kv=()
	gd_check_host broker "$h"
	[[ -z $BROKER_HOST ]] || gd_error "a second broker ($h); the first is $BROKER_HOST on line $GD_BROKER_LINE"
	gd_keys kv "address port listen" "$@"
	gd_require kv address "broker $h"
	gd_check_addr address "${kv[address]}"
	BROKER_HOST=$h BROKER_ADDR=${kv[address]} BROKER_PORT=${kv[port]:-$DEFAULT_BROKER_PORT}
	BROKER_LISTEN=${kv[listen]:-$BROKER_ADDR} GD_BROKER_LINE=$GD_LINE
	gd_check_port port "$BROKER_PORT"
	gd_check_addr listen "$BROKER_LISTEN" wildcard
	gd_port "$h" "$BROKER_PORT" "broker"
	gd_host "$h" broker "$BROKER_ADDR"
}

gd_proxy() {
	local h=$1
	shift
	local -A kv=()
	gd_check_host proxy "$h"
	[[ -z ${P_ADDR[$h]:-} ]] || gd_error "proxy $h declared twice (first on line ${P_LINE[$h]})"
	gd_keys kv "address port control_port listen cluster" "$@"
	gd_require kv address "proxy $h"
	gd_check_addr address "${kv[address]}"
	P_ADDR[$h]=${kv[address]} P_PORT[$h]=${kv[port]:-$DEFAULT_PROXY_PORT}
	P_CTRL[$h]=${kv[control_port]:-$DEFAULT_PROXY_CONTROL_PORT}
	P_LISTEN[$h]=${kv[listen]:-${kv[address]}} P_CLUSTER[$h]=${kv[cluster]:-} P_LINE[$h]=$GD_LINE
	gd_check_port port "${P_PORT[$h]}"
	gd_check_port control_port "${P_CTRL[$h]}"
	gd_check_addr listen "${P_LISTEN[$h]}" wildcard
	[[ -z ${P_CLUSTER[$h]} ]] || gd_check_cluster_name cluster "${P_CLUSTER[$h]}"
	gd_port "$h" "${P_PORT[$h]}" "proxy $h relay"
	gd_port "$h" "${P_CTRL[$h]}" "proxy $h control"
	PROXIES+=("$h")
	gd_host "$h" proxy "${P_ADDR[$h]}"
}

# Cluster $1's allocator from the keys in the array named $2 (services/frontend/allocator.h):
# builtin by default; slurm with an optional partition, account, QOS, slurm.conf and pending
# timeout, checked as the front-end checks them.
gd_cluster_allocator() {
	local c=$1 k
	local -n a=$2
	C_ALLOC[$c]=${a[allocator]:-builtin}
	C_SLURM_PARTITION[$c]=${a[partition]:-} C_SLURM_ACCOUNT[$c]=${a[account]:-}
	C_SLURM_QOS[$c]=${a[qos]:-} C_SLURM_CONF[$c]=${a[slurm_conf]:-}
	C_SLURM_PENDING[$c]=${a[pending_timeout]:-}
	case ${C_ALLOC[$c]} in
	builtin)
		for k in partition account qos slurm_conf pending_timeout; do
			[[ -z ${a[$k]:-} ]] || gd_error "$k= applies to allocator=slurm only (cluster $c uses builtin)"
		done
		return ;;
	slurm) ;;
	*) gd_error "allocator='${C_ALLOC[$c]}': expected builtin or slurm" ;;
	esac
	for k in partition account qos; do
		[[ -z ${a[$k]:-} || ( ${#a[$k]} -le 63 && ${a[$k]} =~ ^[A-Za-z0-9_.-]+$ ) ]] ||
			gd_error "$k='${a[$k]}': expected a Slurm name (letters, digits, '_', '.', '-')"
	done
	[[ -z ${a[slurm_conf]:-} || ${a[slurm_conf]} == /* ]] ||
		gd_error "slurm_conf='${a[slurm_conf]}': expected an absolute path"
	[[ -z ${a[pending_timeout]:-} ]] || gd_check_int pending_timeout "${a[pending_timeout]}" 1 25
}

gd_cluster() {
	local c=$1 fe
	shift
	local -A kv=()
	gd_check_cluster_name cluster "$c"
	[[ -z ${C_FE[$c]:-} ]] || gd_error "cluster $c declared twice (first on line ${C_LINE[$c]})"
	gd_keys kv "frontend address policy networks site_address public_address traversal port listen \
allocator partition account qos slurm_conf pending_timeout direct_networks" "$@"
	gd_require kv "frontend address policy networks" "cluster $c"
	fe=${kv[frontend]}
	gd_check_host frontend "$fe"
	gd_check_addr address "${kv[address]}"
	gd_check_policy policy "${kv[policy]}"
	[[ -z ${kv[site_address]:-} ]] || gd_check_addr site_address "${kv[site_address]}"
	[[ -z ${kv[public_address]:-} ]] || gd_check_addr public_address "${kv[public_address]}"
	[[ -z ${kv[traversal]:-} ]] || gd_check_bool traversal "${kv[traversal]}"
	C_FE[$c]=$fe C_ADDR[$c]=${kv[address]} C_SITE[$c]=${kv[site_address]:-${kv[address]}}
	C_POLICY[$c]=${kv[policy]} C_NETS[$c]=${kv[networks]} C_PORT[$c]=${kv[port]:-$DEFAULT_FRONTEND_PORT}
	gd_check_port port "${C_PORT[$c]}"
	# Nodes of nat and closed clusters leave through the gateway's masquerade: by default
	# that is the front-end's address, the one peers see (traversal needs it for nat).
	C_PUBLIC[$c]=${kv[public_address]:-}
	case ${kv[policy]} in nat | closed) C_PUBLIC[$c]=${C_PUBLIC[$c]:-${kv[address]}} ;; esac
	C_TRAV[$c]=${kv[traversal]:-}
	# Networks the nodes reach directly (issue 15); each CIDR is judged by qcg-frontend -n.
	C_DIRECT[$c]=${kv[direct_networks]:-}
	[[ ${kv[policy]} != nat ]] || C_TRAV[$c]=${C_TRAV[$c]:-yes}
	# With a site address the front-end serves two networks: listen on both.
	C_LISTEN[$c]=${kv[listen]:-${kv[address]}}
	[[ -n ${kv[listen]:-} || -z ${kv[site_address]:-} ]] || C_LISTEN[$c]=0.0.0.0
	gd_check_addr listen "${C_LISTEN[$c]}" wildcard
	[[ -z ${kv[site_address]:-} ]] || gd_in_networks "${kv[site_address]}" "${kv[networks]}" ||
		gd_error "site_address=${kv[site_address]} is not inside networks=${kv[networks]}"
	gd_cluster_allocator "$c" kv
	C_LINE[$c]=$GD_LINE C_NODES[$c]=""
	gd_port "$fe" "${C_PORT[$c]}" "front-end of $c"
	CLUSTERS+=("$c")
	gd_host "$fe" "frontend:$c" "${kv[address]}" ${kv[site_address]:-}
}

gd_node() {
	local n=$1
	shift
	local -A kv=()
	gd_check_host node "$n"
	[[ -z ${N_ADDR[$n]:-} ]] || gd_error "node $n declared twice (first on line ${N_LINE[$n]})"
	gd_keys kv "cluster address slots port" "$@"
	gd_require kv "cluster address" "node $n"
	gd_check_addr address "${kv[address]}"
	N_CLUSTER[$n]=${kv[cluster]} N_ADDR[$n]=${kv[address]} N_SLOTS[$n]=${kv[slots]:-1}
	N_PORT[$n]=${kv[port]:-$DEFAULT_HELPER_PORT} N_LINE[$n]=$GD_LINE
	gd_check_int slots "${N_SLOTS[$n]}" 1 "$MAX_SLOTS"
	gd_check_port port "${N_PORT[$n]}"
	gd_port "$n" "${N_PORT[$n]}" "helper of node $n"
	NODES+=("$n")
	gd_host "$n" node "${N_ADDR[$n]}"
}

# user ACCOUNTS DN...: the DN is the rest of the line ($3...) joined by single spaces.
gd_user() {
	local accounts=$1 dn
	shift
	(($#)) || gd_error "user $accounts: expected 'user ACCOUNT[,ACCOUNT...] DN'"
	dn="$*"
	[[ $accounts =~ ^[a-z_][a-z0-9_.-]{0,31}(,[a-z_][a-z0-9_.-]{0,31})*$ ]] ||
		gd_error "user '$accounts': expected account names separated by commas"
	[[ $dn == /*=* && ${#dn} -le $GD_DN_MAX && $dn != *'"'* ]] ||
		gd_error "user $accounts: '$dn' is not a DN like /O=Grid/OU=qcg-ompi/CN=Jane Doe"
	[[ -z ${USER_ACCOUNT[$dn]:-} ]] || gd_error "user DN '$dn' mapped twice"
	USER_DNS+=("$dn")
	USER_ACCOUNT[$dn]=$accounts
}

gd_line() {
	local -a w=()
	read -r -a w <<<"$1"
	(($# > 0 && ${#w[@]} > 0)) || return 0
	[[ ${w[0]} != \#* ]] || return 0
	((${#w[@]} >= 2)) || gd_error "'${w[0]}' needs a name (or, for option, KEY=VALUE)"
	case ${w[0]} in
	option) gd_option "${w[@]:1}" ;;
	broker) gd_broker "${w[@]:1}" ;;
	proxy) gd_proxy "${w[@]:1}" ;;
	cluster) gd_cluster "${w[@]:1}" ;;
	node) gd_node "${w[@]:1}" ;;
	user) gd_user "${w[@]:1}" ;;
	*) gd_error "unknown keyword '${w[0]}' (expected option, broker, proxy, cluster, node or user)" ;;
	esac
}

## The whole -----------------------------------------------------------------------------------

gd_init() {
	declare -gA OPT=([urls]=names [service_user]=qcg [service_group]="" [allow_root_launch]=no
		[helper_socket_group]="" [helper_tokens]=no)
	declare -gA P_ADDR=() P_PORT=() P_CTRL=() P_LISTEN=() P_CLUSTER=() P_LINE=()
	declare -gA C_FE=() C_ADDR=() C_SITE=() C_POLICY=() C_NETS=() C_PUBLIC=() C_TRAV=()
	declare -gA C_PORT=() C_LISTEN=() C_NODES=() C_LINE=() C_DIRECT=()
	declare -gA C_ALLOC=() C_SLURM_PARTITION=() C_SLURM_ACCOUNT=() C_SLURM_QOS=() C_SLURM_CONF=()
	declare -gA C_SLURM_PENDING=()
	declare -gA N_CLUSTER=() N_ADDR=() N_SLOTS=() N_PORT=() N_LINE=()
	declare -gA USER_ACCOUNT=() HOST_ADDRS=() HOST_ROLES=() URL_PEERS=() GD_PORTS=()
	declare -ga PROXIES=() CLUSTERS=() NODES=() USER_DNS=() HOSTS=()
	BROKER_HOST="" BROKER_ADDR="" BROKER_PORT="" BROKER_LISTEN="" BROKER_URL="" GD_BROKER_LINE=0
}

# The host part of a URL to host $1 (whose address, as the caller reaches it, is $2).
url_host() { if [[ ${OPT[urls]} == names ]]; then printf '%s\n' "$1"; else printf '%s\n' "$2"; fi; }

# Checks that need the whole file: references, counts, addresses inside networks.
gd_check_whole() {
	local c n h
	[[ -n $BROKER_HOST ]] || gd_error_at 0 "no broker line (expected: broker HOST address=ADDR)"
	((${#CLUSTERS[@]})) || gd_error_at 0 "no cluster line (expected: cluster NAME frontend=HOST ...)"
	for n in "${NODES[@]}"; do
		c=${N_CLUSTER[$n]}
		[[ -n ${C_FE[$c]:-} ]] || gd_error_at "${N_LINE[$n]}" "node $n: cluster '$c' is not declared"
		gd_in_networks "${N_ADDR[$n]}" "${C_NETS[$c]}" || gd_error_at "${N_LINE[$n]}" \
			"node $n: address ${N_ADDR[$n]} is not inside cluster $c's networks=${C_NETS[$c]}"
		C_NODES[$c]=${C_NODES[$c]:+${C_NODES[$c]} }$n
	done
	for c in "${CLUSTERS[@]}"; do
		[[ -n ${C_NODES[$c]} ]] || gd_error_at "${C_LINE[$c]}" "cluster $c has no node line"
		(($(wc -w <<<"${C_NODES[$c]}") <= MAX_NODES_PER_CLUSTER)) || gd_error_at "${C_LINE[$c]}" \
			"cluster $c has more than $MAX_NODES_PER_CLUSTER nodes (one front-end's limit)"
	done
	for h in "${PROXIES[@]}"; do
		c=${P_CLUSTER[$h]}
		[[ -z $c || -n ${C_FE[$c]:-} ]] || gd_error_at "${P_LINE[$h]}" "proxy $h: cluster '$c' is not declared"
	done
	[[ -n ${OPT[service_group]} ]] || OPT[service_group]=${OPT[service_user]}
	BROKER_URL=$(genconf_url "$(url_host "$BROKER_HOST" "$BROKER_ADDR")" "$BROKER_PORT")
	# The names each host's configuration uses, which it must resolve (urls=names).
	for h in "${PROXIES[@]}"; do URL_PEERS[$h]+=" $BROKER_HOST"; done
	for c in "${CLUSTERS[@]}"; do
		URL_PEERS[${C_FE[$c]}]+=" $BROKER_HOST ${C_NODES[$c]}"
		for n in ${C_NODES[$c]}; do URL_PEERS[$n]+=" ${C_FE[$c]}"; done
	done
}

# Parse grid description $1 into the globals above; exit with a message on the first error.
gd_parse() {
	local line n=0
	GD_FILE=$1
	[[ -f $1 && -r $1 ]] || { printf '%s: %s: cannot read the grid description\n' "${PROG:-qcg-deploy}" "$1" >&2; exit 1; }
	gd_init
	while IFS= read -r line || [[ -n $line ]]; do
		n=$((n + 1)) GD_LINE=$n
		((n <= MAX_LINES)) || gd_error "more than $MAX_LINES lines"
		((${#line} <= MAX_LINE_LEN)) || gd_error "line longer than $MAX_LINE_LEN characters"
		[[ $line != *$'\r'* ]] || gd_error "carriage return in line (DOS line ends?)"
		gd_line "$line"
	done <"$1"
	GD_LINE=$n
	gd_check_whole
}

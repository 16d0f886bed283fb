# qcg-genconf.sh: the one place that writes qcg-ompi service configurations.
#
# Sourced (bash) by deploy/qcg-deploy and deploy/qcg-testbed. Every function prints one file, or
# one section of one, on stdout from explicit arguments; none reads globals or touches the file
# system, so both callers get exactly the same keys. The keys are those the daemons' parsers take:
#   [broker]    services/broker/broker_main.c and README.md "Running a broker"
#   [proxy]     services/proxy/proxy_config.h
#   [frontend]  services/frontend/fe_config.h (doc/qcg-frontend.conf.example)
#   [helper]    services/helper/helper_config.c (doc/qcg-helper.conf.example)
#   [tls]       lib/tls.h
#   tunables    lib/soap_server.h (every SOAP service's section), lib/daemon_args.h (log_level)
#   ACL files   lib/acl.h: lines `role "DN pattern"`
# A change of a daemon's keys is made here, once.

readonly GENCONF_DN_BASE=/O=Grid/OU=qcg-ompi/CN=host   # qcg-ca's host certificate subjects

# The DN of host $1's certificate as qcg-ca issues it.
genconf_host_dn() { printf '%s/%s\n' "$GENCONF_DN_BASE" "$1"; }

# "https://HOST:PORT/", with an IPv6 literal in brackets.
genconf_url() {
	case $1 in
	*:*) printf 'https://[%s]:%s/\n' "$1" "$2" ;;
	*) printf 'https://%s:%s/\n' "$1" "$2" ;;
	esac
}

# "HOST:PORT", with an IPv6 literal in brackets (the daemons' listen syntax).
genconf_hostport() {
	case $1 in
	*:*) printf '[%s]:%s\n' "$1" "$2" ;;
	*) printf '%s:%s\n' "$1" "$2" ;;
	esac
}

# The header line of a generated file: $1 the generator, $2 where the keys are documented.
genconf_header() { printf '# written by %s (keys: %s)\n' "$1" "$2"; }

# One ACL line: role $1 for the exact DN $2.
genconf_acl_line() { printf '%s "%s"\n' "$1" "$2"; }

# [tls]: certificate $1, key $2 (mode 0600), CA directory $3 (hash-named CAs and CRLs).
genconf_tls() {
	printf '[tls]\ncert = %s\nkey = %s\nca_dir = %s\n' "$1" "$2" "$3"
}

# [broker]: listen $1 (HOST:PORT), worker threads $2, SQLite database $3, ACL $4, grid-mapfile $5.
genconf_broker() {
	printf '[broker]\nlisten = %s\nworkers = %d\n' "$1" "$2"
	printf 'database = %s\nacl = %s\n' "$3" "$4"
	printf 'gridmap = %s\n' "$5"
}

# The broker's worker threads for $1 front-ends and $2 proxies. Idle kept-alive connections wait
# off the workers (lib/soap_server.c), but a long poll (WaitEvents) holds one while it waits:
# each front-end and each proxy keeps one open. Room for those, and 16 for the calls themselves.
genconf_broker_workers() { printf '%d\n' $((16 + $1 + $2)); }

# [proxy]: relay listen $1 (HOST:PORT), port file $2 ("" for none), broker URL $3, advertised
# host $4, served networks $5 (CIDRs; 0.0.0.0/0 is the WAN), cluster $6 ("" on the WAN), SOAP
# control listen $7 (HOST:PORT), statistics readers' ACL $8 and grid-mapfile $9.
genconf_proxy() {
	printf '[proxy]\nlisten = %s\n' "$1"
	[[ -z $2 ]] || printf 'port_file = %s\n' "$2"
	printf 'broker = %s\nadvertise = %s\n' "$3" "$4"
	printf 'networks = %s\ncluster = %s\n' "$5" "$6"
	printf 'control_listen = %s\n' "$7"
	printf 'acl = %s\ngridmap = %s\n' "$8" "$9"
}

# The [frontend] lines that declare a cluster: name $1, policy $2 (open, nat, closed or
# port-range:MIN-MAX), private networks $3 (CIDRs), public address $4 ("" for none), whether
# traversal is allowed $5 (yes, no, or "" for the daemon's default), networks its nodes reach
# directly $6 (CIDRs: connects there need no Resolve, issue 15; "" or absent for none).
genconf_frontend_cluster() {
	local name=$1 policy=$2 networks=$3 public=$4 traversal=$5 direct=${6:-} range
	printf 'cluster = %s\npolicy = %s\n' "$name" "${policy%%:*}"
	if [[ $policy == port-range:* ]]; then
		range=${policy#port-range:}
		printf 'port_min = %s\nport_max = %s\n' "${range%-*}" "${range#*-}"
	fi
	printf 'private_networks = %s\n' "$networks"
	[[ -z $public ]] || printf 'public_address = %s\n' "$public"
	[[ -z $traversal ]] || printf 'traversal_allowed = %s\n' "$traversal"
	[[ -z $direct ]] || printf 'direct_networks = %s\n' "$direct"
	return 0
}

# [frontend] without the cluster lines: listen $1 (HOST:PORT), endpoint URL the broker records
# $2 ("" for the one the listen address gives), broker URL $3; genconf_frontend_cluster's output follows, then genconf_frontend_access.
genconf_frontend() {
	printf '[frontend]\nlisten = %s\n' "$1"
	# none: the daemon makes it from the bound port (a test's front-end listens on port 0)
	[[ -z $2 ]] || printf 'endpoint = %s\n' "$2"
	printf 'broker = %s\n' "$3"
}

# The front-end's helpers' ACL $1 and users' grid-mapfile $2.
genconf_frontend_access() { printf 'acl = %s\ngridmap = %s\n' "$1" "$2"; }

# The [nodes] section header; genconf_frontend_node lines follow.
genconf_frontend_nodes() { printf '[nodes]\n'; }

# One [nodes] line: node $1 with helper URL $2, $3 slots, helper certificate DN $4.
genconf_frontend_node() { printf '%s = %s %s %s\n' "$1" "$2" "$3" "$4"; }

# [helper]: node $1 of cluster $2 at address $3, front-end URL $4, ACL $5, SOAP listen $6
# (HOST:PORT), local API socket $7, token file $8 ("" for none), allow_root_launch $9 (yes|no),
# rendezvous port range ${10} (MIN-MAX, "" for any port).
genconf_helper() {
	printf '[helper]\nnode = %s\ncluster = %s\naddress = %s\n' "$1" "$2" "$3"
	printf 'frontend = %s\nacl = %s\n' "$4" "$5"
	printf 'listen = %s\nworkers = 4\n' "$6"
	printf 'socket = %s\n' "$7"
	[[ -z $8 ]] || printf 'token_file = %s\n' "$8"
	printf 'allow_root_launch = %s\n' "$9"
	# A reversal's target connects to the initiator's rendezvous port: inside a port-range
	# site only the range gets through the gateway.
	[[ -z ${10} ]] || printf 'rendezvous_ports = %s\n' "${10}"
	return 0
}

# The helper's privilege separation: its network half drops to account $1, and its launcher
# starts processes only as the accounts of grid-mapfile $2 (lines of [helper]).
genconf_helper_privsep() {
	printf 'user = %s\ngrid_mapfile = %s\n' "$1" "$2"
}

# Tunables of the SOAP server a service's section holds (lib/soap_server.h): worker threads $1,
# io_timeout $2 (seconds), max_message $3 (bytes), max_keep_alive $4 (requests on one
# connection; optional); "" leaves the daemon's default.
genconf_soap_tunables() {
	[[ -z $1 ]] || printf 'workers = %s\n' "$1"
	[[ -z $2 ]] || printf 'io_timeout = %s\n' "$2"
	[[ -z $3 ]] || printf 'max_message = %s\n' "$3"
	[[ -z ${4:-} ]] || printf 'max_keep_alive = %s\n' "$4"
	return 0
}

# A service's log_level $1 (error, warn, info or debug; lib/daemon_args.h).
genconf_log_level() { printf 'log_level = %s\n' "$1"; }

# The [proxy] lines of a proxy run on one machine (tests, benchmarks): local control socket $1
# ("" for none), data-plane threads $2, statistics interval $3 (seconds, 0 = never).
genconf_proxy_local() {
	[[ -z $1 ]] || printf 'control = %s\n' "$1"
	printf 'threads = %s\nstats_interval = %s\n' "$2" "$3"
}

# The [control] section of a proxy's SOAP statistics service: lib/soap_server tunables as in
# genconf_soap_tunables ($1 workers, $2 io_timeout, $3 max_message).
genconf_proxy_control() {
	printf '[control]\n'
	genconf_soap_tunables "$@"
}

# The [helper] lines a test's helper adds: local API socket mode $1 (octal), rendezvous_timeout
# $2 and park_timeout $3 (seconds).
genconf_helper_local() {
	printf 'socket_mode = %s\nrendezvous_timeout = %s\npark_timeout = %s\n' "$1" "$2" "$3"
}

# The front-end's [cluster] section for allocator slurm (services/frontend/allocator.h):
# partition $1, account $2, QOS $3 (each "" for Slurm's default), SLURM_CONF $4 ("" for
# Slurm's default), pending timeout $5 seconds ("" for the front-end's default). A builtin
# site writes no [cluster] section: builtin is the default.
genconf_frontend_slurm() {
	printf '[cluster]\nallocator = slurm\n'
	[[ -z $1 ]] || printf 'partition = %s\n' "$1"
	[[ -z $2 ]] || printf 'account = %s\n' "$2"
	[[ -z $3 ]] || printf 'qos = %s\n' "$3"
	[[ -z $4 ]] || printf 'slurm_conf = %s\n' "$4"
	[[ -z $5 ]] || printf 'pending_timeout = %s\n' "$5"
	return 0
}

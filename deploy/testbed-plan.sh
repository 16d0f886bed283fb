# shellcheck shell=bash
# testbed-plan.sh: the options of `qcg-testbed up` checked and turned into the host table
# (DIR/hosts: one row per host with its role, site, policy and addresses), which every later
# step reads through tb_rows. Sourced by qcg-testbed; nothing here touches the system.

## Planning: options to a host table ---------------------------------------------------------

# Check a policy word; prints it normalised or dies naming it.
tb_check_policy() {
	local p=$1 min max
	case $p in
	open | nat | closed) printf '%s\n' "$p" ;;
	port-range:*)
		if [[ ! $p =~ ^port-range:([0-9]{1,5})-([0-9]{1,5})$ ]]; then
			usage_error "policy '$p': expected port-range:MIN-MAX"
		fi
		min=$((10#${BASH_REMATCH[1]})) max=$((10#${BASH_REMATCH[2]}))
		((min >= 1 && max <= 65535 && min <= max)) ||
			usage_error "policy '$p': need 1 <= MIN <= MAX <= 65535"
		printf 'port-range:%d-%d\n' "$min" "$max"
		;;
	*) usage_error "policy '$p': expected open, nat, closed or port-range:MIN-MAX" ;;
	esac
}

# Check that $2 is an integer in [$3, $4]; $1 names the option.
tb_check_int() {
	[[ $2 =~ ^[0-9]{1,6}$ ]] && (($2 >= $3 && $2 <= $4)) ||
		usage_error "$1 '$2': expected an integer from $3 to $4"
}

# Check that $2 is a decimal number in [$3, $4]; $1 names the option.
tb_check_number() {
	[[ $2 =~ ^[0-9]{1,6}(\.[0-9]{1,3})?$ ]] &&
		awk -v v="$2" -v lo="$3" -v hi="$4" 'BEGIN { exit !(v >= lo && v <= hi) }' ||
		usage_error "$1 '$2': expected a number from $3 to $4"
}

tb_site_letter() { printf "\\x$(printf %x $((96 + $1)))"; }

# The /24 prefix (three octets) of site k with policy p.
tb_site_net() {
	case $2 in
	nat | closed) [[ $OVERLAP == 1 ]] && { printf '%s\n' "$OVERLAP_NET"; return; } ;;
	esac
	printf '10.%d.0\n' "$1"
}

# Write DIR/hosts, the table every other step reads: name role site policy wan_addr lan_addr.
tb_plan() {
	local k n s p net
	{
		printf '# name\trole\tsite\tpolicy\twan_addr\tlan_addr\n'
		printf 'wan\twan\t-\t-\t-\t-\n'
		printf 'broker\tbroker\t-\t-\t%s.2\t-\n' "$WAN_NET"
		printf 'user\tuser\t-\t-\t%s.10\t-\n' "$WAN_NET"
		for ((k = 1; k <= PROXIES; k++)); do
			printf 'proxy%d\tproxy\t-\t-\t%s.%d\t-\n' "$k" "$WAN_NET" $((20 + k))
		done
		for ((k = 1; k <= SITES; k++)); do
			s=$(tb_site_letter "$k")
			p=${POLICY_LIST[$((k <= ${#POLICY_LIST[@]} ? k - 1 : ${#POLICY_LIST[@]} - 1))]}
			net=$(tb_site_net "$k" "$p")
			printf 'gw-%s\tgw\t%s\t%s\t%s.%d\t%s.1\n' "$s" "$s" "$p" "$WAN_NET" $((100 + k)) "$net"
			for ((n = 1; n <= NODES; n++)); do
				printf '%s%d\tnode\t%s\t%s\t-\t%s.%d\n' "$s" "$n" "$s" "$p" "$net" $((10 + n))
			done
		done
	} >"$DIR/hosts"
}

# Print the rows of the host table (no header), optionally only those of role $1.
tb_rows() {
	awk -F'\t' -v role="${1:-}" '!/^#/ && (role == "" || $2 == role)' "$DIR/hosts"
}

# Parse the options of `up` into globals.
tb_parse_up() {
	SITES=3 NODES=2 POLICIES=open,nat,closed OVERLAP=0 WAN_DELAY=5 WAN_RATE=0 PROXIES=1
	FRONTEND_PROXY=0 SERVICES=1 SEPARATE_FS=0 SLURM_RAW=""
	WORKSTATION=0 CLUSTERS_PER_SITE=1 SITE_DELAY=0.5
	GATEWAY_PROXIES=1 NO_TRAVERSAL=0
	USERS=1
	PROXY_RATE=0
	while (($#)); do
		case $1 in
		--sites) SITES=${2-}; shift ;;
		--nodes) NODES=${2-}; shift ;;
		--policies) POLICIES=${2-}; shift ;;
		--overlap) OVERLAP=1 ;;
		--wan-delay) WAN_DELAY=${2-}; shift ;;
		--wan-rate) WAN_RATE=${2-}; shift ;;
		--proxies) PROXIES=${2-}; shift ;;
		--frontend-proxy) FRONTEND_PROXY=1 ;;
		--no-services) SERVICES=0 ;;
		--separate-fs) SEPARATE_FS=1 ;;
		--workstation) WORKSTATION=1 ;;
		--gateway-proxies) GATEWAY_PROXIES=${2-}; shift ;;
		--no-traversal) NO_TRAVERSAL=1 ;;
		--users) USERS=${2-}; shift ;;
		--slurm) SLURM_RAW=${2-}; [[ -n $SLURM_RAW ]] || usage_error "--slurm needs SITES"; shift ;;
		--clusters-per-site) CLUSTERS_PER_SITE=${2-}; shift ;;
		--site-delay) SITE_DELAY=${2-}; shift ;;
		--proxy-rate) PROXY_RATE=${2-}; shift ;;
		*) usage_error "up: unknown option '$1'" ;;
		esac
		shift
	done
	tb_check_int --sites "$SITES" 1 "$MAX_SITES"
	tb_check_int --nodes "$NODES" 1 "$MAX_NODES"
	tb_check_int --proxies "$PROXIES" 0 "$MAX_PROXIES"
	tb_check_int --gateway-proxies "$GATEWAY_PROXIES" 1 "$MAX_GATEWAY_PROXIES"
	((GATEWAY_PROXIES == 1 || FRONTEND_PROXY == 1)) ||
		usage_error "--gateway-proxies $GATEWAY_PROXIES: the closed sites' gateways run proxies only with --frontend-proxy"
	tb_check_number --wan-delay "$WAN_DELAY" 0 "$MAX_DELAY_MS"
	tb_check_number --wan-rate "$WAN_RATE" 0 "$MAX_RATE_MBIT"
	tb_check_number --proxy-rate "$PROXY_RATE" 0 "$MAX_RATE_MBIT"
	tb_plan_site_groups
	local -a raw=()
	IFS=, read -r -a raw <<<"$POLICIES"
	((${#raw[@]} > 0)) || usage_error "--policies: empty list"
	POLICY_LIST=()
	local p
	for p in "${raw[@]}"; do POLICY_LIST+=("$(tb_check_policy "$p")"); done
	tbs_check_sites "$SLURM_RAW"
	tb_check_int --users "$USERS" 1 "$TBFS_MAX_USERS"
	((USERS == 1 || (SEPARATE_FS && SERVICES))) ||
		usage_error "--users $USERS needs --separate-fs (each host's accounts) and the services"
}

## Sites of several clusters (up --clusters-per-site C) ---------------------------------------
# Every cluster is what a site is without the option: a letter, a gateway with its own policy,
# front-end and nodes (a1, a2, gw-a ...), so every name stays. With C > 1, --sites N makes N*C
# such clusters and groups them in turn: a..C-th letter in site 1, the next C in site 2 ... The
# gateways of one site also share a site network (a bridge per site in the wan namespace behind
# delay-line ports of half --site-delay each), so clusters of a site are --site-delay apart and
# clusters of different sites the WAN delay. GRID_SITES is N; SITES becomes the cluster count,
# which is what every other step counts.

# Check the options and set GRID_SITES and SITES.
tb_plan_site_groups() {
	tb_check_int --clusters-per-site "$CLUSTERS_PER_SITE" 1 "$MAX_SITES"
	tb_check_number --site-delay "$SITE_DELAY" 0 "$MAX_DELAY_MS"
	GRID_SITES=$SITES
	((CLUSTERS_PER_SITE > 1)) || return 0
	SITES=$((GRID_SITES * CLUSTERS_PER_SITE))
	((SITES <= MAX_SITES)) ||
		usage_error "--sites $GRID_SITES x --clusters-per-site $CLUSTERS_PER_SITE: $SITES clusters, at most $MAX_SITES"
	# The site network routes each cluster's own /24: they must differ.
	((OVERLAP == 0)) || usage_error "--overlap cannot go with --clusters-per-site (the site network routes each cluster's own network)"
	# One delay-line port per WAN host and one more per gateway on a site network.
	local ports=$((2 + PROXIES + 2 * SITES))
	((ports <= TB_DELAYLINE_PORTS_MAX)) ||
		usage_error "$SITES clusters and $PROXIES proxies need $ports delay-line ports, at most $TB_DELAYLINE_PORTS_MAX"
}

# The site (1..GRID_SITES) of cluster k (1..SITES).
tb_cluster_site() { printf '%d\n' $((($1 - 1) / ${CLUSTERS_PER_SITE:-1} + 1)); }

# Write DIR/etc/site-links: one row per gateway on a site network: gateway, site, its address
# there (172.30.SITE.100+k/24). Empty with one cluster per site.
tb_plan_site_links() {
	local k
	{
		printf '# gateway\tsite\tsite_addr\n'
		((${CLUSTERS_PER_SITE:-1} > 1)) || return 0
		for ((k = 1; k <= SITES; k++)); do
			printf 'gw-%s\t%d\t%s.%d.%d\n' "$(tb_site_letter "$k")" "$(tb_cluster_site "$k")" \
				"$SITE_NET" "$(tb_cluster_site "$k")" $((100 + k))
		done
	} >"$DIR/etc/site-links"
}

# The rows of DIR/etc/site-links (no header).
tb_site_link_rows() { awk -F'\t' '!/^#/' "$DIR/etc/site-links" 2>/dev/null || true; }

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
	WORKSTATION=0
	USERS=1
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
		--users) USERS=${2-}; shift ;;
		--slurm) SLURM_RAW=${2-}; [[ -n $SLURM_RAW ]] || usage_error "--slurm needs SITES"; shift ;;
		*) usage_error "up: unknown option '$1'" ;;
		esac
		shift
	done
	tb_check_int --sites "$SITES" 1 "$MAX_SITES"
	tb_check_int --nodes "$NODES" 1 "$MAX_NODES"
	tb_check_int --proxies "$PROXIES" 0 "$MAX_PROXIES"
	tb_check_number --wan-delay "$WAN_DELAY" 0 "$MAX_DELAY_MS"
	tb_check_number --wan-rate "$WAN_RATE" 0 "$MAX_RATE_MBIT"
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

# shellcheck shell=bash
# testbed-net.sh: the network plumbing of `qcg-testbed up`: namespaces, veth links, bridges and
# the delay line's attachments; each gateway's NAT and stateful firewall after its policy; the
# hosts' names. Sourced by qcg-testbed; reads the host table (testbed-plan.sh).

## Building: namespaces and links --------------------------------------------------------------

# Make host $1's network namespace and its persistent UTS namespace named $1.
tb_make_ns() {
	local h=$1 ns uts
	ns=$(tb_ns "$h")
	uts="$RUNDIR/uts/$h"
	ip netns add "$ns"
	ip -n "$ns" link set lo up
	# IPv6 would add autoconfiguration chatter to every link; the testbed is IPv4 only.
	tb_nsx "$h" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	# With br_netfilter loaded, bridged frames would cross iptables; not on our bridges.
	tb_nsx "$h" sysctl -qw net.bridge.bridge-nf-call-iptables=0 2>/dev/null || true
	: >"$uts"
	unshare --uts="$uts" hostname "$h"
}

# Make sure TCP's sends cross the delay line as GSO super-frames (up to 64 KiB each, with their
# checksums left to the receiver's kernel): the delay line's cost is per frame, so with them one
# thread carries several Gbit/s, and with 1500-byte frames the whole WAN shared about 1.7.
# (veth's default; set here so that a system with other defaults builds the same testbed.)
tb_offloads_on() {
	tb_nsx "$1" ethtool -K "$2" tx on tso on gso on >/dev/null 2>&1 ||
		die "ethtool -K $2 in $1 failed (is ethtool installed?)"
}

# Attach WAN host $1 (address $2) to the WAN bridge through a delay-line port. Its uplink is
# qtb-up; in the wan namespace qtb-h-$1 faces it and qtb-w-$1 faces the bridge port qtb-b-$1.
# Appends the port to DL_PORTS ($3, the host's role, picks its rate: tb_dl_port).
tb_attach_wan() {
	local h=$1 addr=$2 role=$3
	tb_ip "$h" link add qtb-up type veth peer name "qtb-h-$h" netns "$(tb_ns wan)"
	tb_ip wan link add "qtb-w-$h" type veth peer name "qtb-b-$h"
	tb_ip wan link set "qtb-b-$h" master qtb-br
	local l
	for l in "qtb-h-$h" "qtb-w-$h" "qtb-b-$h"; do tb_ip wan link set "$l" up; done
	tb_ip "$h" addr add "$addr/24" dev qtb-up
	tb_ip "$h" link set qtb-up up
	tb_offloads_on "$h" qtb-up
	for l in "qtb-h-$h" "qtb-w-$h" "qtb-b-$h"; do tb_offloads_on wan "$l"; done
	tb_dl_port "$role" "qtb-h-$h:qtb-w-$h"
}

# Append delay-line port $2 of a WAN host of role $1 to DL_PORTS. With --proxy-rate a proxy's
# port gets that rate alone (GridMPI's trunking: k capped proxies, the sites uncapped): the
# delay line applies an option to the ports after it, so the WAN rate is set again behind it.
tb_dl_port() {
	if [[ $1 == proxy && ${PROXY_RATE:-0} != 0 ]]; then
		DL_PORTS+=(--rate "${PROXY_RATE}mbit" "$2" --rate "${WAN_RATE}mbit")
	else
		DL_PORTS+=("$2")
	fi
}

tb_build_wan() {
	local name role site policy wan lan
	tb_make_ns wan
	tb_ip wan link add qtb-br type bridge
	tb_ip wan link set qtb-br up
	DL_PORTS=()
	while IFS=$'\t' read -r name role site policy wan lan; do
		[[ $role == wan ]] || tb_make_ns "$name"
		[[ $wan == - ]] || tb_attach_wan "$name" "$wan" "$role"
	done < <(tb_rows)
}

# Put node $1 (address $2) on the bridge of its gateway $3 (site address $4).
tb_attach_node() {
	local n=$1 addr=$2 gw=$3 gwaddr=$4
	tb_ip "$n" link add qtb-eth0 type veth peer name "qtb-p-$n" netns "$(tb_ns "$gw")"
	tb_ip "$gw" link set "qtb-p-$n" master qtb-br
	tb_ip "$gw" link set "qtb-p-$n" up
	tb_ip "$n" addr add "$addr/24" dev qtb-eth0
	tb_ip "$n" link set qtb-eth0 up
	tb_ip "$n" route add default via "$gwaddr"
}

tb_build_sites() {
	local name role site policy wan lan gwlan
	while IFS=$'\t' read -r name role site policy wan lan; do
		tb_ip "$name" link add qtb-br type bridge
		tb_ip "$name" addr add "$lan/24" dev qtb-br
		tb_ip "$name" link set qtb-br up
		tb_nsx "$name" sysctl -qw net.ipv4.ip_forward=1
	done < <(tb_rows gw)
	while IFS=$'\t' read -r name role site policy wan lan; do
		gwlan=$(tb_rows gw | awk -F'\t' -v s="$site" '$3 == s { print $6 }')
		tb_attach_node "$name" "$lan" "gw-$site" "$gwlan"
	done < <(tb_rows node)
}

# Routes to the routable sites (open and port-range) on every WAN host but their own gateway.
# Nothing gets a default route: an address outside the testbed is unreachable from inside.
tb_build_routes() {
	local name role site policy wan lan h hrole
	while IFS=$'\t' read -r name role site policy wan lan; do
		case $policy in open | port-range:*) ;; *) continue ;; esac
		while IFS=$'\t' read -r h hrole _; do
			[[ $hrole == wan || $h == "$name" ]] && continue
			tb_ip "$h" route add "${lan%.*}.0/24" via "$wan"
		done < <(awk -F'\t' '!/^#/ && $5 != "-"' "$DIR/hosts")
	done < <(tb_rows gw)
}

## Building: the gateways' NAT and firewall ----------------------------------------------------

# The inbound rules of policy $1 for chain $2 (FORWARD: to the nodes; INPUT: to the gateway).
tb_inbound_rules() {
	local policy=$1 chain=$2 out=""
	[[ $chain == FORWARD ]] && out="-o qtb-br"
	case $policy in
	open) printf -- '-A %s -i qtb-up %s -j ACCEPT\n' "$chain" "$out" ;;
	port-range:*)
		local range=${policy#port-range:}
		printf -- '-A %s -i qtb-up %s -p tcp --dport %s -j ACCEPT\n' "$chain" "$out" "${range/-/:}"
		printf -- '-A %s -i qtb-up %s -p udp --dport %s -j ACCEPT\n' "$chain" "$out" "${range/-/:}"
		;;
	esac
	# nat and closed: nothing new comes in; replies pass as ESTABLISHED.
}

# The INPUT rules that admit the gateway's own services from the WAN when they run: the
# front-end (clients reserve and launch through it) and, on a closed site with
# --frontend-proxy, the proxy's relay and control ports (legs from other sites' nodes, whose
# proxy this is too, and qcg-query's statistics). An open gateway admits everything already.
tb_service_rules() {
	[[ $SERVICES == 1 && $1 != open ]] || return 0
	printf -- '-A INPUT -i qtb-up -p tcp --dport %d -j ACCEPT\n' "$FRONTEND_PORT"
	[[ $FRONTEND_PROXY == 1 && $1 == closed ]] || return 0
	local k
	# --gateway-proxies: the k-th proxy of a gateway listens on the k-th port of each (tb_gw_ports).
	for ((k = 1; k <= ${GATEWAY_PROXIES:-1}; k++)); do
		printf -- '-A INPUT -i qtb-up -p tcp --dport %d -j ACCEPT\n' \
			$((PROXY_PORT + k - 1)) $((PROXY_CONTROL_PORT + k - 1))
	done
}

# Load gateway $1's rules for policy $2 and site prefix $3 (a /24) in one iptables-restore.
tb_build_firewall() {
	local gw=$1 policy=$2 net=$3.0/24
	{
		printf '*nat\n:PREROUTING ACCEPT [0:0]\n:INPUT ACCEPT [0:0]\n'
		printf ':OUTPUT ACCEPT [0:0]\n:POSTROUTING ACCEPT [0:0]\n'
		# Private sites hide behind the gateway's WAN address; routable ones keep theirs.
		case $policy in
		nat | closed) printf -- '-A POSTROUTING -s %s -o qtb-up -j MASQUERADE\n' "$net" ;;
		esac
		printf 'COMMIT\n*filter\n:INPUT DROP [0:0]\n:FORWARD DROP [0:0]\n:OUTPUT ACCEPT [0:0]\n'
		printf -- '-A INPUT -i lo -j ACCEPT\n-A INPUT -i qtb-br -j ACCEPT\n'
		printf -- '-A INPUT -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT\n'
		tb_inbound_rules "$policy" INPUT
		tb_service_rules "$policy"
		printf -- '-A FORWARD -i qtb-br -o qtb-br -j ACCEPT\n'
		tb_site_link_rules "$gw"
		printf -- '-A FORWARD -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT\n'
		# A closed site's nodes reach only their gateway; the others may connect out.
		[[ $policy == closed ]] || printf -- '-A FORWARD -i qtb-br -o qtb-up -j ACCEPT\n'
		tb_inbound_rules "$policy" FORWARD
		printf 'COMMIT\n'
	} >"$DIR/etc/firewall-$gw.rules"
	tb_nsx "$gw" iptables-restore "$DIR/etc/firewall-$gw.rules" ||
		die "iptables-restore failed on $gw (rules in $DIR/etc/firewall-$gw.rules)"
}

tb_build_firewalls() {
	local name role site policy wan lan
	while IFS=$'\t' read -r name role site policy wan lan; do
		tb_build_firewall "$name" "$policy" "${lan%.*}"
	done < <(tb_rows gw)
	tb_build_workstation_firewall
}

# up --workstation: host user is a workstation behind a NAT of its own, as a laptop at home is.
# Its WAN uplink (the WAN address, the delay-line port and the routes to the open sites) moves
# to a home router, host user-nat, and user gets a private address behind it, with a default
# route to the router (which has none itself: nothing outside the testbed is reachable). The
# router masquerades user's connections behind its WAN address and forwards nothing inward, so
# no port forward exists and nothing can connect to user; the router itself admits only the
# replies to what goes out. Name "user" in every /etc/hosts keeps naming the WAN address, i.e.
# the router, as a workstation's public name would.
readonly TB_HOME_NAT=user-nat TB_HOME_NET=192.168.200 # the router; the home network, a /24

tb_build_workstation_firewall() {
	((${WORKSTATION:-0})) || return 0
	local wan route
	wan=$(tb_rows user | cut -f5)
	tb_make_ns "$TB_HOME_NAT"
	local -a routes=()
	mapfile -t routes < <(tb_ip user -4 route show | grep ' via ')
	tb_ip user link set qtb-up netns "$(tb_ns "$TB_HOME_NAT")"
	tb_ip "$TB_HOME_NAT" addr add "$wan/24" dev qtb-up
	tb_ip "$TB_HOME_NAT" link set qtb-up up
	tb_offloads_on "$TB_HOME_NAT" qtb-up
	for route in "${routes[@]}"; do
		# shellcheck disable=SC2086  # a route as ip printed it, split into its words
		tb_ip "$TB_HOME_NAT" route add ${route%% dev *}
	done
	tb_ip user link add qtb-eth0 type veth peer name qtb-home netns "$(tb_ns "$TB_HOME_NAT")"
	tb_ip "$TB_HOME_NAT" addr add "$TB_HOME_NET.1/24" dev qtb-home
	tb_ip "$TB_HOME_NAT" link set qtb-home up
	tb_ip user addr add "$TB_HOME_NET.2/24" dev qtb-eth0
	tb_ip user link set qtb-eth0 up
	tb_ip user route add default via "$TB_HOME_NET.1"
	tb_nsx "$TB_HOME_NAT" sysctl -qw net.ipv4.ip_forward=1
	{
		printf '*nat\n:PREROUTING ACCEPT [0:0]\n:INPUT ACCEPT [0:0]\n'
		printf ':OUTPUT ACCEPT [0:0]\n:POSTROUTING ACCEPT [0:0]\n'
		printf -- '-A POSTROUTING -s %s.0/24 -o qtb-up -j MASQUERADE\n' "$TB_HOME_NET"
		printf 'COMMIT\n*filter\n:INPUT DROP [0:0]\n:FORWARD DROP [0:0]\n:OUTPUT ACCEPT [0:0]\n'
		printf -- '-A INPUT -i lo -j ACCEPT\n'
		printf -- '-A INPUT -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT\n'
		printf -- '-A FORWARD -i qtb-home -o qtb-up -j ACCEPT\n'
		printf -- '-A FORWARD -i qtb-up -o qtb-home -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT\n'
		printf 'COMMIT\n'
	} >"$DIR/etc/firewall-$TB_HOME_NAT.rules"
	tb_nsx "$TB_HOME_NAT" iptables-restore "$DIR/etc/firewall-$TB_HOME_NAT.rules" ||
		die "iptables-restore failed on $TB_HOME_NAT (rules in $DIR/etc/firewall-$TB_HOME_NAT.rules)"
}

## Building: names ---------------------------------------------------------------------------

# The /etc/hosts seen by host $1 of site $2 ('-' on the WAN). A gateway is its site address
# inside its site and its WAN address elsewhere. Nodes of another private site are listed only
# without --overlap: with it their addresses would name a host of the viewer's own site.
tb_hosts_file() {
	local viewer_site=$2
	printf '127.0.0.1\tlocalhost\n'
	awk -F'\t' -v vs="$viewer_site" -v overlap="$OVERLAP" '
		/^#/ || $2 == "wan" { next }
		$2 == "gw" && $3 == vs { print $6 "\t" $1; next }
		$2 != "node" { print $5 "\t" $1; next }
		$3 == vs || $4 == "open" || $4 ~ /^port-range:/ || overlap == 0 { print $6 "\t" $1 }
	' "$DIR/hosts"
}

tb_build_names() {
	local name role site policy wan lan
	while IFS=$'\t' read -r name role site policy wan lan; do
		mkdir -p "$NETNS_ETC/$(tb_ns "$name")"
		tb_hosts_file "$name" "$site" >"$NETNS_ETC/$(tb_ns "$name")/hosts"
	done < <(tb_rows)
}

## Building: site networks (up --clusters-per-site) --------------------------------------------

# Attach gateway $1 (address $3) to the network of site $2: its interface qtb-site faces
# qtb-sh-<cluster> in the wan namespace; the delay line joins that to qtb-sw-<cluster>, whose
# peer qtb-sb-<cluster> is a port of bridge qtb-s<site>. Appends the port to SITE_DL_PORTS.
tb_attach_site() {
	local gw=$1 site=$2 addr=$3 c=${1#gw-} l
	tb_ip wan link show "qtb-s$site" >/dev/null 2>&1 || {
		tb_ip wan link add "qtb-s$site" type bridge
		tb_ip wan link set "qtb-s$site" up
	}
	tb_ip "$gw" link add qtb-site type veth peer name "qtb-sh-$c" netns "$(tb_ns wan)"
	tb_ip wan link add "qtb-sw-$c" type veth peer name "qtb-sb-$c"
	tb_ip wan link set "qtb-sb-$c" master "qtb-s$site"
	for l in "qtb-sh-$c" "qtb-sw-$c" "qtb-sb-$c"; do tb_ip wan link set "$l" up; tb_offloads_on wan "$l"; done
	tb_ip "$gw" addr add "$addr/24" dev qtb-site
	tb_ip "$gw" link set qtb-site up
	tb_offloads_on "$gw" qtb-site
	SITE_DL_PORTS+=("qtb-sh-$c:qtb-sw-$c")
}

# The site networks, and on each gateway a route to every other cluster of its site through it
# (replacing the WAN route of an open cluster: inside a site, traffic stays on the site network).
tb_build_site_networks() {
	local gw site addr gw2 site2 addr2
	SITE_DL_PORTS=()
	while IFS=$'\t' read -r gw site addr; do tb_attach_site "$gw" "$site" "$addr"; done < <(tb_site_link_rows)
	while IFS=$'\t' read -r gw site addr; do
		while IFS=$'\t' read -r gw2 site2 addr2; do
			[[ $site2 == "$site" && $gw2 != "$gw" ]] || continue
			tb_ip "$gw" route replace "$(tb_rows gw | awk -F'\t' -v g="$gw2" '$1 == g { sub(/\.[0-9]+$/, ".0", $6); print $6 }')/24" via "$addr2"
		done < <(tb_site_link_rows)
	done < <(tb_site_link_rows)
	((${#SITE_DL_PORTS[@]} == 0)) || note "site networks: $(tb_site_groups_text), ${SITE_DELAY} ms apart"
}

# The delay line's arguments for the site ports (after the WAN ports): their own delay, no rate
# limit (the site network is not the WAN).
tb_site_delayline_args() {
	((${#SITE_DL_PORTS[@]})) || return 0
	printf -- '--rate\n0\n--delay\n%s\n' "$(awk -v d="$SITE_DELAY" 'BEGIN { printf "%dus", d * 1000 / 2 }')"
	printf '%s\n' "${SITE_DL_PORTS[@]}"
}

# The FORWARD and INPUT rules of gateway $1 on its site network: the clusters of one site (one
# institution) reach each other freely; the policy governs the WAN uplink only.
tb_site_link_rules() {
	tb_site_link_rows | awk -F'\t' -v g="$1" '$1 == g { f = 1 } END { exit !f }' || return 0
	printf -- '-A INPUT -i qtb-site -j ACCEPT\n'
	printf -- '-A FORWARD -i qtb-site -o qtb-br -j ACCEPT\n-A FORWARD -i qtb-br -o qtb-site -j ACCEPT\n'
}

# "site 1: a b; site 2: c d" from DIR/etc/site-links.
tb_site_groups_text() {
	tb_site_link_rows | awk -F'\t' '
		{ c = substr($1, 4); if (!($2 in m)) order[++n] = $2; m[$2] = m[$2] " " c }
		END { for (i = 1; i <= n; i++) printf "%ssite %s:%s", (i > 1 ? "; " : ""), order[i], m[order[i]] }'
}

# status: one line on how clusters group into sites (nothing with one cluster per site).
tb_status_site_groups() {
	((${CLUSTERS_PER_SITE:-1} > 1)) || return 0
	printf '%s sites x %s clusters, site network delay %s ms: %s\n' "$GRID_SITES" \
		"$CLUSTERS_PER_SITE" "$SITE_DELAY" "$(tb_site_groups_text)"
}

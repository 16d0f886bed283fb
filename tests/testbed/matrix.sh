# matrix.sh: the TCP reachability matrix of a testbed, measured and asserted cell by cell.
# Sourced by the reachability tests after lib.sh. The expected matrix is derived here from the
# policies alone (not from qcg-testbed's own rules):
#   - hosts of one site (its gateway and nodes) reach each other;
#   - a closed site's nodes reach nothing outside their site;
#   - everyone else reaches the WAN hosts (user, broker, proxies);
#   - a site's gateway and nodes accept connections from outside the site when the site is open,
#     only on its range when it is port-range, never when nat or closed.
# The listener answers with its hostname, so a cell also proves which host answered: with
# overlapping ranges an address must reach the host of the prober's own site.

readonly PORT_OUT=7000 PORT_IN=7150 # outside and inside the range the tests give port-range
readonly PROBE_TIMEOUT=3

declare -A H_ROLE H_SITE H_POLICY H_WAN H_LAN
HOSTS=()

matrix_load() {
	local name role site policy wan lan
	while IFS=$'\t' read -r name role site policy wan lan; do
		[[ $name == '#'* || $role == wan ]] && continue
		HOSTS+=("$name")
		H_ROLE[$name]=$role H_SITE[$name]=$site H_POLICY[$name]=$policy
		H_WAN[$name]=$wan H_LAN[$name]=$lan
	done <"$TB_DIR/hosts"
}

# The address host $1 uses for host $2: a gateway's site address inside its site, its WAN
# address elsewhere; a node's only address; a WAN host's address.
matrix_addr() {
	if [[ ${H_ROLE[$2]} == gw && ${H_SITE[$1]} == "${H_SITE[$2]}" ]]; then
		echo "${H_LAN[$2]}"
	elif [[ ${H_WAN[$2]} != - ]]; then
		echo "${H_WAN[$2]}"
	else
		echo "${H_LAN[$2]}"
	fi
}

# The host that owns address $2 as seen from host $1, or '-' when it is ambiguous.
matrix_owner() {
	local src=$1 addr=$2 h owner=- n=0
	for h in "${HOSTS[@]}"; do
		[[ ${H_WAN[$h]} == "$addr" ]] && { echo "$h"; return; }
	done
	for h in "${HOSTS[@]}"; do
		[[ ${H_LAN[$h]} == "$addr" ]] || continue
		[[ ${H_SITE[$h]} == "${H_SITE[$src]}" ]] && { echo "$h"; return; }
		owner=$h n=$((n + 1))
	done
	((n == 1)) && echo "$owner" || echo -
}

# Whether host $1 can open a TCP connection to host $2 on port $3, by the policies: yes/no.
matrix_expect() {
	local src=$1 dst=$2 port=$3 p
	[[ $dst == - ]] && { echo no; return; }
	p=${H_POLICY[$dst]}
	[[ ${H_SITE[$src]} != - && ${H_SITE[$src]} == "${H_SITE[$dst]}" ]] && { echo yes; return; }
	[[ ${H_ROLE[$src]} == node && ${H_POLICY[$src]} == closed ]] && { echo no; return; }
	case ${H_ROLE[$dst]} in user | broker | proxy) echo yes; return ;; esac
	case $p in
	open) echo yes ;;
	port-range:*)
		local min=${p#port-range:} max
		max=${min#*-} min=${min%-*}
		((port >= min && port <= max)) && echo yes || echo no
		;;
	*) echo no ;;
	esac
}

matrix_listen_all() {
	local h
	for h in "${HOSTS[@]}"; do tb_listen "$h" "$PORT_OUT,$PORT_IN"; done
	tb_wait_listener "${HOSTS[-1]}" "$(matrix_addr "${HOSTS[-1]}" "${HOSTS[-1]}")" "$PORT_OUT" \
		"${HOSTS[-1]}"
	# Every listener, both ports (a thread each), not only the last one started: a cell probed
	# before its listener is up reads as blocked. Seen inside the namespace, past any firewall.
	for h in "${HOSTS[@]}"; do
		wait_until 300 matrix_listening "$h" || fail "the listener on $h did not listen on both ports"
	done
}

# Whether host $1 has sockets listening on both matrix ports.
matrix_listening() {
	local out
	out=$(tbx "$1" ss -Hltn) && [[ $out == *":$PORT_OUT "* && $out == *":$PORT_IN "* ]]
}

# Probe every cell, all sources at once; results in $TB_DIR/probe-<src>.
matrix_probe_all() {
	local src dst targets pids=()
	for src in "${HOSTS[@]}"; do
		targets=()
		for dst in "${HOSTS[@]}"; do
			[[ $src == "$dst" ]] && continue
			targets+=("$(matrix_addr "$src" "$dst"):$PORT_OUT" "$(matrix_addr "$src" "$dst"):$PORT_IN")
		done
		tbx "$src" "$PY" "$TBTOOL" probe "$PROBE_TIMEOUT" "${targets[@]}" \
			>"$TB_DIR/probe-$src" 2>&1 &
		pids+=($!)
	done
	wait "${pids[@]}" || fail "a prober failed (see $TB_DIR/probe-*)"
}

# Compare every cell with the expectation; print the matrix; fail on any mismatch.
matrix_assert() {
	local src dst port addr owner want got cell bad=0 cells=0 line
	printf 'src\\dst  %s\n' "$(printf '%-7s' "${HOSTS[@]}")"
	for src in "${HOSTS[@]}"; do
		line=$(printf '%-8s ' "$src")
		for dst in "${HOSTS[@]}"; do
			[[ $src == "$dst" ]] && { line+="$(printf '%-7s' ' .')"; continue; }
			cell=""
			for port in "$PORT_OUT" "$PORT_IN"; do
				addr=$(matrix_addr "$src" "$dst")
				owner=$(matrix_owner "$src" "$addr")
				want=$(matrix_expect "$src" "$owner" "$port")
				[[ $want == yes ]] || owner=-
				got=$(awk -v t="$addr:$port" '$1 == t { print $2; exit }' "$TB_DIR/probe-$src")
				cells=$((cells + 1))
				if [[ $got == "$owner" ]]; then
					cell+=$([[ $owner == - ]] && echo n || echo Y)
				else
					cell+=X bad=$((bad + 1))
					echo "MISMATCH $src -> $dst ($addr:$port): want ${owner/#-/unreachable}," \
						"got ${got:-no probe result}" >&2
				fi
			done
			line+="$(printf '%-7s' " $cell")"
		done
		echo "$line"
	done
	echo "cells: $cells, mismatches: $bad (Y reachable, n unreachable, X wrong; port $PORT_OUT then $PORT_IN)"
	((cells > 0 && bad == 0)) || fail "$bad of $cells cells differ from the policies"
}

matrix_run() {
	matrix_load
	matrix_listen_all
	matrix_probe_all
	matrix_assert
}

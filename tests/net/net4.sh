# net4.sh: what the four-site libqcgnet tests share (qcgnet_4sites.test and its variants).
# Sourced after tests/testbed/lib.sh. An unmodified Open MPI job of 16 ranks of
# tests/net/allpairs over four testbed sites (2 nodes x 2 ranks each), launched the way
# qcg-submit launches it: mpirun on host user (the testbed's cluster "user", with its own
# helper), plm_rsh_agent = launcher/qcg-rsh, libqcgnet.so preloaded.
#
#   net4_up POLICIES [UP-OPTION...]  the testbed (4 sites, 2 nodes, a WAN proxy, the closed
#                                    sites' gateway proxies), the job recorded at the broker,
#                                    a committed reservation at each site, the hosts map
#   net4_mpirun [NAME=VALUE...]      mpirun on user in the background (NET4_PID); the words go
#                                    into mpirun's environment and, with -x, to every rank
#   net4_wait                        wait for it: NET4_RC, NET4_MS
#   net4_check_job                   the job passed (exit 0, 240 pairs, 0 failures)
#   net4_check_methods [FALLEN]      every logged connection used the best method the policies
#                                    allow, first time; FALLEN (a regex on "FROM->TO") names the
#                                    site pairs whose first method may fail, falling through
#   net4_check_pairs, net4_check_closed_proxy, net4_check_leftovers
# Each check prints "ok   ..." or "FAIL ...", sets bad=1 on failure; exit "$bad" at the end.

LIB=$top_builddir/mpi-glue/net/.libs/libqcgnet.so
PROG=$top_builddir/tests/net/allpairs
RSH=$top_builddir/launcher/qcg-rsh
for p in broker/qcg-broker proxy/qcg-proxy frontend/qcg-frontend helper/qcg-helper; do
	[[ -x $top_builddir/services/$p ]] || skip "services/$p is not built"
done
[[ -f $LIB && -x $PROG && -x $RSH ]] || skip "libqcgnet.so, tests/net/allpairs or qcg-rsh is not built"
command -v mpirun >/dev/null || skip "mpirun is not installed"
source "$top_srcdir/tests/testbed/grid.sh"

readonly NET4_TOKEN=7a1c0e5f9b3d2e48c6a1f0b9d8e7c6a5
readonly NET4_WINDOW=16 NET4_PORT_BASE=20000 # node i's window: BASE + 16i .. + 15 (user: i = 0)
readonly NET4_SITES="a b c d" NET4_TIMEOUT=${NET4_TIMEOUT:-420}
NET4_JOB=job-net4
NET4_NODES=(a1 a2 b1 b2 c1 c2 d1 d2)
declare -A NET4_POLICY=([user]=open)

# Node $1's listening-port window (MIN-MAX): unique in the job, inside b's open range.
net4_window() {
	local i=0 j
	for j in "${!NET4_NODES[@]}"; do [[ ${NET4_NODES[$j]} == "$1" ]] && i=$((j + 1)); done
	echo "$((NET4_PORT_BASE + NET4_WINDOW * i))-$((NET4_PORT_BASE + NET4_WINDOW * i + NET4_WINDOW - 1))"
}

net4_up() {
	local policies=$1 s i out res
	shift
	# Hosts share no files (--separate-fs), as across real sites; the hosts map and the
	# helpers' token files live in TB_DIR, which every host sees.
	tb up --sites 4 --nodes 2 --policies "$policies" --proxies 1 --frontend-proxy \
		--separate-fs --wan-delay 1 "$@" || fail "up with services failed"
	i=0
	for s in $NET4_SITES; do
		i=$((i + 1))
		NET4_POLICY[$s]=$(cut -d, -f"$i" <<<"$policies")
		NET4_POLICY[$s]=${NET4_POLICY[$s]%%:*}
	done
	grid_env || fail "no usable DIR/env"
	[[ -S $QCG_HELPER_SOCKET ]] || fail "DIR/env names no helper socket on host user"
	grid_broker_call record-job "$NET4_JOB" >/dev/null || fail "record-job failed"
	# The user host's helper did not launch mpirun: it learns the job's token from its file.
	printf '%s %s root\n' "$NET4_JOB" "$NET4_TOKEN" >>"$QCG_HELPER_TOKEN_FILE"
	NET4_MAP=$TB_DIR/run/hosts.map
	: >"$NET4_MAP"
	for s in $NET4_SITES; do
		out=$(grid_fe "$s" reserve "$NET4_JOB" 4 120 2 "${s}1" "${s}2" 2>&1) ||
			fail "reserve at site $s: $out"
		res=$(sed -n 's/^reservation=//p' <<<"$out")
		[[ $(grid_fe "$s" commit "$res" 2>&1) == ok ]] || fail "commit at site $s failed"
		for n in "${s}1" "${s}2"; do
			printf '%s %s %s QCG_NET_PORTS=%s QCG_HELPER_SOCKET=%s\n' "$n" \
				"https://gw-$s:8444/" "$res" "$(net4_window "$n")" \
				"$TB_DIR/run/helper-$n.sock" >>"$NET4_MAP"
		done
	done
}

# mpirun gets its own node's window and no Open MPI port parameters (mpi-glue/net/README.md,
# "Two facts"); qcg-rsh gives each orted its node's.
net4_mpirun() {
	local hosts w x=()
	hosts=$(printf '%s:2,' "${NET4_NODES[@]}")
	for w in "$@"; do x+=(-x "${w%%=*}"); done
	NET4_START=$(date +%s%N)
	tbx user env "$@" LD_PRELOAD="$LIB" QCG_NET=1 QCG_HELPER_SOCKET="$QCG_HELPER_SOCKET" \
		QCG_JOB_ID="$NET4_JOB" QCG_JOB_TOKEN="$NET4_TOKEN" QCG_NET_PORTS="$(net4_window user)" \
		QCG_RSH_MAP="$NET4_MAP" QCG_RSH_WORKDIR=/tmp OMPI_ALLOW_RUN_AS_ROOT=1 \
		OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout "$NET4_TIMEOUT" mpirun --oversubscribe -np 16 \
		--host "${hosts%,}" --mca plm_rsh_agent "$RSH" --mca plm_rsh_no_tree_spawn 1 \
		--bind-to none --mca pml ob1 --mca btl self,vader,tcp --mca btl_tcp_disable_family 6 \
		--mca oob_tcp_disable_ipv6_family 1 "${x[@]}" "$PROG" >"$TB_DIR/mpi.out" 2>&1 &
	NET4_PID=$!
}

net4_wait() {
	set +e
	wait "$NET4_PID"
	NET4_RC=$?
	set -e
	NET4_MS=$((($(date +%s%N) - NET4_START) / 1000000))
	echo "mpirun exit $NET4_RC after $NET4_MS ms (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
}

net4_check_job() {
	check "16 ranks on four sites, mpirun on host user through qcg-rsh, pass allpairs" \
		'[[ $NET4_RC == 0 ]] && grep -q "^allpairs: 16 ranks, 240 ordered pairs x 12 sizes, 0 failures" "$TB_DIR/mpi.out"'
	[[ $bad == 0 ]] || tail -n 40 "$TB_DIR/mpi.out"
	# qcg-rsh inherits mpirun's preload: its own connections (to the front-ends, :8444) are
	# not the job's and must not be resolved (QCG_NET_SKIP).
	check "qcg-rsh's connections to the front-ends bypassed the shim" \
		'! grep -q "^libqcgnet.*:8444" "$TB_DIR/mpi.out"'
}

# The first method services/broker/decision.c offers from cluster $1 to cluster $2.
net4_best() {
	local pi=${NET4_POLICY[$1]} pt=${NET4_POLICY[$2]}
	if [[ $1 == "$2" ]]; then echo direct
	elif [[ $pt == open && $pi != closed ]]; then echo direct
	elif [[ $pt == port-range && $pi != closed ]]; then echo port-range
	elif [[ $pt != closed && ($pi == open || $pi == port-range) ]]; then echo reversal
	elif [[ $pi == nat && $pt == nat ]]; then echo traversal
	else echo relay; fi
}

# The broker's log of the job: "FROM-CLUSTER TO-CLUSTER TO-PORT METHOD OUTCOME" per attempt.
# Connections that worked by a method the broker coordinated nothing for reach its log in the
# helpers' batches (services/helper/helper_outcomes.h), sent when the job's processes end or
# within 0.2 s: read the log until two reads half a second apart agree (at most ~10 s).
net4_connections() {
	local prev=
	NET4_CONNS=$(grid_query connections "$NET4_JOB" 2>&1 || true)
	for _ in $(seq 1 20); do
		[[ $NET4_CONNS == "$prev" ]] && break
		prev=$NET4_CONNS
		sleep 0.5
		NET4_CONNS=$(grid_query connections "$NET4_JOB" 2>&1 || true)
	done
	echo "$NET4_CONNS"
	# (the listing's "resume ..." lines after the table are a relay's resumes, not attempts)
	NET4_ROWS=$(awk 'NR > 1 && $1 != "resume" { split($1, f, "/"); split($2, t, "[/:]");
		print f[1], t[1], t[3], $3, $4 }' <<<"$NET4_CONNS")
}

net4_check_methods() {
	local fallen=${1:-^$} wrong
	[[ -n ${NET4_ROWS:-} ]] || net4_connections
	wrong=$(while read -r f t port m o; do
		w=$(net4_best "$f" "$t")
		[[ $o == ok && $m == "$w" ]] && continue
		[[ "$f->$t" =~ $fallen ]] && continue
		echo "$f->$t:$port $m $o (want $w ok)"
	done <<<"$NET4_ROWS")
	check "every connection used the best method the policies allow, first time" '[[ -z $wrong ]]'
	[[ -z $wrong ]] && return 0
	echo "$wrong"
	# Why, in the helpers' words (a traversal's or reversal's target side gives up there).
	grep -H "failed" "$TB_DIR"/log/helper-*.log 2>/dev/null | tail -n 20 || true
	return 0
}

# Every pair of sites (and every site to mpirun on user) connected.
net4_check_pairs() {
	local a b
	for a in $NET4_SITES; do
		check "site $a's orted reached mpirun on host user" \
			"grep -Eq '^$a user ' <<<\"\$NET4_ROWS\""
		for b in $NET4_SITES; do
			[[ $a < $b ]] || continue
			check "sites $a and $b connected" \
				"grep -Eq '^($a $b|$b $a) .* ok$' <<<\"\$NET4_ROWS\""
		done
	done
}

# Relays of closed site $1 went through its gateway's proxy (it counted bytes).
net4_check_closed_proxy() {
	local gw proxies
	gw=$(tb_field "gw-$1" wan_addr)
	proxies=$(grid_query proxies 2>&1 || true)
	check "the closed site $1's relays went through its gateway proxy" \
		"awk '\$1 == \"$gw:7300\" { exit !(\$7 > 0) }' <<<\"\$proxies\""
}

# The namespace of host $1, named as deploy/qcg-testbed names it.
net4_ns() {
	printf 'qtb-%s-%s' "$(printf '%s' "$(realpath -m -- "$TB_DIR")" | sha1sum | cut -c1-6)" "$1"
}

# No rank, orted, mpirun or qcg-rsh on any node or on user, and no socket in the job's windows
# (TIME-WAIT is the kernel's, not a process's). Processes share the machine's pid namespace:
# only those in each host's network namespace count. mpirun's exit does not wait for every
# remote orted to be gone nor for every FIN across the delay line: wait (bounded) for a clean
# state, then check it.
net4_check_leftovers() {
	local left socks # set by net4_leftovers (bash scoping is dynamic)
	wait_until 300 net4_leftovers_none
	net4_leftovers
	check "no rank, orted, mpirun or qcg-rsh is left on any node" '[[ -z $left ]]'
	[[ -z $left ]] || echo "$left"
	check "no socket in the job's port windows is left on any node" '[[ -z $socks ]]'
	[[ -z $socks ]] || echo "$socks"
	return 0
}
net4_leftovers_none() { net4_leftovers; [[ -z $left && -z $socks ]]; }

# Sets left and socks to what net4_check_leftovers looks for ("" when none).
net4_leftovers() {
	local n ps lo hi
	left="" socks=""
	lo=$NET4_PORT_BASE hi=$((NET4_PORT_BASE + NET4_WINDOW * (${#NET4_NODES[@]} + 1) - 1))
	for n in user "${NET4_NODES[@]}"; do
		ps=$(for p in $(ip netns pids "$(net4_ns "$n")" 2>/dev/null); do
			c=$(cat "/proc/$p/comm" 2>/dev/null) || continue
			case $c in orted | allpairs | mpirun | qcg-rsh) echo "$p $c" ;; esac
		done)
		[[ -z $ps ]] || left+="$n: $ps; "
		ps=$(ip netns exec "$(net4_ns "$n")" ss -Htan 2>/dev/null | awk -v lo="$lo" -v hi="$hi" '
			$1 != "TIME-WAIT" { n = split($4, a, ":"); p = a[n] + 0; if (p >= lo && p <= hi) print }')
		[[ -z $ps ]] || socks+="$n: $ps; "
	done
}

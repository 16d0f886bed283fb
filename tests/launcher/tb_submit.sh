# tb_submit.sh: what the launcher's testbed tests share. Source it from a .test after nothing
# else: it takes the testbed lock (tests/testbed/lib.sh), brings up 3 sites (a open, b nat,
# c closed with a gateway proxy, 2 nodes each) with their services, and gives
#
#   submit FILE [ARGS...]      qcg-submit on host user, as the testbed's user; sets SUBMIT_OUT
#                              (stdout+stderr) and SUBMIT_RC
#   submit_cmd CMD...          CMD on host user with the same environment
#   need_user_helper           skip unless host user runs a helper (mpirun's listeners)
#   pid_on COMM HOST           a pid of COMM in HOST's namespace
#   fe_log_count SITE REGEX    lines of SITE's front-end log matching REGEX
#   fe_lines SITE              lines in SITE's front-end log now (to look only at what follows)
#   site_free SITE             the front-end grants all of SITE's slots at once (nothing is held
#                              there), and the grant is released again
#   left_on_nodes NAMES        "node: pid comm; ..." of processes called one of NAMES (a |-list)
#                              in any node's namespace, empty if none
#   job_with EXAMPLE FORMAT    examples/EXAMPLE/EXAMPLE.FORMAT with the build's program path
#   check NAME EXPR            prints ok/FAIL NAME; a failure makes the test fail at the end
#
# Each site has 2 nodes of 4 slots (qcg-testbed's [nodes] lines).
set -uo pipefail
source "$top_srcdir/tests/testbed/lib.sh"

for p in services/broker/qcg-broker services/frontend/qcg-frontend services/helper/qcg-helper \
	launcher/qcg-submit launcher/qcg-rsh launcher/qcg-query tests/integration/frontend_call; do
	[[ -x $top_builddir/$p ]] || skip "$p is not built"
done
source "$top_srcdir/tests/testbed/grid.sh"
readonly SITE_SLOTS=8 TB_NODES="a1 a2 b1 b2 c1 c2"
SUBMIT=$top_builddir/launcher/qcg-submit

# Hosts share no files (--separate-fs), as across real sites: whatever a job needs on a node
# must get there through the grid. Only TB_DIR (configurations, certificates, logs, the tests'
# job files) and the build tree are seen by every host. TB_SEPARATE_FS= (empty) runs a test
# on one shared filesystem, for the few that need it (each says why).
# TB_SUBMIT_SLURM=a,c (set before sourcing): those sites allocate through a real Slurm.
# TB_WORKSTATION=1 (set before sourcing): host user runs no qcg service and admits no inbound
# connection (qcg-testbed up --workstation); qcg-submit there runs mpirun inside the job.
# TB_UP_EXTRA="OPTIONS" (set before sourcing): more options for qcg-testbed up (word-split),
# e.g. "--gateway-proxies 2 --proxies 2". TB_USERS=N: N grid users, each with an account of its
# own on every host (qcg-testbed up --users N).
tb up --sites 3 --nodes 2 --policies open,nat,closed --proxies 1 --frontend-proxy \
	${TB_SEPARATE_FS---separate-fs} --wan-delay 2 ${TB_SUBMIT_SLURM:+--slurm "$TB_SUBMIT_SLURM"} \
	${TB_WORKSTATION:+--workstation} ${TB_USERS:+--users "$TB_USERS"} ${TB_UP_EXTRA:-} >/dev/null ||
	fail "qcg-testbed up with services failed"
grid_env || fail "no usable $TB_DIR/env"
JOBS_DIR=$TB_DIR/jobs
mkdir -p "$JOBS_DIR"


# The account runs as root on the testbed: Open MPI wants to be told that this is meant.
submit() {
	local file=$1
	shift
	SUBMIT_OUT=$(submit_cmd "$SUBMIT" "$@" "$file" 2>&1)
	SUBMIT_RC=$?
}

# CMD... on host user with the job environment (each node's helper socket named by %h).
submit_cmd() {
	"$QTB" --dir "$TB_DIR" exec user -- env OMPI_ALLOW_RUN_AS_ROOT=1 \
		OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 QCG_NODE_HELPER_SOCKET="$TB_DIR/run/helper-%h.sock" \
		timeout "${SUBMIT_TIMEOUT:-120}" "$@" 8>&-
}

# Jobs that start mpirun need host user's own helper (orted of the closed site reach mpirun
# only through it).
need_user_helper() {
	[[ -n ${QCG_HELPER_SOCKET:-} && -S $QCG_HELPER_SOCKET ]] ||
		skip "qcg-testbed runs no helper on host user (mpirun's listeners cannot be brokered)"
}

# The pid of the process called $1 in host $2's namespace (the first one), or nothing.
pid_on() {
	local p
	for p in $(ip netns pids "$(tb_ns_name "$2")" 2>/dev/null); do
		[[ $(cat "/proc/$p/comm" 2>/dev/null) == "$1" ]] && { echo "$p"; return 0; }
	done
	return 1
}

fe_lines() { wc -l <"$TB_DIR/log/frontend-$1.log"; }
fe_log_count() { grep -cE "$2" "$TB_DIR/log/frontend-$1.log"; }

site_free() {
	local out r
	out=$(grid_fe "$1" reserve probe-free "$SITE_SLOTS" 30 2>&1) || return 1
	r=$(sed -n 's/^reservation=//p' <<<"$out")
	[[ -n $r ]] && grid_fe "$1" release "$r" >/dev/null 2>&1
}

tb_ns_name() {
	printf 'qtb-%s-%s' "$(printf '%s' "$(realpath -m -- "$TB_DIR")" | sha1sum | cut -c1-6)" "$1"
}

left_on_nodes() {
	local n p c out=""
	for n in $TB_NODES; do
		for p in $(ip netns pids "$(tb_ns_name "$n")" 2>/dev/null); do
			c=$(cat "/proc/$p/comm" 2>/dev/null) || continue
			[[ $c =~ ^($1)$ ]] && out+="$n: $p $c; "
		done
	done
	printf '%s' "$out"
}

job_with() {
	local ex=$1 fmt=$2
	sed "s#/usr/local/libexec/qcg-ompi/examples/$ex#$top_builddir/examples/$ex/$ex#" \
		"$top_srcdir/examples/$ex/$ex.$fmt" >"$JOBS_DIR/$ex.$fmt"
	echo "$JOBS_DIR/$ex.$fmt"
}

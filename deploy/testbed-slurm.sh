# testbed-slurm.sh: a real Slurm on chosen sites of a qcg-testbed (`up --slurm SITES`).
# Sourced by deploy/qcg-testbed, whose globals (DIR, ID, the host table, tb_spawn, tb_rows,
# NODE_SLOTS) it uses; it adds only functions prefixed tbs_.
#
# Per Slurm site s, everything under DIR/slurm/s/:
#   munge.key, munged   its own munge key and munged (socket DIR/run/munge-s.sock), so every
#                       site is a separate administrative domain: a credential of one site is
#                       worthless at another
#   slurm.conf          AuthInfo=socket=... names that munged; SLURM_CONF points the commands
#                       (the front-end's, the tests') at this file
#   slurmctld           on the site's gateway, listening on the gateway's site address
#   slurmd -N NODE      on each node, under the node's own hostname (its UTS namespace)
#   jobcomp.log         Slurm's own record of every ended job (no slurmdbd here): one line
#                       per job, written by slurmctld (JobCompType=jobcomp/filetxt) as the
#                       job ends, with its name (qcg-GRIDJOB), JobState and end time. Chosen
#                       over sacct because sacct reads only the accounting storage, which in
#                       Debian's slurm-wlm is slurmdbd (and so MariaDB) or none, and `none`
#                       leaves sacct nothing. The front-end ends every allocation with scancel
#                       (Release, qcg-cancel, Ctrl-C, wall time, a drained node), so Slurm
#                       records each as CANCELLED; only salloc's own exit (or libslurm's
#                       slurm_complete_job) could make a good run COMPLETED.
# The daemons log to their standard error (-D), which tb_spawn keeps in DIR/log/NAME.log.
# The daemons run in the testbed's namespaces, so `down` stops them with every other process
# there; their files go with DIR/slurm.

readonly TBS_CTLD_PORT=6817 TBS_SLURMD_PORT=6818
readonly TBS_PARTITION=grid
readonly TBS_PENDING_TIMEOUT=10 # seconds a Slurm site's Reserve waits for a pending allocation
# Bounds, not delays: each wait ends as soon as Slurm answers. They are generous because the
# machine is shared and loaded (a 30 s bound once failed a start-up there).
readonly TBS_CTLD_TENTHS=600   # slurmctld must answer `scontrol ping` within 60 s
readonly TBS_READY_TENTHS=1200 # then every node must be idle within 120 s

# Validate the site letters of --slurm (comma-separated, each a site of this testbed) into
# SLURM_SITES (space-separated); nothing to do without the option.
tbs_check_sites() {
	local raw=$1 s k ok
	SLURM_SITES=""
	[[ -n $raw ]] || return 0
	local -a list=()
	IFS=, read -r -a list <<<"$raw"
	for s in "${list[@]}"; do
		ok=0
		for ((k = 1; k <= SITES; k++)); do [[ $s == "$(tb_site_letter "$k")" ]] && ok=1; done
		((ok)) || usage_error "--slurm: '$s' is not a site of this testbed (sites a..$(tb_site_letter "$SITES"))"
		[[ " $SLURM_SITES " == *" $s "* ]] || SLURM_SITES+="${SLURM_SITES:+ }$s"
	done
}

# Whether site $1 runs Slurm.
tbs_is_slurm_site() { [[ " ${SLURM_SITES:-} " == *" $1 "* ]]; }

tbs_conf() { printf '%s/slurm/%s/slurm.conf' "$DIR" "$1"; }
tbs_socket() { printf '%s/run/munge-%s.sock' "$DIR" "$1"; }

# The programs Slurm sites need, or die naming the package.
tbs_check_programs() {
	local p
	for p in munged slurmctld slurmd salloc scancel squeue sinfo scontrol; do
		command -v "$p" >/dev/null ||
			die "--slurm needs $p (Debian: slurm-wlm slurmctld slurmd slurm-client munge)"
	done
}

# slurm.conf of site $1 (gateway site address $2).
tbs_write_conf() {
	local site=$1 ctld_addr=$2 d="$DIR/slurm/$1" name role s policy wan lan
	cat <<EOF
# written by qcg-testbed for site $site (deploy/testbed-slurm.sh)
ClusterName=qtb${ID}$site
SlurmctldHost=gw-$site($ctld_addr)
SlurmctldPort=$TBS_CTLD_PORT
SlurmdPort=$TBS_SLURMD_PORT
AuthType=auth/munge
AuthInfo=socket=$(tbs_socket "$site")
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$d/ctld
SlurmdSpoolDir=$d/spool-%n
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd-%n.pid
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$d/jobcomp.log
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
MpiDefault=none
SwitchType=switch/none
# The testbed's nodes share this machine's CPUs: believe the configured count.
SlurmdParameters=config_overrides
ReturnToService=2
SlurmdTimeout=60
KillWait=5
MinJobAge=300
EOF
	while IFS=$'\t' read -r name role s policy wan lan; do
		[[ $s == "$site" ]] || continue
		printf 'NodeName=%s NodeAddr=%s CPUs=%d RealMemory=1 State=UNKNOWN\n' "$name" "$lan" \
			"$NODE_SLOTS"
	done < <(tb_rows node)
	printf 'PartitionName=%s Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n' "$TBS_PARTITION"
}

# The cgroup plugin for this machine: v2 when /sys/fs/cgroup is the unified hierarchy, v1
# otherwise.
tbs_cgroup_plugin() {
	if [[ $(stat -f -c %T /sys/fs/cgroup 2>/dev/null) == cgroup2fs ]]; then echo cgroup/v2
	else echo cgroup/v1; fi
}

# munged of site $1 with a key of its own.
tbs_start_munge() {
	local site=$1 d="$DIR/slurm/$1"
	dd if=/dev/urandom of="$d/munge.key" bs=1024 count=1 status=none
	chmod 0400 "$d/munge.key"
	tb_spawn "munged-$site" "gw-$site" munged --foreground --force --num-threads=2 \
		--socket="$(tbs_socket "$site")" --key-file="$d/munge.key" \
		--pid-file="$d/munged.pid" --log-file="$DIR/log/munged-$site.file.log" \
		--seed-file="$d/munge.seed"
	tb_wait_until "munged-$site" "$DIR/pids/munged-$site.pid" start "$TBS_READY_TENTHS" \
		test -S "$(tbs_socket "$site")"
}

# Whether every node of site $1 is idle in its Slurm (slurmd registered).
tbs_nodes_idle() {
	local site=$1 states
	states=$(tb_nsx "gw-$site" env SLURM_CONF="$(tbs_conf "$site")" \
		sinfo -h -N -o '%t' 2>/dev/null) || return 1
	[[ -n $states ]] && ! grep -qv '^idle$' <<<"$states"
}

# Whether site $1's slurmctld answers.
tbs_ctld_up() {
	tb_nsx "gw-$1" env SLURM_CONF="$(tbs_conf "$1")" scontrol ping >/dev/null 2>&1
}

# Site $1's Slurm: munged, slurmctld on its gateway, slurmd on each node; returns once every
# node is idle. The slurmds start only once slurmctld answers: a slurmd whose registration
# finds no slurmctld retries after 1, 2, 4 ... 128 s, so on a loaded machine a slurmd started
# alongside a slow slurmctld could stay unregistered (not idle) far longer than any bound.
tbs_start_site() {
	local site=$1 gw_lan node
	gw_lan=$(tb_rows gw | awk -F'\t' -v s="$site" '$3 == s { print $6 }')
	mkdir -p "$DIR/slurm/$site/ctld"
	tbs_write_conf "$site" "$gw_lan" >"$(tbs_conf "$site")"
	# slurmd initialises its cgroup plugin whatever the proctrack and task plugins are, and
	# autodetection fails where /sys/fs/cgroup is a tmpfs of v1 hierarchies: name the one
	# this machine has. Nothing is constrained (task/none, proctrack/pgid).
	printf '# written by qcg-testbed\nCgroupPlugin=%s\n' "$(tbs_cgroup_plugin)" \
		>"$DIR/slurm/$site/cgroup.conf"
	tbs_start_munge "$site"
	tb_spawn "slurmctld-$site" "gw-$site" slurmctld -D -i -f "$(tbs_conf "$site")"
	tb_wait_until "slurmctld-$site" "$DIR/pids/slurmctld-$site.pid" "answer scontrol ping" \
		"$TBS_CTLD_TENTHS" tbs_ctld_up "$site"
	for node in $(tb_rows node | awk -F'\t' -v s="$site" '$3 == s { print $1 }'); do
		mkdir -p "$DIR/slurm/$site/spool-$node"
		tb_spawn "slurmd-$node" "$node" slurmd -D -N "$node" -f "$(tbs_conf "$site")"
	done
	# In a subshell: tb_wait_until dies on failure, and the nodes' logs tell why too.
	if ! (tb_wait_until "slurmctld-$site" "$DIR/pids/slurmctld-$site.pid" \
		"see every node of site $site idle" "$TBS_READY_TENTHS" tbs_nodes_idle "$site"); then
		for node in $(tb_rows node | awk -F'\t' -v s="$site" '$3 == s { print $1 }'); do
			note "slurmd-$node.log:"
			tail -n 15 "$DIR/log/slurmd-$node.log" | sed 's/^/    /' >&2 || true
		done
		tb_nsx "gw-$site" env SLURM_CONF="$(tbs_conf "$site")" sinfo -N >&2 || true
		die "Slurm of site $site did not come up"
	fi
	tb_service_note "slurm-$site" "gw-$site" "$DIR/pids/slurmctld-$site.pid" \
		"Slurm (SLURM_CONF=$(tbs_conf "$site"))"
}

# `up`: every Slurm site.
tbs_up() {
	local site
	[[ -n ${SLURM_SITES:-} ]] || return 0
	tbs_check_programs
	for site in $SLURM_SITES; do tbs_start_site "$site"; done
}

# Whether daemon $1 keeps root: the front-end of a Slurm site does, so that its Slurm jobs
# belong to the account the grid user maps to (root here), the only one Slurm lets start the
# job's steps (srun --overlap from the helper's launch).
tbs_service_as_root() { [[ $1 == frontend-* ]] && tbs_is_slurm_site "${1#frontend-}"; }

# The keys of site $1's cluster line in the grid description (qcg-deploy(8)): allocator slurm,
# its partition, slurm.conf and pending timeout on a Slurm site; nothing (the builtin
# default) elsewhere.
tbs_grid_cluster_keys() {
	tbs_is_slurm_site "$1" || return 0
	printf ' allocator=slurm partition=%s slurm_conf=%s pending_timeout=%s' "$TBS_PARTITION" \
		"$(tbs_conf "$1")" "$TBS_PENDING_TIMEOUT"
}

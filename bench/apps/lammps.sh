#!/bin/bash
# lammps.sh [BUILD-DIR]: a second application, one that leans on the collectives (issue 20).
# LAMMPS (Debian's lammps, built against Open MPI; installed here when missing) runs in.salt, a
# charged melt whose PPPM solver transposes its FFT grid with MPI_Alltoallv several times a
# step and sums energies with MPI_Allreduce, through qcg-submit on the testbed's open, nat and
# closed sites (a, b, c; 2 nodes each, one rank per node), as hpcc.sh does: host user a
# workstation, the hosts sharing no files, mpirun inside the job, the input staged in and
# log.lammps staged back. The same job twice per round, alternated: "qcg" (coll/qcg's verbose
# line required on all 6 ranks) and "tuned" (OMPI_MCA_coll=^qcg). LAMMPS has no self-test, so a
# run counts only if (1) it finished (Total wall time), (2) the total energy of this NVE run
# drifted less than 1 % from step 0 to the end (a wrong transpose or sum gives wrong forces,
# which do not conserve it), and (3) step 0's potential energy and pressure, a deterministic
# function of the positions, agree between the qcg and tuned runs of a round to 1e-9.
# Prints a table of medians over REPS rounds (default 1) and qcg/tuned.
#   WAN_DELAY=5 REPS=1 bench/apps/lammps.sh     # from the build tree, after make (as root)
# Takes /tmp/qcg-heavy.lock (the machine is shared) unless QCG_HEAVY_LOCKED=1, and the testbed
# lock; its testbed is always brought down.
set -euo pipefail
if [ "${QCG_HEAVY_LOCKED:-0}" != 1 ]; then
	exec env QCG_HEAVY_LOCKED=1 flock /tmp/qcg-heavy.lock "$0" "$@"
fi
# shellcheck source=bench/launch/common.sh
. "$(dirname "$0")/../launch/common.sh" "${1:-.}"
# shellcheck source=bench/apps/lib.sh
. "$(dirname "$0")/lib.sh"
LMP=${LMP:-/usr/bin/lmp}
if [[ ! -x $LMP ]]; then
	echo "lammps.sh: no $LMP: installing Debian's lammps" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends lammps >/dev/null
fi
bench_need lammps.sh "$LMP" "$B/launcher/qcg-submit" "$B/services/broker/qcg-broker"
REPS=${REPS:-1}
WAN_DELAY=${WAN_DELAY:-5}
HERE=$(cd "$(dirname "$0")" && pwd)
echo "lammps.sh: $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg), WAN ${WAN_DELAY} ms, $REPS round(s)"
bench_up lammps.sh /var/tmp/qcg-tb-lammps --sites 3 --nodes 2 --policies open,nat,closed \
	--frontend-proxy --wan-delay "$WAN_DELAY" --workstation --separate-fs
cp "$HERE/in.salt" "$OUT/in.salt"

# job VARIANT ROUND: the description (DIR is seen by every host, user included).
job() {
	local f=$OUT/lammps-$1-$2.qcg env
	env=$(app_variant_env "$1")
	{
		printf '#QCG name=lammps-%s-%s\n#QCG executable=%s\n#QCG walltime=PT30M\n' "$1" "$2" "$LMP"
		printf '#QCG argument=%s\n' -in in.salt -log log.lammps -screen none
		printf '#QCG environment=%s\n' "$env"
		printf '#QCG stage-in-file=%s -> in.salt\n' "$OUT/in.salt"
		printf '#QCG stage-out-file=log.lammps -> %s\n' "$OUT/log-$1-$2.lammps"
		printf '#QCG host=%s\n#QCG nodes=2:1\n' a b c
	} >"$f"
	echo "$f"
}

# thermo LOG: the thermo rows (step temp pe ke etotal press) of the run in LOG.
thermo() { awk '/^Step Temp/ { on = 1; next } /^Loop time/ { on = 0 } on && NF == 6' "$1"; }

# run VARIANT ROUND: submit from user, check the run, print "VARIANT wall loop kspace comm
# steps_per_s pe0 press0 drift".
run() {
	local v=$1 r=$2 f out t0 t1 log rows
	f=$(job "$v" "$r")
	out=$OUT/submit-$v-$r.out
	t0=$(date +%s.%N)
	app_submit lammps.sh "$v" "$r" "$f" "$out" || return 1
	t1=$(date +%s.%N)
	log=$OUT/log-$v-$r.lammps
	grep -q '^Total wall time' "$log" 2>/dev/null ||
		{ echo "lammps.sh: $v round $r: no finished log.lammps came back" >&2; return 1; }
	rows=$(thermo "$log")
	printf '%s %.1f %s %s %s %s' "$v" "$(echo "$t1 - $t0" | bc)" \
		"$(sed -n 's/^Loop time of \([0-9.e+-]*\) .*/\1/p' "$log")" \
		"$(awk '$1 == "Kspace" { print $5 }' "$log")" "$(awk '$1 == "Comm" { print $5 }' "$log")" \
		"$(sed -n 's/.*tau\/day, \([0-9.]*\) timesteps\/s.*/\1/p' "$log")"
	awk 'NR == 1 { pe = $3; p = $6; e0 = $5 } { e = $5 }
		END { d = (e - e0) / e0; if (d < 0) d = -d; printf " %s %s %.3g\n", pe, p, d }' <<<"$rows"
}

rows=$OUT/rows
: >"$rows"
for ((r = 1; r <= REPS; r++)); do
	for v in qcg tuned; do
		run "$v" "$r" | tee -a "$rows"
	done
	# The round's checks: energy conserved in both runs, step 0 the same in both.
	tail -n 2 "$rows" | awk '{ pe[NR] = $7; p[NR] = $8; if ($9 + 0 >= 0.01) bad = bad " " $1 " drift " $9 }
		function off(a, b) { d = a - b; if (d < 0) d = -d; m = (a < 0 ? -a : a); return d > 1e-9 * (m > 1 ? m : 1) }
		END { if (off(pe[1], pe[2]) || off(p[1], p[2])) bad = bad " step 0 differs: pe " pe[1] " vs " pe[2] ", press " p[1] " vs " p[2]
			if (bad != "") { print "lammps.sh: round check failed:" bad > "/dev/stderr"; exit 1 } }'
done
# Wall, loop, Kspace and Comm times: lower is better; timesteps/s: higher.
awk '
function med(v, k,   n, i, j, t, a) {
	n = cnt[v]; for (i = 1; i <= n; i++) a[i] = val[v, k, i]
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ c = ++cnt[$1]; for (k = 2; k <= NF; k++) val[$1, k, c] = $k }
END {
	split("wall_s loop_s kspace_avg_s comm_avg_s timesteps_per_s energy_drift", name, " ")
	printf "| figure | qcg | tuned | qcg/tuned |\n|---|---|---|---|\n"
	for (k = 2; k <= 6; k++) {
		q = med("qcg", k); t = med("tuned", k)
		printf "| %s | %.4g | %.4g | %.2f |\n", name[k - 1], q, t, (t > 0) ? q / t : 0
	}
	printf "| %s | %.3g | %.3g | |\n", name[6], med("qcg", 9), med("tuned", 9)
}' "$rows"
echo "lammps.sh: done, load $(cut -d' ' -f1-3 /proc/loadavg)"

#!/bin/sh
# median_ratios.sh: qcg/tuned per collective and size as the median of several coll_bench
# tables (run_coll_bench.sh or run_coll_testbed.sh outputs, side by side in one job each), with
# the spread (smallest and largest run) so that a cell noise dominates shows as such.
#
#   bench/coll/median_ratios.sh [-b BASELINE.txt]... [-B] RUN1.txt RUN2.txt RUN3.txt
#
# With -B (testbed tables, which have a bound_us column) the ratios are to the lower bound
# instead: median qcg/bound [min-max] and median tuned/bound (issue 20's measure).
#
# Prints a markdown table: coll, bytes, the median qcg/tuned and [min-max], the median qcg_us
# and tuned_us; with BASELINE (e.g. results/percall-0724/coll_bench.txt) also its qcg_us and
# our median qcg_us over it (a row slower than the baseline by more than 5 % is marked). -b
# given several times (e.g. runs of an older build, side by side with these): the median of
# their qcg_us is the baseline.
set -eu
base= bound=0
while getopts b:B opt; do
	case $opt in
	b) base=${base:+$base
}$OPTARG ;;
	B) bound=1 ;;
	*) echo "usage: $0 [-b BASELINE.txt]... [-B] RUN.txt..." >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { echo "usage: $0 [-b BASELINE.txt] RUN.txt..." >&2; exit 2; }
awk -v base="$base" -v bound="$bound" '
	# the table rows: coll bytes qcg_us tuned_us ...
	BEGIN { nb = split(base, bl, "\n"); for (i = 1; i <= nb; i++) isbase[bl[i]] = 1 }
	FNR == 1 { file++ }
	$1 ~ /^[a-z]+$/ && $2 ~ /^[0-9]+$/ && $3 ~ /^[0-9.]+$/ && $4 ~ /^[0-9.]+$/ {
		key = $1 " " $2
		if (FILENAME in isbase) { bv[key, ++bn[key]] = $3; bq[key] = 1; next }
		if (!(key in seen)) { seen[key] = 1; order[++nk] = key }
		n[key]++
		if (bound && $6 !~ /^[0-9.]+$/) { print FILENAME ": no bound_us column" > "/dev/stderr"; exit 2 }
		r[key, n[key]] = bound ? $3 / $6 : $3 / $4
		tb[key, n[key]] = bound ? $4 / $6 : 0
		q[key, n[key]] = $3
		t[key, n[key]] = $4
	}
	function median(a, key, k,    i, j, v, tmp) {
		for (i = 1; i <= k; i++) tmp[i] = a[key, i]
		for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++)
			if (tmp[j] < tmp[i]) { v = tmp[i]; tmp[i] = tmp[j]; tmp[j] = v }
		return k % 2 ? tmp[(k + 1) / 2] : (tmp[k / 2] + tmp[k / 2 + 1]) / 2
	}
	END {
		printf "| coll | bytes | %s median [min-max] | qcg us | tuned us |%s%s\n",
		    bound ? "qcg/bound" : "qcg/tuned", bound ? " tuned/bound |" : "",
		    base != "" ? " baseline qcg us | median / baseline |" : ""
		printf "|---|---|---|---|---|%s%s\n", bound ? "---|" : "", base != "" ? "---|---|" : ""
		for (i = 1; i <= nk; i++) {
			key = order[i]; k = n[key]
			lo = hi = r[key, 1]
			for (j = 2; j <= k; j++) {
				if (r[key, j] < lo) lo = r[key, j]
				if (r[key, j] > hi) hi = r[key, j]
			}
			split(key, kb, " ")
			mr = median(r, key, k); mq = median(q, key, k)
			line = sprintf("| %s | %s | %.2f [%.2f-%.2f]%s | %.0f | %.0f |", kb[1], kb[2],
			    mr, lo, hi, !bound && mr > 1.05 ? " **>1.05**" : "", mq, median(t, key, k))
			if (bound)
				line = line sprintf(" %.2f |", median(tb, key, k))
			if (base != "") {
				mb = key in bq ? median(bv, key, bn[key]) : 0
				line = line sprintf(" %s | %s |", key in bq ? sprintf("%.0f", mb) : "-",
				    key in bq ? sprintf("%.2f%s", mq / mb,
				    mq / mb > 1.05 ? " **>1.05**" : "") : "-")
			}
			print line
		}
	}' $(printf '%s\n' "$base") "$@"

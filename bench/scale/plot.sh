#!/bin/bash
# plot.sh TABLE PNG: bench/scale's plot (README.md) from run.sh's table: left, broker requests
# per job against S² + P, before and after the cluster-pair cache, with a least-squares line
# fitted to each; right, the broker's Resolves per job against S² (after: one per cluster pair
# and per first-connect race; before: one per target and cluster). Needs gnuplot (gnuplot-nox);
# prints the fitted coefficients.
# PLOT_BEFORE / PLOT_AFTER name the two series in the key (defaults: the cluster-pair table's).
set -eu
table=$1 png=$2
before_title=${PLOT_BEFORE:-before (no pair cache)}
after_title=${PLOT_AFTER:-after (pair cache)}
command -v gnuplot >/dev/null || { echo "plot.sh: gnuplot is not installed (apt-get install gnuplot-nox)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for v in before after; do
	# x = S² + P, broker requests, broker Resolves, S²; all-to-all rows only (a ring's
	# connects grow with P, not P²)
	awk -v v="$v" '$3 == "all" && $4 == v && $6 == 0 { print $1 * $1 + $2, $7, $11, $1 * $1 }' \
		"$table" >"$tmp/$v.dat"
done
[ -s "$tmp/after.dat" ] || { echo "plot.sh: no complete 'after' rows in $table" >&2; exit 2; }
# A table of 'after' rows alone (the eleventh session's, P varying) plots that series alone.
if [ -s "$tmp/before.dat" ]; then
	fit_before='fit fb(x) "'$tmp/before.dat'" using 1:2 via ab, bb'
	print_before='print sprintf("broker requests, before: %.2f (S^2+P) %+.0f", ab, bb)'
	plot_before='"'$tmp/before.dat'" using 1:2 with points pt 7 title "'$before_title'", fb(x) with lines title sprintf("fit %.1f(S^2+P)%+.0f", ab, bb),'
	plot_before_res='"'$tmp/before.dat'" using 4:3 with points pt 7 title "before",'
else
	fit_before="" print_before="" plot_before="" plot_before_res=""
fi
gnuplot <<GP
set terminal png size 1200,500
set output "$png"
set fit quiet
set fit logfile "/dev/null"
fb(x) = ab * x + bb
fa(x) = aa * x + ba
$fit_before
fit fa(x) "$tmp/after.dat" using 1:2 via aa, ba
set print "-"
$print_before
print sprintf("broker requests, after:  %.2f (S^2+P) %+.0f", aa, ba)
set multiplot layout 1,2 title "bench/scale: set-up storm, all-to-all, loopback"
set xlabel "S^2 + P"
set ylabel "broker requests per job"
set key top left
plot $plot_before \
     "$tmp/after.dat" using 1:2 with points pt 5 title "$after_title", \
     fa(x) with lines title sprintf("fit %.1f(S^2+P)%+.0f", aa, ba)
set xlabel "S^2"
set ylabel "broker Resolves per job"
plot $plot_before_res \
     "$tmp/after.dat" using 4:3 with points pt 5 title "after", \
     x - sqrt(x) with lines title "S(S-1): one per ordered cluster pair"
unset multiplot
GP

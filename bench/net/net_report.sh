# net_report.sh: the summary and the plot of run_net_bench.sh (sourced by it; reads the raw
# rows OUTDIR/{methods,trunk,startup}.txt that net_parts.sh wrote, whichever exist).

# Median of the numbers on stdin ("-" when none).
med() { sort -g | awk '{ v[NR] = $1 } END { if (!NR) print "-"; else if (NR % 2) print v[(NR + 1) / 2];
	else printf "%.4g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# Methods: per method the medians over rounds, and the median over rounds of the ratio to the
# same round's direct (bandwidth and latency); "used" counts rounds where the broker recorded
# the wanted method, succeeded first time.
summary_methods() {
	local raw=$outdir/methods.txt m
	[[ -f $raw ]] || return 0
	echo "## methods (5 ms one-way WAN delay; medians over rounds; ratio = method / direct, same round)"
	printf '%-12s %-9s %9s %11s %10s %9s %9s %9s %9s %s\n' method used setup_ms broker_setup_ms \
	    lat_ms bw_mbit bw_ratio lat_ratio load
	for m in plain direct port-range reversal traversal relay relay-chain; do
		awk -v m="$m" '!/^#/ && $2 == m' "$raw" >"$outdir/.rows" || true
		[[ -s $outdir/.rows ]] || continue
		local n ok setup bsetup lat bw bwr latr ld
		n=$(wc -l <"$outdir/.rows")
		ok=$(awk -v m="$m" '($5 == m || m == "plain") && $6 == "ok" && $14 == 0' "$outdir/.rows" | wc -l)
		setup=$(awk '$8 != "-" { print $8 / 1000 }' "$outdir/.rows" | med)
		bsetup=$(awk '$7 != "-" { print $7 / 1000 }' "$outdir/.rows" | med)
		lat=$(awk '$10 != "-" { print $10 / 1000 }' "$outdir/.rows" | med)
		bw=$(awk '$11 != "-" { print $11 }' "$outdir/.rows" | med)
		bwr=$(ratio_to_direct "$raw" "$m" 11 | med)
		latr=$(ratio_to_direct "$raw" "$m" 10 | med)
		ld=$(awk '{ print $13 }' "$outdir/.rows" | sort -g | sed -n '1p;$p' | paste -sd- -)
		printf '%-12s %-9s %9s %11s %10s %9s %9s %9s %9s\n' "$m" "$ok/$n" "$setup" "$bsetup" \
		    "$lat" "$bw" "$bwr" "$latr" "$ld"
	done
	rm -f "$outdir/.rows"
}

# Per round, field $3 of method $2 divided by the same round's direct.
ratio_to_direct() {
	awk -v m="$2" -v f="$3" '!/^#/ && $2 == "direct" && $f != "-" { d[$1] = $f }
		!/^#/ && $2 == m && $f != "-" { v[$1] = $f }
		END { for (r in v) if (r in d && d[r] > 0) printf "%.3f\n", v[r] / d[r] }' "$1"
}

summary_trunk() {
	local raw=$outdir/trunk.txt
	[[ -f $raw ]] || return 0
	echo "## trunking (4 relayed pairs b->c streaming at once; each WAN proxy's uplink capped)"
	awk '!/^#/ { if ($1 == 1) base = $4; rows[NR] = $0 }
		END { printf "%-3s %-9s %-14s %-10s %-24s %-7s %s\n", "k", "cap/proxy", "aggregate_mbit",
			"x_k1", "per_pair_mbit", "relays", "relays:bytes_per_proxy"
			for (i in rows) { split(rows[i], f, " ")
				printf "%-3s %-9s %-14s %-10s %-24s %-7s %s (load %s, rc %s)\n", f[1], f[2],
					f[4], (base > 0 ? sprintf("%.2f", f[4] / base) : "-"), f[5], f[6], f[7],
					f[8], f[9] } }' "$raw" | sort -n
}

summary_startup() {
	local raw=$outdir/startup.txt p h q
	[[ -f $raw ]] || return 0
	echo "## startup of a 16-rank job (4 open sites x 2 nodes x 2 ranks; mpirun wall time)"
	p=$(awk '!/^#/ && $2 == "plain" && $5 == 0 { print $3 / 1000 }' "$raw" | med)
	h=$(awk '!/^#/ && $2 == "shim" && $5 == 0 { print $3 / 1000 }' "$raw" | med)
	q=$(awk '!/^#/ && $2 == "qcg" && $5 == 0 { print $3 / 1000 }' "$raw" | med)
	echo "plain mpirun + testbed rsh:       median $p s ($(awk '!/^#/ && $2 == "plain" { printf "%s ", $3 / 1000 }' "$raw")s)"
	echo "testbed rsh + libqcgnet:          median $h s ($(awk '!/^#/ && $2 == "shim" { printf "%s ", $3 / 1000 }' "$raw")s)"
	echo "qcg-rsh + libqcgnet:              median $q s ($(awk '!/^#/ && $2 == "qcg" { printf "%s ", $3 / 1000 }' "$raw")s)"
	awk -v p="$p" -v h="$h" -v q="$q" 'BEGIN { if (p + 0 > 0 && q + 0 > 0)
		printf "qcg / plain: %.2f   (libqcgnet alone / plain: %.2f)\n", q / p, h / p }'
	echo "one remote 'true' (a1 -> d2): qcg-rsh $(awk '!/^#/ && $2 == "rsh-qcg" { printf "%s ", $3 }' "$raw")ms;" \
	    "testbed rsh $(awk '!/^#/ && $2 == "rsh-plain" { printf "%s ", $3 }' "$raw")ms"
	awk '!/^#/ && ($2 == "shim" || $2 == "qcg") && NF >= 8 { printf "%s round %s: %s connections" \
		" brokered, set-up median %s ms, summed %s ms\n", $2, $1, $6, $7, $8 }' "$raw"
	echo "load averages: $(awk '!/^#/ { printf "%s ", $4 }' "$raw")"
}

summarize() {
	echo "# bench/net summary, $(date -u +%FT%TZ), $(nproc) cores"
	summary_methods
	summary_trunk
	summary_startup
}

# One PNG: per method bandwidth and latency ratio to direct; trunking aggregate vs k.
plot() {
	command -v gnuplot >/dev/null || { echo "(gnuplot not installed: no plot)"; return 0; }
	[[ -f $outdir/methods.txt && -f $outdir/trunk.txt ]] ||
	    { echo "(no plot: it needs the methods and trunk parts)"; return 0; }
	local raw=$outdir/methods.txt m dat=$outdir/.plot-methods tdat=$outdir/.plot-trunk
	: >"$dat"
	if [[ -f $raw ]]; then
		for m in plain port-range reversal traversal relay relay-chain; do
			printf '%s %s %s\n' "$m" "$(ratio_to_direct "$raw" "$m" 11 | med)" \
			    "$(ratio_to_direct "$raw" "$m" 10 | med)" >>"$dat"
		done
	fi
	awk '!/^#/ { print $1, $4 }' "$outdir/trunk.txt" 2>/dev/null | sort -n >"$tdat" || true
	[[ -s $tdat ]] || echo "0 0" >"$tdat"
	gnuplot <<-EOF
		set terminal png size 1100,450
		set output "$outdir/net_bench.png"
		set multiplot layout 1,2
		set style data histograms
		set style fill solid border -1
		set title "method / direct (5 ms WAN)"
		set yrange [0:1.5]
		set key top left
		set xtics rotate by -30
		plot "$dat" using 2:xtic(1) title "bandwidth", '' using 3 title "latency"
		set style data linespoints
		set title "trunking: aggregate Mbit/s vs WAN proxies"
		set xlabel "k proxies"
		set yrange [0:*]
		set xtics norotate
		set xtics (1, 2, 4)
		plot "$tdat" using 1:2 title "aggregate" lw 2, "$tdat" using 1:(\$1 * $TRUNK_MBIT) title "k x cap" dt 2
		unset multiplot
	EOF
	rm -f "$dat" "$tdat"
	echo "plot: $outdir/net_bench.png"
}

#!/bin/sh
# bench/fuzz/run.sh: run every libFuzzer target for N executions each (default 10^7) or for T
# minutes each (-t; with both -n and -t, whichever comes first), then merge what each found into its committed corpus (-merge=1: only
# inputs that add coverage), and write a results table.
#
#   bench/fuzz/run.sh [-n RUNS | -t MINUTES] [-b FUZZ_BUILD_DIR] [-o OUT_DIR] [-M] [TARGET...]
#
# -b  a build configured with CC=clang --enable-fuzzing, after `make fuzz` (default: _fuzz in
#     the source tree; tests/fuzz/README.md says how to make it)
# -o  where work corpora, crash inputs and logs go (default: /tmp/qcg-fuzz)
# -M  do not merge into the committed corpora (a look-only run)
# TARGET names (config, soap_broker, ...) default to all of them.
#
# The results table (target, executions, exec/s, crashes, corpus files) is printed and written
# to OUT_DIR/results.md; copy the figures into bench/fuzz/README.md. Fuzzing is not
# timing-sensitive: every target runs under nice -n 19, one at a time, not under the heavy lock.
# A target stops at its first crash: its input is in OUT_DIR/crashes/TARGET/; fix the bug, add
# the input to the corpus as bug_<what>, and run the target again.
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
runs=
minutes=
build=$top/_fuzz
out=/tmp/qcg-fuzz
merge=1
while getopts n:t:b:o:M opt; do
	case $opt in
	n) runs=$OPTARG ;;
	t) minutes=$OPTARG ;;
	b) build=$(cd "$OPTARG" && pwd) ;;
	o) out=$OPTARG ;;
	M) merge=0 ;;
	*) sed -n '2,13s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))

all="config gridmap acl signing_policy helper_proto privsep_proto job_simple job_xml job_jsdl relay_hello topo_colors
topo_file delayline_conf soap_broker soap_frontend soap_helper soap_proxy"
targets=${*:-$all}

# The committed corpus of a target (the older ones live next to their code).
corpus_of() {
	case $1 in
	helper_proto) echo "$top/proto/corpus_helper_proto" ;;
	privsep_proto) echo "$top/services/helper/corpus_privsep_proto" ;;
	job_simple) echo "$top/tests/launcher/corpus_job_simple" ;;
	*) echo "$top/tests/fuzz/corpus_$1" ;;
	esac
}

# The value of a libFuzzer final statistic ("stat::name: value") in a log, or 0.
stat_of() {
	v=$(sed -n "s/^stat::$2: *\([0-9]*\).*/\1/p" "$1" | tail -n 1)
	echo "${v:-0}"
}

mkdir -p "$out"
results=$out/results.md
{
	echo "| target | executions | exec/s | crashes | corpus files |"
	echo "|---|---:|---:|---:|---:|"
} >"$results"
[ -z "$runs" ] && [ -z "$minutes" ] && runs=10000000
limit=${runs:+-runs=$runs}
[ -n "$minutes" ] && limit="${limit:+$limit }-max_total_time=$((minutes * 60))"

for t in $targets; do
	bin=$build/tests/fuzz/fuzz_$t
	corpus=$(corpus_of "$t")
	if [ ! -x "$bin" ] || [ ! -d "$corpus" ]; then
		echo "run.sh: $t: no $bin or no $corpus (make fuzz in a --enable-fuzzing build)" >&2
		exit 1
	fi
	work=$out/work/$t
	crashes=$out/crashes/$t
	log=$out/$t.log
	mkdir -p "$work" "$crashes"
	cp "$corpus"/* "$work"/ 2>/dev/null || true
	echo "run.sh: fuzzing $t ($limit), log $log" >&2
	# -print_final_stats gives the counts; the fuzzer's exit status says whether it crashed,
	# and every crash, leak, timeout or OOM leaves its input in $crashes.
	rc=0
	start=$(date +%s.%N)
	(cd "$out" && nice -n 19 "$bin" $limit -print_final_stats=1 -timeout=30 -rss_limit_mb=2048 \
		-artifact_prefix="$crashes/" "$work" >"$log" 2>&1) || rc=$?
	end=$(date +%s.%N)
	found=$(find "$crashes" -type f | wc -l)
	[ "$rc" -ne 0 ] && [ "$found" -eq 0 ] && found="exit $rc"
	if [ "$merge" = 1 ]; then
		(cd "$out" && nice -n 19 "$bin" -merge=1 "$corpus" "$work" >"$out/$t.merge.log" 2>&1) ||
			echo "run.sh: $t: merge failed, see $out/$t.merge.log" >&2
	fi
	files=$(find "$corpus" -type f | wc -l)
	execs=$(stat_of "$log" number_of_executed_units)
	# over the whole run, start-up and seed corpus included (libFuzzer's own average rounds
	# to whole seconds)
	rate=$(awk -v n="$execs" -v a="$start" -v b="$end" 'BEGIN { printf "%d", n / (b - a) }')
	printf '| %s | %s | %s | %s | %s |\n' "$t" "$execs" "$rate" "$found" "$files" >>"$results"
done
cat "$results"

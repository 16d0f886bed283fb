# examples_output.sh: whether SUBMIT_OUT (tb_submit.sh) holds the complete output of an
# example run on the testbed's three sites, two ranks each, one per node (the examples'
# descriptions): hello_ok, all_pairs_ok, pi_ok. Shared by the tests that run the examples
# (examples.test on builtin sites, slurm_submit.test on Slurm sites).
readonly EXAMPLE_HOSTS=(a1 a2 b1 b2 c1 c2)

# Every hello rank runs on the node the hostfile gives it and sees the colors the description
# implies (site a/b/c = 0/1/2, one cluster per site = 0, node 0/1 of its cluster).
hello_ok() {
	local r
	for r in 0 1 2 3 4 5; do
		grep -qx "hello from rank $r of 6 on ${EXAMPLE_HOSTS[r]} colors $((r / 2)),0,$((r % 2))" \
			<<<"$SUBMIT_OUT" || return 1
	done
	grep -qx "hello: all 6 ranks answered" <<<"$SUBMIT_OUT"
}
all_pairs_ok() { grep -qE "^all-pairs: 6 ranks, [0-9]+ messages of 65536 bytes, 0 errors$" <<<"$SUBMIT_OUT"; }
pi_ok() { grep -qE "^pi is approximately 3\.14159[0-9]*, error [0-9.e+-]+ \(6 ranks, 10000000 intervals\)$" <<<"$SUBMIT_OUT"; }

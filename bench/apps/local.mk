# bench/apps: applications run through qcg-submit on the testbed (issue 20).
EXTRA_DIST += bench/apps/hpcc.sh bench/apps/hpccinf.txt bench/apps/README.md \
	bench/apps/results/hpcc-5ms-20261126.txt

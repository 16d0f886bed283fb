# bench/apps: applications run through qcg-submit on the testbed (issue 20).
EXTRA_DIST += bench/apps/lib.sh bench/apps/hpcc.sh bench/apps/hpccinf.txt bench/apps/README.md \
	bench/apps/results/hpcc-5ms-20261126.txt
# LAMMPS, an application that leans on the collectives (PPPM's all-to-all FFT transposes).
EXTRA_DIST += bench/apps/lammps.sh bench/apps/in.salt bench/apps/results/lammps-5ms-20261126.txt \
	bench/apps/results/lammps-5ms-20261126-round0.txt

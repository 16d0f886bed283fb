# bench/launch: startup time, qcg-submit vs plain mpirun on the same testbed hosts (issue 6).

# deploy/: qcg-testbed and its delay line (issue 4).

# mpi-glue: rules arrive with its issue.

/*
 * coll_check_ref.h: reference collectives for coll_check, written with plain point-to-point
 * (which no coll component touches) in the most obvious way: the root talks to every rank in
 * rank order, and reductions fold the contributions strictly left to right.
 */
#ifndef COLL_CHECK_REF_H
#define COLL_CHECK_REF_H

#include <mpi.h>

void ref_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm);
void ref_reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
    MPI_Comm comm);
void ref_allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
    MPI_Comm comm);
void ref_gather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
    MPI_Datatype rdt, int root, MPI_Comm comm);
void ref_scatter(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
    MPI_Datatype rdt, int root, MPI_Comm comm);
void ref_allgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
    MPI_Datatype rdt, MPI_Comm comm);
void ref_alltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
    MPI_Datatype rdt, MPI_Comm comm);
void ref_allgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
    const int *rcounts, const int *displs, MPI_Datatype rdt, MPI_Comm comm);
void ref_reduce_scatter(const void *sbuf, void *rbuf, const int *rcounts, MPI_Datatype dt,
    MPI_Op op, MPI_Comm comm);
void ref_gatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, const int *rcounts,
    const int *displs, MPI_Datatype rdt, int root, MPI_Comm comm);
void ref_scatterv(const void *sbuf, const int *scounts, const int *displs, MPI_Datatype sdt,
    void *rbuf, int rcount, MPI_Datatype rdt, int root, MPI_Comm comm);
void ref_alltoallv(const void *sbuf, const int *scounts, const int *sdispls, MPI_Datatype sdt,
    void *rbuf, const int *rcounts, const int *rdispls, MPI_Datatype rdt, MPI_Comm comm);
void ref_scan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int exclusive,
    MPI_Comm comm);

/* Bytes from a buffer's start to the end of its count-th element (its "span"). */
size_t ref_span(MPI_Datatype dt, int count);

#endif

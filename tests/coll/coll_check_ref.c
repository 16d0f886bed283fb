/*
 * coll_check_ref.c: point-to-point reference collectives (see coll_check_ref.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "coll_check_ref.h"

#define REF_TAG 4242

size_t
ref_span(MPI_Datatype dt, int count)
{
	MPI_Aint lb, extent, tlb, textent;
	MPI_Type_get_extent(dt, &lb, &extent);
	MPI_Type_get_true_extent(dt, &tlb, &textent);
	return count > 0 ? (size_t)(tlb + textent + (count - 1) * extent) : 0;
}

/* Typed copy of count elements from src to dst (writes only the elements, not the gaps). */
static void
typed_copy(const void *src, void *dst, int count, MPI_Datatype dt)
{
	MPI_Sendrecv(src, count, dt, 0, REF_TAG, dst, count, dt, 0, REF_TAG, MPI_COMM_SELF,
	    MPI_STATUS_IGNORE);
}

void
ref_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
	int n, me;
	MPI_Comm_size(comm, &n);
	MPI_Comm_rank(comm, &me);
	if (me != root) {
		MPI_Recv(buf, count, dt, root, REF_TAG, comm, MPI_STATUS_IGNORE);
		return;
	}
	for (int r = 0; r < n; r++)
		if (r != root)
			MPI_Send(buf, count, dt, r, REF_TAG, comm);
}

void
ref_reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
    MPI_Comm comm)
{
	int n, me;
	MPI_Comm_size(comm, &n);
	MPI_Comm_rank(comm, &me);
	if (me != root) { /* in place only for allreduce: the contribution is in rbuf */
		MPI_Send(sbuf == MPI_IN_PLACE ? rbuf : sbuf, count, dt, root, REF_TAG, comm);
		return;
	}
	size_t span = ref_span(dt, count);
	char *acc = malloc(span + 1), *in = malloc(span + 1);
	for (int r = 0; r < n; r++) {
		const void *mine = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
		void *dst = r == 0 ? acc : in;
		if (r == root)
			typed_copy(mine, dst, count, dt);
		else
			MPI_Recv(dst, count, dt, r, REF_TAG, comm, MPI_STATUS_IGNORE);
		if (r > 0) { /* acc = acc op in, contributions in rank order */
			MPI_Reduce_local(acc, in, count, dt, op);
			char *t = acc;
			acc = in;
			in = t;
		}
	}
	typed_copy(acc, rbuf, count, dt);
	free(acc);
	free(in);
}

void
ref_allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
    MPI_Comm comm)
{
	ref_reduce(sbuf, rbuf, count, dt, op, 0, comm);
	ref_bcast(rbuf, count, dt, 0, comm);
}

/* Counts and displacements of n equal blocks of count elements, for the v variants: the
 * fixed-size collectives are their v variants with these. Free both with free_uniform. */
static int *
uniform_blocks(int n, int count, int **displs)
{
	int *counts = malloc((size_t)n * sizeof(int));
	*displs = malloc((size_t)n * sizeof(int));
	for (int r = 0; r < n; r++) {
		counts[r] = count;
		(*displs)[r] = r * count;
	}
	return counts;
}

static void
free_uniform(int *counts, int *displs)
{
	free(counts);
	free(displs);
}

void
ref_gather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
    MPI_Datatype rdt, int root, MPI_Comm comm)
{
	int n, *displs;
	MPI_Comm_size(comm, &n);
	int *counts = uniform_blocks(n, rcount, &displs);
	ref_gatherv(sbuf, scount, sdt, rbuf, counts, displs, rdt, root, comm);
	free_uniform(counts, displs);
}

void
ref_scatter(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
    MPI_Datatype rdt, int root, MPI_Comm comm)
{
	int n, *displs;
	MPI_Comm_size(comm, &n);
	int *counts = uniform_blocks(n, scount, &displs);
	ref_scatterv(sbuf, counts, displs, sdt, rbuf, rcount, rdt, root, comm);
	free_uniform(counts, displs);
}

void
ref_allgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
    MPI_Datatype rdt, MPI_Comm comm)
{
	int n, me;
	MPI_Comm_size(comm, &n);
	MPI_Comm_rank(comm, &me);
	MPI_Aint lb, ext;
	MPI_Type_get_extent(rdt, &lb, &ext);
	if (sbuf == MPI_IN_PLACE && me != 0) /* the block is at our place in rbuf */
		ref_gather((char *)rbuf + (MPI_Aint)me * rcount * ext, rcount, rdt, NULL, 0, rdt, 0,
		    comm);
	else
		ref_gather(sbuf, scount, sdt, rbuf, rcount, rdt, 0, comm);
	ref_bcast(rbuf, rcount * n, rdt, 0, comm);
}

void
ref_alltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
    MPI_Datatype rdt, MPI_Comm comm)
{
	int n, *sdispls, *rdispls;
	MPI_Comm_size(comm, &n);
	int *scounts = uniform_blocks(n, scount, &sdispls);
	int *rcounts = uniform_blocks(n, rcount, &rdispls);
	ref_alltoallv(sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt, comm);
	free_uniform(scounts, sdispls);
	free_uniform(rcounts, rdispls);
}

void
ref_allgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, const int *rcounts,
    const int *displs, MPI_Datatype rdt, MPI_Comm comm)
{
	int n, me;
	MPI_Comm_size(comm, &n);
	MPI_Comm_rank(comm, &me);
	MPI_Aint lb, ext;
	MPI_Type_get_extent(rdt, &lb, &ext);
	char *mine = (char *)rbuf + (MPI_Aint)displs[me] * ext;
	if (sbuf != MPI_IN_PLACE)
		MPI_Sendrecv(sbuf, scount, sdt, 0, REF_TAG, mine, rcounts[me], rdt, 0, REF_TAG,
		    MPI_COMM_SELF, MPI_STATUS_IGNORE);
	MPI_Request *reqs = malloc(2 * (size_t)n * sizeof(*reqs));
	int nr = 0;
	for (int r = 0; r < n; r++) {
		if (r == me)
			continue;
		MPI_Irecv((char *)rbuf + (MPI_Aint)displs[r] * ext, rcounts[r], rdt, r, REF_TAG, comm,
		    &reqs[nr++]);
		MPI_Isend(mine, rcounts[me], rdt, r, REF_TAG, comm, &reqs[nr++]);
	}
	MPI_Waitall(nr, reqs, MPI_STATUSES_IGNORE);
	free(reqs);
}

void
ref_reduce_scatter(const void *sbuf, void *rbuf, const int *rcounts, MPI_Datatype dt, MPI_Op op,
    MPI_Comm comm)
{
	int n, me, total = 0, start = 0;
	MPI_Comm_size(comm, &n);
	MPI_Comm_rank(comm, &me);
	for (int r = 0; r < n; r++) {
		start += r < me ? rcounts[r] : 0;
		total += rcounts[r];
	}
	MPI_Aint lb, ext;
	MPI_Type_get_extent(dt, &lb, &ext);
	char *all = malloc(ref_span(dt, total) + 1);
	ref_allreduce(sbuf == MPI_IN_PLACE ? rbuf : sbuf, all, total, dt, op, comm);
	typed_copy(all + (MPI_Aint)start * ext, rbuf, rcounts[me], dt);
	free(all);
}

void
ref_gatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, const int *rcounts,
    const int *displs, MPI_Datatype rdt, int root, MPI_Comm comm)
{
	int n, me;
	MPI_Comm_size(comm, &n);
	MPI_Comm_rank(comm, &me);
	if (me != root) {
		MPI_Send(sbuf, scount, sdt, root, REF_TAG, comm);
		return;
	}
	MPI_Aint lb, ext;
	MPI_Type_get_extent(rdt, &lb, &ext);
	for (int r = 0; r < n; r++) {
		char *at = (char *)rbuf + (MPI_Aint)displs[r] * ext;
		if (r != root)
			MPI_Recv(at, rcounts[r], rdt, r, REF_TAG, comm, MPI_STATUS_IGNORE);
		else if (sbuf != MPI_IN_PLACE)
			MPI_Sendrecv(sbuf, scount, sdt, 0, REF_TAG, at, rcounts[r], rdt, 0, REF_TAG,
			    MPI_COMM_SELF, MPI_STATUS_IGNORE);
	}
}

void
ref_scatterv(const void *sbuf, const int *scounts, const int *displs, MPI_Datatype sdt,
    void *rbuf, int rcount, MPI_Datatype rdt, int root, MPI_Comm comm)
{
	int n, me;
	MPI_Comm_size(comm, &n);
	MPI_Comm_rank(comm, &me);
	if (me != root) {
		MPI_Recv(rbuf, rcount, rdt, root, REF_TAG, comm, MPI_STATUS_IGNORE);
		return;
	}
	MPI_Aint lb, ext;
	MPI_Type_get_extent(sdt, &lb, &ext);
	for (int r = 0; r < n; r++) {
		const char *at = (const char *)sbuf + (MPI_Aint)displs[r] * ext;
		if (r != root)
			MPI_Send(at, scounts[r], sdt, r, REF_TAG, comm);
		else if (rbuf != MPI_IN_PLACE)
			MPI_Sendrecv(at, scounts[r], sdt, 0, REF_TAG, rbuf, rcount, rdt, 0, REF_TAG,
			    MPI_COMM_SELF, MPI_STATUS_IGNORE);
	}
}

void
ref_alltoallv(const void *sbuf, const int *scounts, const int *sdispls, MPI_Datatype sdt,
    void *rbuf, const int *rcounts, const int *rdispls, MPI_Datatype rdt, MPI_Comm comm)
{
	int n;
	MPI_Comm_size(comm, &n);
	char *copy = NULL;
	MPI_Aint lb, sext, rext;
	MPI_Type_get_extent(rdt, &lb, &rext);
	if (sbuf == MPI_IN_PLACE) { /* send from a copy of rbuf: it is overwritten as we go */
		size_t span = 0;
		for (int r = 0; r < n; r++) {
			size_t end = (size_t)rdispls[r] * (size_t)rext + ref_span(rdt, rcounts[r]);
			span = end > span ? end : span;
		}
		copy = malloc(span + 1);
		memcpy(copy, rbuf, span);
		sbuf = copy, scounts = rcounts, sdispls = rdispls, sdt = rdt;
	}
	MPI_Type_get_extent(sdt, &lb, &sext);
	MPI_Request *reqs = malloc(2 * (size_t)n * sizeof(*reqs));
	for (int r = 0; r < n; r++) {
		MPI_Irecv((char *)rbuf + (MPI_Aint)rdispls[r] * rext, rcounts[r], rdt, r, REF_TAG, comm,
		    &reqs[r]);
		MPI_Isend((const char *)sbuf + (MPI_Aint)sdispls[r] * sext, scounts[r], sdt, r,
		    REF_TAG, comm, &reqs[n + r]);
	}
	MPI_Waitall(2 * n, reqs, MPI_STATUSES_IGNORE);
	free(reqs);
	free(copy);
}

/* Rank r's result: the inputs of ranks 0..r (exclusive: 0..r-1) folded left to right at rank 0
 * and sent back; rank 0's exclusive result is left alone (MPI leaves it undefined). */
void
ref_scan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int exclusive,
    MPI_Comm comm)
{
	int n, me;
	MPI_Comm_size(comm, &n);
	MPI_Comm_rank(comm, &me);
	const void *mine = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
	if (me != 0) { /* Sendrecv: the rendezvous of large messages must not deadlock */
		char *copy = malloc(ref_span(dt, count) + 1);
		typed_copy(mine, copy, count, dt);
		MPI_Sendrecv(copy, count, dt, 0, REF_TAG, rbuf, count, dt, 0, REF_TAG, comm,
		    MPI_STATUS_IGNORE);
		free(copy);
		return;
	}
	size_t span = ref_span(dt, count);
	char *acc = malloc(span + 1), *in = malloc(span + 1);
	typed_copy(mine, acc, count, dt);
	if (!exclusive)
		typed_copy(acc, rbuf, count, dt);
	char *next = malloc(span + 1);
	for (int r = 1; r < n; r++) {
		/* next = acc op x_r needs x_r first: receive it alone, then send the result */
		MPI_Recv(in, count, dt, r, REF_TAG, comm, MPI_STATUS_IGNORE);
		typed_copy(in, next, count, dt);
		MPI_Reduce_local(acc, next, count, dt, op); /* next = acc op x_r */
		MPI_Send(exclusive ? acc : next, count, dt, r, REF_TAG, comm);
		char *t = acc;
		acc = next;
		next = t;
	}
	free(next);
	free(acc);
	free(in);
}

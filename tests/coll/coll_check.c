/*
 * coll_check.c: every collective qcg implements, compared byte for byte (gaps of derived
 * datatypes included) with the point-to-point reference of coll_check_ref.c: every root,
 * counts 0, 1, 7 and about 1 MiB, contiguous / vector / struct datatypes and mixed send and
 * receive types, MPI_IN_PLACE, a user-defined non-commutative operation, on MPI_COMM_WORLD, a
 * dup, and split communicators of odd sizes. The v-collectives (gatherv, scatterv, alltoallv)
 * use uneven per-rank counts with zeros and blocks placed in reverse rank order with gaps;
 * scan and exscan compare every rank's prefix (rank 0's exscan result is undefined). At 1 MiB
 * the v-collectives and scans run with ints only (their datatype handling is covered by the
 * small counts), to keep make check short. Prints one line per mismatch and a summary; exits
 * non-zero if any rank saw a mismatch.
 *
 * Usage: coll_check [quick|smoke|segmented]   ("quick" skips the 1 MiB cases, for the 3-site
 * run; "smoke" also keeps only MPI_COMM_WORLD, counts 1 and 7, the first and last roots: for
 * runs across a real WAN delay, where every collective costs milliseconds; "segmented" runs
 * only allreduce and allgather, over counts that no number of sites divides and around segment
 * boundaries, for the segmented algorithms of qcg_coll_segmented.sh)
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "coll_check_ref.h"

#define BIG_BYTES (1 << 20)

static int failures;     /* mismatches seen by this rank */
static int checks;       /* comparisons made by this rank */
static const char *comm_name = "?";
static int quick;
static int smoke;

enum { T_INT, T_VECTOR, T_STRUCT, T_AFFINE, T_AFFINE_GAP, NTYPES };
static MPI_Datatype types[NTYPES];
static const char *type_names[NTYPES] = { "int", "vector", "struct", "affine",
	"affine-with-gap" };
static MPI_Op op_affine;
static MPI_Op op_sum_gap; /* commutative, on T_AFFINE_GAP: must leave the gaps alone */

/* x -> a x + b maps composed: (p o q)(x) = p.a (q.a x + q.b) + p.b. Associative, and
 * p o q != q o p in general: the ranks' order shows in the result. Elements are (a, b) or,
 * for T_AFFINE_GAP (a vector type: Open MPI allows only user operations on those), (a, gap, b). */
static void
affine_compose(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	int gap = *dt == types[T_AFFINE_GAP], step = gap ? 3 : 2;
	uint32_t *p = in, *q = inout;
	for (int i = 0; i < *len; i++, p += step, q += step) {
		uint32_t a = p[0] * q[0], b = p[0] * q[1 + gap] + p[1 + gap];
		q[0] = a;
		q[1 + gap] = b;
	}
}

/* Element-wise sum of the two words of (word, gap, word) elements. */
static void
sum_gap(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	(void)dt;
	uint32_t *p = in, *q = inout;
	for (int i = 0; i < *len; i++, p += 3, q += 3) {
		q[0] += p[0];
		q[2] += p[2];
	}
}

static void
make_types(void)
{
	types[T_INT] = MPI_INT;
	MPI_Type_vector(2, 1, 2, MPI_INT, &types[T_VECTOR]); /* int, gap, int */
	int blocks[2] = { 1, 1 };
	MPI_Aint disp[2] = { 0, 8 };
	MPI_Datatype members[2] = { MPI_INT, MPI_DOUBLE };   /* int, 4-byte gap, double */
	MPI_Type_create_struct(2, blocks, disp, members, &types[T_STRUCT]);
	MPI_Type_contiguous(2, MPI_UNSIGNED, &types[T_AFFINE]);
	MPI_Type_vector(2, 1, 2, MPI_UNSIGNED, &types[T_AFFINE_GAP]);
	for (int t = T_VECTOR; t < NTYPES; t++)
		MPI_Type_commit(&types[t]);
	MPI_Op_create(affine_compose, 0, &op_affine);
	MPI_Op_create(sum_gap, 1, &op_sum_gap);
}

/* Fill a buffer with bytes that depend on (seed, position); small ints keep sums exact. */
static void
fill(void *buf, size_t bytes, int seed)
{
	uint32_t *w = buf;
	for (size_t i = 0; i < bytes / 4; i++)
		w[i] = (uint32_t)((seed * 7919u + i * 104729u) % 1000u) | 1u;
}

static void
report(const char *coll, int t, int count, int root, int inplace, int ok)
{
	checks++;
	if (ok)
		return;
	failures++;
	int me;
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	fprintf(stderr, "FAIL comm=%s coll=%s type=%s count=%d root=%d inplace=%d world_rank=%d\n",
	    comm_name, coll, type_names[t], count, root, inplace, me);
}

/* Elements of type t in about BIG_BYTES. */
static int
big_count(int t)
{
	int size;
	MPI_Type_size(types[t], &size);
	return BIG_BYTES / size;
}

/* Two identically filled buffers of span(count) + slack; compared whole after each call. */
struct pair {
	char *ref, *got;
	size_t bytes;
};

static struct pair
pair_new(int t, int count, int seed)
{
	struct pair p;
	p.bytes = ref_span(types[t], count) + 16;
	p.ref = malloc(p.bytes);
	p.got = malloc(p.bytes);
	fill(p.ref, p.bytes, seed);
	memcpy(p.got, p.ref, p.bytes);
	return p;
}

static int
pair_same(struct pair *p)
{
	int same = memcmp(p->ref, p->got, p->bytes) == 0;
	free(p->ref);
	free(p->got);
	return same;
}


static void
check_bcast(MPI_Comm comm, int t, int count, int root)
{
	int me;
	MPI_Comm_rank(comm, &me);
	struct pair p = pair_new(t, count, me == root ? 1 : 100 + me);
	ref_bcast(p.ref, count, types[t], root, comm);
	MPI_Bcast(p.got, count, types[t], root, comm);
	report("bcast", t, count, root, 0, pair_same(&p));
}

/* The root describes its data as vectors, the others as twice as many ints. */
static void
check_bcast_mixed(MPI_Comm comm, int count, int root)
{
	int me;
	MPI_Comm_rank(comm, &me);
	int t = me == root ? T_VECTOR : T_INT, c = me == root ? count : 2 * count;
	struct pair p = pair_new(t, c, me == root ? 1 : 100 + me);
	ref_bcast(p.ref, c, types[t], root, comm);
	MPI_Bcast(p.got, c, types[t], root, comm);
	report("bcast-mixed", t, count, root, 0, pair_same(&p));
}

static void
check_reduce(MPI_Comm comm, int t, MPI_Op op, int count, int root, int inplace)
{
	int me;
	MPI_Comm_rank(comm, &me);
	struct pair s = pair_new(t, count, me);
	int in_place = inplace && me == root;
	struct pair p = pair_new(t, count, in_place ? me : 50 + me);
	ref_reduce(in_place ? MPI_IN_PLACE : s.ref, p.ref, count, types[t], op, root, comm);
	MPI_Reduce(in_place ? MPI_IN_PLACE : s.got, p.got, count, types[t], op, root, comm);
	report(op == op_affine ? "reduce-noncommutative" : "reduce", t, count, root, inplace,
	    pair_same(&p) & pair_same(&s));
}

static void
check_allreduce(MPI_Comm comm, int t, MPI_Op op, int count, int inplace)
{
	int me;
	MPI_Comm_rank(comm, &me);
	struct pair s = pair_new(t, count, me);
	struct pair p = pair_new(t, count, inplace ? me : 50 + me);
	ref_allreduce(inplace ? MPI_IN_PLACE : s.ref, p.ref, count, types[t], op, comm);
	MPI_Allreduce(inplace ? MPI_IN_PLACE : s.got, p.got, count, types[t], op, comm);
	report(op == op_affine ? "allreduce-noncommutative" : "allreduce", t, count, -1, inplace,
	    pair_same(&p) & pair_same(&s));
}

/* Gather; st/rt differ for the mixed case (senders' ints, the root's vectors). */
static void
check_gather(MPI_Comm comm, int st, int sc, int rt, int rc, int root, int inplace)
{
	int me, n;
	MPI_Comm_rank(comm, &me);
	MPI_Comm_size(comm, &n);
	int in_place = inplace && me == root;
	struct pair s = pair_new(st, sc, me);
	struct pair p = pair_new(rt, rc * n, 60 + me);
	ref_gather(in_place ? MPI_IN_PLACE : s.ref, sc, types[st], p.ref, rc, types[rt], root,
	    comm);
	MPI_Gather(in_place ? MPI_IN_PLACE : s.got, sc, types[st], p.got, rc, types[rt], root,
	    comm);
	report(st == rt ? "gather" : "gather-mixed", rt, rc, root, inplace,
	    pair_same(&p) & pair_same(&s));
}

static void
check_scatter(MPI_Comm comm, int t, int count, int root, int inplace)
{
	int me, n;
	MPI_Comm_rank(comm, &me);
	MPI_Comm_size(comm, &n);
	int in_place = inplace && me == root;
	struct pair s = pair_new(t, count * n, 7);
	struct pair p = pair_new(t, count, 70 + me);
	ref_scatter(s.ref, count, types[t], in_place ? MPI_IN_PLACE : p.ref, count, types[t],
	    root, comm);
	MPI_Scatter(s.got, count, types[t], in_place ? MPI_IN_PLACE : p.got, count, types[t],
	    root, comm);
	report("scatter", t, count, root, inplace, pair_same(&p) & pair_same(&s));
}

static void
check_allgather(MPI_Comm comm, int t, int count, int inplace)
{
	int me, n;
	MPI_Comm_rank(comm, &me);
	MPI_Comm_size(comm, &n);
	struct pair s = pair_new(t, count, me);
	struct pair p = pair_new(t, count * n, 80 + me);
	ref_allgather(inplace ? MPI_IN_PLACE : s.ref, count, types[t], p.ref, count, types[t],
	    comm);
	MPI_Allgather(inplace ? MPI_IN_PLACE : s.got, count, types[t], p.got, count, types[t],
	    comm);
	report("allgather", t, count, -1, inplace, pair_same(&p) & pair_same(&s));
}

/* Alltoall; st/rt differ for the mixed case (senders' ints, receivers' vectors). */
static void
check_alltoall(MPI_Comm comm, int st, int sc, int rt, int rc, int inplace)
{
	int me, n;
	MPI_Comm_rank(comm, &me);
	MPI_Comm_size(comm, &n);
	struct pair s = pair_new(st, sc * n, me);
	struct pair p = pair_new(rt, rc * n, 90 + me);
	ref_alltoall(inplace ? MPI_IN_PLACE : s.ref, sc, types[st], p.ref, rc, types[rt], comm);
	MPI_Alltoall(inplace ? MPI_IN_PLACE : s.got, sc, types[st], p.got, rc, types[rt], comm);
	report(st == rt ? "alltoall" : "alltoall-mixed", rt, rc, -1, inplace,
	    pair_same(&p) & pair_same(&s));
}

/* Block i -> j of alltoallv: none when (i + 2j) % 3 == 0, else c plus a little; symmetric in
 * place (MPI then uses the receive counts both ways). */
static int
a2av_count(int i, int j, int c, int symmetric)
{
	if (symmetric)
		return (i + j) % 3 == 0 ? 0 : c + (i + j) % 2;
	return (i + 2 * j) % 3 == 0 ? 0 : c + i % 2;
}

/* Whose counts a layout holds: per rank around c (every third rank none) for the v variants
 * of gather, scatter and allgather; ours to or from every rank for alltoallv. */
enum vkind { V_PER_RANK, V_A2A_SEND, V_A2A_RECV };

/* Counts and displacements of n blocks, placed in reverse rank order with one element of gap
 * between them (so that displacements matter); len is the buffer's length in elements. */
struct vlay {
	int *counts, *displs;
	int len;
};

static struct vlay
vlay_new(int n, int me, int c, enum vkind kind, int symmetric)
{
	struct vlay v = { malloc((size_t)n * sizeof(int)), malloc((size_t)n * sizeof(int)), 0 };
	for (int r = n - 1; r >= 0; r--) {
		v.counts[r] = kind == V_PER_RANK ? (r % 3 == 1 ? 0 : c + r % 2) :
		    kind == V_A2A_SEND ? a2av_count(me, r, c, symmetric) :
		    a2av_count(r, me, c, symmetric);
		v.displs[r] = v.len;
		v.len += v.counts[r] + 1;
	}
	return v;
}

static void
vlay_free(struct vlay *v)
{
	free(v->counts);
	free(v->displs);
}

static void
check_allgatherv(MPI_Comm comm, int t, int c, int inplace)
{
	int me, n;
	MPI_Comm_rank(comm, &me);
	MPI_Comm_size(comm, &n);
	struct vlay v = vlay_new(n, me, c, V_PER_RANK, 0);
	struct pair s = pair_new(t, v.counts[me], me);
	struct pair p = pair_new(t, v.len, 80 + me);
	ref_allgatherv(inplace ? MPI_IN_PLACE : s.ref, v.counts[me], types[t], p.ref, v.counts,
	    v.displs, types[t], comm);
	MPI_Allgatherv(inplace ? MPI_IN_PLACE : s.got, v.counts[me], types[t], p.got, v.counts,
	    v.displs, types[t], comm);
	report("allgatherv", t, c, -1, inplace, pair_same(&p) & pair_same(&s));
	vlay_free(&v);
}

static void
check_gatherv(MPI_Comm comm, int t, int c, int root, int inplace)
{
	int me, n;
	MPI_Comm_rank(comm, &me);
	MPI_Comm_size(comm, &n);
	struct vlay v = vlay_new(n, me, c, V_PER_RANK, 0);
	int in_place = inplace && me == root;
	struct pair s = pair_new(t, v.counts[me], me);
	struct pair p = pair_new(t, v.len, in_place ? me : 60 + me);
	ref_gatherv(in_place ? MPI_IN_PLACE : s.ref, v.counts[me], types[t], p.ref, v.counts,
	    v.displs, types[t], root, comm);
	MPI_Gatherv(in_place ? MPI_IN_PLACE : s.got, v.counts[me], types[t], p.got, v.counts,
	    v.displs, types[t], root, comm);
	report("gatherv", t, c, root, inplace, pair_same(&p) & pair_same(&s));
	vlay_free(&v);
}

static void
check_scatterv(MPI_Comm comm, int t, int c, int root, int inplace)
{
	int me, n;
	MPI_Comm_rank(comm, &me);
	MPI_Comm_size(comm, &n);
	struct vlay v = vlay_new(n, me, c, V_PER_RANK, 0);
	int in_place = inplace && me == root;
	struct pair s = pair_new(t, v.len, 7);
	struct pair p = pair_new(t, v.counts[me], 70 + me);
	ref_scatterv(s.ref, v.counts, v.displs, types[t], in_place ? MPI_IN_PLACE : p.ref,
	    v.counts[me], types[t], root, comm);
	MPI_Scatterv(s.got, v.counts, v.displs, types[t], in_place ? MPI_IN_PLACE : p.got,
	    v.counts[me], types[t], root, comm);
	report("scatterv", t, c, root, inplace, pair_same(&p) & pair_same(&s));
	vlay_free(&v);
}

static void
check_alltoallv(MPI_Comm comm, int t, int c, int inplace)
{
	int me, n;
	MPI_Comm_rank(comm, &me);
	MPI_Comm_size(comm, &n);
	struct vlay sv = vlay_new(n, me, c, V_A2A_SEND, inplace);
	struct vlay rv = vlay_new(n, me, c, V_A2A_RECV, inplace);
	struct pair s = pair_new(t, sv.len, me);
	struct pair p = pair_new(t, rv.len, inplace ? me : 90 + me);
	ref_alltoallv(inplace ? MPI_IN_PLACE : s.ref, sv.counts, sv.displs, types[t], p.ref,
	    rv.counts, rv.displs, types[t], comm);
	MPI_Alltoallv(inplace ? MPI_IN_PLACE : s.got, sv.counts, sv.displs, types[t], p.got,
	    rv.counts, rv.displs, types[t], comm);
	report("alltoallv", t, c, -1, inplace, pair_same(&p) & pair_same(&s));
	vlay_free(&sv);
	vlay_free(&rv);
}

/* scan / exscan; rank 0's exscan result is undefined, so only its input is compared. */
static void
check_scan(MPI_Comm comm, int t, MPI_Op op, int count, int inplace, int exclusive)
{
	int me;
	MPI_Comm_rank(comm, &me);
	struct pair s = pair_new(t, count, me);
	struct pair p = pair_new(t, count, inplace ? me : 50 + me);
	ref_scan(inplace ? MPI_IN_PLACE : s.ref, p.ref, count, types[t], op, exclusive, comm);
	if (exclusive)
		MPI_Exscan(inplace ? MPI_IN_PLACE : s.got, p.got, count, types[t], op, comm);
	else
		MPI_Scan(inplace ? MPI_IN_PLACE : s.got, p.got, count, types[t], op, comm);
	if (exclusive && me == 0)
		p.bytes = 0;
	char name[40];
	snprintf(name, sizeof(name), "%s%s", exclusive ? "exscan" : "scan",
	    op == op_affine ? "-noncommutative" : "");
	report(name, t, count, -1, inplace, pair_same(&p) & pair_same(&s));
}

/* reduce_scatter (block == 0: uneven counts, some zero) or reduce_scatter_block. */
static void
check_reduce_scatter(MPI_Comm comm, int t, MPI_Op op, int c, int inplace, int block)
{
	int me, n;
	MPI_Comm_rank(comm, &me);
	MPI_Comm_size(comm, &n);
	struct vlay v = vlay_new(n, me, c, V_PER_RANK, 0);
	int *counts = v.counts, total = v.len - n; /* the gaps do not count */
	if (block) {
		total = n * c;
		for (int r = 0; r < n; r++)
			counts[r] = c;
	}
	struct pair s = pair_new(t, total, me);
	struct pair p = pair_new(t, inplace ? total : counts[me], inplace ? me : 50 + me);
	ref_reduce_scatter(inplace ? MPI_IN_PLACE : s.ref, p.ref, counts, types[t], op, comm);
	if (block)
		MPI_Reduce_scatter_block(inplace ? MPI_IN_PLACE : s.got, p.got, c, types[t], op, comm);
	else
		MPI_Reduce_scatter(inplace ? MPI_IN_PLACE : s.got, p.got, counts, types[t], op, comm);
	/* In place, MPI defines only the result block: what follows it in the input area is
	 * unspecified (tuned's non-commutative algorithm leaves partial results there). */
	if (inplace)
		p.bytes = ref_span(types[t], counts[me]);
	report(block ? (op == op_affine ? "reduce_scatter_block-noncommutative" :
	    "reduce_scatter_block") : (op == op_affine ? "reduce_scatter-noncommutative" :
	    "reduce_scatter"), t, c, -1, inplace, pair_same(&p) & pair_same(&s));
	vlay_free(&v);
}

/* CLOCK_MONOTONIC is one clock for all processes of a host (MPI_Wtime need not be). */
static double
now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Nobody may leave before everybody entered (all ranks on one host in these tests). */
static void
check_barrier(MPI_Comm comm)
{
	int me, n;
	MPI_Comm_rank(comm, &me);
	MPI_Comm_size(comm, &n);
	for (int round = 0; round < 3; round++) {
		usleep((useconds_t)(((me + round) % 3) * 2000));
		double t[2], *all = malloc(2 * (size_t)n * sizeof(double));
		t[0] = now();
		MPI_Barrier(comm);
		t[1] = now();
		ref_allgather(t, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, comm);
		double last_in = all[0], first_out = all[1];
		for (int r = 0; r < n; r++) {
			last_in = all[2 * r] > last_in ? all[2 * r] : last_in;
			first_out = all[2 * r + 1] < first_out ? all[2 * r + 1] : first_out;
		}
		report("barrier", T_INT, 0, -1, 0, last_in <= first_out);
		free(all);
	}
}

static const int small_counts[] = { 0, 1, 7 };
#define NSMALL 3

/* Roots for a count: every root for small counts, first and last for 1 MiB. */
#define FOR_ROOTS(root, n, big)                                                                    \
	for (int root = 0; root < (n); root = (big) && root < (n) - 1 ? (n) - 1 : root + 1)

static void
suite_rooted(MPI_Comm comm, int n)
{
	static const struct { int t; MPI_Op *op; } red[] = {
		{ T_INT, NULL }, { T_INT, NULL }, { T_AFFINE, &op_affine },
		{ T_AFFINE_GAP, &op_affine },
	};
	for (int big = 0; big <= !quick; big++) {
		for (int i = smoke; i < (big ? 1 : NSMALL); i++) {
			for (int t = T_INT; t <= T_STRUCT; t++) {
				int c = big ? big_count(t) : small_counts[i];
				FOR_ROOTS(root, n, big || smoke) {
					check_bcast(comm, t, c, root);
					for (int ip = 0; ip <= 1; ip++) {
						check_gather(comm, t, c, t, c, root, ip);
						check_scatter(comm, t, c, root, ip);
						if (big && t != T_INT)
							continue; /* types: small counts */
						check_gatherv(comm, t, big ? c / 4 : c, root, ip);
						check_scatterv(comm, t, big ? c / 4 : c, root, ip);
					}
				}
			}
			int c = big ? big_count(T_VECTOR) : small_counts[i];
			FOR_ROOTS(root, n, big || smoke) {
				check_bcast_mixed(comm, c, root);
				check_gather(comm, T_INT, 2 * c, T_VECTOR, c, root, 0);
				for (size_t r = 0; r < sizeof(red) / sizeof(red[0]); r++)
					for (int ip = 0; ip <= 1; ip++)
						check_reduce(comm, red[r].t,
						    red[r].op ? *red[r].op : (r ? MPI_SUM : MPI_MAX),
						    big ? big_count(red[r].t) : c, root, ip);
			}
		}
	}
}

static void
suite_rootless(MPI_Comm comm)
{
	for (int big = 0; big <= !quick; big++) {
		for (int i = smoke; i < (big ? 1 : NSMALL); i++) {
			for (int ip = 0; ip <= 1; ip++) {
				for (int t = T_INT; t <= T_STRUCT; t++)
					check_allgather(comm, t,
					    big ? big_count(t) / 8 : small_counts[i], ip);
				for (int t = T_INT; t <= T_STRUCT; t++)
					check_allgatherv(comm, t,
					    big ? big_count(t) / 8 : small_counts[i], ip);
				for (int t = T_INT; t <= T_STRUCT; t++)
					check_alltoall(comm, t, big ? big_count(t) / 16 :
					    small_counts[i], t, big ? big_count(t) / 16 : small_counts[i],
					    ip);
				for (int t = T_INT; t <= (big ? T_INT : T_STRUCT); t++)
					check_alltoallv(comm, t, big ? big_count(t) / 16 :
					    small_counts[i], ip);
				int c = big ? big_count(T_INT) : small_counts[i];
				for (int x = 0; x <= 1; x++) {
					check_scan(comm, T_INT, MPI_SUM, c, ip, x);
					check_scan(comm, T_AFFINE, op_affine, big ? c / 2 : c, ip, x);
					if (big)
						continue; /* the other ops and types: small counts */
					check_scan(comm, T_INT, MPI_MAX, c, ip, x);
					check_scan(comm, T_AFFINE_GAP, op_affine, c, ip, x);
				}
				if (!ip)
					check_alltoall(comm, T_INT, 2 * (big ? c / 32 : c), T_VECTOR,
					    big ? c / 32 : c, 0);
				for (int b = 0; b <= 1; b++) {
					int rs = big ? c / 16 : c;
					check_reduce_scatter(comm, T_INT, MPI_SUM, rs, ip, b);
					check_reduce_scatter(comm, T_AFFINE, op_affine, rs, ip, b);
					check_reduce_scatter(comm, T_AFFINE_GAP, op_affine, rs, ip, b);
				}
				check_allreduce(comm, T_INT, MPI_SUM, c, ip);
				check_allreduce(comm, T_INT, MPI_MAX, c, ip);
				check_allreduce(comm, T_AFFINE, op_affine, big ? c / 2 : c, ip);
				check_allreduce(comm, T_AFFINE_GAP, op_affine, big ? c / 2 : c, ip);
			}
		}
	}
	check_barrier(comm);
}

/* Allreduce and allgather alone: counts around no number of sites' multiple and around the
 * 32 KiB segments; allreduce: every type with a commutative operation (and the non-commutative
 * one, which qcg must still get right by another path); allgather: every type. */
static int only_segmented;

static void
suite_segmented(MPI_Comm comm)
{
	static const int counts[] = { 0, 1, 2, 3, 5, 7, 1001, 8191, 8193, 24577, 65537 };
	int ncounts = (int)(sizeof(counts) / sizeof(counts[0]));
	for (int i = 0; i <= ncounts; i++) {
		int c = i < ncounts ? counts[i] : big_count(T_INT) + 5;
		for (int ip = 0; ip <= 1; ip++) {
			check_allreduce(comm, T_INT, MPI_SUM, c, ip);
			check_allreduce(comm, T_INT, MPI_MAX, c, ip);
			check_allreduce(comm, T_AFFINE_GAP, op_sum_gap, c / 3, ip);
			check_allreduce(comm, T_AFFINE, op_affine, c / 2, ip);
		}
	}
	check_allreduce(comm, T_INT, MPI_MIN, 100003, 0);
	static const int blocks[] = { 1, 7, 1001, 8193 };
	for (int i = 0; i <= 4; i++)
		for (int t = T_INT; t <= T_STRUCT; t++)
			for (int ip = 0; ip <= 1; ip++)
				check_allgather(comm, t, i < 4 ? blocks[i] : big_count(t) / 8 + 3, ip);
}

static void
suite(MPI_Comm comm, const char *name)
{
	if (comm == MPI_COMM_NULL)
		return;
	int n;
	MPI_Comm_size(comm, &n);
	comm_name = name;
	if (only_segmented) {
		suite_segmented(comm);
		return;
	}
	suite_rooted(comm, n);
	suite_rootless(comm);
}

int
main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	smoke = argc > 1 && strcmp(argv[1], "smoke") == 0;
	quick = smoke || (argc > 1 && strcmp(argv[1], "quick") == 0);
	only_segmented = argc > 1 && strcmp(argv[1], "segmented") == 0;
	make_types();
	int me, n;
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	MPI_Comm dup, all_but_last, thirds;
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	MPI_Comm_split(MPI_COMM_WORLD, me < n - 1 ? 0 : MPI_UNDEFINED, me, &all_but_last);
	/* Every third rank: spans the sites with interleaved ranks (not contiguous). */
	MPI_Comm_split(MPI_COMM_WORLD, me % 3, n - me, &thirds);
	suite(MPI_COMM_WORLD, "world");
	if (!smoke) {
		suite(dup, "dup");
		suite(all_but_last, "split-all-but-last");
		suite(thirds, "split-thirds-reversed");
	}
	int totals[2] = { checks, failures }, sum[2];
	ref_allreduce(totals, sum, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (me == 0)
		printf("coll_check: %d checks on %d ranks, %d failures\n", sum[0], n, sum[1]);
	MPI_Comm_free(&dup);
	if (all_but_last != MPI_COMM_NULL)
		MPI_Comm_free(&all_but_last);
	MPI_Comm_free(&thirds);
	MPI_Op_free(&op_sum_gap);
	MPI_Finalize();
	return sum[1] == 0 && sum[0] > 0 ? 0 : 1;
}

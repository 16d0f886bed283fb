/*
 * coll_qcg_allgather_spread.c: allgather for large blocks over many WAN connections at once
 * (issue 20's "several site-pair streams at once"; the candidate "spread" of
 * coll_qcg_decision.c).
 *
 * The multilevel and segmented allgathers move a site's blocks across the WAN from its master:
 * one connection per site pair. Where a site's line carries more than one connection does (the
 * 5 ms testbed: one pair 200-250 MB/s, a site's ingress from many 1000-1230 MB/s), that one
 * connection is the bottleneck. Here every rank carries its own block:
 *
 *   - member j of a site sends its block to member j mod |T| of every other site T, so a site
 *     pair's blocks cross on as many connections as the sites have members;
 *   - every rank then has its own block and those the WAN brought it, and sends all of them to
 *     every other member of its site, each as soon as it arrived. A member's blocks follow one
 *     order every member derives alike (its own, then each other site's in turn), so the
 *     receives, posted up front in that order, match without a tag per block.
 *
 * Every block crosses the WAN once and the site's network once per member. The result lands in
 * `full`, blocks in (site, cluster, rank) order, B bytes each, as in coll_qcg_allgather.c.
 */
#include "config.h"

#include <stdlib.h>

#include "coll_qcg.h"

#define TAG MCA_COLL_BASE_TAG_ALLGATHER

struct spread {
	const struct qcg_topo_layout *lay;
	int site, nsites, first, size; /* our site: its dfs range and members */
};

/*
 * The dfs indices of the blocks member i (0..size-1) of our site holds after the WAN stage, in
 * the order it passes them on: its own, then, site after site (ours + 1, + 2, ...), those of
 * the members k of that site with k mod size == i. Returns how many (at most n).
 */
static int
held_blocks(const struct spread *s, int i, int *held)
{
	const struct qcg_topo_layout *lay = s->lay;
	int h = 0;
	held[h++] = s->first + i;
	for (int t = 1; t < s->nsites; t++) {
		int T = (s->site + t) % s->nsites;
		for (int k = i; k < lay->usize[0][T]; k += s->size)
			held[h++] = lay->dfs_start[0][T] + k;
	}
	return h;
}

/* Post the chunks of block d of full to or from peer; appends to reqs at *nreq. */
static int
post_block(int sending, int wan, char *full, size_t B, int d, int peer,
    struct ompi_communicator_t *comm, ompi_request_t **reqs, int *nreq)
{
	int rc;
	*nreq += mca_coll_qcg_post_chunks(sending, wan, full + (size_t)d * B, B, peer, TAG, comm,
	    reqs + *nreq, &rc);
	return rc;
}

/*
 * Every rank: full has room for every block; our own block is sent from sbuf (scount sdtype
 * elements, B bytes). in_place_direct: full is the user's buffer and our block is already in it.
 */
int
mca_coll_qcg_allgather_spread(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
    char *full, size_t B, int in_place_direct, struct ompi_communicator_t *comm,
    mca_coll_qcg_module_t *m)
{
	const struct qcg_topo_layout *lay = &m->layout;
	int me = m->rank, n = lay->n, rc = OMPI_SUCCESS;
	struct spread s = { .lay = lay, .site = lay->unit[0][me], .nsites = lay->nunits[0] };
	s.first = lay->dfs_start[0][s.site];
	s.size = lay->usize[0][s.site];
	int mypos = qcg_topo_dfs_index(lay, me);
	int j = mypos - s.first, wch = mca_coll_qcg_nchunks(B, 1), lch = mca_coll_qcg_nchunks(B, 0);
	int *held = malloc((size_t)n * sizeof(int)), *theirs = malloc((size_t)n * sizeof(int));
	/* WAN: ns-1 sends and at most n receives; site: our n blocks to size-1 members and theirs */
	size_t most = (size_t)(s.nsites + n) * (size_t)wch + 2 * (size_t)n * (size_t)s.size * lch;
	ompi_request_t **reqs = malloc((most + 1) * sizeof(*reqs));
	int *arrived = malloc(((size_t)n + 1) * sizeof(int)); /* per held block: its last request */
	int nreq = 0;
	if (held == NULL || theirs == NULL || reqs == NULL || arrived == NULL) {
		rc = OMPI_ERR_OUT_OF_RESOURCE;
		goto out;
	}
	if (!in_place_direct)
		rc = ompi_datatype_sndrcv(sbuf, scount, sdtype, full + (size_t)mypos * B, (int)B,
		    MPI_PACKED);
	int nheld = held_blocks(&s, j, held);
	/* the WAN's blocks for us, in the order we pass them on */
	arrived[0] = 0;
	for (int h = 1; h < nheld && rc == OMPI_SUCCESS; h++) {
		rc = post_block(0, 1, full, B, held[h], lay->dfs[held[h]], comm, reqs, &nreq);
		arrived[h] = nreq;
	}
	/* every other member's blocks, in its order */
	for (int i = 0; i < s.size && rc == OMPI_SUCCESS; i++) {
		if (i == j)
			continue;
		int nt = held_blocks(&s, i, theirs);
		for (int h = 0; h < nt && rc == OMPI_SUCCESS; h++)
			rc = post_block(0, 0, full, B, theirs[h], lay->dfs[s.first + i], comm, reqs,
			    &nreq);
	}
	/* our block across the WAN, to one member of every other site */
	for (int t = 1; t < s.nsites && rc == OMPI_SUCCESS; t++) {
		int T = (s.site + t) % s.nsites;
		int to = lay->dfs[lay->dfs_start[0][T] + j % lay->usize[0][T]];
		rc = post_block(1, 1, full, B, mypos, to, comm, reqs, &nreq);
	}
	/* each held block to the site as soon as it is here */
	for (int h = 0; h < nheld && rc == OMPI_SUCCESS; h++) {
		int from = h == 0 ? 0 : arrived[h - 1];
		if (arrived[h] > from)
			rc = ompi_request_wait_all((size_t)(arrived[h] - from), reqs + from,
			    MPI_STATUSES_IGNORE);
		for (int i = 0; i < s.size && rc == OMPI_SUCCESS; i++)
			if (i != j)
				rc = post_block(1, 0, full, B, held[h], lay->dfs[s.first + i], comm,
				    reqs, &nreq);
	}
	if (nreq > 0) { /* completed requests are inactive: waiting again returns at once */
		int wrc = ompi_request_wait_all((size_t)nreq, reqs, MPI_STATUSES_IGNORE);
		rc = rc != OMPI_SUCCESS ? rc : wrc;
	}
	if (rc == OMPI_SUCCESS && me == 0)
		QCG_VERBOSE(30, "allgather: spread, %zu B blocks, %d sites, %d connections per site "
		    "pair at most", B, s.nsites, s.size);
out:
	free(held);
	free(theirs);
	free(reqs);
	free(arrived);
	return rc;
}

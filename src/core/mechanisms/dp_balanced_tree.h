/*
 * dp_balanced_tree.h
 *		One k-ary tree with balanced digits inside a counter's nodes (the
 *		layout and argument are in dp_balanced.c), shared by the bounded
 *		mechanism, which is one such tree, and the unbounded one, which runs
 *		a tree per block (dp_balanced_blocks.c).
 *
 * Steps are numbered from 1 inside the tree.  Open intervals are kept as
 * offsets against the counter's running total, which dp_balanced_tree_push
 * advances by the step's value.
 */
#ifndef DP_BALANCED_TREE_H
#define DP_BALANCED_TREE_H

#include "dp_counter.h"

#define DP_BALANCED_ARITY_MIN 3
#define DP_BALANCED_ARITY_MAX 63

typedef struct dp_balanced_tree
{
	int			first;			/* its first node */
	int64_t		arity;			/* odd k */
	int			levels;			/* supports local steps up to (k^levels - 1) / 2 */
	dp_scale	scale;			/* of every interval's noise */
} dp_balanced_tree;

/* the least L with (k^L - 1) / 2 >= horizon */
extern int	dp_balanced_levels(int64_t horizon, int64_t arity);
extern bool dp_balanced_arity_valid(int64_t arity);
/* nodes a tree of `levels` levels occupies */
extern int	dp_balanced_tree_nodes(int64_t arity, int levels);

/* The tree at local step 0: every level's window with its noise. */
extern void dp_balanced_tree_open(dp_counter *counter, const dp_balanced_tree *tree,
								  dp_random *rng);
/* Local step t (from 1) with its value. */
extern void dp_balanced_tree_push(dp_counter *counter, const dp_balanced_tree *tree, int64_t t,
								  int64_t value, dp_random *rng);
/*
 * Local step t (from 1) with its value, and the tree's release after it
 * computed from `before`, the release after t - 1 (0 at t = 1): the levels
 * whose digit changed only.  The same nodes, random stream and release as
 * dp_balanced_tree_push then dp_balanced_tree_release.  Clear the
 * counter's memo (memo_step = -1) whenever the tree changes.
 */
extern dp_int128 dp_balanced_tree_step(dp_counter *counter, const dp_balanced_tree *tree,
									   int64_t t, int64_t value, dp_random *rng,
									   dp_int128 before);
/* The tree's release after local step t. */
extern dp_int128 dp_balanced_tree_release(dp_counter *counter, const dp_balanced_tree *tree,
										  int64_t t);
/* Folds the running total into the tree's open intervals, into nodes. */
extern void dp_balanced_tree_persist(const dp_counter *counter, const dp_balanced_tree *tree,
									 int64_t t, dp_int128 *nodes);
/* Noise terms in the release after local step t: the sum of |digits|. */
extern int64_t dp_balanced_tree_noise_terms(const dp_balanced_tree *tree, int64_t t);

#endif							/* DP_BALANCED_TREE_H */

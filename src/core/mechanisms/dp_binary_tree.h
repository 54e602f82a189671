/*
 * dp_binary_tree.h
 *		The levels of one Binary-mechanism tree inside a counter's nodes,
 *		shared by the Binary mechanism and by the Hybrid mechanism, which
 *		restarts such a tree on every block.
 *
 * The tree occupies nodes[first .. first + levels).  Steps are numbered
 * from 1 inside the tree.  Open accumulators are kept as offsets against the
 * counter's running total (see dp_binary.c); the counter's running total must
 * already include the value of a step when dp_binary_tree_push is called.
 */
#ifndef DP_BINARY_TREE_H
#define DP_BINARY_TREE_H

#include "dp_counter.h"

/* Opens every level with fresh noise: a tree at step 0. */
extern void dp_binary_tree_open(dp_counter *counter, int first, int levels,
								const dp_scale *scale, dp_random *rng);

/*
 * Step `step` of the tree: closes the interval ending there, reopens the
 * levels below it, and moves counter->release by the change of the tree's
 * share of the release.
 */
extern void dp_binary_tree_push(dp_counter *counter, int first, int64_t step,
								const dp_scale *scale, dp_random *rng);

/* The tree's nodes in persisted form after `steps` steps. */
extern void dp_binary_tree_persist(const dp_counter *counter, int first, int levels,
								   int64_t steps, dp_int128 *nodes);

/* The tree's share of the release after `steps` steps (persisted form). */
extern dp_int128 dp_binary_tree_release(dp_counter *counter, int first, int levels,
										int64_t steps);

/* Noise terms of the tree's share: one per set bit, two when pan-private. */
extern int64_t dp_binary_tree_noise_terms(const dp_counter *counter, int64_t steps);

#endif							/* DP_BINARY_TREE_H */

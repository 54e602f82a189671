/*
 * dp_delayed_tree.h
 *		A dyadic-interval counter whose intervals join the releases only
 *		some time after they close: the shared engine of the privacy
 *		expiration mechanism (dp_expiring.c) and of its window baseline
 *		(dp_expiring_baseline.c).
 *
 * Level l holds the dyadic intervals (k 2^l - 2^l, k 2^l], k >= 1, each
 * with its own noise.  A closed interval of level l ending at e becomes
 * usable at step e + D_l, its delay; D_0 = 0 (a step is usable at once)
 * and D never decreases with the level.  The release at t is the greedy
 * cover of [1, t] by usable intervals, widest first: with b_l the largest
 * multiple of 2^l that is at most t - D_l (0 if none), and b_levels = 0,
 * level l contributes the intervals of (b_(l+1), b_l].  Since b_(l+1) is a
 * multiple of 2^l and at most b_l, the pieces tile [1, t].
 *
 * Why delays: an item at step j lies in one interval per level, and the
 * one of level l is released no earlier than j + D_l, so every release up
 * to j + d depends on j only through the intervals of the levels with
 * D_l <= d.  With noise that costs epsilon_l per interval, the loss of an
 * item d steps old is at most the sum of epsilon_l over those levels
 * (dp_delayed_tree_privacy_loss), and dp_delayed_tree_exact_loss computes
 * the tighter value of the noise-shifting argument exactly.
 *
 * Delays come in at most two groups of consecutive levels, each with
 * D_l = doubling (2^l - 1) + constant, doubling 0 or 1: then the levels of
 * a group whose interval becomes usable at t are a run from its first
 * level, and a step costs O(1) amortized.
 *
 * Storage: the intervals of level l that can still be needed live in a
 * ring of 2 + ceil(D_(l+1) / 2^l) slots (an interval is needed from when it
 * opens until its parent joins the release: test_expiring checks the
 * count).  An open interval holds its noise minus the running total when
 * it opened, as in dp_binary.c, so a step touches no node and a stored
 * state holds no raw partial sum.
 */
#ifndef DP_DELAYED_TREE_H
#define DP_DELAYED_TREE_H

#include "dp_counter.h"

#define DP_DELAYED_TREE_LEVELS_MAX 62

typedef struct dp_delay_group
{
	int			first;			/* levels first .. last */
	int			last;
	int64_t		doubling;		/* 0 or 1 */
	int64_t		constant;		/* >= 0 */
} dp_delay_group;

typedef struct dp_delayed_tree
{
	int			levels;			/* 1 .. DP_DELAYED_TREE_LEVELS_MAX */
	int			group_count;	/* 0 .. 2; level 0 is in none */
	dp_delay_group groups[2];
	/*
	 * Noise classes: with split < 0, level l is class l; otherwise levels
	 * 0 .. split are class 0 and the levels above class 1.
	 */
	int			split;
	/* with split < 0: the scale of a level above 1 (classes 0 and 1 are cached) */
	dp_scale	(*level_scale) (const dp_counter *counter, int level);
} dp_delayed_tree;

/*
 * The tree of a delayed-tree mechanism; false for any other kind
 * (dp_delayed_tree_loss.c, above the engine and the kinds that use it).
 */
extern bool dp_delayed_tree_of(const dp_mechanism *mechanism, dp_delayed_tree *tree);
extern bool dp_expiring_tree(const dp_mechanism *mechanism, dp_delayed_tree *tree);
extern bool dp_expiring_baseline_tree(const dp_mechanism *mechanism, dp_delayed_tree *tree);

/* D_l: steps between the close of a level-l interval and its first use. */
extern int64_t dp_delayed_tree_delay(const dp_delayed_tree *tree, int level);
extern int	dp_delayed_tree_class(const dp_delayed_tree *tree, int level);
extern int	dp_delayed_tree_ring(const dp_delayed_tree *tree, int level);
extern int	dp_delayed_tree_node_count(const dp_delayed_tree *tree);

/* b_l / 2^l at t: the last interval of level l usable at t (0: none). */
extern int64_t dp_delayed_tree_usable_through(const dp_delayed_tree *tree, int level, int64_t t);

/* Level l's share of the cover at t: the intervals (first, last] in units of 2^l. */
extern void dp_delayed_tree_segment(const dp_delayed_tree *tree, int level, int64_t t,
									int64_t *first, int64_t *last);

/*
 * The privacy loss one interval of the level costs as its noise is drawn
 * (a budget above DP_EPSILON_MAX cut to it, as the scale was).
 */
extern double dp_delayed_tree_level_loss(const dp_mechanism *mechanism,
										 const dp_delayed_tree *tree, int level);

/*
 * The guaranteed loss of one privacy unit whose oldest data is `age`
 * steps old (age >= 0): the sum of the nominal level budgets epsilon w_l
 * over the levels with D_l <= age, never cut, so that it also bounds a
 * statistic's counters, which split epsilon and cut each budget apart.
 */
extern double dp_delayed_tree_privacy_loss(const dp_mechanism *mechanism, int64_t age);

/*
 * The loss of the noise-shifting argument for all releases up to
 * position + age, for one unit at step `position`: the cheapest shift of
 * the interval noises, each weighted by its level loss, that makes every
 * release of two neighbouring streams equal.  As a linear program its
 * dual asks for release weights z_1..z_t maximising z_position + ... +
 * z_t subject to |sum of z over each interval's lifetime in the cover| <=
 * its loss, a system of difference constraints on the prefix sums of z, so
 * the optimum is the shortest path from position - 1 to t in the graph
 * whose edges are the intervals' lifetimes.  Needs work of order t log t
 * and memory of order t (malloc: for tests and bench/, not for a
 * backend); t must be at most 2^24.  level_losses, if not NULL, replaces
 * the mechanism's loss per interval of each level (negative controls).
 */
#define DP_EXACT_LOSS_STEPS_MAX (((int64_t) 1) << 24)
extern dp_status dp_delayed_tree_exact_loss(const dp_mechanism *mechanism,
											const double *level_losses,
											int64_t position, int64_t age,
											double *loss);

/* The counter engine, for the kinds' hooks. */
extern void dp_delayed_tree_start(dp_counter *counter, const dp_delayed_tree *tree,
								  dp_random *rng);
extern void dp_delayed_tree_push(dp_counter *counter, const dp_delayed_tree *tree,
								 int64_t value, dp_random *rng);
extern void dp_delayed_tree_persist(const dp_counter *counter, const dp_delayed_tree *tree,
									dp_int128 *nodes);
extern void dp_delayed_tree_resume(dp_counter *counter, const dp_delayed_tree *tree);
extern int	dp_delayed_tree_noise_groups(const dp_counter *counter,
										 const dp_delayed_tree *tree, int64_t steps,
										 dp_noise_group *groups);

#endif							/* DP_DELAYED_TREE_H */

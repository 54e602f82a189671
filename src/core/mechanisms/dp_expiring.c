/*
 * dp_expiring.c
 *		Continual counting with gradual privacy expiration, after Andersson,
 *		Henzinger, Pagh, Steiner and Upadhyay, "Continual Counting with
 *		Gradual Privacy Expiration", NeurIPS 2024 [AHPSU24]: an unbounded
 *		dyadic-interval counter whose releases use an interval of level l
 *		only 2^l - 1 + B steps after it closes (dp_delayed_tree.h).
 *
 * Level l's intervals get discrete Laplace noise of scale U / (epsilon
 * w_l) with w_l = (l + 1)^(lambda - 1), U the unit bound (max_per_step, or
 * a person's contributions).  An item at step j lies in one interval per
 * level; the one of level l ends at j or later and is released no earlier
 * than 2^l - 1 + B steps after its end, so the releases up to j + d use
 * only the levels with 2^l - 1 + B <= d (and level 0 always).  Each costs
 * epsilon w_l, so the item's loss after d steps is at most epsilon g(d)
 * with
 *
 *     g(d) = sum of (l + 1)^(lambda - 1) over l = 0 and 1 <= l <= log2(d - B + 1),
 *
 * g(0) = 1, of order log(d)^lambda / lambda: the privacy of an item
 * expires slowly as it ages, and not at all during its first B steps
 * (dp_privacy_loss).  The release at t covers [1, t] with at most two
 * intervals per level up to log2 t, plus the B + 1 or B + 2 most recent
 * steps one by one, so its variance is
 *
 *     2 (U / epsilon)^2 (about B + 1.5 + 1.5 sum over l >= 1 of (l + 1)^(2 - 2 lambda)):
 *
 * bounded in t when lambda > 3/2, which gives the O(log T / epsilon)
 * error over T steps of [AHPSU24]; of order (log t)^(3 - 2 lambda) below
 * 3/2, and log log t at 3/2 exactly (the paper's analysis excludes that
 * value; the mechanism and its exact error bound do not need to).
 *
 * The release never uses an open or a pending interval, and every
 * accumulator holds noise from its first step (dp_delayed_tree.c), so a
 * stored state holds no raw partial sum.  A stored state does hold the
 * closed intervals that wait for their delay: a reader of one snapshot
 * sees them early, and against such a reader an item's loss is the sum
 * over all levels up to log2 t (states are sealed for that reason).
 */
#include "dp_delayed_tree.h"

#include <math.h>
#include <string.h>

/* delays above this make the state larger than DP_COUNTER_MAX_NODES allows */
#define EXPIRING_DELAY_MAX 256
#define EXPIRING_LAMBDA_MAX 16.0
/* levels 2 .. 4 keep their scales in counter->derived; 0 and 1 are classes 0 and 1 */
#define CACHED_FIRST 2
#define CACHED_LEVELS 3

static double
level_weight(double lambda, int level)
{
	return pow((double) level + 1, lambda - 1);
}

static dp_scale expiring_level_scale(const dp_counter *counter, int level);

bool
dp_expiring_tree(const dp_mechanism *mechanism, dp_delayed_tree *tree)
{
	memset(tree, 0, sizeof(*tree));
	tree->levels = DP_DELAYED_TREE_LEVELS_MAX;
	tree->group_count = 1;
	tree->groups[0] = (dp_delay_group) {1, DP_DELAYED_TREE_LEVELS_MAX - 1, 1, mechanism->block};
	tree->split = -1;
	tree->level_scale = expiring_level_scale;
	return true;
}

static int
expiring_node_count(const dp_mechanism *mechanism)
{
	dp_delayed_tree tree;

	dp_expiring_tree(mechanism, &tree);
	return dp_delayed_tree_node_count(&tree);
}

static dp_status
expiring_validate(const dp_mechanism *mechanism, const char **field)
{
	double		lambda = mechanism->shape;

	if (!(lambda > 0 && lambda <= EXPIRING_LAMBDA_MAX))
	{
		*field = "lambda";
		return DP_ERROR_BLOCK;
	}
	if (mechanism->block > EXPIRING_DELAY_MAX)
	{
		*field = "delay";
		return DP_ERROR_BLOCK;
	}
	/* the smallest level budget (the top level's when lambda < 1) stays in range */
	if (lambda < 1 &&
		mechanism->epsilon * level_weight(lambda, DP_DELAYED_TREE_LEVELS_MAX - 1) < DP_EPSILON_MIN)
	{
		*field = "epsilon_for_lambda";
		return DP_ERROR_EPSILON;
	}
	if (dp_mechanism_unit_bound(mechanism) > DP_SENSITIVITY_MAX)
	{
		*field = (mechanism->flags & DP_FLAG_PERSON) ? "contributions" : "max_per_step";
		return DP_ERROR_SENSITIVITY;
	}
	return DP_OK;
}

static int64_t
expiring_default_delay(int64_t horizon)
{
	return 0;
}

/* class l: the intervals of level l; an item reaches one of them, at budget epsilon w_l */
static bool
expiring_noise_class(const dp_mechanism *mechanism, int index, dp_noise_class *out)
{
	if (index < 0 || index >= DP_DELAYED_TREE_LEVELS_MAX)
		return false;
	dp_noise_class_nodes(out, 1, 1);
	out->budget_weight = level_weight(mechanism->shape, index);
	return true;
}

static void
expiring_derive(dp_counter *counter)
{
	dp_scale	scales[CACHED_LEVELS];

	for (int i = 0; i < CACHED_LEVELS; i++)
		scales[i] = dp_counter_class_scale(counter, CACHED_FIRST + i);
	memcpy(counter->derived, scales, sizeof(scales));
}

static dp_scale
expiring_level_scale(const dp_counter *counter, int level)
{
	if (level >= CACHED_FIRST && level < CACHED_FIRST + CACHED_LEVELS)
	{
		dp_scale	scales[CACHED_LEVELS];

		memcpy(scales, counter->derived, sizeof(scales));
		return scales[level - CACHED_FIRST];
	}
	return dp_counter_class_scale(counter, level);
}

static void
expiring_start(dp_counter *counter, dp_random *rng)
{
	dp_delayed_tree tree;

	dp_expiring_tree(&counter->mechanism, &tree);
	dp_delayed_tree_start(counter, &tree, rng);
}

static void
expiring_push(dp_counter *counter, int64_t value, dp_random *rng)
{
	dp_delayed_tree tree;

	dp_expiring_tree(&counter->mechanism, &tree);
	dp_delayed_tree_push(counter, &tree, value, rng);
}

static void
expiring_persist(const dp_counter *counter, dp_int128 *nodes)
{
	dp_delayed_tree tree;

	dp_expiring_tree(&counter->mechanism, &tree);
	dp_delayed_tree_persist(counter, &tree, nodes);
}

static void
expiring_resume(dp_counter *counter)
{
	dp_delayed_tree tree;

	dp_expiring_tree(&counter->mechanism, &tree);
	dp_delayed_tree_resume(counter, &tree);
}

static int
expiring_noise_groups(const dp_counter *counter, int64_t steps, dp_noise_group *groups)
{
	dp_delayed_tree tree;

	dp_expiring_tree(&counter->mechanism, &tree);
	return dp_delayed_tree_noise_groups(counter, &tree, steps, groups);
}

static const dp_kind_parameter expiring_parameters[] = {
	{.name = "delay", .range = "between 0 and {max_plain}",
		.default_text = "0",
	.hint = "The delay is how many steps an item keeps the full protection of epsilon; each step of delay adds one noise term to every release."},
	{.name = "lambda", .real = true, .range = "greater than 0 and at most {max_plain}",
		.default_text = NULL,
	.hint = "lambda sets how fast privacy expires: an item d steps old loses about epsilon log2(d)^lambda / lambda (docs/expiration.md)."},
	{.name = NULL}
};

static const dp_kind_refusal expiring_refusals[] = {
	{DP_ERROR_EPSILON, "epsilon_for_lambda", "epsilon is too small for this lambda",
		"With lambda {shape} below 1 the top level's budget, epsilon * {tree_levels}^(lambda - 1), must be at least {epsilon_min}.",
	"Raise epsilon or lambda."},
	{.status = DP_OK}
};

const dp_counter_kind dp_expiring_kind = {
	.name = "expiring",
	.kind = DP_MECHANISM_EXPIRING,
	.bounded = false,
	.has_block = true,
	.block_name = "delay",
	.block_may_be_zero = true,
	.shape_name = "lambda",
	.default_block = expiring_default_delay,
	.accepted_flags = DP_FLAG_PAN_PRIVATE | DP_FLAG_CONSISTENT | DP_FLAG_KEYED |
	DP_FLAG_PERSON | DP_FLAG_PER_OBSERVATION,
	.validate = expiring_validate,
	.node_count = expiring_node_count,
	.noise_class = expiring_noise_class,
	.start = expiring_start,
	.push = expiring_push,
	.persist = expiring_persist,
	.resume = expiring_resume,
	.noise_groups = expiring_noise_groups,
	.derive = expiring_derive,
	.block_max = EXPIRING_DELAY_MAX,
	.shape_max = EXPIRING_LAMBDA_MAX,
	.parameters = expiring_parameters,
	.refusals = expiring_refusals,
};

/*
 * dp_expiring_baseline.c
 *		The baseline of privacy expiration (Andersson, Henzinger, Pagh,
 *		Steiner and Upadhyay, NeurIPS 2024 [AHPSU24]): an item is protected
 *		with epsilon_current while it is among the W most recent steps and
 *		with epsilon_current + epsilon_past afterwards.
 *
 * Built on the delayed tree (dp_delayed_tree.h) with horizon T, L =
 * floor(log2 T) + 1 levels and h = min(floor(log2(W + 1)), L - 1):
 *   - levels 0 .. h are used as soon as they close (a Binary mechanism of
 *     height h + 1 over the recent steps); an item reaches one interval on
 *     each, so scale (h + 1) U / epsilon_current costs epsilon_current;
 *   - levels h + 1 .. L - 1 are used only W steps after they close, when
 *     every item in them is at least W steps old; scale (L - h - 1) U /
 *     epsilon_past costs epsilon_past, and only after those W steps.
 * The loss of an item d steps old is therefore epsilon_current for d < W
 * and epsilon_current + epsilon_past from d = W on.  The mechanism keeps
 * epsilon_past as a ratio to epsilon (past_ratio), so that a statistic's
 * split of epsilon over its counters splits both.  The recent levels cover
 * the last W + 2^(h+1) steps or so with at most two intervals of level h
 * and one per level below; the old part takes one or two per level above.
 */
#include "dp_delayed_tree.h"

#include <math.h>
#include <string.h>

static int
baseline_levels(const dp_mechanism *mechanism)
{
	return dp_level_count(mechanism->horizon);
}

/* the top level of the recent part */
static int
recent_top(const dp_mechanism *mechanism)
{
	int			top = dp_level_count(mechanism->block + 1) - 1;

	return top < baseline_levels(mechanism) - 1 ? top : baseline_levels(mechanism) - 1;
}

bool
dp_expiring_baseline_tree(const dp_mechanism *mechanism, dp_delayed_tree *tree)
{
	int			levels = baseline_levels(mechanism);
	int			top = recent_top(mechanism);

	memset(tree, 0, sizeof(*tree));
	tree->levels = levels;
	if (top >= 1)
		tree->groups[tree->group_count++] = (dp_delay_group) {1, top, 0, 0};
	if (top + 1 <= levels - 1)
		tree->groups[tree->group_count++] =
			(dp_delay_group) {top + 1, levels - 1, 0, mechanism->block};
	tree->split = top;
	return true;
}

static int
baseline_node_count(const dp_mechanism *mechanism)
{
	dp_delayed_tree tree;

	dp_expiring_baseline_tree(mechanism, &tree);
	return dp_delayed_tree_node_count(&tree);
}

static dp_status
baseline_validate(const dp_mechanism *mechanism, const char **field)
{
	double		past = mechanism->epsilon * mechanism->shape;

	/* the tree has at most 62 levels: horizons below 2^62 */
	if (baseline_levels(mechanism) > DP_DELAYED_TREE_LEVELS_MAX)
	{
		*field = "horizon";
		return DP_ERROR_HORIZON;
	}

	if (!(mechanism->shape > 0 && past >= DP_EPSILON_MIN && past <= DP_EPSILON_MAX))
	{
		*field = "past_ratio";
		return DP_ERROR_EPSILON;
	}
	if (mechanism->block > DP_HORIZON_MAX)
	{
		*field = "window";
		return DP_ERROR_BLOCK;
	}
	if (dp_mechanism_unit_bound(mechanism) > DP_SENSITIVITY_MAX / 64)
	{
		*field = (mechanism->flags & DP_FLAG_PERSON) ? "contributions" : "max_per_step";
		return DP_ERROR_SENSITIVITY;
	}
	return DP_OK;
}

static int64_t
baseline_default_window(int64_t horizon)
{
	return 127;
}

/* class 0: the recent levels at epsilon; class 1: the old levels at epsilon * past_ratio */
static bool
baseline_noise_class(const dp_mechanism *mechanism, int index, dp_noise_class *out)
{
	int			top = recent_top(mechanism);
	int			old_levels = baseline_levels(mechanism) - 1 - top;

	if (index == 0)
		return dp_noise_class_nodes(out, (uint64_t) top + 1, 1);
	if (index != 1 || old_levels < 1)
		return false;
	dp_noise_class_nodes(out, (uint64_t) old_levels, 1);
	out->budget_weight = mechanism->shape;
	return true;
}

static void
baseline_start(dp_counter *counter, dp_random *rng)
{
	dp_delayed_tree tree;

	dp_expiring_baseline_tree(&counter->mechanism, &tree);
	dp_delayed_tree_start(counter, &tree, rng);
}

static void
baseline_push(dp_counter *counter, int64_t value, dp_random *rng)
{
	dp_delayed_tree tree;

	dp_expiring_baseline_tree(&counter->mechanism, &tree);
	dp_delayed_tree_push(counter, &tree, value, rng);
}

static void
baseline_persist(const dp_counter *counter, dp_int128 *nodes)
{
	dp_delayed_tree tree;

	dp_expiring_baseline_tree(&counter->mechanism, &tree);
	dp_delayed_tree_persist(counter, &tree, nodes);
}

static void
baseline_resume(dp_counter *counter)
{
	dp_delayed_tree tree;

	dp_expiring_baseline_tree(&counter->mechanism, &tree);
	dp_delayed_tree_resume(counter, &tree);
}

static int
baseline_noise_groups(const dp_counter *counter, int64_t steps, dp_noise_group *groups)
{
	dp_delayed_tree tree;

	dp_expiring_baseline_tree(&counter->mechanism, &tree);
	return dp_delayed_tree_noise_groups(counter, &tree, steps, groups);
}

static const dp_kind_parameter baseline_parameters[] = {
	{.name = "window", .range = "between 1 and {max}",
		.default_text = "the default window",
	.hint = "The window is how many recent steps are protected by epsilon_current alone."},
	{.name = "past_ratio", .real = true,
		.range = "such that epsilon_past = epsilon * past_ratio is between {epsilon_min} and {epsilon_max}",
		.default_text = NULL,
	.hint = "epsilon_past is what an item loses in addition once it is older than the window."},
	{.name = NULL}
};

static const dp_kind_refusal baseline_refusals[] = {
	{DP_ERROR_EPSILON, "past_ratio", "epsilon_past must be positive, and between {epsilon_min} and {epsilon_max}",
		"epsilon_past was {past} (epsilon_current {epsilon}).",
	"epsilon_past is what an item loses in addition once it is older than the window."},
	{DP_ERROR_HORIZON, "horizon", "the {kind} mechanism's horizon must be between 1 and {horizon_max}",
		"horizon was {horizon}.",
	"Its tree has one level per bit of the horizon, at most {horizon_max_levels}."},
	{.status = DP_OK}
};

const dp_counter_kind dp_expiring_baseline_kind = {
	.name = "expiring_baseline",
	.kind = DP_MECHANISM_EXPIRING_BASELINE,
	.bounded = true,
	.has_block = true,
	.block_name = "window",
	.shape_name = "past_ratio",
	.default_block = baseline_default_window,
	.accepted_flags = DP_FLAG_PAN_PRIVATE | DP_FLAG_CONSISTENT | DP_FLAG_KEYED |
	DP_FLAG_PERSON | DP_FLAG_PER_OBSERVATION,
	.validate = baseline_validate,
	.node_count = baseline_node_count,
	.noise_class = baseline_noise_class,
	.start = baseline_start,
	.push = baseline_push,
	.persist = baseline_persist,
	.resume = baseline_resume,
	.noise_groups = baseline_noise_groups,
	/* at most DP_DELAYED_TREE_LEVELS_MAX levels (baseline_validate) */
	.horizon_max = (((int64_t) 1) << DP_DELAYED_TREE_LEVELS_MAX) - 1,
	.block_max = DP_HORIZON_MAX,
	.parameters = baseline_parameters,
	.refusals = baseline_refusals,
};

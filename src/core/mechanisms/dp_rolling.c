/*
 * dp_rolling.c
 *		Rolling windows: the noisy sum of the last W steps, t - W + 1 .. t
 *		(fewer at the start), from a tree over W rather than over the whole
 *		stream (sliding-window counting in the p-sum framework of Chan, Shi
 *		and Song [CSS10]; the baseline, release(t) - release(t - W)
 *		of a running counter, carries two prefix releases whose error grows
 *		with t).
 *
 * The p-sums are the dyadic intervals (m 2^j - 2^j, m 2^j] aligned to time,
 * on the levels j = 0 .. k - 1, where k (the kind's real parameter
 * "levels", kept in dp_mechanism.shape) is 1 .. L, L = floor(log2 W) + 1:
 * no window of W steps contains a dyadic interval of level L or above, so
 * k = L is the full tree over W, k = 1 noises each step once, and a k in
 * between caps the tree at intervals of 2^(k-1) steps.  Each step lies in
 * one interval per level: the vector of all p-sums has L1 sensitivity k U
 * (U = dp_mechanism_unit_bound, one step's bound or one person's
 * contributions) and each gets discrete Laplace noise of scale k U /
 * epsilon, whatever the length of the stream.  The window (a, t],
 * a = max(0, t - W), is decomposed greedily from its left end: from x = a,
 * the largest interval of at most 2^(k-1) steps that starts at x (its
 * length divides x) and ends by t, until x = t: the window's maximal
 * aligned intervals.  The release is a sum of p-sums already drawn:
 * post-processing.  The default k is the one of least exact mean variance
 * (dp_rolling_default_levels).
 *
 * Storage: nodes[0 .. k - 1] are the open intervals' accumulators, kept as
 * offsets against the running total with their noise drawn when they open,
 * as dp_binary.c does (the pan-private transformation of Budaeva et al.
 * [BLD+], section 2.4.4: a stored accumulator is never a raw partial sum).
 * Level j then keeps a ring of the floor(W / 2^j) most recent closed
 * intervals, the only ones a window at t or later can use (an interval
 * used at t starts at a >= t - W, and at most floor(W / 2^j) closed
 * intervals of length 2^j fit between t - W and t): interval m of level j
 * is in slot (m - 1) mod floor(W / 2^j).  W + 1 nodes for k = 1, about
 * 2 W + log2 W for the full tree, fixed by W and k; the width is limited so
 * that the full tree's fit a state.
 */
#include <math.h>
#include <string.h>

#include "dp_counter.h"
#include "dp_noise_sum.h"

/* the widest window whose nodes (and a consistent node) fit a state */
#define ROLLING_WIDTH_MAX 511
/* the levels of the full tree over the widest window */
#define ROLLING_LEVELS_MAX 9
/* the arity is kept in dp_mechanism.horizon as arity - 2: 0 is the binary tree */
#define ROLLING_ARITY_OFFSET 2

/* the tree's arity k (2 .. ROLLING_WIDTH_MAX) */
static int64_t
rolling_arity(const dp_mechanism *mechanism)
{
	return mechanism->horizon + ROLLING_ARITY_OFFSET;
}

/* k^level, the steps of an interval of level `level` (at most the width) */
static int64_t
rolling_span(int64_t arity, int level)
{
	int64_t		span = 1;

	for (int j = 0; j < level; j++)
		span *= arity;
	return span;
}

/* levels of the full k-ary tree over a window of `width` steps: k^j <= width */
static int
rolling_full_levels(int64_t width, int64_t arity)
{
	int			levels = 1;
	int64_t		span = arity;

	while (width >= 1 && span <= width)
	{
		levels++;
		span *= arity;
	}
	return levels;
}

/* levels the mechanism keeps (its validated real parameter) */
static int
rolling_levels(const dp_mechanism *mechanism)
{
	return (int) mechanism->shape;
}

/* closed intervals kept for level `level` */
static int64_t
rolling_ring(int64_t width, int64_t arity, int level)
{
	return width / rolling_span(arity, level);
}

/* the first node of level `level`'s ring */
static int
rolling_ring_base(int64_t width, int64_t arity, int levels, int level)
{
	int			base = levels;

	for (int j = 0; j < level; j++)
		base += (int) rolling_ring(width, arity, j);
	return base;
}

static int
rolling_node_count(const dp_mechanism *mechanism)
{
	int			levels = rolling_levels(mechanism);

	return rolling_ring_base(mechanism->block, rolling_arity(mechanism), levels, levels);
}

static dp_status
rolling_validate(const dp_mechanism *mechanism, const char **field)
{
	if (mechanism->block < 1 || mechanism->block > ROLLING_WIDTH_MAX)
	{
		*field = "width";
		return DP_ERROR_BLOCK;
	}
	if (mechanism->horizon < 0 || mechanism->horizon > ROLLING_WIDTH_MAX - ROLLING_ARITY_OFFSET)
	{
		*field = "arity";
		return DP_ERROR_BLOCK;
	}
	/* a whole number of levels, at most the full tree's */
	if (!(mechanism->shape >= 1 &&
		  mechanism->shape <= rolling_full_levels(mechanism->block, rolling_arity(mechanism)) &&
		  mechanism->shape == (double) (int) mechanism->shape))
	{
		*field = "levels";
		return DP_ERROR_BLOCK;
	}
	return DP_OK;
}

/* each item lies in one interval per level */
static bool
rolling_noise_class(const dp_mechanism *mechanism, int index, dp_noise_class *out)
{
	uint64_t	levels = (uint64_t) rolling_levels(mechanism);

#ifdef DP_TEST_ROLLING_ONE_LEVEL_SHORT
	/* test builds only (make lp-broken): the top level left out of the sensitivity */
	if (levels > 1)
		levels--;
#endif
	return index == 0 && dp_noise_class_nodes(out, levels, 1);
}

/* the slot of closed interval m (>= 1) of level `level` */
static int
rolling_slot(int64_t width, int64_t arity, int levels, int level, int64_t m)
{
	return rolling_ring_base(width, arity, levels, level) +
		(int) ((m - 1) % rolling_ring(width, arity, level));
}

/*
 * The canonical decomposition of the window ending after `steps` steps:
 * calls `visit` with the level and index of each interval, returns their
 * number.  Every interval it names has closed and lies in its level's ring.
 */
static int
rolling_decompose(int64_t width, int64_t arity, int levels, int64_t steps,
				  void (*visit) (void *context, int level, int64_t m), void *context)
{
	int64_t		x = steps > width ? steps - width : 0;
	int64_t		top = rolling_span(arity, levels - 1);
	int			count = 0;

	while (x < steps)
	{
		int			level = levels - 1;
		int64_t		span = top;

		/* the largest interval starting at x that ends by steps */
		while (level > 0 && (x % span != 0 || x + span > steps))
		{
			level--;
			span /= arity;
		}
		if (visit)
			visit(context, level, x / span + 1);
		count++;
		x += span;
	}
	return count;
}

typedef struct rolling_sum_context
{
	dp_counter *counter;
	dp_int128	sum;
} rolling_sum_context;

static void
rolling_add_node(void *context, int level, int64_t m)
{
	rolling_sum_context *sum = (rolling_sum_context *) context;
	dp_counter *counter = sum->counter;

	sum->sum = dp_counter_add(counter, sum->sum,
							  counter->nodes[rolling_slot(counter->mechanism.block,
														  rolling_arity(&counter->mechanism),
														  rolling_levels(&counter->mechanism),
														  level, m)]);
}

/*
 * The release is also kept in the counter's memo (dp_counter_memo_keep):
 * with one level the next window differs from it by one interval in and at
 * most one out, so a step costs O(1) rather than O(W) (the same sum: the
 * additions are exact).
 */
static void
rolling_update_release(dp_counter *counter)
{
	rolling_sum_context sum = {counter, 0};

	rolling_decompose(counter->mechanism.block, rolling_arity(&counter->mechanism),
					  rolling_levels(&counter->mechanism), counter->steps, rolling_add_node, &sum);
	counter->release = sum.sum;
	dp_counter_memo_keep(counter, sum.sum);
}

static void
rolling_open(dp_counter *counter, int level, dp_random *rng)
{
	counter->nodes[level] =
		dp_counter_sub(counter,
					   dp_counter_noise(counter, rng, &counter->scale, level, DP_NOISE_OPEN, 0),
					   counter->running_total);
}

static void
rolling_start(dp_counter *counter, dp_random *rng)
{
	int			levels = rolling_levels(&counter->mechanism);

	for (int level = 0; level < levels; level++)
		rolling_open(counter, level, rng);
}

/*
 * Step t closes the interval ending at t on every level whose length
 * divides t; each is stored in its ring (with a second noise term when
 * pan-private or keyed, drawn over its complete content) and its level
 * opens the next interval with fresh noise.
 */
static void
rolling_push(dp_counter *counter, int64_t value, dp_random *rng)
{
	int64_t		width = counter->mechanism.block;
	int64_t		arity = rolling_arity(&counter->mechanism);
	int			levels = rolling_levels(&counter->mechanism);
	int64_t		span = 1;
	int64_t		t;
	bool		memo_valid = levels == 1 && counter->memo_step >= 1 &&
		counter->memo_step == counter->steps && !counter->overflow;
	dp_int128	leaving = 0;

	counter->running_total += value;	/* at most 2^62 steps of 2^50: no overflow */
	t = ++counter->steps;
	/* one level: interval t - W leaves the window, from the slot t takes */
	if (memo_valid && t > width)
		leaving = counter->nodes[rolling_slot(width, arity, levels, 0, t)];
	for (int level = 0; level < levels && t % span == 0; level++, span *= arity)
	{
		int			slot = rolling_slot(width, arity, levels, level, t / span);
		dp_int128	closed = dp_counter_add(counter, counter->nodes[level],
											counter->running_total);

		if (dp_counter_pan_private(counter))
			closed = dp_counter_add(counter, closed,
									dp_counter_noise(counter, rng, &counter->scale, level,
													 DP_NOISE_CLOSE, closed));
		counter->nodes[slot] = closed;
		rolling_open(counter, level, rng);
	}
	if (memo_valid)
	{
		dp_int128	sum = dp_counter_memo_sum(counter);

		sum = dp_counter_add(counter, dp_counter_sub(counter, sum, leaving),
							 counter->nodes[rolling_slot(width, arity, levels, 0, t)]);
		counter->release = sum;
		dp_counter_memo_keep(counter, sum);
	}
	else
		rolling_update_release(counter);
}

static void
rolling_persist(const dp_counter *counter, dp_int128 *nodes)
{
	int			levels = rolling_levels(&counter->mechanism);

	for (int i = 0; i < counter->kind_nodes; i++)
		nodes[i] = counter->nodes[i];
	for (int level = 0; level < levels; level++)
		nodes[level] += counter->running_total;
}

static void
rolling_resume(dp_counter *counter)
{
	counter->running_total = 0;
	rolling_update_release(counter);
}

static int
rolling_noise_groups(const dp_counter *counter, int64_t steps, dp_noise_group *groups)
{
	groups[0].scale = counter->scale;
	groups[0].terms = (int64_t) rolling_decompose(counter->mechanism.block,
												  rolling_arity(&counter->mechanism),
												  rolling_levels(&counter->mechanism),
												  steps, NULL, NULL) *
		(dp_counter_pan_private(counter) ? 2 : 1);
	return 1;
}

/*
 * The exact mean variance of the release once the window is full (t >=
 * W) of the rolling mechanism `trial`, from the counter's own noise
 * description (its scale for its levels and the terms of the decomposition
 * at t), averaged over one period of the decompositions: k^(levels-1)
 * consecutive steps (a decomposition depends on t and t - W modulo the
 * largest piece).  Without a stated bound the calibration uses a bound of 1
 * (a statistic sets its own later).  Infinite when the trial is invalid.
 */
static double
rolling_mean_variance(dp_mechanism trial)
{
	dp_counter	header;
	const char *field;
	int64_t		period;
	double		total = 0;

	if (!dp_mechanism_step_bound_stated(&trial))
		trial.max_per_step = 1;
	if (dp_counter_prepare(&header, &trial, &field) != DP_OK)
		return INFINITY;
	period = rolling_span(rolling_arity(&trial), rolling_levels(&trial) - 1);
	for (int64_t t = trial.block; t < trial.block + period; t++)
	{
		dp_noise_group groups[DP_NOISE_GROUPS_MAX];
		int			count = dp_counter_noise_groups_at(&header, t, groups);

		total += dp_noise_sum_variance(groups, count);
	}
	return total / (double) period;
}

/*
 * The default parameters of a rolling mechanism whose levels are left out
 * (shape 0), for its width, budget, noise family, privacy unit and options:
 * with the arity left out too (horizon 0; `joint`) the pair (arity k, levels) of
 * least exact mean variance over k = 2 .. W and levels 1 .. floor(log_k W)
 * + 1, ties going to fewer levels and then to the smaller arity (one level
 * is the same mechanism for every k: arity 2); with an arity given, the
 * levels of least mean variance for it.  Levels 1 and arity 2 when the
 * mechanism is invalid otherwise: its validation then names what is wrong.
 */
static void
rolling_fill_default(dp_mechanism *mechanism, bool joint)
{
	int64_t		width = mechanism->block;
	int64_t		arity_first = rolling_arity(mechanism);
	int64_t		arity_last = joint ? width : arity_first;
	int			best_levels = 1;
	int64_t		best_arity = arity_first;
	double		best_variance = INFINITY;

	if (mechanism->shape != 0)
		return;
	if (width < 1 || width > ROLLING_WIDTH_MAX || mechanism->horizon < 0 ||
		mechanism->horizon > ROLLING_WIDTH_MAX - ROLLING_ARITY_OFFSET)
	{
		mechanism->shape = 1;
		return;
	}
	if (arity_last < arity_first)
		arity_last = arity_first;
	/* levels outermost, so that a tie keeps the fewer levels, then the smaller arity */
	for (int levels = 1; levels <= ROLLING_LEVELS_MAX; levels++)
		for (int64_t arity = arity_first; arity <= arity_last; arity++)
		{
			dp_mechanism trial = *mechanism;
			double		variance;

			if (levels > rolling_full_levels(width, arity))
				continue;
			/* one level is one mechanism whatever the arity: the first */
			if (levels == 1 && arity > arity_first)
				break;
			trial.horizon = arity - ROLLING_ARITY_OFFSET;
			trial.shape = levels;
			variance = rolling_mean_variance(trial);
			if (variance < best_variance)
			{
				best_variance = variance;
				best_levels = levels;
				best_arity = arity;
			}
		}
	mechanism->shape = best_levels;
	mechanism->horizon = best_arity - ROLLING_ARITY_OFFSET;
}

/*
 * The last default computed (a pure function of the rest of the
 * mechanism), so that a caller without a cache of its own (dp_rolling_of
 * per row) searches once per distinct mechanism in a row.
 */
static dp_mechanism rolling_last_in;
static dp_mechanism rolling_last_out;
static bool rolling_last_valid = false;

void
dp_rolling_fill_default(dp_mechanism *mechanism)
{
	if (mechanism->shape != 0)
		return;
	if (rolling_last_valid && memcmp(&rolling_last_in, mechanism, sizeof(dp_mechanism)) == 0)
	{
		*mechanism = rolling_last_out;
		return;
	}
	rolling_last_in = *mechanism;
	rolling_fill_default(mechanism, mechanism->horizon == 0);
	rolling_last_out = *mechanism;
	rolling_last_valid = true;
}

/*
 * The default levels for the mechanism's own arity (the registry's
 * default_shape: an arity given, even 2, keeps it).
 */
double
dp_rolling_default_levels(const dp_mechanism *mechanism)
{
	dp_mechanism copy = *mechanism;

	copy.shape = 0;
	rolling_fill_default(&copy, false);
	return copy.shape;
}

/*
 * The rolling mechanism of `width` steps that carries over a running
 * mechanism's budget (epsilon, or rho with DP_FLAG_ZCDP), step bound,
 * privacy unit (contributions, per observation), key and partition and the
 * pan-private and consistent options; its kind, horizon and parameters are
 * left behind.  Not validated: the caller validates, so that an option the
 * rolling kind refuses (consistent) is reported with its reason.
 */
void
dp_mechanism_rolling_of(const dp_mechanism *running, int64_t width, dp_mechanism *rolling)
{
	dp_mechanism_rolling_base(running, width, rolling);
	dp_rolling_fill_default(rolling);
}

/*
 * The same with levels and arity left at 0: what the default is computed from, and
 * all a caller needs to tell whether two calls give the same mechanism (the
 * default is a function of the rest).
 */
void
dp_mechanism_rolling_base(const dp_mechanism *running, int64_t width, dp_mechanism *rolling)
{
	*rolling = *running;
	rolling->kind = DP_MECHANISM_ROLLING;
	rolling->horizon = 0;
	rolling->block = width;
	rolling->shape = 0;
}

static const dp_kind_parameter rolling_parameters[] = {
	{.name = "width", .range = "between 1 and {max_plain}",
		.default_text = NULL,
		.detail = "width was {value}.",
	.hint = "The width is the number of steps a release sums: 7 for a 7-day rolling count of daily rows."},
	{.name = "levels", .real = true,
		.range = "a whole number from 1 to floor(log_arity(width)) + 1 (at most {max_plain})",
		.default_text = "the number of levels with the least mean variance for the width, budget and arity",
		.message = "levels out of range for this width",
		.detail = "levels was {value}, width {block}.",
	.hint = "Leave levels out to get the one with the least mean variance; 1 noises each step once, floor(log_arity(width)) + 1 is the full tree."},
	{.name = "arity", .range = "between 2 and {max_plain}",
		.default_text = "2 with levels given, else chosen with levels for the least mean variance",
		.message = "arity out of range for the rolling mechanism",
		.detail = "arity was {value}, width {block}.",
	.hint = "Leave arity out to get the one with the least mean variance (about sqrt(width) for two levels); 2 is the dyadic tree."},
	{.name = NULL}
};

static const dp_kind_refusal rolling_refusals[] = {
	{DP_ERROR_OPTION, "consistent", "the {kind} mechanism does not accept the consistent option",
		"A rolling sum goes down as well as up: releases that never decrease would be wrong.",
	"Leave dp_consistent out; round or clamp the releases yourself if needed (post-processing)."},
	{.status = DP_OK}
};

const dp_counter_kind dp_rolling_kind = {
	.name = "rolling",
	.kind = DP_MECHANISM_ROLLING,
	.bounded = false,
	.has_block = true,
	.block_name = "width",
	.default_block = NULL,
	.shape_name = "levels",
	.default_shape = dp_rolling_default_levels,
	.fill_default = dp_rolling_fill_default,
	.horizon_name = "arity",
	.horizon_offset = ROLLING_ARITY_OFFSET,
	.accepted_flags = DP_FLAG_PAN_PRIVATE | DP_FLAG_KEYED | DP_FLAG_PERSON |
	DP_FLAG_PER_OBSERVATION | DP_FLAG_ZCDP,
	.validate = rolling_validate,
	.node_count = rolling_node_count,
	.noise_class = rolling_noise_class,
	.start = rolling_start,
	.push = rolling_push,
	.persist = rolling_persist,
	.resume = rolling_resume,
	.noise_groups = rolling_noise_groups,
	.block_max = ROLLING_WIDTH_MAX,
	.shape_max = ROLLING_LEVELS_MAX,
	.parameters = rolling_parameters,
	.refusals = rolling_refusals,
	.auto_rank = 0,
	.order_dependent = true,
};

/*
 * dp_planning.c
 *		Error figures computed from a mechanism alone (see dp_planning.h).
 */
#include "dp_planning.h"

#include <math.h>
#include <string.h>

static dp_status
prepare_at(dp_counter *header, const dp_mechanism *mechanism, int64_t steps,
		   const char **field)
{
	/* an unstated step bound: figures per unit of it (dp_mechanism_per_unit) */
	dp_mechanism per_unit = dp_mechanism_per_unit(mechanism);
	dp_status	status = dp_counter_prepare(header, &per_unit, field);

	if (status != DP_OK)
		return status;
	if (steps < 0 || steps > (header->kind->bounded ? mechanism->horizon : DP_HORIZON_MAX))
	{
		*field = "steps";
		return DP_ERROR_HORIZON_EXCEEDED;
	}
	header->steps = steps;
	return DP_OK;
}

dp_status
dp_planning_error_sd(const dp_mechanism *mechanism, int64_t steps, double *sd,
					 const char **field)
{
	dp_counter	header;
	dp_status	status = prepare_at(&header, mechanism, steps, field);

	if (status != DP_OK)
		return status;
	*sd = sqrt(dp_counter_noise_variance(&header));
	return DP_OK;
}

/* The bound at epsilon, or +infinity when epsilon is not a valid one. */
static double
bound_at(const dp_mechanism *mechanism, double epsilon, int64_t steps, double confidence)
{
	dp_mechanism candidate = *mechanism;
	double		bound;
	const char *field;

	candidate.epsilon = epsilon;
	if (dp_mechanism_error_bound(&candidate, steps, confidence, &bound, &field) != DP_OK)
		return INFINITY;
	return bound;
}

/*
 * Bisection on log epsilon: the bound does not increase with epsilon (a
 * larger epsilon gives a noise scale no larger), so the set of epsilons
 * meeting the target is an interval up to DP_EPSILON_MAX.  About 60 halvings
 * of the log range reach a relative 1e-9; the upper end is returned, so the
 * answer always meets the target.
 */
dp_status
dp_planning_epsilon_for(const dp_mechanism *mechanism, int64_t steps, double confidence,
						double half_width, double *epsilon, const char **field)
{
	double		low = log(DP_EPSILON_MIN);
	double		high = log(DP_EPSILON_MAX);
	double		bound;
	dp_status	status = dp_mechanism_error_bound(mechanism, steps, confidence, &bound, field);

	if (status != DP_OK)
		return status;
	if (!(half_width > 0) || !isfinite(half_width))
	{
		*field = "half_width";
		return DP_ERROR_FORMAT;
	}
	if (bound_at(mechanism, DP_EPSILON_MAX, steps, confidence) > half_width)
	{
		*field = "half_width";
		return DP_ERROR_EPSILON;
	}
	if (bound_at(mechanism, DP_EPSILON_MIN, steps, confidence) <= half_width)
	{
		*epsilon = DP_EPSILON_MIN;
		return DP_OK;
	}
	for (int i = 0; i < 200 && high - low > 1e-9; i++)
	{
		double		middle = (low + high) / 2;

		if (bound_at(mechanism, exp(middle), steps, confidence) <= half_width)
			high = middle;
		else
			low = middle;
	}
	*epsilon = exp(high);
	/* exp(log(x)) may round below the tested value: step up until it holds */
	for (int i = 0; i < 8 && bound_at(mechanism, *epsilon, steps, confidence) > half_width; i++)
		*epsilon = nextafter(*epsilon, INFINITY);
	/*
	 * Near the top, exp(log(DP_EPSILON_MAX)) and the steps above may pass
	 * the largest epsilon a constructor accepts (100.00000000000016): the
	 * answer must be usable as an argument, and DP_EPSILON_MAX itself was
	 * checked above to meet the target.
	 */
	if (*epsilon > DP_EPSILON_MAX)
		*epsilon = DP_EPSILON_MAX;
	return DP_OK;
}

/* groups one configuration of the frontier keeps (the stack holds FRONTIER_MAX) */
#define CONFIGURATION_GROUPS_MAX DP_PLANNING_NOISE_SCALES_MAX

typedef struct configuration
{
	int			count;
	dp_noise_group groups[CONFIGURATION_GROUPS_MAX];
} configuration;

static bool
same_scale(const dp_scale *a, const dp_scale *b)
{
	return memcmp(a, b, sizeof(dp_scale)) == 0;
}

/*
 * Whether every group of a is covered by a group of b of its own (each
 * group of b covers at most one of a) of the same family and scale with
 * at least its terms and at least its |weight|: then b's noise is a's plus
 * independent symmetric terms, or a's scaled up, and b's half-width is at
 * least a's.  One group of b must not cover two of a: two terms of weights
 * 0.9 and 0.8 are more noise than one of weight 1 (the decayed sum's
 * groups differ in weight only).  The groups of a are matched in their
 * order, each to the covering group of b of least |weight| then terms not
 * yet used: a failed match only keeps a configuration in the frontier.
 */
static bool
dominated_by(const configuration *a, const configuration *b)
{
	bool		used[CONFIGURATION_GROUPS_MAX] = {false};

	for (int i = 0; i < a->count; i++)
	{
		const dp_noise_group *group = &a->groups[i];
		int			best = -1;

		if (group->terms <= 0)
			continue;
		for (int j = 0; j < b->count; j++)
			if (!used[j] && same_scale(&b->groups[j].scale, &group->scale) &&
				b->groups[j].family == group->family &&
				b->groups[j].terms >= group->terms &&
				fabs(b->groups[j].weight) >= fabs(group->weight) &&
				(best < 0 || fabs(b->groups[j].weight) < fabs(b->groups[best].weight) ||
				 (fabs(b->groups[j].weight) == fabs(b->groups[best].weight) &&
				  b->groups[j].terms < b->groups[best].terms)))
				best = j;
		if (best < 0)
			return false;
		used[best] = true;
	}
	return true;
}

/*
 * Groups of one family, scale and weight added together, so that a
 * configuration names each kind of term once: the dominance test compares
 * group by group, and two groups of the same scale in one configuration
 * would each be found covered by a single group holding fewer terms than
 * the two together (the delayed tree describes each level as a group, and
 * its levels may share a scale).
 */
static int
merge_equal_groups(dp_noise_group *groups, int count)
{
	int			merged = 0;

	for (int i = 0; i < count; i++)
	{
		int			j;

		for (j = 0; j < merged; j++)
			if (same_scale(&groups[j].scale, &groups[i].scale) &&
				groups[j].family == groups[i].family && groups[j].weight == groups[i].weight)
				break;
		/* past 2^62 terms the sum is refused downstream: saturate, never wrap */
		if (j < merged)
			groups[j].terms = groups[j].terms > INT64_MAX - groups[i].terms ? INT64_MAX :
				groups[j].terms + groups[i].terms;
		else
			groups[merged++] = groups[i];
	}
	return merged;
}

#define FRONTIER_MAX 64

dp_status
dp_planning_max_error_bound(const dp_mechanism *mechanism, int64_t steps, double confidence,
							void (*check) (void), double *bound, const char **field)
{
	dp_counter	header;
	dp_status	status = prepare_at(&header, mechanism, steps, field);
	configuration frontier[FRONTIER_MAX];
	int			frontier_count = 0;

	if (status != DP_OK)
		return status;
	if (steps > DP_PLANNING_SCAN_MAX)
	{
		*field = "steps";
		return DP_ERROR_HORIZON_EXCEEDED;
	}
	*bound = 0;
	for (int64_t s = 1; s <= steps; s++)
	{
		configuration c;
		dp_noise_group groups[DP_NOISE_GROUPS_MAX];
		bool		dominated = false;
		int			kept = 0;

		/* a step's description can cost ~0.1 ms (BLT's closed forms) */
		if (check && (s & 0xFF) == 0)
			check();
		c.count = merge_equal_groups(groups, dp_counter_noise_groups_at(&header, s, groups));
		if (c.count > CONFIGURATION_GROUPS_MAX)
		{
			*field = "noise_scales";
			return DP_ERROR_HORIZON_EXCEEDED;
		}
		memcpy(c.groups, groups, sizeof(dp_noise_group) * (size_t) c.count);
		for (int i = 0; i < frontier_count && !dominated; i++)
			dominated = dominated_by(&c, &frontier[i]);
		if (dominated)
			continue;
		/* c joins the frontier; configurations it dominates leave it */
		for (int i = 0; i < frontier_count; i++)
			if (!dominated_by(&frontier[i], &c))
				frontier[kept++] = frontier[i];
		frontier_count = kept;
		if (frontier_count == FRONTIER_MAX)
		{
			/* cannot happen for the shipped mechanisms; keep the answer exact */
			*field = "steps";
			return DP_ERROR_HORIZON_EXCEEDED;
		}
		frontier[frontier_count++] = c;
	}
	for (int i = 0; i < frontier_count; i++)
	{
		double		b = dp_noise_sum_half_width(frontier[i].groups, frontier[i].count, confidence);

		if (b > *bound)
			*bound = b;
	}
	/* the rounding slack of weighted releases grows with the steps */
	if (header.kind->release_slack)
		*bound += header.kind->release_slack(&header, steps);
	return DP_OK;
}

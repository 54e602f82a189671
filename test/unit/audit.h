/*
 * audit.h
 *		An empirical privacy audit of the releases of one mechanism: many
 *		seeded runs on two neighbouring streams, an event of the releases,
 *		and a Clopper-Pearson lower bound on the privacy loss it shows.
 *
 * For a pure epsilon-DP mechanism every event E of the releases has
 * P[E | x'] <= e^epsilon P[E | x].  With k1 of n runs on x' and k0 of n
 * on x in E, exact (Clopper-Pearson) bounds at level alpha give
 *     epsilon_low = log(lower(k1) / upper(k0)),
 * which exceeds epsilon with probability at most alpha when the mechanism
 * is correct, whatever the event; so an audit fails only for a real
 * violation, up to alpha (split over every event and direction tested).
 *
 * The events are chosen to be as sharp as the mechanism allows: x is all
 * zeros and x' has max_per_step at one step j; the releases determine the
 * noisy value of every released node that holds j (for Binary, the node
 * of level l ending at e is R_e - R_(e - 2^l); for Simple II, R_j -
 * R_(j-1)), and the event is that the log-likelihood ratio of those node
 * values, at the mechanism's own scale, is at least a threshold.  At the
 * threshold where every node is at or above max_per_step the ratio of the
 * two probabilities is e^(epsilon of the item) exactly, so halving the
 * noise shows as twice the loss (test_audit.c, `make audit-broken`).
 */
#ifndef DP_AUDIT_H
#define DP_AUDIT_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dp_counter.h"
#include "dp_laplace_table.h"
#include "test_support.h"

/* ---- exact binomial bounds ---- */

/* the continued fraction of the regularized incomplete beta function (Lentz) */
static inline double
audit_beta_fraction(double a, double b, double x)
{
	double		c = 1.0,
				d = 1.0 - (a + b) * x / (a + 1.0),
				h;

	if (fabs(d) < 1e-300)
		d = 1e-300;
	d = 1.0 / d;
	h = d;
	for (int m = 1; m <= 10000; m++)
	{
		double		m2 = 2.0 * m;
		double		aa = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
		double		delta;

		d = 1.0 + aa * d;
		d = fabs(d) < 1e-300 ? 1e-300 : d;
		c = 1.0 + aa / c;
		c = fabs(c) < 1e-300 ? 1e-300 : c;
		d = 1.0 / d;
		h *= d * c;
		aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
		d = 1.0 + aa * d;
		d = fabs(d) < 1e-300 ? 1e-300 : d;
		c = 1.0 + aa / c;
		c = fabs(c) < 1e-300 ? 1e-300 : c;
		d = 1.0 / d;
		delta = d * c;
		h *= delta;
		if (fabs(delta - 1.0) < 1e-15)
			break;
	}
	return h;
}

/* I_x(a, b) */
static inline double
audit_incomplete_beta(double a, double b, double x)
{
	double		front;

	if (x <= 0.0)
		return 0.0;
	if (x >= 1.0)
		return 1.0;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1.0) / (a + b + 2.0))
		return front * audit_beta_fraction(a, b, x) / a;
	return 1.0 - front * audit_beta_fraction(b, a, 1.0 - x) / b;
}

/*
 * Clopper-Pearson: the p with P[Bin(n, p) >= k] = alpha (lower) and
 * P[Bin(n, p) <= k] = alpha (upper), by bisection on I_p(k, n - k + 1).
 */
static inline double
audit_binomial_lower(int64_t k, int64_t n, double alpha)
{
	double		low = 0.0,
				high = 1.0;

	if (k == 0)
		return 0.0;
	for (int i = 0; i < 200; i++)
	{
		double		mid = 0.5 * (low + high);

		/* P[Bin(n, mid) >= k] = I_mid(k, n - k + 1) grows with mid */
		if (audit_incomplete_beta((double) k, (double) (n - k + 1), mid) < alpha)
			low = mid;
		else
			high = mid;
	}
	return low;
}

static inline double
audit_binomial_upper(int64_t k, int64_t n, double alpha)
{
	double		low = 0.0,
				high = 1.0;

	if (k == n)
		return 1.0;
	for (int i = 0; i < 200; i++)
	{
		double		mid = 0.5 * (low + high);

		/* P[Bin(n, mid) <= k] = 1 - I_mid(k + 1, n - k) falls with mid */
		if (1.0 - audit_incomplete_beta((double) (k + 1), (double) (n - k), mid) > alpha)
			low = mid;
		else
			high = mid;
	}
	return high;
}

/* ---- the audit ---- */

#define AUDIT_THRESHOLDS 4
#define AUDIT_STEPS_MAX 256

typedef struct audit_result
{
	double		epsilon;		/* the mechanism's */
	double		item_epsilon;	/* the loss the released nodes of step j can show */
	double		epsilon_low;	/* the largest lower bound over the events */
	double		epsilon_estimate;	/* log(p1 / p0) at that event */
	double		p0;
	double		p1;
	int			nodes;			/* released nodes that hold step j */
} audit_result;

/*
 * The released nodes that hold step j, as pairs of steps (s, e): the
 * node's noisy value is R_e - R_s.  A k-ary tree (Binary: k = 2) releases
 * at t the nodes of t's base-k digits, so the node of level l and index m
 * (ending at e = m k^l) is R_e - R_(e - k^l) when m is not a multiple of
 * k (otherwise its parent replaces it and it is never released).
 * Two-level releases the items of the open block and the sums of the
 * closed ones: item t is R_t - R_(t-1) unless t closes a block, and the
 * block ending at e is R_e - R_(e - B).  Simple II: R_j - R_(j-1).
 */
static inline int
audit_nodes_of(const dp_mechanism *m, int64_t steps, int64_t j, int64_t *ends, int64_t *starts)
{
	int			count = 0;
	int64_t		arity = m->kind == DP_MECHANISM_KARY ? m->block : 2;

	if (m->kind == DP_MECHANISM_SIMPLE_II)
	{
		ends[0] = j;
		starts[0] = j - 1;
		return 1;
	}
	if (m->kind == DP_MECHANISM_TWO_LEVEL)
	{
		int64_t		block_end = (j + m->block - 1) / m->block * m->block;

		if (j % m->block != 0)
		{
			ends[count] = j;
			starts[count++] = j - 1;
		}
		if (block_end <= steps)
		{
			ends[count] = block_end;
			starts[count++] = block_end - m->block;
		}
		return count;
	}
	for (int64_t width = 1; width <= m->horizon; width *= arity)
	{
		int64_t		index = (j + width - 1) / width;

		if (index % arity != 0 && index * width <= steps)
		{
			ends[count] = index * width;
			starts[count] = index * width - width;
			count++;
		}
		if (width > m->horizon / arity)
			break;
	}
	return count;
}

/* tables for the audit's stream: malloc'd, freed when the cache starts again */
typedef struct audit_tables
{
	void	   *blocks[DP_SAMPLER_CACHE_SIZE];
	int			count;
} audit_tables;

static inline void *
audit_tables_allocate(void *context, size_t size)
{
	audit_tables *tables = context;
	void	   *block = malloc(size);

	if (block == NULL)
		abort();
	tables->blocks[tables->count++] = block;
	return block;
}

static inline void
audit_tables_release(void *context)
{
	audit_tables *tables = context;

	for (int i = 0; i < tables->count; i++)
		free(tables->blocks[i]);
	tables->count = 0;
}

/*
 * runs seeded runs on each stream, steps releases each; the events are
 * LLR >= t for AUDIT_THRESHOLDS thresholds up to the largest value; alpha
 * is split over them and both directions.
 */
static inline audit_result
audit_run(const char *text, int64_t steps, int64_t j, int64_t runs, double alpha)
{
	dp_mechanism m = test_mechanism(text);
	dp_counter *counter = malloc(dp_counter_size(&m));
	dp_random	rng;
	int64_t		ends[64],
				starts[64];
	int			nodes = audit_nodes_of(&m, steps, j, ends, starts);
	int64_t		hits[2][2][AUDIT_THRESHOLDS] = {{{0}}};
	double		b;
	double		delta = (double) m.max_per_step;
	double		top;
	audit_result result = {.epsilon = m.epsilon, .nodes = nodes};
	const char *field;
	bool		pan_private;
	double		pan_a;
	audit_tables tables = {.count = 0};
	dp_sampler_cache cache = {.allocate = audit_tables_allocate,
	.release_all = audit_tables_release, .context = &tables};

	dp_counter_prepare(counter, &m, &field);
	b = dp_scale_as_double(&counter->scale);
	pan_private = (m.flags & DP_FLAG_PAN_PRIVATE) != 0;
	pan_a = (1 + exp(-2 / b)) / (1 - exp(-2 / b));
	top = nodes * delta / b;
	result.item_epsilon = top;
	/* the sampler fresh noise uses in the extension: the table sampler */
	dp_random_init_keyed(&rng, text, strlen(text));
	rng.table_sampler = true;
	rng.samplers = &cache;
	for (int stream = 0; stream < 2; stream++)
		for (int64_t run = 0; run < runs; run++)
		{
			int64_t		releases[AUDIT_STEPS_MAX + 1];
			double		llr[2] = {0, 0};

			dp_counter_start(counter, &m, &rng, &field);
			releases[0] = 0;
			for (int64_t t = 1; t <= steps; t++)
			{
				dp_counter_push(counter, stream == 1 && t == j ? m.max_per_step : 0, &rng);
				releases[t] = dp_counter_release(counter);
			}
			/* the LLR of x' against x (direction 0) and of x against x' (direction 1) */
			for (int i = 0; i < nodes; i++)
			{
				double		value = (double) (releases[ends[i]] - releases[starts[i]]);
				double		shift = (fabs(value) - fabs(value - delta)) / b;

				/*
				 * pan-private: two terms of scale b per node, whose sum has
				 * P[s] proportional to q^|s| (|s| + A), A = (1 + q^2) / (1 - q^2)
				 */
				if (pan_private)
					shift += log((fabs(value - delta) + pan_a) / (fabs(value) + pan_a));
				llr[0] += shift;
				llr[1] -= shift;
			}
			for (int direction = 0; direction < 2; direction++)
				for (int k = 0; k < AUDIT_THRESHOLDS; k++)
					if (llr[direction] >= top * (k + 1) / AUDIT_THRESHOLDS - 1e-9)
						hits[stream][direction][k]++;
		}
	result.epsilon_low = -INFINITY;
	for (int direction = 0; direction < 2; direction++)
		for (int k = 0; k < AUDIT_THRESHOLDS; k++)
		{
			/* direction 0: E more likely under x' (stream 1); 1: under x */
			int64_t		more = hits[direction == 0 ? 1 : 0][direction][k];
			int64_t		less = hits[direction == 0 ? 0 : 1][direction][k];
			double		share = alpha / (2.0 * AUDIT_THRESHOLDS);
			double		low = audit_binomial_lower(more, runs, share / 2);
			double		high = audit_binomial_upper(less, runs, share / 2);
			double		bound = low > 0 ? log(low / high) : -INFINITY;

			if (bound > result.epsilon_low)
			{
				result.epsilon_low = bound;
				result.p1 = (double) more / runs;
				result.p0 = (double) less / runs;
				result.epsilon_estimate = log(result.p1 / result.p0);
			}
		}
	free(counter);
	audit_tables_release(&tables);
	return result;
}

#endif							/* DP_AUDIT_H */

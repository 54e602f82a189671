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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dp_counter.h"
#include "dp_laplace_table.h"
#include "dp_statistic.h"
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
audit_nodes_of(const dp_counter *counter, int64_t steps, int64_t j, int64_t *ends,
			   int64_t *starts, double *scales)
{
	const dp_mechanism *m = &counter->mechanism;
	int			count = 0;
	int64_t		arity = m->kind == DP_MECHANISM_KARY ? m->block : 2;

	for (int i = 0; i < 64; i++)
		scales[i] = dp_scale_as_double(&counter->scale);
	if (m->kind == DP_MECHANISM_SIMPLE_I)
	{
		/*
		 * Simple I with a stored state read after the last step (view entry
		 * steps + 1: its accumulator A = eta + c(steps)): A itself (eta,
		 * second scale) and A - R_t = c(steps) - c(t) - gamma_t for t < j
		 * (gamma, the first scale) each move by delta, independently; the
		 * argument of dp_simple_i.c for j <= s, so together they show
		 * delta / b_eta + (j - 1) delta / b_gamma, nearly epsilon at j = T.
		 */
		if (j > 63)
			abort();			/* 64 nodes at most */
		ends[count] = steps + 1;
		starts[count] = 0;
		scales[count++] = dp_scale_as_double(&counter->second_scale);
		for (int64_t t = 1; t < j; t++)
		{
			ends[count] = steps + 1;
			starts[count++] = t;
		}
		return count;
	}
	if (m->kind == DP_MECHANISM_PPCUM && m->horizon == 2)
	{
		/*
		 * PPCum over two steps with a state read after the last (view entry
		 * 3: its counter A = X_0 + c(2)): A moves with X_0 and, for j = 2,
		 * A - R_1 = c(2) - c(1) - n(leaf 1) with the first leaf's noise, the
		 * two shifts of the argument of dp_ppcum.c (X_0 and the interval
		 * tiling [1, j - 1]): 2 delta / b = epsilon.  Over longer trees the
		 * releases share their ancestors' noise and no pair is independent.
		 */
		ends[count] = steps + 1;
		starts[count++] = 0;
		if (j == 2)
		{
			ends[count] = steps + 1;
			starts[count++] = 1;
		}
		return count;
	}
	/* PPCum over more steps: the releases do not isolate its terms (the projection audit) */
	if (m->kind == DP_MECHANISM_PPCUM)
		abort();
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
 * a stream of the audit's own, seeded by the case and phase, drawing as the
 * backend's stream of fresh noise does (tables, constant-time Gaussian)
 */
static inline void
audit_seed(dp_random *rng, const char *text, const char *phase, dp_sampler_cache *cache)
{
	char		label[512];

	snprintf(label, sizeof(label), "%s%s", text, phase);
	dp_random_init_keyed(rng, label, strlen(label));
	rng->table_sampler = true;
	rng->constant_time_gaussian = true;
	rng->samplers = cache;
}

/*
 * The bound of the node audit: alpha split over the thresholds and the two
 * directions; the largest lower bound, with its point estimate.
 */
static inline void
audit_threshold_bound(int64_t hits[2][2][AUDIT_THRESHOLDS], int64_t runs, double alpha,
					  audit_result *result)
{
	result->epsilon_low = -INFINITY;
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

			if (bound > result->epsilon_low)
			{
				result->epsilon_low = bound;
				result->p1 = (double) more / runs;
				result->p0 = (double) less / runs;
				result->epsilon_estimate = log(result->p1 / result->p0);
			}
		}
}

/* counts a run's log-likelihood ratio of x' against x in the events LLR >= top (k + 1) / 4 */
static inline void
audit_count_llr(int64_t hits[2][2][AUDIT_THRESHOLDS], int stream, double llr, double top)
{
	for (int direction = 0; direction < 2; direction++)
		for (int k = 0; k < AUDIT_THRESHOLDS; k++)
			if ((direction == 0 ? llr : -llr) >= top * (k + 1) / AUDIT_THRESHOLDS - 1e-9)
				hits[stream][direction][k]++;
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
	double		scales[64],
				pan_a[64];
	int			nodes;
	int64_t		hits[2][2][AUDIT_THRESHOLDS] = {{{0}}};
	double		delta = (double) m.max_per_step;
	double		top = 0;
	audit_result result = {.epsilon = m.epsilon};
	const char *field;
	bool		pan_private;
	/* Simple I and PPCum are audited with a stored state read after the last step */
	bool		intrusion = m.kind == DP_MECHANISM_SIMPLE_I || m.kind == DP_MECHANISM_PPCUM;
	audit_tables tables = {.count = 0};
	dp_sampler_cache cache = {.allocate = audit_tables_allocate,
	.release_all = audit_tables_release, .context = &tables};

	if (counter == NULL || steps > AUDIT_STEPS_MAX)
		abort();
	dp_counter_prepare(counter, &m, &field);
	nodes = audit_nodes_of(counter, steps, j, ends, starts, scales);
	pan_private = (m.flags & DP_FLAG_PAN_PRIVATE) != 0;
	for (int i = 0; i < nodes; i++)
	{
		pan_a[i] = (1 + exp(-2 / scales[i])) / (1 - exp(-2 / scales[i]));
		top += delta / scales[i];
	}
	result.nodes = nodes;
	result.item_epsilon = top;
	/* the sampler fresh noise uses in the extension: the table sampler */
	audit_seed(&rng, text, "", &cache);
	/* started once; every run restarts it, without computing its scales again */
	if (dp_counter_start(counter, &m, &rng, &field) != DP_OK)
		abort();
	for (int stream = 0; stream < 2; stream++)
		for (int64_t run = 0; run < runs; run++)
		{
			int64_t		releases[AUDIT_STEPS_MAX + 2];
			double		llr = 0;

			dp_counter_restart(counter, &rng);
			releases[0] = 0;
			for (int64_t t = 1; t <= steps; t++)
			{
				dp_counter_push(counter, stream == 1 && t == j ? m.max_per_step : 0, &rng);
				releases[t] = dp_counter_release(counter);
			}
			if (intrusion)
			{
				dp_int128	state[DP_COUNTER_MAX_NODES];

				dp_counter_persisted_nodes(counter, state);
				releases[steps + 1] = dp_int128_to_int64_saturated(state[0]);
			}
			/* the LLR of x' against x (direction 0; its negation, direction 1) */
			for (int i = 0; i < nodes; i++)
			{
				double		value = (double) (releases[ends[i]] - releases[starts[i]]);
				double		shift = (fabs(value) - fabs(value - delta)) / scales[i];

				/*
				 * pan-private: two terms of scale b per node, whose sum has
				 * P[s] proportional to q^|s| (|s| + A), A = (1 + q^2) / (1 - q^2)
				 */
				if (pan_private)
					shift += log((fabs(value - delta) + pan_a[i]) / (fabs(value) + pan_a[i]));
				llr += shift;
			}
			audit_count_llr(hits, stream, llr, top);
		}
	audit_threshold_bound(hits, runs, alpha, &result);
	free(counter);
	audit_tables_release(&tables);
	return result;
}


/* ---- the projection audit: any mechanism, any neighbouring pair ---- */

/*
 * For the mechanisms whose releases do not expose their noise terms one by
 * one (sums over overlapping nodes, weighted estimates, a shared term,
 * Gaussian noise), the event is a tail of one linear projection of the
 * release vector, chosen without looking at the runs that are counted:
 *
 *   1. runs / 4 runs on each stream estimate the mean of the releases under
 *      each stream and their pooled covariance S; the projection is the
 *      linear discriminant w = S^-1 (m1 - m0), which for Gaussian noise is
 *      the likelihood ratio itself (so the audit is sharp there);
 *   2. runs / 2 further runs on each stream choose the tail (P >= c, more
 *      likely under x', or P <= c, more likely under x) whose
 *      Clopper-Pearson bound is largest;
 *   3. `runs` fresh runs on each stream are counted in that one event.
 *
 * Steps 1 and 2 use streams of their own, so the event is fixed before the
 * runs of step 3 are drawn and the bound of step 3 holds at level alpha
 * with no split.  The neighbour x' is any vector (person level: several
 * steps); x is all zeros.  For rho-zCDP mechanisms the bound is on the
 * epsilon of (epsilon, delta)-DP: log((lower(k1) - delta) / upper(k0)),
 * against the conversion rho + 2 sqrt(rho log(1 / delta)) of Bun and
 * Steinke.  That conversion is loose, so the zCDP mechanisms also get a
 * sharp check: their releases are linear in nodes with independent
 * discrete Gaussian noise of parameter sigma^2, with L2 sensitivity s =
 * sigma sqrt(2 rho), so by Cauchy-Schwarz no linear projection moves by
 * more than sqrt(2 rho) of its standard deviation, up to the discrete
 * Gaussian's variance deficit (a relative 8 pi^2 sigma^2 e^(-2 pi^2
 * sigma^2) or so: 2.1 10^-7 at sigma = 1, less above, far inside the
 * margin).  The separation is
 * measured on the runs of step 2, which w did not see; the two streams
 * share their random numbers, so the mean shift is nearly exact and the
 * error is that of the standard deviation, relative 1 / sqrt(2 n).
 */
#define AUDIT_PROJECTION_STEPS_MAX 40
#define AUDIT_TAIL_CANDIDATES 48

typedef struct audit_projection_result
{
	double		epsilon_low;	/* the bound of step 3 */
	double		epsilon_estimate;	/* log((p1 - delta) / p0) at that event */
	double		p0;				/* under the stream the event is less likely on */
	double		p1;
	double		separation;		/* (mean under x' - mean under x) / s.d. of w'R */
	int64_t		separation_runs;	/* the runs per stream it is measured on */
	bool		upper_tail;
} audit_projection_result;

/* what the projection audit runs: a counter, x all zeros, x' = neighbour[1..steps] */
typedef struct audit_subject
{
	int64_t		steps;			/* one release per step */
	dp_counter *counter;
	const int64_t *neighbour;
} audit_subject;

/* the releases of one run on x (stream 0) or x' (stream 1) */
static inline void
audit_releases(const audit_subject *subject, dp_random *rng, int stream, double *releases)
{
	dp_counter_restart(subject->counter, rng);
	for (int64_t t = 1; t <= subject->steps; t++)
	{
		dp_counter_push(subject->counter, stream == 1 ? subject->neighbour[t] : 0, rng);
		releases[t - 1] = (double) dp_counter_release(subject->counter);
	}
}

/* w'R for the releases R of one run */
static inline double
audit_projected(const audit_subject *subject, dp_random *rng, int stream, const double *w)
{
	double		releases[AUDIT_PROJECTION_STEPS_MAX];
	double		p = 0;

	audit_releases(subject, rng, stream, releases);
	for (int i = 0; i < subject->steps; i++)
		p += w[i] * releases[i];
	return p;
}

/* solves S w = d for a symmetric positive semi-definite S (Cholesky, ridged) */
static inline void
audit_solve(double *S, const double *d, double *w, int n)
{
	double		trace = 0;

	for (int i = 0; i < n; i++)
		trace += S[i * n + i];
	/* a release without noise (or two equal ones) leaves S singular */
	for (int i = 0; i < n; i++)
		S[i * n + i] += 1e-9 * trace / n + 1e-12;
	for (int i = 0; i < n; i++)
		for (int k = 0; k <= i; k++)
		{
			double		sum = S[i * n + k];

			for (int l = 0; l < k; l++)
				sum -= S[i * n + l] * S[k * n + l];
			S[i * n + k] = i == k ? sqrt(sum > 0 ? sum : 1e-300) : sum / S[k * n + k];
		}
	for (int i = 0; i < n; i++)
	{
		double		sum = d[i];

		for (int l = 0; l < i; l++)
			sum -= S[i * n + l] * w[l];
		w[i] = sum / S[i * n + i];
	}
	for (int i = n - 1; i >= 0; i--)
	{
		double		sum = w[i];

		for (int l = i + 1; l < n; l++)
			sum -= S[l * n + i] * w[l];
		w[i] = sum / S[i * n + i];
	}
}

static inline int
audit_compare_doubles(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

/* how many of the sorted values are >= c (upper) or <= c (lower) */
static inline int64_t
audit_count_tail(const double *sorted, int64_t n, double c, bool upper)
{
	int64_t		low = 0,
				high = n;

	/* the first index with sorted[i] >= c (upper) or > c (lower) */
	while (low < high)
	{
		int64_t		mid = (low + high) / 2;

		if (upper ? sorted[mid] < c : sorted[mid] <= c)
			low = mid + 1;
		else
			high = mid;
	}
	return upper ? n - low : low;
}

static inline double
audit_tail_bound(int64_t more, int64_t less, int64_t runs, double alpha, double delta)
{
	double		low = audit_binomial_lower(more, runs, alpha / 2) - delta;
	double		high = audit_binomial_upper(less, runs, alpha / 2);

	return low > 0 ? log(low / high) : -INFINITY;
}

/* the three phases (above) for a started counter; label seeds them */
static inline audit_projection_result
audit_projection_phases(const char *label, const audit_subject *subject, int64_t runs,
						double alpha, double delta)
{
	int			n = (int) subject->steps;
	double		releases[AUDIT_PROJECTION_STEPS_MAX];
	double		mean[2][AUDIT_PROJECTION_STEPS_MAX] = {{0}};
	double	   *S = calloc((size_t) n * n, sizeof(double));
	double	   *projected[2] = {malloc(sizeof(double) * runs), malloc(sizeof(double) * runs)};
	int64_t		covariance_runs,
				tail_runs;
	double		d[AUDIT_PROJECTION_STEPS_MAX],
				w[AUDIT_PROJECTION_STEPS_MAX];
	double		best = -INFINITY,
				threshold = 0,
				moments[2][2] = {{0}};
	bool		upper = true;
	int64_t		hits[2] = {0, 0};
	dp_random	rng;
	audit_projection_result result = {0};
	audit_tables tables = {.count = 0};
	dp_sampler_cache cache = {.allocate = audit_tables_allocate,
	.release_all = audit_tables_release, .context = &tables};

	if (S == NULL || projected[0] == NULL || projected[1] == NULL ||
		n > AUDIT_PROJECTION_STEPS_MAX)
		abort();

	/* 1: means and pooled covariance (two passes: means first, for accuracy) */
	covariance_runs = runs / 4;
	tail_runs = runs / 2;
	/* the least tail candidate is 20 runs; fewer runs could not place it */
	if (tail_runs < 40)
		abort();
	for (int phase = 0; phase < 2; phase++)
		for (int stream = 0; stream < 2; stream++)
		{
			audit_seed(&rng, label, "/covariance", &cache);
			for (int64_t run = 0; run < covariance_runs; run++)
			{
				audit_releases(subject, &rng, stream, releases);
				for (int i = 0; i < n; i++)
				{
					if (phase == 0)
						mean[stream][i] += releases[i] / covariance_runs;
					else
						for (int k = 0; k <= i; k++)
							S[i * n + k] += (releases[i] - mean[stream][i]) *
								(releases[k] - mean[stream][k]) / (2.0 * covariance_runs);
				}
			}
		}
	for (int i = 0; i < n; i++)
	{
		for (int k = 0; k < i; k++)
			S[k * n + i] = S[i * n + k];
		d[i] = mean[1][i] - mean[0][i];
	}
	audit_solve(S, d, w, n);

	/* 2: the tail, on runs of its own */
	for (int stream = 0; stream < 2; stream++)
	{
		audit_seed(&rng, label, "/tail", &cache);
		for (int64_t run = 0; run < tail_runs; run++)
			projected[stream][run] = audit_projected(subject, &rng, stream, w);
		for (int64_t run = 0; run < tail_runs; run++)
		{
			moments[stream][0] += projected[stream][run] / tail_runs;
			moments[stream][1] += projected[stream][run] * projected[stream][run] / tail_runs;
		}
		qsort(projected[stream], tail_runs, sizeof(double), audit_compare_doubles);
	}
	/* the projection's shift in its standard deviations, on runs w did not see */
	result.separation = (moments[1][0] - moments[0][0]) /
		sqrt(0.5 * (moments[0][1] - moments[0][0] * moments[0][0] +
					moments[1][1] - moments[1][0] * moments[1][0]));
	result.separation_runs = tail_runs;
	for (int side = 0; side < 2; side++)
	{
		/* upper tail: thresholds from x' (stream 1) runs; lower: from x */
		const double *from = projected[side == 0 ? 1 : 0];

		for (int k = 0; k < AUDIT_TAIL_CANDIDATES; k++)
		{
			/* ranks from 20 runs to half of them, geometrically */
			double		fraction = (double) k / (AUDIT_TAIL_CANDIDATES - 1);
			int64_t		rank = (int64_t) (20.0 * pow(tail_runs / 40.0, fraction));
			double		c = side == 0 ? from[tail_runs - rank] : from[rank - 1];
			int64_t		more = audit_count_tail(projected[side == 0 ? 1 : 0], tail_runs, c, side == 0);
			int64_t		less = audit_count_tail(projected[side == 0 ? 0 : 1], tail_runs, c, side == 0);
			double		bound = audit_tail_bound(more, less, tail_runs, alpha, delta);

			if (bound > best)
			{
				best = bound;
				threshold = c;
				upper = side == 0;
			}
		}
	}

	/* 3: fresh runs in the chosen event */
	for (int stream = 0; stream < 2; stream++)
	{
		audit_seed(&rng, label, "/count", &cache);
		for (int64_t run = 0; run < runs; run++)
		{
			double		p = audit_projected(subject, &rng, stream, w);

			if (upper ? p >= threshold : p <= threshold)
				hits[stream]++;
		}
	}
	{
		int64_t		more = hits[upper ? 1 : 0],
					less = hits[upper ? 0 : 1];

		result.upper_tail = upper;
		result.epsilon_low = audit_tail_bound(more, less, runs, alpha, delta);
		result.p1 = (double) more / runs;
		result.p0 = (double) less / runs;
		result.epsilon_estimate = result.p1 > delta && result.p0 > 0 ?
			log((result.p1 - delta) / result.p0) : -INFINITY;
	}
	free(S);
	free(projected[0]);
	free(projected[1]);
	audit_tables_release(&tables);
	return result;
}

/* a counter of the mechanism `text`; x' = neighbour[1..steps], x = zeros */
static inline audit_projection_result
audit_projection_run(const char *text, int64_t steps, const int64_t *neighbour, int64_t runs,
					 double alpha, double delta)
{
	dp_mechanism m = test_mechanism(text);
	dp_counter *counter = malloc(dp_counter_size(&m));
	audit_subject subject = {.steps = steps, .counter = counter, .neighbour = neighbour};
	audit_projection_result result;
	dp_random	rng;
	const char *field;

	/* started once; every run restarts it, without computing its scales again */
	dp_random_init_keyed(&rng, text, strlen(text));
	if (counter == NULL || steps > AUDIT_PROJECTION_STEPS_MAX ||
		dp_counter_start(counter, &m, &rng, &field) != DP_OK)
		abort();
	result = audit_projection_phases(text, &subject, runs, alpha, delta);
	free(counter);
	return result;
}

/*
 * The node audit of a statistic whose channels run the Binary mechanism:
 * every channel's released nodes that hold step j (R_e - R_s of that
 * channel's counter, in its units), centred on what x puts there and
 * shifted by what x' changes (both read from the counters' raw totals of a
 * noiseless pass, so the clamping and rounding are the channel's own).
 * The sum of |shift| / scale over the nodes is what the step can show: the
 * channels' shares of epsilon times the part of their sensitivity used.
 */
static inline audit_result
audit_statistic_nodes_run(const char *label, const dp_statistic_spec *spec, int64_t steps,
						  int64_t j, bool observed_first, double first_value, int64_t runs,
						  double alpha)
{
	dp_statistic layout;
	dp_statistic *statistic;
	int			channels;
	int64_t		ends[DP_STATISTIC_CHANNELS_MAX][64],
				starts[DP_STATISTIC_CHANNELS_MAX][64];
	double		scales[DP_STATISTIC_CHANNELS_MAX][64];
	int			nodes[DP_STATISTIC_CHANNELS_MAX];
	/* the raw totals of each channel after t steps, under x (0) and x' (1) */
	double		totals[2][DP_STATISTIC_CHANNELS_MAX][AUDIT_STEPS_MAX + 1];
	int64_t		hits[2][2][AUDIT_THRESHOLDS] = {{{0}}};
	audit_result result = {.epsilon = spec->mechanism.epsilon};
	dp_random	rng;
	audit_tables tables = {.count = 0};
	dp_sampler_cache cache = {.allocate = audit_tables_allocate,
	.release_all = audit_tables_release, .context = &tables};
	const char *field;

	if (dp_statistic_layout(&layout, spec, &field) != DP_OK || steps > AUDIT_STEPS_MAX ||
		spec->mechanism.kind != DP_MECHANISM_BINARY || j < 1 || j > steps)
		abort();
	channels = layout.channel_count;
	statistic = malloc(dp_statistic_size(&layout));
	if (statistic == NULL)
		abort();
	audit_seed(&rng, label, "", &cache);
	for (int stream = 0; stream < 2; stream++)
	{
		dp_statistic_start(statistic, &layout, &rng);
		for (int c = 0; c < channels; c++)
			totals[stream][c][0] = 0;
		for (int64_t t = 1; t <= steps; t++)
		{
			bool		changed = stream == 1 && t == j;

			dp_statistic_push(statistic, changed ? observed_first : true,
							  changed ? first_value : spec->lower, &rng);
			for (int c = 0; c < channels; c++)
				totals[stream][c][t] =
					(double) dp_statistic_counter_const(statistic, c)->running_total;
		}
	}
	for (int c = 0; c < channels; c++)
	{
		const dp_counter *counter = dp_statistic_counter_const(statistic, c);

		nodes[c] = audit_nodes_of(counter, steps, j, ends[c], starts[c], scales[c]);
		for (int i = 0; i < nodes[c]; i++)
		{
			double		shift = (totals[1][c][ends[c][i]] - totals[1][c][starts[c][i]]) -
				(totals[0][c][ends[c][i]] - totals[0][c][starts[c][i]]);

			result.item_epsilon += fabs(shift) / scales[c][i];
			result.nodes++;
		}
	}
	for (int stream = 0; stream < 2; stream++)
		for (int64_t run = 0; run < runs; run++)
		{
			double		releases[DP_STATISTIC_CHANNELS_MAX][AUDIT_STEPS_MAX + 1];
			double		llr = 0;

			dp_statistic_start(statistic, &layout, &rng);
			for (int c = 0; c < channels; c++)
				releases[c][0] = 0;
			for (int64_t t = 1; t <= steps; t++)
			{
				bool		changed = stream == 1 && t == j;

				dp_statistic_push(statistic, changed ? observed_first : true,
								  changed ? first_value : spec->lower, &rng);
				for (int c = 0; c < channels; c++)
					releases[c][t] =
						(double) dp_counter_release(dp_statistic_counter_const(statistic, c));
			}
			for (int c = 0; c < channels; c++)
				for (int i = 0; i < nodes[c]; i++)
				{
					int64_t		e = ends[c][i],
								b = starts[c][i];
					double		value = releases[c][e] - releases[c][b] -
						(totals[0][c][e] - totals[0][c][b]);
					double		shift = (totals[1][c][e] - totals[1][c][b]) -
						(totals[0][c][e] - totals[0][c][b]);

					llr += (fabs(value) - fabs(value - shift)) / scales[c][i];
				}
			audit_count_llr(hits, stream, llr, result.item_epsilon);
		}
	audit_threshold_bound(hits, runs, alpha, &result);
	free(statistic);
	audit_tables_release(&tables);
	return result;
}

#endif							/* DP_AUDIT_H */

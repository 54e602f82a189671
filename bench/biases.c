/*
 * biases.c
 *		Four accuracy claims of the docs, measured (issue 25, item 5 and the
 *		figures that were wrong or unqualified).
 *
 *   expiring    the exact error sd of dp_expiring against t and epsilon
 *               (each step's noise description, discrete Laplace terms):
 *               its range over t >= 100, where the largest value is, and
 *               an upper bound for every t (every level at its most terms).
 *   honaker     the Chernoff bound that dp_error_bound gives Honaker's
 *               weighted releases against the exact quantile of the same
 *               noise: each group's integer sum has its exact mass
 *               function (the inverse DFT of its characteristic function),
 *               weighted values are rounded down and up to a grid of 1/64,
 *               and the two rounded sums, convolved by FFT, bracket the
 *               exact quantile (every bracket is printed).
 *   band        the share of streams that leave the band of
 *               dp_error_bound_max (the running widest per-step bound) at
 *               some step, and of the simultaneous band (each step at miss
 *               (1 - confidence) / steps: a union bound), from seeded runs
 *               of the real core; the simultaneous band is checked: the
 *               program exits 1 when its share is above 1 - confidence by
 *               more than 4.89 binomial standard errors (p = 1e-6).
 *   consistent  the bias of dp_consistent's releases against t, from seeded
 *               runs of the real core over Poisson daily counts: the mean
 *               of (release - truth) for the mechanism's own release and
 *               for the consistent one, with 4.89 standard errors; exits 1
 *               when the mechanism's own release is biased beyond that
 *               (it is unbiased: the check that the harness is right).
 *
 * Usage: biases {expiring|honaker|band|consistent|all} [quick|full [LOG2_T [EPSILON]]]
 * (LOG2_T: Honaker at that horizon only, 0 for all; EPSILON: Honaker's, 1 by default)
 */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dp_counter.h"
#include "dp_delayed_tree.h"
#include "dp_noise_sum.h"

#define Z_FAIL 4.8916			/* two-sided normal quantile at p = 1e-6 */
#define PI 3.14159265358979323846

static bool quick = false;
static int	failures = 0;

static dp_mechanism
parse(const char *text)
{
	dp_mechanism m;
	dp_parse_error error;
	const char *cursor = text;
	const char *field;

	if (dp_mechanism_parse(&cursor, &m, &error) != DP_OK ||
		dp_mechanism_validate(&m, &field) != DP_OK)
	{
		fprintf(stderr, "biases: cannot use %s\n", text);
		exit(2);
	}
	return m;
}

static dp_counter *
prepared(const dp_mechanism *m)
{
	dp_counter *counter = malloc(dp_counter_size(m));
	const char *field;

	if (!counter || dp_counter_prepare(counter, m, &field) != DP_OK)
	{
		fprintf(stderr, "biases: cannot prepare a counter\n");
		exit(2);
	}
	return counter;
}

static double
variance_at(const dp_counter *counter, int64_t t)
{
	dp_noise_group groups[DP_NOISE_GROUPS_MAX];
	int			count = dp_counter_noise_groups_at(counter, t, groups);

	return dp_noise_sum_variance(groups, count);
}

/* ---- expiring ---------------------------------------------------------- */

static void
expiring(void)
{
	static const double lambdas[] = {2, 3};
	static const double epsilons[] = {0.01, 0.1, 0.5, 1, 2, 4};
	int64_t		scan = quick ? ((int64_t) 1 << 16) : ((int64_t) 1 << 22);

	printf("## dp_expiring: error sd x epsilon / max_per_step against t\n\n");
	printf("Exact (noise description), max_per_step 1, t scanned 1..2^%d; "
		   "'every t': no t < 2^62 exceeds it (each level at the most usable intervals it has at a scanned step, 2 beyond).\n\n",
		   (int) log2((double) scan));
	printf("| lambda | epsilon | t = 100 | t = 2^16 | min over t >= 100 (at t) | max over t >= 100 (at t) | bound, every t |\n");
	printf("|---|---|---|---|---|---|---|\n");
	for (int l = 0; l < 2; l++)
		for (int e = 0; e < (int) (sizeof(epsilons) / sizeof(epsilons[0])); e++)
		{
			char		text[128];
			dp_mechanism m;
			dp_counter *c;
			double		lo = INFINITY,
						hi = 0,
						bound = 0;
			int64_t		lo_t = 0,
						hi_t = 0;
			double		eps = epsilons[e];

			snprintf(text, sizeof(text), "expiring(epsilon=%g,max_per_step=1,lambda=%g)",
					 eps, lambdas[l]);
			m = parse(text);
			c = prepared(&m);
			for (int64_t t = 100; t <= scan; t++)
			{
				double		sd = sqrt(variance_at(c, t)) * eps;

				if (sd < lo)
					lo = sd, lo_t = t;
				if (sd > hi)
					hi = sd, hi_t = t;
			}

			/*
			 * Every t: each level's variance times the most usable intervals it
			 * has at a scanned step, or 2 for the levels the scan does not reach
			 * (the most any level has: ring sizes of dp_delayed_tree.c), summed
			 * over the 62 levels; checked to be 2 at most where scanned.
			 */
			{
				dp_delayed_tree tree;
				int64_t		most[64] = {0};

				dp_delayed_tree_of(&m, &tree);
				for (int64_t t = 1; t <= scan; t++)
					for (int level = 0; level < tree.levels && ((int64_t) 1 << level) <= t; level++)
					{
						int64_t		first,
									last;

						dp_delayed_tree_segment(&tree, level, t, &first, &last);
						if (last - first > most[level])
							most[level] = last - first;
					}
				for (int level = 0; level < tree.levels; level++)
				{
					dp_scale	scale = dp_counter_class_scale(c, dp_delayed_tree_class(&tree, level));

					if (most[level] > 2)
					{
						printf("FAIL: level %d has %lld usable intervals\n", level, (long long) most[level]);
						failures++;
					}
					bound += (((int64_t) 1 << level) <= scan ? most[level] : 2) *
						dp_discrete_laplace_variance(&scale);
				}
			}
			if (hi > sqrt(bound) * eps * (1 + 1e-12))
			{
				printf("FAIL: a step above the bound for every t\n");
				failures++;
			}
			printf("| %g | %g | %.3f | %.3f | %.3f (%lld) | %.3f (%lld) | %.3f |\n",
				   lambdas[l], eps, sqrt(variance_at(c, 100)) * eps,
				   sqrt(variance_at(c, (int64_t) 1 << 16)) * eps,
				   lo, (long long) lo_t, hi, (long long) hi_t, sqrt(bound) * eps);
			free(c);
		}
	printf("\n");
}

/* ---- honaker ------------------------------------------------------------ */

/* in-place radix-2 FFT; sign -1 forward, +1 inverse (unnormalised) */
static void
fft(double complex *a, int n, int sign)
{
	for (int i = 1, j = 0; i < n; i++)
	{
		int			bit = n >> 1;

		for (; j & bit; bit >>= 1)
			j ^= bit;
		j ^= bit;
		if (i < j)
		{
			double complex t = a[i];

			a[i] = a[j];
			a[j] = t;
		}
	}
	for (int len = 2; len <= n; len <<= 1)
	{
		double		angle = sign * 2 * PI / len;
		double complex wl = cexp(I * angle);

		for (int i = 0; i < n; i += len)
		{
			double complex w = 1;

			for (int j = 0; j < len / 2; j++)
			{
				double complex u = a[i + j];
				double complex v = a[i + j + len / 2] * w;

				a[i + j] = u + v;
				a[i + j + len / 2] = u - v;
				w *= wl;
			}
		}
	}
}

static int
pow2_at_least(double x)
{
	int			n = 1;

	while (n < x)
		n <<= 1;
	return n;
}

/* the mass function of a sum of n discrete Laplace(b) terms on -half..half */
typedef struct sum_pmf
{
	int64_t		terms;
	int			half;
	double	   *p;				/* p[y + half] */
} sum_pmf;

#define PMF_CACHE 128
static sum_pmf cache[PMF_CACHE];
static int	cache_count = 0;
static double cache_b = 0;

static const sum_pmf *
pmf_of(double b, int64_t terms)
{
	double		q = exp(-1 / b);
	double		sd = sqrt(2 * q / ((1 - q) * (1 - q)) * (double) terms);
	int			half;
	int			m;
	double complex *a;
	sum_pmf    *s;

	if (b != cache_b)
	{
		for (int i = 0; i < cache_count; i++)
			free(cache[i].p);
		cache_count = 0;
		cache_b = b;
	}
	for (int i = 0; i < cache_count; i++)
		if (cache[i].terms == terms)
			return &cache[i];
	if (cache_count == PMF_CACHE)
	{
		fprintf(stderr, "biases: pmf cache full\n");
		exit(2);
	}

	/*
	 * Beyond 40 sd plus 40 b the tail is below 1e-17 (a sum of Laplace terms
	 * is sub-exponential with these parameters); the DFT length is twice that.
	 */
	half = (int) ceil(40 * sd + 40 * b + 8);
	m = pow2_at_least(2.0 * half + 2);
	a = malloc(sizeof(double complex) * m);
	for (int j = 0; j < m; j++)
	{
		double		v = 2 * PI * j / m;
		double		phi = (1 - q) * (1 - q) / (1 - 2 * q * cos(v) + q * q);

		a[j] = pow(phi, (double) terms);
	}
	fft(a, m, +1);
	s = &cache[cache_count++];
	s->terms = terms;
	s->half = half;
	s->p = malloc(sizeof(double) * (2 * half + 1));
	for (int y = -half; y <= half; y++)
	{
		double		v = creal(a[((y % m) + m) % m]) / m;

		s->p[y + half] = v > 0 ? v : 0;
	}
	free(a);
	return s;
}

/*
 * Brackets the half-width w with P[|S| > w] <= miss for the weighted sum of
 * the groups (one Laplace scale b): [*low, *high].
 */
static void
exact_half_width(const dp_noise_group *groups, int count, double b, int misses,
				 const double *miss, double *low, double *high)
{
	const double h = 1.0 / 64;
	double		reach = 0;
	int			n;
	double complex *lo,
			   *hi,
			   *work_lo;

	/*
	 * S is a sum of independent sub-exponential terms: beyond 12 sd plus 40
	 * of its widest term's scales its tail is far below 1e-8, so the mass
	 * the cyclic convolution folds over moves no quantile found here.
	 */
	{
		double		variance = 0;
		double		widest = 0;
		double		q = exp(-1 / b);

		for (int g = 0; g < count; g++)
		{
			variance += groups[g].weight * groups[g].weight * (double) groups[g].terms *
				2 * q / ((1 - q) * (1 - q));
			widest = fmax(widest, fabs(groups[g].weight) * b);
		}
		reach = 12 * sqrt(variance) + 40 * widest + 2;
	}
	n = pow2_at_least(2 * reach / h + 4);
	lo = malloc(sizeof(double complex) * n);
	hi = malloc(sizeof(double complex) * n);
	work_lo = malloc(sizeof(double complex) * n);
	for (int j = 0; j < n; j++)
		lo[j] = hi[j] = 1;
	for (int g = 0; g < count; g++)
	{
		const sum_pmf *s = pmf_of(b, groups[g].terms);
		double		w = fabs(groups[g].weight);

		/* both rounded mass functions in one transform: low + i high */
		memset(work_lo, 0, sizeof(double complex) * n);
		for (int y = -s->half; y <= s->half; y++)
		{
			double		x = w * y / h;
			int64_t		f = (int64_t) floor(x);
			int64_t		c = (int64_t) ceil(x);

			if (s->p[y + s->half] == 0)
				continue;
			work_lo[((f % n) + n) % n] += s->p[y + s->half];
			work_lo[((c % n) + n) % n] += I * s->p[y + s->half];
		}
		fft(work_lo, n, -1);
		for (int j = 0; j < n; j++)
		{
			double complex a = work_lo[j];
			double complex bconj = conj(work_lo[(n - j) % n]);

			lo[j] *= (a + bconj) / 2;
			hi[j] *= (a - bconj) / (2 * I);
		}
	}
	fft(lo, n, +1);
	fft(hi, n, +1);

	/*
	 * S_low <= S <= S_high, so P[S_low > x] <= P[S > x] <= P[S_high > x];
	 * S is symmetric: P[|S| > x] = 2 P[S > x].  The smallest grid x with
	 * 2 P[S_high > x] <= miss is at least the exact quantile (*high); the
	 * smallest with 2 P[S_low > x] <= miss is at most it, less one grid
	 * step (*low).
	 */
	for (int i = 0; i < misses; i++)
	{
		double		tail_lo = 0,
					tail_hi = 0;
		int			found_lo = 0,
					found_hi = 0;

		low[i] = high[i] = NAN;
		for (int m = n / 2 - 1; m >= 0; m--)
		{
			/* tails P[S > m h], accumulated from the top */
			if (!found_lo && 2 * (tail_lo + fmax(creal(lo[(m + 1) % n]) / n, 0)) > miss[i])
			{
				low[i] = m * h;
				found_lo = 1;
			}
			if (!found_hi && 2 * (tail_hi + fmax(creal(hi[(m + 1) % n]) / n, 0)) > miss[i])
			{
				high[i] = (m + 1) * h;
				found_hi = 1;
			}
			tail_lo += fmax(creal(lo[(m + 1) % n]) / n, 0);
			tail_hi += fmax(creal(hi[(m + 1) % n]) / n, 0);
			if (found_lo && found_hi)
				break;
		}
	}
	free(lo);
	free(hi);
	free(work_lo);
}

static void
honaker(int only_log, double epsilon)
{
	static const int log_horizons[] = {10, 16, 20};
	static const double misses[] = {0.05, 0.01};

	printf("## Honaker: the Chernoff bound of dp_error_bound against the exact quantile\n\n");
	printf("epsilon %g, max_per_step 1; noise only (the rounding slack of 0.5 + 2^-11 that "
		   "dp_error_bound adds is left out of both); exact: bracketed to a grid of 1/64; "
		   "ratio max is against the bracket's low end, ratio min against its high end.\n"
		   "Steps: t = 1..128, the powers of k and one less, T, and 16 spread steps.\n\n", epsilon);
	printf("| T | k | confidence | steps | ratio min | ratio max (at t: bound / exact) | ratio mean |\n");
	printf("|---|---|---|---|---|---|---|\n");
	for (int hz = 0; hz < 3; hz++)
		for (int pass = 0; pass < 2; pass++)
		{
			int64_t		horizon = (int64_t) 1 << log_horizons[hz];
			char		text[160];
			dp_mechanism m;
			dp_counter *c;
			int64_t		steps[400];
			int			step_count = 0;
			double		rmin[2] = {INFINITY, INFINITY},
						rmax[2] = {0, 0},
						rsum[2] = {0, 0},
						at_bound[2] = {0, 0},
						at_exact[2] = {0, 0};
			int64_t		at_t[2] = {0, 0};
			int64_t		k;
			double		b;
			int			few = quick ? 16 : 128;

			if (only_log > 0 && log_horizons[hz] != only_log)
				continue;
			if (pass == 0)
				snprintf(text, sizeof(text), "honaker(epsilon=%g,horizon=%lld,max_per_step=1,arity=2)",
						 epsilon, (long long) horizon);
			else
				snprintf(text, sizeof(text), "honaker(epsilon=%g,horizon=%lld,max_per_step=1)",
						 epsilon, (long long) horizon);
			m = parse(text);
			c = prepared(&m);
			k = m.block;
			b = dp_scale_as_double(&c->scale);
			for (int64_t t = 1; t <= few; t++)
				steps[step_count++] = t;
			for (int64_t p = k; p <= horizon; p *= k)
			{
				if (p > few)
					steps[step_count++] = p;
				if (p - 1 > few)
					steps[step_count++] = p - 1;
			}
			steps[step_count++] = horizon;
			for (int i = 1; i <= (quick ? 4 : 16); i++)
				steps[step_count++] = 1 + (int64_t) ((double) (horizon - 1) * i / (quick ? 5 : 17));
			for (int i = 0; i < step_count; i++)
			{
				dp_noise_group groups[DP_NOISE_GROUPS_MAX];
				int			count = dp_counter_noise_groups_at(c, steps[i], groups);
				double		low[2],
							high[2];

				exact_half_width(groups, count, b, 2, misses, low, high);
				for (int mi = 0; mi < 2; mi++)
				{
					double		bound = dp_noise_sum_half_width_missing(groups, count, misses[mi]);

					if (bound / high[mi] < rmin[mi])
						rmin[mi] = bound / high[mi];
					if (bound / low[mi] > rmax[mi])
					{
						rmax[mi] = bound / low[mi];
						at_t[mi] = steps[i];
						at_bound[mi] = bound;
						at_exact[mi] = (low[mi] + high[mi]) / 2;
					}
					rsum[mi] += (bound / low[mi] + bound / high[mi]) / 2;
				}
			}
			for (int mi = 0; mi < 2; mi++)
				printf("| 2^%d | %lld | %g | %d | %.3f | %.3f (t = %lld: %.2f / %.2f) | %.3f |\n",
					   log_horizons[hz], (long long) k, 1 - misses[mi], step_count, rmin[mi], rmax[mi],
					   (long long) at_t[mi], at_bound[mi], at_exact[mi], rsum[mi] / step_count);
			fflush(stdout);
			free(c);
		}
	printf("\n");
}

/* ---- band --------------------------------------------------------------- */

/*
 * The band at each step 1..steps: the running widest half-width at `miss`
 * (dp_error_bound_max(m, t, 1 - miss), slack included).
 */
static double *
running_band(const dp_counter *c, int64_t steps, double miss)
{
	double	   *band = malloc(sizeof(double) * (steps + 1));
	double		widest = 0;

	for (int64_t t = 1; t <= steps; t++)
	{
		dp_noise_group groups[DP_NOISE_GROUPS_MAX];
		int			count = dp_counter_noise_groups_at(c, t, groups);
		double		w = dp_noise_sum_half_width_missing(groups, count, miss);

		if (w > widest)
			widest = w;
		band[t] = widest + (c->kind->release_slack ? c->kind->release_slack(c, t) : 0);
	}
	return band;
}

static void
band(void)
{
	static const char *const mechanisms[] = {
		"binary(epsilon=1,horizon=365,max_per_step=1)",
		"binary(epsilon=1,horizon=4096,max_per_step=1)",
		"kary(epsilon=1,horizon=365,max_per_step=1)",
		"two_level(epsilon=1,horizon=365,max_per_step=1)",
		"balanced(epsilon=1,horizon=365,max_per_step=1)",
		"hybrid(epsilon=1,max_per_step=1)",
		"simple_ii(epsilon=1,max_per_step=1)",
		"expiring(epsilon=1,max_per_step=1,lambda=2)",
	};
	static const int64_t horizons[] = {365, 4096, 365, 365, 365, 365, 365, 365};
	static const double confidences[] = {0.9, 0.95};
	int			streams = quick ? 400 : 4000;
	dp_random	rng;

	dp_random_init_keyed(&rng, "bench biases band", 17);
	printf("## dp_error_bound_max: streams that leave the band at some step\n\n");
	printf("%d seeded streams per row (noise only: the error of a count does not depend "
		   "on the data); band at t: dp_error_bound_max(m, t, confidence); simultaneous: "
		   "the same at confidence 1 - (1 - confidence) / steps. 'bound' is the largest "
		   "share the sampling allows (4.89 standard errors, p = 1e-6).\n\n", streams);
	printf("| mechanism | steps | confidence | share leaving the band at some step | share of steps outside | simultaneous band at T / band at T | share leaving the simultaneous band | check |\n");
	printf("|---|---|---|---|---|---|---|---|\n");
	for (int i = 0; i < (int) (sizeof(mechanisms) / sizeof(mechanisms[0])); i++)
	{
		dp_mechanism m = parse(mechanisms[i]);
		int64_t		steps = horizons[i];
		dp_counter *c = malloc(dp_counter_size(&m));
		const char *field;

		for (int ci = 0; ci < 2; ci++)
		{
			double		miss = 1 - confidences[ci];
			dp_counter *d = prepared(&m);
			double	   *per = running_band(d, steps, miss);
			double	   *all = running_band(d, steps, miss / steps);
			int			left = 0,
						left_all = 0;
			int64_t		outside = 0;
			double		p,
						limit;

			for (int s = 0; s < streams; s++)
			{
				int			out = 0,
							out_all = 0;

				dp_counter_start(c, &m, &rng, &field);
				for (int64_t t = 1; t <= steps; t++)
				{
					double		e;

					dp_counter_push(c, 0, &rng);
					e = fabs((double) dp_counter_release(c));
					if (e > per[t])
						out = 1, outside++;
					if (e > all[t])
						out_all = 1;
				}
				left += out;
				left_all += out_all;
			}
			p = (double) left_all / streams;
			limit = miss + Z_FAIL * sqrt(miss * (1 - miss) / streams);
			printf("| %s | %lld | %g | %.3f ± %.3f | %.4f | %.2f | %.4f | %s |\n",
				   mechanisms[i], (long long) steps, confidences[ci], (double) left / streams,
				   Z_FAIL * sqrt(fmax((double) left * (streams - left), 1) / streams) / streams,
				   (double) outside / ((double) streams * steps), all[steps] / per[steps], p,
				   p <= limit ? "pass" : "FAIL");
			if (p > limit)
				failures++;
			fflush(stdout);
			free(per);
			free(all);
			free(d);
		}
		free(c);
	}
	printf("\n");
}

/* ---- consistent ---------------------------------------------------------- */

/* Poisson(mean) by inversion from a seeded uniform (small means only) */
static int64_t
poisson(dp_random *rng, double mean)
{
	double		u = (double) (dp_random_uint64(rng) >> 11) * 0x1p-53;
	double		p = exp(-mean);
	double		cdf = p;
	int64_t		k = 0;

	while (u > cdf && k < 100000)
	{
		k++;
		p *= mean / k;
		cdf += p;
	}
	return k;
}

static void
consistent(void)
{
	typedef struct setting
	{
		const char *mechanism;
		double		rate;
	} setting;
	static const setting settings[] = {
		{"binary(epsilon=1,horizon=365,max_per_step=3,consistent=true)", 0.73},
		{"binary(epsilon=0.5,horizon=365,max_per_step=3,consistent=true)", 0.73},
		{"binary(epsilon=2,horizon=365,max_per_step=3,consistent=true)", 0.73},
		{"binary(epsilon=1,horizon=365,max_per_step=20,consistent=true)", 5},
		{"binary(epsilon=1,horizon=365,max_per_step=20,consistent=true)", 15},
		{"binary(epsilon=1,horizon=365,max_per_step=3,consistent=true)", 1.5},
		{"binary(epsilon=1,horizon=365,max_per_step=20,consistent=true)", 10},
		{"hybrid(epsilon=1,max_per_step=3,consistent=true)", 0.73},
		{"two_level(epsilon=1,horizon=365,max_per_step=3,consistent=true)", 0.73},
	};
	static const int64_t at[] = {7, 30, 90, 180, 365};
#define AT_COUNT 5
	int			runs = quick ? 400 : 4000;
	dp_random	rng;
	dp_random	data;

	dp_random_init_keyed(&rng, "bench biases consistent", 23);
	dp_random_init_keyed(&data, "bench biases data", 17);
	printf("## dp_consistent: bias of the releases against t\n\n");
	printf("%d seeded runs per row; daily counts Poisson(rate), clamped to max_per_step; "
		   "bias = mean of (release - true running count), ± 4.89 standard errors; "
		   "the mechanism's own release must be unbiased (checked). RMSE in brackets.\n\n", runs);
	printf("| mechanism | rate | | t = 7 | t = 30 | t = 90 | t = 180 | t = 365 |\n");
	printf("|---|---|---|---|---|---|---|---|\n");
	for (int i = 0; i < (int) (sizeof(settings) / sizeof(settings[0])); i++)
	{
		dp_mechanism m = parse(settings[i].mechanism);
		dp_counter *c = malloc(dp_counter_size(&m));
		const char *field;
		double		truth[AT_COUNT] = {0};
		double		raw[AT_COUNT] = {0},
					raw2[AT_COUNT] = {0};
		double		con[AT_COUNT] = {0},
					con2[AT_COUNT] = {0};
		double		damp[AT_COUNT] = {0},
					damp2[AT_COUNT] = {0};
		double		adapt[AT_COUNT] = {0},
					adapt2[AT_COUNT] = {0};

		for (int r = 0; r < runs; r++)
		{
			int64_t		total = 0;
			int			next = 0;
			int64_t		damped = 0;
			double		adaptive = 0;

			dp_counter_start(c, &m, &rng, &field);
			for (int64_t t = 1; t <= 365; t++)
			{
				int64_t		x = poisson(&data, settings[i].rate);

				if (x > m.max_per_step)
					x = m.max_per_step;
				total += x;
				dp_counter_push(c, x, &rng);

				/*
				 * An alternative rule, for comparison only: move half way to
				 * the release, within [0, max_per_step].
				 */
				{
					double		step = nearbyint(((double) c->release - (double) damped) / 2);

					damped += step < 0 ? 0 : (step > m.max_per_step ? m.max_per_step : (int64_t) step);
				}

				/*
				 * Another, for comparison only: rise by at most twice the
				 * rate the release shows so far (M(t) / t, within [0, N]),
				 * kept as a real number and released rounded down.
				 */
				{
					double		rate = fmin(fmax((double) c->release / (double) t, 0), (double) m.max_per_step);
					double		gap = (double) c->release - adaptive;

					if (gap > 0)
						adaptive += fmin(gap, 2 * rate);
				}
				if (next < AT_COUNT && t == at[next])
				{
					double		e = (double) c->release - (double) total;
					double		f = (double) dp_counter_release(c) - (double) total;

					truth[next] += (double) total;
					raw[next] += e;
					raw2[next] += e * e;
					con[next] += f;
					con2[next] += f * f;
					damp[next] += (double) damped - (double) total;
					damp2[next] += ((double) damped - (double) total) * ((double) damped - (double) total);
					adapt[next] += floor(adaptive) - (double) total;
					adapt2[next] += (floor(adaptive) - (double) total) * (floor(adaptive) - (double) total);
					next++;
				}
			}
		}
		for (int pass = 0; pass < 5; pass++)
		{
			if (pass == 0)
				printf("| %s | %g | true count |", settings[i].mechanism, settings[i].rate);
			else
				printf("| | | %s |", pass == 1 ? "bias of the mechanism's release" :
					   pass == 2 ? "bias of the consistent release" :
					   pass == 3 ? "bias of a half-step rule (not shipped)" :
					   "bias of a rise of at most twice M(t)/t (not shipped)");
			for (int j = 0; j < AT_COUNT; j++)
			{
				double		sum = pass == 1 ? raw[j] : pass == 2 ? con[j] : pass == 3 ? damp[j] : adapt[j];
				double		sum2 = pass == 1 ? raw2[j] : pass == 2 ? con2[j] : pass == 3 ? damp2[j] : adapt2[j];
				double		mean = sum / runs;
				double		sd = sqrt(fmax(sum2 / runs - mean * mean, 0));
				double		tol = Z_FAIL * sd / sqrt(runs);

				if (pass == 0)
					printf(" %.1f |", truth[j] / runs);
				else
					printf(" %+.1f ± %.1f (%.1f) |", mean, tol, sqrt(sum2 / runs));
				if (pass == 1 && fabs(mean) > tol)
					failures++;
			}
			printf("\n");
		}
		fflush(stdout);
		free(c);
	}
	printf("\n");
}

int
main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "all";

	quick = argc > 2 && strcmp(argv[2], "quick") == 0;
	/* the exact brackets at 2^20 take minutes: one horizon per process */
	if (!dp_random_library_init())
	{
		fprintf(stderr, "biases: libsodium did not initialise\n");
		return 2;
	}
	if (strcmp(what, "expiring") == 0 || strcmp(what, "all") == 0)
		expiring();
	if (strcmp(what, "honaker") == 0 || strcmp(what, "all") == 0)
		honaker(argc > 3 ? atoi(argv[3]) : 0, argc > 4 ? atof(argv[4]) : 1.0);
	if (strcmp(what, "band") == 0 || strcmp(what, "all") == 0)
		band();
	if (strcmp(what, "consistent") == 0 || strcmp(what, "all") == 0)
		consistent();
	printf("biases: %d failed checks\n", failures);
	return failures == 0 ? 0 : 1;
}

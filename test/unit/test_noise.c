/*
 * test_noise.c
 *		The exact samplers against their exact distributions.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dp_noise.h"
#include "dp_noise_sum.h"
#include "dp_random.h"
#include "tap.h"

#define DRAWS 1000000

static dp_random rng;

static void
seed(const char *text)
{
	dp_random_init_keyed(&rng, text, strlen(text));
}

/* pmf of the discrete Laplace: (1-q)/(1+q) q^|z| */
static double
pmf(double b, long z)
{
	double		q = exp(-1.0 / b);

	return (1 - q) / (1 + q) * pow(q, labs(z));
}

/* Chi-squared goodness of fit over [-K, K] plus the two tails pooled. */
static void
check_histogram(const char *label, dp_scale scale)
{
	double		b = dp_scale_as_double(&scale);
	long		K = (long) ceil(b * log(DRAWS / 5.0 * (1 - exp(-1 / b)) / (1 + exp(-1 / b)) + 1));
	static long counts[4096];
	long		tail = 0;
	double		chi = 0, expected_inside = 0;
	double		sum = 0, sum_sq = 0;
	double		variance = dp_discrete_laplace_variance(&scale);
	double		fourth = 0;
	int			df;

	if (K < 1)
		K = 1;
	if (K > 2000)
		K = 2000;
	memset(counts, 0, sizeof(counts));
	for (int i = 0; i < DRAWS; i++)
	{
		long		z = (long) dp_discrete_laplace(&rng, &scale);

		sum += z;
		sum_sq += (double) z * z;
		if (labs(z) <= K)
			counts[z + K]++;
		else
			tail++;
	}
	for (long z = -K; z <= K; z++)
	{
		double		e = DRAWS * pmf(b, z);

		expected_inside += e;
		chi += (counts[z + K] - e) * (counts[z + K] - e) / e;
	}
	{
		double		e = DRAWS - expected_inside;

		if (e > 1e-9)
			chi += (tail - e) * (tail - e) / e;
	}
	df = (int) (2 * K + 1);		/* 2K + 2 cells, minus one constraint */
	tap_ok(chi < chi_squared_critical_1e6(df),
		   "%s: chi-squared %.1f < %.1f (df %d) over %d draws", label, chi,
		   chi_squared_critical_1e6(df), df, DRAWS);

	/* exact fourth moment by summation, for the band of the variance */
	for (long z = 1; z < 100000; z++)
	{
		double		term = 2 * pmf(b, z) * pow((double) z, 4);

		fourth += term;
		if (term < 1e-30 && z > 10)
			break;
	}
	{
		double		mean = sum / DRAWS;
		double		mean_band = Z_TWO_SIDED_1E6 * sqrt(variance / DRAWS);
		double		second = sum_sq / DRAWS;
		double		second_band = Z_TWO_SIDED_1E6 * sqrt((fourth - variance * variance) / DRAWS);

		tap_ok(fabs(mean) <= mean_band, "%s: mean %.4f within +-%.4f", label, mean, mean_band);
		tap_ok(fabs(second - variance) <= second_band,
			   "%s: variance %.4f vs exact %.4f, band +-%.4f", label, second, variance,
			   second_band);
	}
}

static void
test_scale(void)
{
	dp_scale	scale;

	tap_ok(dp_scale_for(11, 1.0, &scale) == DP_SCALE_OK &&
		   scale.numerator == 11 && scale.denominator == 1,
		   "scale for sensitivity 11, epsilon 1 is exactly 11/1");
	tap_ok(dp_scale_for(1, 0.5, &scale) == DP_SCALE_OK &&
		   scale.numerator == 2 && scale.denominator == 1,
		   "scale for sensitivity 1, epsilon 0.5 is exactly 2/1");
	{
		dp_scale_status status = dp_scale_for(3, 0.1, &scale);
		double		b = dp_scale_as_double(&scale);

		tap_ok(status == DP_SCALE_OK && b >= 30.0 && b <= 30.0 * (1 + 0x1p-21),
			   "scale for epsilon 0.1 is rounded up, by less than 2^-21 (%.17g)", b);
	}
	tap_ok(dp_scale_for(1000000000, 0x1p-40, &scale) == DP_SCALE_OK &&
		   fabs(dp_scale_as_double(&scale) / (1e9 * 0x1p40) - 1) < 1e-12,
		   "epsilon 2^-40 with sensitivity 1e9 gives scale 1e9 * 2^40");
	tap_ok(dp_scale_for(DP_SENSITIVITY_MAX, DP_EPSILON_MIN, &scale) == DP_SCALE_OK &&
		   dp_scale_as_double(&scale) >= ldexp(1.0, 96),
		   "largest sensitivity with smallest epsilon is representable");
	tap_ok(dp_scale_for(1, 0.0, &scale) == DP_SCALE_BAD_EPSILON &&
		   dp_scale_for(1, -1.0, &scale) == DP_SCALE_BAD_EPSILON &&
		   dp_scale_for(1, NAN, &scale) == DP_SCALE_BAD_EPSILON &&
		   dp_scale_for(1, INFINITY, &scale) == DP_SCALE_BAD_EPSILON &&
		   dp_scale_for(1, 101.0, &scale) == DP_SCALE_BAD_EPSILON &&
		   dp_scale_for(1, 0x1p-41, &scale) == DP_SCALE_BAD_EPSILON,
		   "epsilon that is 0, negative, NaN, infinite, too large or too small is refused");
	tap_ok(dp_scale_for(0, 1.0, &scale) == DP_SCALE_BAD_SENSITIVITY &&
		   dp_scale_for(DP_SENSITIVITY_MAX + 1, 1.0, &scale) == DP_SCALE_BAD_SENSITIVITY,
		   "sensitivity 0 or above the limit is refused");
}

static void
test_bernoulli(void)
{
	struct
	{
		unsigned	num;
		unsigned	den;
	}			cases[] = {{0, 1}, {1, 3}, {1, 1}, {7, 8}};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
	{
		double		p = exp(-(double) cases[c].num / cases[c].den);
		long		hits = 0;
		double		band = Z_TWO_SIDED_1E6 * sqrt(p * (1 - p) / DRAWS);

		for (int i = 0; i < DRAWS; i++)
			hits += dp_bernoulli_exp_minus(&rng, cases[c].num, cases[c].den);
		tap_ok(fabs((double) hits / DRAWS - p) <= band + 1e-12,
			   "Bernoulli(exp(-%u/%u)): frequency %.5f vs %.5f, band +-%.5f",
			   cases[c].num, cases[c].den, (double) hits / DRAWS, p, band);
	}
}

static void
test_extremes(void)
{
	dp_scale	scale;
	int			nonzero = 0;
	int			positive = 0, negative = 0, within = 1;
	double		b;

	dp_scale_for(1, 50.0, &scale);
	for (int i = 0; i < 100000; i++)
		nonzero += dp_discrete_laplace(&rng, &scale) != 0;
	/* P[Z != 0] = 2q/(1+q) with q = exp(-50): about 4e-22 per draw */
	tap_ok(nonzero == 0, "epsilon 50, sensitivity 1: 100000 draws, all zero, no hang");

	dp_scale_for(1000000000, 0x1p-40, &scale);
	b = dp_scale_as_double(&scale);
	for (int i = 0; i < 10000; i++)
	{
		dp_int128	z = dp_discrete_laplace(&rng, &scale);

		positive += z > 0;
		negative += z < 0;
		/* P[|Z| > 60 b] = exp(-60) per draw */
		if ((double) z > 60 * b || (double) z < -60 * b)
			within = 0;
	}
	tap_ok(within && positive > 4500 && negative > 4500,
		   "epsilon 2^-40, sensitivity 1e9: 10000 draws of scale %.3g, both signs, "
		   "no overflow", b);

	dp_scale_for(DP_SENSITIVITY_MAX, DP_EPSILON_MIN, &scale);
	within = 1;
	for (int i = 0; i < 1000; i++)
	{
		dp_int128	z = dp_discrete_laplace(&rng, &scale);

		if ((double) z > 60 * dp_scale_as_double(&scale) ||
			(double) z < -60 * dp_scale_as_double(&scale))
			within = 0;
	}
	tap_ok(within, "largest scale (%.3g): 1000 draws inside 128 bits",
		   dp_scale_as_double(&scale));
}

/* P[S >= w] by brute-force convolution, for small scales and term counts */
static void
test_sum_tail(void)
{
	enum
	{
		RANGE = 4000
	};
	static double current[2 * RANGE + 1], next[2 * RANGE + 1];
	dp_scale	scale = {.numerator = 5, .denominator = 2};	/* b = 2.5 */
	double		b = 2.5;
	double		worst = 0;

	memset(current, 0, sizeof(current));
	current[RANGE] = 1.0;
	for (int k = 1; k <= 8; k++)
	{
		memset(next, 0, sizeof(next));
		for (int x = -RANGE; x <= RANGE; x++)
		{
			if (current[x + RANGE] == 0)
				continue;
			for (int z = -300; z <= 300; z++)
				if (x + z >= -RANGE && x + z <= RANGE)
					next[x + z + RANGE] += current[x + RANGE] * pmf(b, z);
		}
		memcpy(current, next, sizeof(current));
		for (int w = 1; w <= 60; w += 3)
		{
			double		brute = 0;
			double		formula = dp_discrete_laplace_sum_upper_tail(&scale, k, w);

			for (int x = w; x <= RANGE; x++)
				brute += current[x + RANGE];
			if (fabs(formula - brute) / brute > worst)
				worst = fabs(formula - brute) / brute;
		}
	}
	tap_ok(worst < 1e-9, "closed-form tail of a sum of 1..8 terms matches convolution "
		   "(worst relative difference %.2g)", worst);

	{
		double		w = dp_discrete_laplace_sum_half_width(&scale, 3, 0.95);
		double		above = 2 * dp_discrete_laplace_sum_upper_tail(&scale, 3, w + 1);
		double		below = 2 * dp_discrete_laplace_sum_upper_tail(&scale, 3, w);

		tap_ok(above <= 0.05 && below > 0.05,
			   "half-width %.0f is the smallest w with P[|S| > w] <= 0.05 (%.4f, %.4f)",
			   w, above, below);
	}
	{
		dp_scale	huge;
		double		w;

		dp_scale_for(DP_SENSITIVITY_MAX, DP_EPSILON_MIN, &huge);
		w = dp_discrete_laplace_sum_half_width(&huge, 63, 0.99);
		tap_ok(isfinite(w) && w > dp_scale_as_double(&huge),
			   "half-width at the largest scale and 63 terms is finite (%.3g)", w);
	}
	tap_ok(dp_discrete_laplace_sum_half_width(&scale, 0, 0.95) == 0.0,
		   "no noise terms: half-width 0");
}

static void
test_real(void)
{
	double		sum = 0, sum_sq = 0;
	double		sensitivity = 3.0, epsilon = 0.5, value = 12.345;
	double		g = dp_real_laplace_granularity(sensitivity, epsilon);
	double		units_scale = (ceil(sensitivity / g) + 1) / epsilon;
	double		q = exp(-1 / units_scale);
	double		variance = 2 * q / ((1 - q) * (1 - q)) * g * g;
	double		center = nearbyint(value / g) * g;
	double		noisy;
	int			refused;
	int			n = 200000;

	for (int i = 0; i < n; i++)
	{
		dp_real_laplace(&rng, value, sensitivity, epsilon, &noisy);
		sum += noisy - center;
		sum_sq += (noisy - center) * (noisy - center);
	}
	/* Laplace: Var of the squared deviation is 5 sigma^4 */
	tap_ok(fabs(sum / n) <= Z_TWO_SIDED_1E6 * sqrt(variance / n),
		   "real-valued noise is centred on the rounded value");
	tap_ok(fabs(sum_sq / n - variance) <= Z_TWO_SIDED_1E6 * sqrt(5.0 / n) * variance,
		   "real-valued noise variance %.4f vs %.4f (sensitivity charged for rounding)",
		   sum_sq / n, variance);
	/* scale 6 lies in [2^2, 2^3): granularity 2^(3 - 40) */
	tap_ok(g == ldexp(1.0, -37), "granularity for scale 6 is 2^-37");
	refused = dp_real_laplace(&rng, NAN, 1, 1, &noisy) != 0 &&
		dp_real_laplace(&rng, INFINITY, 1, 1, &noisy) != 0 &&
		dp_real_laplace(&rng, 1, 1, 0, &noisy) != 0 &&
		dp_real_laplace(&rng, 1, -1, 1, &noisy) != 0;
	tap_ok(refused, "real-valued noise refuses NaN, infinity, epsilon 0, negative sensitivity");
}

static void
test_keyed_streams(void)
{
	dp_random	a, b, c;
	uint64_t	x, y, z;

	dp_random_init_keyed(&a, "seed", 4);
	dp_random_init_keyed(&b, "seed", 4);
	dp_random_init_keyed(&c, "seee", 4);
	x = dp_random_uint64(&a);
	y = dp_random_uint64(&b);
	z = dp_random_uint64(&c);
	tap_ok(x == y && x != z, "keyed streams are reproducible and depend on the key");

	dp_random_init_secure(&a);
	dp_random_init_secure(&b);
	tap_ok(dp_random_uint64(&a) != dp_random_uint64(&b),
		   "two secure streams differ");
	dp_random_wipe(&a);
	tap_ok(a.keyed == false && a.key[0] == 0 && a.key[31] == 0, "wipe erases the key");

	{
		long		counts[7] = {0};
		double		chi = 0;

		for (int i = 0; i < 700000; i++)
			counts[dp_random_below(&c, 7)]++;
		for (int i = 0; i < 7; i++)
			chi += (counts[i] - 100000.0) * (counts[i] - 100000.0) / 100000.0;
		/* chi-squared(6) upper quantile at 1e-6 is 35.9 (tables) */
		tap_ok(chi < 35.9, "uniform below 7 is uniform (chi-squared %.2f < 35.9)", chi);
	}
}

/*
 * Sums of three or more discrete Laplace scales: the half-width against
 * the exact quantile, computed here on its own (long double, cut where
 * the mass left is below 1e-30, the mass function summed directly).  The
 * answer must be the least w with P[|S| > w] <= miss, or one above it when
 * the exact tail is within a millionth of miss, and never below it.
 */
static void
test_many_scales(void)
{
	static const struct
	{
		int			count;
		long		numerators[4];
		long		denominators[4];
		int64_t		terms[4];
	}			cases[] = {
		{3, {1, 1, 2}, {1, 2, 1}, {2, 1, 3}},
		{3, {1, 1, 1}, {1, 2, 3}, {2, 2, 2}},
		{4, {5, 3, 1, 1}, {1, 1, 1, 4}, {1, 2, 3, 4}},
		{3, {20, 1, 1}, {1, 5, 7}, {3, 1, 1}},
	};
	static const double misses[] = {0.05, 0.01, 1e-6};
	int			wrong = 0,
				tight = 0,
				checked = 0;

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
	{
		dp_noise_group groups[4];
		long		width = 0;
		long double *mass,
				   *next;

		for (int g = 0; g < cases[c].count; g++)
		{
			memset(&groups[g], 0, sizeof(groups[g]));
			groups[g].scale = (dp_scale) {.numerator = (dp_uint128) cases[c].numerators[g],
			.denominator = (uint64_t) cases[c].denominators[g]};
			groups[g].terms = cases[c].terms[g];
			groups[g].weight = 1.0;
			width += (long) (cases[c].terms[g] * ceil(75.0 * cases[c].numerators[g] / cases[c].denominators[g]));
		}
		mass = calloc((size_t) (2 * width + 1), sizeof(long double));
		next = calloc((size_t) (2 * width + 1), sizeof(long double));
		mass[width] = 1;
		for (int g = 0; g < cases[c].count; g++)
		{
			long double q = expl(-(long double) cases[c].denominators[g] / cases[c].numerators[g]);
			long		cut = (long) ceil(75.0 * cases[c].numerators[g] / cases[c].denominators[g]);

			for (int64_t t = 0; t < cases[c].terms[g]; t++)
			{
				for (long v = 0; v <= 2 * width; v++)
					next[v] = 0;
				for (long v = 0; v <= 2 * width; v++)
					for (long z = -cut; z <= cut; z++)
						if (mass[v] != 0 && v + z >= 0 && v + z <= 2 * width)
							next[v + z] += mass[v] * (1 - q) / (1 + q) * powl(q, labs(z));
				memcpy(mass, next, sizeof(long double) * (size_t) (2 * width + 1));
			}
		}
		for (size_t m = 0; m < sizeof(misses) / sizeof(misses[0]); m++)
		{
			double		w = dp_noise_sum_half_width_missing(groups, cases[c].count, misses[m]);
			long double tail_at_w = 0,
						tail_below = 0;

			for (long v = 0; v <= 2 * width; v++)
			{
				if (labs(v - width) > (long) w)
					tail_at_w += mass[v];
				if (labs(v - width) > (long) w - 1)
					tail_below += mass[v];
			}
			checked++;
			/* valid: P[|S| > w] <= miss; least: P[|S| > w - 1] > miss (or within 1e-6 of it) */
			if (!(w >= 0 && w == floor(w)) || tail_at_w > misses[m] ||
				(w >= 1 && tail_below <= misses[m] * (1 - 1e-6)))
			{
				tap_diag("case %zu, miss %g: w = %g, P[|S| > w] = %Lg, P[|S| > w - 1] = %Lg",
						 c, misses[m], w, tail_at_w, tail_below);
				wrong++;
			}
			else if (w == 0 || tail_below > misses[m])
				tight++;
		}
		free(mass);
		free(next);
	}
	tap_ok(wrong == 0, "sums of 3 and 4 discrete Laplace scales: the half-width is the exact "
		   "quantile (%d of %d exactly the least valid integer, %d wrong)", tight, checked, wrong);
	{
		dp_noise_group big[3];

		for (int g = 0; g < 3; g++)
		{
			memset(&big[g], 0, sizeof(big[g]));
			big[g].scale = (dp_scale) {.numerator = (dp_uint128) 1000000 * (g + 1), .denominator = 1};
			big[g].terms = 2;
			big[g].weight = 1.0;
		}
		tap_ok(dp_noise_sum_half_width_missing(big, 3, 0.05) >
			   1.96 * sqrt(dp_noise_sum_variance(big, 3)),
			   "large scales fall back to the provable Chernoff bound (%.0f)",
			   dp_noise_sum_half_width_missing(big, 3, 0.05));
	}
}

int
main(void)
{
	dp_scale	scale;

	if (!dp_random_library_init())
	{
		printf("Bail out! libsodium failed to initialise\n");
		return 1;
	}
	seed("dp_stream unit test: noise");

	test_scale();
	test_keyed_streams();
	test_many_scales();
	test_bernoulli();

	scale = (dp_scale) {.numerator = 3, .denominator = 1};
	check_histogram("discrete Laplace b = 3", scale);
	scale = (dp_scale) {.numerator = 7, .denominator = 3};
	check_histogram("discrete Laplace b = 7/3", scale);
	scale = (dp_scale) {.numerator = 1, .denominator = 2};
	check_histogram("discrete Laplace b = 1/2", scale);
	dp_scale_for(11, 0.3, &scale);
	check_histogram("discrete Laplace b = 11/0.3 (epsilon rounded)", scale);

	test_extremes();
	test_sum_tail();
	test_real();
	return tap_done();
}

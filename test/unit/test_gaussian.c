/*
 * test_gaussian.c
 *		The exact discrete Gaussian sampler against its exact distribution, its
 *		scale and variance, the zCDP conversion, and the Chernoff tail bounds of
 *		weighted sums of Laplace and Gaussian noise.
 *
 * Every statistical check has a threshold derived for a false-failure
 * probability of 1e-6 (stated at each check); seeds are fixed, so a run is
 * reproducible.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "dp_gaussian.h"
#include "dp_laplace_table.h"
#include "dp_noise.h"
#include "dp_noise_sum.h"
#include "dp_random.h"
#include "tap.h"
#include "test_support.h"

#define DRAWS 1000000

static dp_random rng;

static void
seed(const char *text)
{
	dp_random_init_keyed(&rng, text, strlen(text));
}

static double
sigma2_of(const dp_scale *scale)
{
	return (double) scale->numerator / (double) scale->denominator;
}

/*
 * Q(a, x) = Gamma(a, x) / Gamma(a), the upper regularized incomplete gamma
 * function: the power series of P = 1 - Q below x = a + 1, the continued
 * fraction of Q (modified Lentz) above.  The chi-squared upper tail with df
 * degrees of freedom at x is Q(df / 2, x / 2).
 */
static double
regularized_gamma_q(double a, double x)
{
	double		log_prefactor;

	if (x <= 0)
		return 1.0;
	log_prefactor = -x + a * log(x) - lgamma(a);
	if (x < a + 1)
	{
		double		term = 1.0 / a;
		double		series = term;

		for (int n = 1; n < 100000; n++)
		{
			term *= x / (a + n);
			series += term;
			if (term < series * 1e-17)
				break;
		}
		return 1.0 - series * exp(log_prefactor);
	}
	else
	{
		const double tiny = 1e-300;
		double		b = x + 1 - a;
		double		c = 1.0 / tiny;
		double		d = 1.0 / b;
		double		h = d;

		for (int i = 1; i < 100000; i++)
		{
			double		an = -i * (i - a);
			double		delta;

			b += 2;
			d = an * d + b;
			if (fabs(d) < tiny)
				d = tiny;
			c = b + an / c;
			if (fabs(c) < tiny)
				c = tiny;
			d = 1.0 / d;
			delta = d * c;
			h *= delta;
			if (fabs(delta - 1) < 1e-16)
				break;
		}
		return exp(log_prefactor) * h;
	}
}

/* x with P[chi-squared(df) > x] = p, by bisection on the exact tail */
static double
chi_squared_critical(int df, double p)
{
	double		low = 0;
	double		high = df + 100.0 * sqrt(2.0 * df) + 200.0;

	for (int i = 0; i < 200; i++)
	{
		double		middle = (low + high) / 2;

		if (regularized_gamma_q(df / 2.0, middle / 2.0) > p)
			low = middle;
		else
			high = middle;
	}
	return high;
}

/*
 * Exact pmf of N_Z(0, s2) on [-R, R], R = 60 sigma + 10 (the mass beyond is
 * below e^-1800), normalised by summation; moments by summation too.
 */
typedef struct gaussian_table
{
	long		radius;
	double	   *pmf;			/* pmf[z + radius] */
	double		variance;
	double		fourth;
} gaussian_table;

static void
gaussian_table_init(gaussian_table *table, double s2)
{
	double		total = 0;

	table->radius = (long) ceil(60 * sqrt(s2)) + 10;
	table->pmf = malloc(sizeof(double) * (2 * table->radius + 1));
	for (long z = -table->radius; z <= table->radius; z++)
	{
		table->pmf[z + table->radius] = exp(-(double) z * z / (2 * s2));
		total += table->pmf[z + table->radius];
	}
	table->variance = 0;
	table->fourth = 0;
	for (long z = -table->radius; z <= table->radius; z++)
	{
		double		p = table->pmf[z + table->radius] /= total;

		table->variance += p * z * z;
		table->fourth += p * (double) z * z * z * z;
	}
}

/*
 * Chi-squared goodness of fit over the cells -K..K, the two end cells
 * holding the tails (z <= -K, z >= K), K the largest value whose own
 * expected count is at least 5.  Critical value: the exact chi-squared
 * quantile at 1e-6 for 2K degrees of freedom.  Then the mean (known 0) and
 * the second moment against the exact variance, bands z_{1e-6} times the
 * standard errors sqrt(Var / N) and sqrt((mu4 - Var^2) / N) (CLT).
 */
/* How check_histogram draws: the library's draw, or one of the tests' own. */
static dp_int128 (*draw_under_test) (dp_random *rng, const dp_scale *sigma2) = dp_discrete_gaussian;

static void
check_histogram(const char *label, dp_scale scale)
{
	double		s2 = sigma2_of(&scale);
	gaussian_table table;
	long	   *counts;
	long		K = 0;
	double		chi = 0;
	double		sum = 0;
	double		sum_sq = 0;
	double		variance = dp_discrete_gaussian_variance(&scale);
	double		critical;
	int			df;

	gaussian_table_init(&table, s2);
	while (K < table.radius && DRAWS * table.pmf[K + 1 + table.radius] >= 5)
		K++;
	counts = calloc(2 * K + 1, sizeof(long));
	for (int i = 0; i < DRAWS; i++)
	{
		long		z = (long) draw_under_test(&rng, &scale);

		sum += z;
		sum_sq += (double) z * z;
		if (z > K)
			z = K;
		if (z < -K)
			z = -K;
		counts[z + K]++;
	}
	for (long z = -K; z <= K; z++)
	{
		double		p = table.pmf[z + table.radius];
		double		e;

		if (z == K || z == -K)
		{
			p = 0;
			for (long y = K; y <= table.radius; y++)
				p += table.pmf[y + table.radius];
		}
		e = DRAWS * p;
		chi += (counts[z + K] - e) * (counts[z + K] - e) / e;
	}
	df = (int) (2 * K);			/* 2K + 1 cells, minus one constraint */
	critical = chi_squared_critical(df, 1e-6);
	tap_ok(chi < critical, "%s: chi-squared %.1f < %.1f (df %d, exact 1e-6 quantile), %d draws",
		   label, chi, critical, df, DRAWS);

	tap_ok(fabs(variance - table.variance) <= 1e-12 * table.variance,
		   "%s: dp_discrete_gaussian_variance %.15g equals the summed variance %.15g",
		   label, variance, table.variance);
	{
		double		mean = sum / DRAWS;
		double		mean_band = Z_TWO_SIDED_1E6 * sqrt(variance / DRAWS);
		double		second = sum_sq / DRAWS;
		double		second_band = Z_TWO_SIDED_1E6 *
			sqrt((table.fourth - variance * variance) / DRAWS);

		tap_ok(fabs(mean) <= mean_band, "%s: mean %.5f within +-%.5f", label, mean, mean_band);
		tap_ok(fabs(second - variance) <= second_band,
			   "%s: second moment %.5f vs exact variance %.5f (sigma^2 %.5g), band +-%.5f",
			   label, second, variance, s2, second_band);
	}
	free(counts);
	free(table.pmf);
}

static void
test_scale(void)
{
	dp_scale	scale;

	tap_ok(dp_gaussian_scale_for(1, 0.5, &scale) == DP_SCALE_OK &&
		   scale.numerator == 1 && scale.denominator == 1,
		   "sigma^2 for D^2 = 1, rho = 1/2 is exactly 1/1");
	tap_ok(dp_gaussian_scale_for(9, 2.0, &scale) == DP_SCALE_OK &&
		   sigma2_of(&scale) == 2.25,
		   "sigma^2 for D^2 = 9, rho = 2 is exactly 9/4");

	/* rounding direction and size over a range of rho and D^2 */
	{
		double		rhos[] = {0x1p-40, 1e-9, 1e-3, 0.1, 1.0 / 3, 0.7, 1.0, 2.5, 17.3, 99.99, 100.0};
		uint64_t	squares[] = {1, 2, 7, 1000003, ((uint64_t) 1) << 40, DP_GAUSSIAN_SENSITIVITY_SQUARED_MAX};
		int			never_below = 1;
		int			valid = 1;
		double		worst = 0;

		for (size_t i = 0; i < sizeof(rhos) / sizeof(rhos[0]); i++)
			for (size_t j = 0; j < sizeof(squares) / sizeof(squares[0]); j++)
			{
				/* long double: nominal sigma^2 with 64-bit precision where available */
				long double nominal = (long double) squares[j] / (2.0L * rhos[i]);
				long double actual;

				if (dp_gaussian_scale_for(squares[j], rhos[i], &scale) != DP_SCALE_OK)
				{
					valid = 0;
					continue;
				}
				valid &= dp_gaussian_scale_valid(&scale);
				actual = (long double) scale.numerator / (long double) scale.denominator;
				if (actual < nominal * (1 - 1e-15L))
					never_below = 0;
				if ((double) (actual / nominal - 1) > worst)
					worst = (double) (actual / nominal - 1);
			}
		tap_ok(valid && never_below && worst < 0x1p-20,
			   "sigma^2 never below nominal, relative excess below 2^-20 (worst %.3g), "
			   "all valid for the sampler", worst);
	}
	tap_ok(dp_gaussian_scale_for(DP_GAUSSIAN_SENSITIVITY_SQUARED_MAX, DP_RHO_MIN, &scale) == DP_SCALE_OK &&
		   sigma2_of(&scale) == 0x1p95 && dp_gaussian_scale_valid(&scale),
		   "largest D^2 with smallest rho gives sigma^2 = 2^95 exactly");
	tap_ok(dp_gaussian_scale_for(1, 0.0, &scale) == DP_SCALE_BAD_EPSILON &&
		   dp_gaussian_scale_for(1, -1.0, &scale) == DP_SCALE_BAD_EPSILON &&
		   dp_gaussian_scale_for(1, NAN, &scale) == DP_SCALE_BAD_EPSILON &&
		   dp_gaussian_scale_for(1, INFINITY, &scale) == DP_SCALE_BAD_EPSILON &&
		   dp_gaussian_scale_for(1, 100.5, &scale) == DP_SCALE_BAD_EPSILON &&
		   dp_gaussian_scale_for(1, 0x1p-41, &scale) == DP_SCALE_BAD_EPSILON,
		   "rho that is 0, negative, NaN, infinite, too large or too small is refused");
	tap_ok(dp_gaussian_scale_for(0, 1.0, &scale) == DP_SCALE_BAD_SENSITIVITY &&
		   dp_gaussian_scale_for(DP_GAUSSIAN_SENSITIVITY_SQUARED_MAX + 1, 1.0, &scale) ==
		   DP_SCALE_BAD_SENSITIVITY,
		   "squared sensitivity 0 or above 2^56 is refused");
	{
		dp_scale	zero = {.numerator = 0, .denominator = 1};
		dp_scale	wide = {.numerator = 1, .denominator = DP_GAUSSIAN_DENOMINATOR_MAX + 1};
		dp_scale	huge = {.numerator = ((dp_uint128) 1) << 97, .denominator = 1};

		tap_ok(dp_discrete_gaussian(&rng, &zero) == DP_GAUSSIAN_INVALID_DRAW &&
			   dp_discrete_gaussian(&rng, &wide) == DP_GAUSSIAN_INVALID_DRAW &&
			   dp_discrete_gaussian(&rng, &huge) == DP_GAUSSIAN_INVALID_DRAW,
			   "scales outside the proven 128-bit ranges give the invalid draw, not noise");
	}
}

/* E exp(sZ) <= exp(s^2 sigma^2 / 2), by exact summation (a deterministic check) */
static void
test_sub_gaussian(void)
{
	double		s2s[] = {0.05, 0.25, 1, 2.5, 37.0 / 3};
	double		ss[] = {0.01, 0.3, 1, 2, 4};
	double		worst = -INFINITY;

	for (size_t i = 0; i < sizeof(s2s) / sizeof(s2s[0]); i++)
	{
		gaussian_table table;

		gaussian_table_init(&table, s2s[i]);
		for (size_t j = 0; j < sizeof(ss) / sizeof(ss[0]); j++)
		{
			double		mgf = 0;

			for (long z = -table.radius; z <= table.radius; z++)
				mgf += table.pmf[z + table.radius] * exp(ss[j] * z);
			if (log(mgf) - ss[j] * ss[j] * s2s[i] / 2 > worst)
				worst = log(mgf) - ss[j] * ss[j] * s2s[i] / 2;
		}
		free(table.pmf);
	}
	tap_ok(worst <= 1e-12, "discrete Gaussian MGF never above exp(s^2 sigma^2 / 2) "
		   "(largest log ratio %.3g)", worst);
}

static void
test_extremes(void)
{
	dp_scale	scale;
	int			nonzero = 0;
	int			positive = 0;
	int			negative = 0;
	int			within = 1;
	double		sigma;

	/* sigma^2 = 1/200: P[Z != 0] = 2 e^-100 / (1 + ...) per draw */
	dp_gaussian_scale_for(1, 100.0, &scale);
	for (int i = 0; i < 100000; i++)
		nonzero += dp_discrete_gaussian(&rng, &scale) != 0;
	tap_ok(nonzero == 0, "rho 100, D^2 1 (sigma^2 %.4g): 100000 draws, all zero, no hang",
		   sigma2_of(&scale));

	/* the largest sigma^2: P[|Z| > 60 sigma] = e^-1800 per draw */
	dp_gaussian_scale_for(DP_GAUSSIAN_SENSITIVITY_SQUARED_MAX, DP_RHO_MIN, &scale);
	sigma = sqrt(sigma2_of(&scale));
	for (int i = 0; i < 10000; i++)
	{
		dp_int128	z = dp_discrete_gaussian(&rng, &scale);

		positive += z > 0;
		negative += z < 0;
		if ((double) z > 60 * sigma || (double) z < -60 * sigma)
			within = 0;
	}
	/* positives ~ Binomial(10000, 1/2): 4500 is 10 standard deviations out */
	tap_ok(within && positive > 4500 && negative > 4500,
		   "largest sigma^2 (2^95): 10000 draws within 60 sigma, both signs");

	/* the largest valid scale, beyond what scale_for produces */
	{
		dp_scale	edge = {.numerator = (((dp_uint128) 1) << 120) - 1,
		.denominator = DP_GAUSSIAN_DENOMINATOR_MAX};
		double		sum_sq = 0;

		within = 1;
		sigma = sqrt(sigma2_of(&edge));
		for (int i = 0; i < 2000; i++)
		{
			dp_int128	z = dp_discrete_gaussian(&rng, &edge);

			sum_sq += (double) z * (double) z;
			if ((double) z > 60 * sigma || (double) z < -60 * sigma)
				within = 0;
		}
		/*
		 * mean of Z^2 / sigma^2 over 2000 draws: mean 1, standard deviation
		 * sqrt(2 / 2000) = 0.032; +-0.16 is five of them (two-sided 6e-7)
		 */
		tap_ok(dp_gaussian_scale_valid(&edge) && within &&
			   fabs(sum_sq / 2000 / sigma2_of(&edge) - 1) < 0.16,
			   "edge scale (2^120 - 1) / 2^24: 2000 draws inside 60 sigma, "
			   "second moment / sigma^2 = %.3f", sum_sq / 2000 / sigma2_of(&edge));
	}
}

static double
seconds_now(void)
{
	return (double) clock() / CLOCKS_PER_SEC;
}

static void
test_speed(void)
{
	dp_scale	one = {.numerator = 1, .denominator = 1};
	dp_scale	million = {.numerator = 1000000, .denominator = 1};
	dp_scale	largest;
	double		start;
	double		elapsed;
	long		sink = 0;
	int			n = 300000;

	dp_gaussian_scale_for(DP_GAUSSIAN_SENSITIVITY_SQUARED_MAX, DP_RHO_MIN, &largest);
	start = seconds_now();
	for (int i = 0; i < n; i++)
		sink += (long) dp_discrete_gaussian(&rng, &one);
	elapsed = seconds_now() - start;
	tap_diag("speed: sigma^2 = 1: %.0f draws/s (sink %ld)", n / elapsed, sink);
	start = seconds_now();
	for (int i = 0; i < n; i++)
		sink += (long) dp_discrete_gaussian(&rng, &million);
	elapsed = seconds_now() - start;
	tap_diag("speed: sigma^2 = 1e6: %.0f draws/s (sink %ld)", n / elapsed, sink);
	start = seconds_now();
	for (int i = 0; i < n / 10; i++)
		sink += (long) (dp_discrete_gaussian(&rng, &largest) >> 80);
	elapsed = seconds_now() - start;
	tap_diag("speed: sigma^2 = 2^95: %.0f draws/s (sink %ld)", n / 10 / elapsed, sink);
	start = seconds_now();
	for (int i = 0; i < n; i++)
		sink += (long) dp_discrete_laplace(&rng, &one);
	elapsed = seconds_now() - start;
	tap_diag("speed: discrete Laplace b = 1, for comparison: %.0f draws/s (sink %ld)",
			 n / elapsed, sink);
}

/* brute force: the CKS conversion minimised over a fine grid of alpha */
static double
zcdp_epsilon_grid(double rho, double delta)
{
	double		best = INFINITY;

	for (int i = -200000; i <= 400000; i++)
	{
		double		m = exp(i * 5e-5);	/* alpha - 1 from e^-10 to e^20 */
		double		alpha = 1 + m;
		double		e = alpha * rho + (-log(delta) + m * log1p(-1 / alpha) - log(alpha)) / m;

		if (e < best)
			best = e;
	}
	return fmax(best, 0.0);
}

static void
test_zcdp(void)
{
	/*
	 * Known values: the CKS conversion minimised over a grid of step 1e-4 in
	 * log(alpha - 1) by an independent Python program (values agree with
	 * Steinke's cdp_eps); the grid error is below 1e-9 relative.
	 */
	struct
	{
		double		rho;
		double		delta;
		double		epsilon;
	}			known[] = {
		{1.0, 1e-6, 7.766216625871452},
		{0.5, 1e-5, 4.7283869856126515},
		{0.01, 1e-9, 0.810174468087493},
		{10.0, 1e-3, 25.0887264947137},
	};
	int			agree = 1;
	int			tighter = 1;
	int			safe = 1;
	double		worst = 0;

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
	{
		double		e = dp_zcdp_epsilon(known[i].rho, known[i].delta);
		double		grid = zcdp_epsilon_grid(known[i].rho, known[i].delta);
		double		classical = known[i].rho + 2 * sqrt(known[i].rho * log(1 / known[i].delta));

		if (fabs(e / known[i].epsilon - 1) > worst)
			worst = fabs(e / known[i].epsilon - 1);
		agree &= fabs(e / known[i].epsilon - 1) < 1e-7 && fabs(e / grid - 1) < 1e-7;
		safe &= e >= known[i].epsilon * (1 - 1e-9);
		tighter &= e < classical;
	}
	tap_ok(agree && safe, "zCDP to (epsilon, delta): known values matched (worst relative %.2g), "
		   "never below them", worst);
	tap_ok(tighter, "zCDP conversion is tighter than rho + 2 sqrt(rho log(1/delta))");
	tap_ok(dp_zcdp_epsilon(0x1p-40, 1e-6) == 0.0,
		   "rho = 2^-40 with delta = 1e-6 converts to epsilon 0 (the bound is negative)");
	tap_ok(dp_zcdp_epsilon(1.0, 1e-6) > dp_zcdp_epsilon(1.0, 1e-5) &&
		   dp_zcdp_epsilon(2.0, 1e-6) > dp_zcdp_epsilon(1.0, 1e-6),
		   "epsilon decreases with delta and increases with rho");
	tap_ok(dp_zcdp_epsilon(0.0, 1e-6) == 0.0 && dp_zcdp_epsilon(1.0, 1.0) == 0.0 &&
		   isnan(dp_zcdp_epsilon(-1.0, 1e-6)) && isnan(dp_zcdp_epsilon(NAN, 1e-6)) &&
		   isnan(dp_zcdp_epsilon(INFINITY, 1e-6)) && isnan(dp_zcdp_epsilon(1.0, 0.0)) &&
		   isnan(dp_zcdp_epsilon(1.0, NAN)),
		   "zCDP conversion: rho 0 or delta 1 give 0; bad arguments give NaN");
	tap_ok(isfinite(dp_zcdp_epsilon(1e-300, 1e-300)) && isfinite(dp_zcdp_epsilon(1e300, 0.5)) &&
		   isfinite(dp_zcdp_epsilon(100, 4.9e-324)),
		   "zCDP conversion finite at extreme arguments");
}

static dp_weighted_noise_group
group(dp_noise_family family, uint64_t numerator, uint64_t denominator, double weight,
	  int64_t terms)
{
	dp_weighted_noise_group g;

	g.family = family;
	g.scale.numerator = numerator;
	g.scale.denominator = denominator;
	g.weight = weight;
	g.terms = terms;
	return g;
}

/* (a) one Laplace group: Chernoff against the exact half-width of dp_noise.h */
static void
test_chernoff_vs_exact(void)
{
	dp_scale	scales[] = {{.numerator = 3, .denominator = 1}, {.numerator = 7, .denominator = 3},
	{.numerator = 1, .denominator = 2}, {.numerator = 30, .denominator = 1}};
	double		misses[] = {0.05, 1e-6};
	int			above = 1;
	double		worst_ratio[2] = {0, 0};
	double		ratio_one[2] = {0, 0};
	double		ratio_64[2] = {0, 0};
	double		ratio_powers[7] = {0};

	for (size_t m = 0; m < 2; m++)
		for (size_t i = 0; i < sizeof(scales) / sizeof(scales[0]); i++)
			for (int k = 1; k <= 64; k++)
			{
				double		exact = dp_discrete_laplace_sum_half_width(&scales[i], k, 1 - misses[m]);
				double		chernoff = dp_weighted_noise_half_width_one(DP_FAMILY_LAPLACE, &scales[i],
																		1.0, k, misses[m]);
				double		ratio;

				if (!(chernoff >= exact))
				{
					above = 0;
					tap_diag("below exact: b %.3g, k %d, miss %g: %.6g < %.6g",
							 sigma2_of(&scales[i]), k, misses[m], chernoff, exact);
				}
				/* ratio only where the lattice does not dominate (exact >= 5) */
				if (exact < 5)
					continue;
				ratio = chernoff / exact;
				if (ratio > worst_ratio[m])
					worst_ratio[m] = ratio;
				if (i == 0 && k == 1)
					ratio_one[m] = ratio;
				if (i == 0 && k == 64)
					ratio_64[m] = ratio;
				if (i == 0 && m == 0 && (k & (k - 1)) == 0)
					ratio_powers[__builtin_ctz((unsigned) k)] = ratio;
			}
	tap_ok(above, "Chernoff half-width >= exact half-width: b in {3, 7/3, 1/2, 30}, "
		   "1..64 terms, miss 0.05 and 1e-6");
	tap_diag("Chernoff / exact at b = 3, miss 0.05: %.3f (1 term), %.3f (64 terms); "
			 "at miss 1e-6: %.3f, %.3f", ratio_one[0], ratio_64[0], ratio_one[1], ratio_64[1]);
	tap_diag("Chernoff / exact at b = 3, miss 0.05, 1 2 4 8 16 32 64 terms: "
			 "%.3f %.3f %.3f %.3f %.3f %.3f %.3f", ratio_powers[0], ratio_powers[1],
			 ratio_powers[2], ratio_powers[3], ratio_powers[4], ratio_powers[5], ratio_powers[6]);

	/*
	 * Looseness.  For one continuous Laplace term of scale b the Chernoff
	 * width is b min_{0<x<1} (L - log(1 - x^2)) / x, L = log(2 / miss),
	 * against the exact b log(1 / miss): at miss 0.05 that is
	 * 5.85 / 3.00 = 1.95 (the one-term worst case, computed below).  For
	 * many terms both widths tend to their normal values, whose ratio is
	 * sqrt(2 L) / z_{miss/2} = 2.716 / 1.960 = 1.386.  Required: never
	 * worse than 2x the exact width, and at most 1.5x at 64 terms.
	 */
	{
		double		L = log(2 / 0.05);
		double		best = INFINITY;

		for (int i = 1; i < 100000; i++)
		{
			double		x = i / 100000.0;

			best = fmin(best, (L - log(1 - x * x)) / x);
		}
		tap_diag("one continuous Laplace term at miss 0.05: Chernoff / exact = %.3f",
				 best / log(1 / 0.05));
	}
	tap_ok(worst_ratio[0] <= 2.0 && ratio_64[0] <= 1.5,
		   "Chernoff at most 2x the exact half-width at miss 0.05 (worst %.3f), "
		   "%.3fx at 64 terms", worst_ratio[0], ratio_64[0]);
	tap_diag("worst Chernoff / exact at miss 1e-6: %.3f", worst_ratio[1]);

	/* one discrete Gaussian: exact tail by summation at the Chernoff width */
	{
		double		gaussian_misses[] = {0.3, 0.05, 1e-3, 1e-6, 1e-12};
		dp_scale	s = {.numerator = 5, .denominator = 2};
		gaussian_table table;
		int			valid = 1;
		double		ratio = 0;

		gaussian_table_init(&table, 2.5);
		for (size_t m = 0; m < sizeof(gaussian_misses) / sizeof(gaussian_misses[0]); m++)
		{
			double		w = dp_weighted_noise_half_width_one(DP_FAMILY_GAUSSIAN, &s, 1.0, 1,
															 gaussian_misses[m]);
			double		tail = 0;

			for (long z = (long) floor(w) + 1; z <= table.radius; z++)
				tail += 2 * table.pmf[z + table.radius];
			valid &= tail <= gaussian_misses[m];
			if (m == 1)
				ratio = w;
		}
		tap_ok(valid, "one discrete Gaussian (sigma^2 2.5): exact P[|Z| > w] <= miss at the "
			   "Chernoff width for miss 0.3 .. 1e-12 (w = %.3f at 0.05)", ratio);
		free(table.pmf);
	}
}

/*
 * (b) Monte Carlo over mixed groups with non-integer weights.  The number
 * of |S| > w among N independent sums is Binomial(N, p) with p <= miss, so
 * it exceeds N miss + z sqrt(N miss (1 - miss)) with probability about
 * 1e-6 for z = 4.7534 (normal approximation; N miss >= 2000 here).
 */
static void
test_monte_carlo(void)
{
	enum
	{
		SUMS = 200000
	};
	dp_weighted_noise_group groups[] = {
		group(DP_FAMILY_LAPLACE, 3, 1, 0.37, 5),
		group(DP_FAMILY_LAPLACE, 7, 3, -1.25, 3),
		group(DP_FAMILY_GAUSSIAN, 5, 2, 0.8, 4),
		group(DP_FAMILY_GAUSSIAN, 37, 3, -0.11, 2),
	};
	int			count = 4;
	double		misses[] = {0.3, 0.05, 0.01};
	static double sums[SUMS];
	double		total = 0;
	double		total_sq = 0;
	double		total_fourth = 0;
	double		variance = dp_weighted_noise_variance(groups, count);

	seed("dp_stream unit test: weighted sums");
	for (int i = 0; i < SUMS; i++)
	{
		double		s = 0;

		for (int g = 0; g < count; g++)
			for (int t = 0; t < groups[g].terms; t++)
			{
				dp_int128	z = groups[g].family == DP_FAMILY_LAPLACE ?
					dp_discrete_laplace(&rng, &groups[g].scale) :
					dp_discrete_gaussian(&rng, &groups[g].scale);

				s += groups[g].weight * (double) z;
			}
		sums[i] = s;
		total += s;
		total_sq += s * s;
		total_fourth += s * s * s * s;
	}
	for (size_t m = 0; m < sizeof(misses) / sizeof(misses[0]); m++)
	{
		double		w = dp_weighted_noise_half_width_missing(groups, count, misses[m]);
		long		outside = 0;
		double		allowed = SUMS * misses[m] +
			Z_ONE_SIDED_1E6 * sqrt(SUMS * misses[m] * (1 - misses[m]));

		for (int i = 0; i < SUMS; i++)
			outside += fabs(sums[i]) > w;
		tap_ok(outside <= allowed,
			   "mixed weighted sum, miss %.2f: w = %.3f, observed miss rate %.5f "
			   "(%ld of %d, allowed %.0f)", misses[m], w, (double) outside / SUMS, outside,
			   SUMS, allowed);
	}
	/*
	 * Variance: the sample second moment (mean 0) within z_{1e-6} standard
	 * errors, the standard error from the sample fourth moment.
	 */
	{
		double		second = total_sq / SUMS;
		double		band = Z_TWO_SIDED_1E6 * sqrt((total_fourth / SUMS - second * second) / SUMS);
		double		by_hand = 5 * 0.37 * 0.37 * dp_discrete_laplace_variance(&groups[0].scale) +
			3 * 1.25 * 1.25 * dp_discrete_laplace_variance(&groups[1].scale) +
			4 * 0.8 * 0.8 * dp_discrete_gaussian_variance(&groups[2].scale) +
			2 * 0.11 * 0.11 * dp_discrete_gaussian_variance(&groups[3].scale);

		tap_ok(fabs(variance - by_hand) <= 1e-12 * by_hand && fabs(second - variance) <= band &&
			   fabs(total / SUMS) <= Z_TWO_SIDED_1E6 * sqrt(variance / SUMS),
			   "weighted variance %.4f (by hand %.4f), sample %.4f within +-%.4f, mean %.4f",
			   variance, by_hand, second, band, total / SUMS);
	}
}

/* (c) monotone in miss, finite and nearly normal for huge terms, bounded time */
static void
test_chernoff_properties(void)
{
	dp_weighted_noise_group mixed[] = {
		group(DP_FAMILY_LAPLACE, 3, 1, 0.37, 5),
		group(DP_FAMILY_GAUSSIAN, 37, 3, -0.11, 2),
	};
	double		misses[] = {0.9, 0.5, 0.2, 0.05, 1e-2, 1e-3, 1e-6, 1e-12, 1e-100, 1e-300, 4.9e-324};
	int			monotone = 1;
	double		previous = 0;

	for (size_t m = 0; m < sizeof(misses) / sizeof(misses[0]); m++)
	{
		double		w = dp_weighted_noise_half_width_missing(mixed, 2, misses[m]);

		if (!(isfinite(w) && w > previous))
			monotone = 0;
		previous = w;
	}
	tap_ok(monotone, "half-width strictly increasing as miss falls from 0.9 to 4.9e-324 "
		   "(%.4g at the end)", previous);

	/*
	 * 2^62 terms at the largest scales: the sum is normal to within 2^-31, so
	 * the Chernoff width must be sqrt(2 V log(2 / miss)) (the Gaussian value;
	 * the Laplace cumulant exceeds s^2 Var / 2 only by O(s^4)), which also
	 * checks the cumulant at s ~ 2^-31 / b without cancellation.
	 */
	{
		dp_weighted_noise_group huge[2];
		double		v;
		double		w;
		double		normal;

		huge[0].family = DP_FAMILY_LAPLACE;
		dp_scale_for(DP_SENSITIVITY_MAX, DP_EPSILON_MIN, &huge[0].scale);
		huge[0].weight = 1e100;
		huge[0].terms = DP_WEIGHTED_NOISE_TERMS_MAX;
		huge[1].family = DP_FAMILY_GAUSSIAN;
		dp_gaussian_scale_for(DP_GAUSSIAN_SENSITIVITY_SQUARED_MAX, DP_RHO_MIN, &huge[1].scale);
		huge[1].weight = -3.7e115;
		huge[1].terms = DP_WEIGHTED_NOISE_TERMS_MAX;
		v = dp_weighted_noise_variance(huge, 2);
		w = dp_weighted_noise_half_width_missing(huge, 2, 0.05);
		normal = sqrt(2 * v * log(2 / 0.05));
		tap_ok(isfinite(w) && fabs(w / normal - 1) < 1e-6,
			   "2^62 terms at the largest scales, weights 1e100 and -3.7e115: w = %.6g, "
			   "normal Chernoff value %.6g", w, normal);
	}
	{
		dp_scale	b = {.numerator = 3, .denominator = 1};
		double		base = dp_weighted_noise_half_width_one(DP_FAMILY_LAPLACE, &b, 1.0, 7, 0.05);
		double		up = dp_weighted_noise_half_width_one(DP_FAMILY_LAPLACE, &b, 1e200, 7, 0.05);
		double		down = dp_weighted_noise_half_width_one(DP_FAMILY_LAPLACE, &b, -1e-200, 7, 0.05);

		tap_ok(fabs(up / (1e200 * base) - 1) < 1e-9 && fabs(down / (1e-200 * base) - 1) < 1e-9 &&
			   dp_weighted_noise_half_width_one(DP_FAMILY_LAPLACE, &b, -2.0, 7, 0.05) ==
			   dp_weighted_noise_half_width_one(DP_FAMILY_LAPLACE, &b, 2.0, 7, 0.05),
			   "half-width scales with |weight| (1e200, -1e-200) and ignores its sign");
	}
	{
		dp_weighted_noise_group many[DP_WEIGHTED_NOISE_GROUPS_MAX];
		double		start;
		double		elapsed;
		int			finite = 1;
		int			calls = 200;

		for (int i = 0; i < DP_WEIGHTED_NOISE_GROUPS_MAX; i++)
			many[i] = group(i % 2 ? DP_FAMILY_LAPLACE : DP_FAMILY_GAUSSIAN,
							(uint64_t) (i + 1) * 7, (uint64_t) (i % 5) + 1,
							(i % 3 - 1) * 0.3 + 0.01 * i, (int64_t) 1 << (i % 63));
		start = seconds_now();
		for (int c = 0; c < calls; c++)
			finite &= isfinite(dp_weighted_noise_half_width_missing(many, DP_WEIGHTED_NOISE_GROUPS_MAX,
																	0.05 / (c + 1)));
		elapsed = seconds_now() - start;
		/* fixed work: at most 200 golden-section steps of 256 groups each */
		tap_ok(finite && elapsed / calls < 0.05,
			   "256 mixed groups: %d calls, %.3f ms each, all finite", calls,
			   1000 * elapsed / calls);
	}

	/* refusals and empty sums */
	{
		dp_scale	b = {.numerator = 3, .denominator = 1};
		dp_weighted_noise_group bad_family = group(3, 3, 1, 1.0, 1);
		dp_weighted_noise_group zero_scale = group(DP_FAMILY_LAPLACE, 0, 1, 1.0, 1);
		dp_weighted_noise_group zero_den = group(DP_FAMILY_GAUSSIAN, 1, 0, 1.0, 1);
		dp_weighted_noise_group infinite = group(DP_FAMILY_LAPLACE, 3, 1, INFINITY, 1);
		dp_weighted_noise_group not_number = group(DP_FAMILY_LAPLACE, 3, 1, NAN, 1);
		dp_weighted_noise_group negative = group(DP_FAMILY_LAPLACE, 3, 1, 1.0, -1);
		dp_weighted_noise_group too_many = group(DP_FAMILY_LAPLACE, 3, 1, 1.0,
												 DP_WEIGHTED_NOISE_TERMS_MAX + 1);
		dp_weighted_noise_group silent[] = {group(DP_FAMILY_LAPLACE, 3, 1, 0.0, 5),
		group(DP_FAMILY_GAUSSIAN, 3, 1, 2.0, 0)};

		tap_ok(isnan(dp_weighted_noise_half_width_missing(mixed, 2, 0.0)) &&
			   isnan(dp_weighted_noise_half_width_missing(mixed, 2, -0.1)) &&
			   isnan(dp_weighted_noise_half_width_missing(mixed, 2, NAN)) &&
			   isnan(dp_weighted_noise_half_width_missing(mixed, -1, 0.05)) &&
			   isnan(dp_weighted_noise_half_width_missing(mixed, DP_WEIGHTED_NOISE_GROUPS_MAX + 1, 0.05)) &&
			   isnan(dp_weighted_noise_half_width_missing(&bad_family, 1, 0.05)) &&
			   isnan(dp_weighted_noise_half_width_missing(&zero_scale, 1, 0.05)) &&
			   isnan(dp_weighted_noise_half_width_missing(&zero_den, 1, 0.05)) &&
			   isnan(dp_weighted_noise_half_width_missing(&infinite, 1, 0.05)) &&
			   isnan(dp_weighted_noise_half_width_missing(&not_number, 1, 0.05)) &&
			   isnan(dp_weighted_noise_half_width_missing(&negative, 1, 0.05)) &&
			   isnan(dp_weighted_noise_half_width_missing(&too_many, 1, 0.05)) &&
			   isnan(dp_weighted_noise_variance(&infinite, 1)),
			   "bad miss, count, family, scale, weight or terms give NaN");
		tap_ok(dp_weighted_noise_half_width_missing(NULL, 0, 0.05) == 0.0 &&
			   dp_weighted_noise_half_width_missing(silent, 2, 0.05) == 0.0 &&
			   dp_weighted_noise_variance(silent, 2) == 0.0 &&
			   dp_weighted_noise_half_width_one(DP_FAMILY_LAPLACE, &b, 1.0, 3, 1.0) == 0.0,
			   "no groups, zero weights, zero terms or miss 1: half-width 0");
	}
}

/*
 * The constant-time acceptance test (dp_gaussian_acceptance.c).  Streams of
 * fresh noise draw with tables from a cache of their own.
 */
static test_arena owned_tables;
static dp_sampler_cache test_cache = {
	.allocate = test_arena_allocate, .release_all = test_arena_release,
	.context = &owned_tables
};

/* t = floor(sigma) + 1 = the least t with t^2 d > n, by bisection (sigma^2 <= 2^96) */
static dp_uint128
proposal_scale_of(const dp_scale *sigma2)
{
	dp_uint128	low = 1;			/* low^2 d <= n fails only for low = t */
	dp_uint128	high = (dp_uint128) 1 << 49;	/* high^2 d > n */

	if (sigma2->denominator > sigma2->numerator)
		return 1;
	while (high - low > 1)
	{
		dp_uint128	middle = low + (high - low) / 2;

		if (middle * middle * sigma2->denominator <= sigma2->numerator)
			low = middle;
		else
			high = middle;
	}
	return high;
}

/* M = floor(E 2^48) for E ~ Exp(1), as the acceptance test draws it */
static dp_uint128
exponential_cells(dp_random *stream)
{
	dp_scale	scale = {.numerator = (dp_uint128) 1 << 48, .denominator = 1};

	return dp_laplace_table_draw_magnitude(dp_sampler_cache_laplace(&test_cache, &scale), stream);
}

/* CKS20 Algorithm 3 with every acceptance decided by the exact path alone */
static dp_int128
draw_by_exact_path(dp_random *stream, const dp_scale *sigma2)
{
	dp_uint128	t = proposal_scale_of(sigma2);
	dp_scale	proposal = {.numerator = t, .denominator = 1};

	for (;;)
	{
		dp_int128	y = dp_discrete_laplace(stream, &proposal);
		dp_uint128	a = y < 0 ? (dp_uint128) -y : (dp_uint128) y;

		if (dp_gaussian_acceptance_exact(stream, a, sigma2, t, exponential_cells(stream)))
			return y;
	}
}

/*
 * The fast decision against the exact one where they are closest: for
 * proposals a around the centre and far out, M at floor(X 2^48) plus small
 * and relative offsets (X 2^48 from exact integer arithmetic in the test:
 * u^2 2^48 / D with long double, only to place M; the decisions compare).
 * Wherever the fast path decides, it must agree with the exact path, and it
 * must decide almost everywhere away from the boundary.
 */
static void
test_fast_against_exact(void)
{
	/* up to the edges of the accepted range: n < 2^120, d <= 2^24, n / d <= 2^96 */
	dp_scale	scales[] = {{1, 4}, {1, 1}, {5, 2}, {37, 3}, {1000, 1}, {123456789, 7},
	{(dp_uint128) 1 << 90, 3}, {3, 1 << 24}, {((dp_uint128) 1 << 120) - 1, 1 << 24},
	{(dp_uint128) 1 << 96, 1}, {((dp_uint128) 1 << 96) + 12345, 1}};
	int			disagreements = 0;
	int			decided_far = 0;
	int			far = 0;
	int			undecided_near = 0;
	int			cases = 0;

	for (size_t s = 0; s < sizeof(scales) / sizeof(scales[0]); s++)
	{
		const dp_scale *sigma2 = &scales[s];
		dp_uint128	t = proposal_scale_of(sigma2);

		for (int i = 0; i < 400; i++)
		{
			/* a from 0 up to about 12 sigma, and a few far proposals */
			dp_uint128	a = i < 380 ? (t * (dp_uint128) i) / 32 : t * (dp_uint128) (40 * i);
			long double sigma_squared = (long double) sigma2->numerator /
				(long double) sigma2->denominator;
			long double centre = sigma_squared / (long double) t;
			long double x = ((long double) a - centre) * ((long double) a - centre) /
				(2 * sigma_squared);
			long double cells = x * 0x1p48L;
			long		offsets[] = {-1000000, -70000, -3, -2, -1, 0, 1, 2, 3, 70000, 1000000};

			if (cells > 0x1p100L || a > DP_GAUSSIAN_DRAW_MAX)
				continue;
			for (size_t o = 0; o < sizeof(offsets) / sizeof(offsets[0]); o++)
			{
				long double shifted = floorl(cells) + offsets[o];
				dp_uint128	magnitude;
				int			fast;
				bool		exact;
				dp_random	stream;

				if (shifted < 0)
					continue;
				magnitude = (dp_uint128) shifted;
				fast = dp_gaussian_acceptance_fast(a, sigma2, t, magnitude);
				dp_random_init_keyed(&stream, "tie", 3);
				exact = dp_gaussian_acceptance_exact(&stream, a, sigma2, t, magnitude);
				cases++;
				if (fast >= 0 && fast != (int) exact)
					disagreements++;
				/* far: more than 2^-40 relative and 2^8 cells from X 2^48 */
				if (fabsl((long double) magnitude - cells) > 256 + cells * 0x1p-40L)
				{
					far++;
					decided_far += fast >= 0;
				}
				else
					undecided_near += fast < 0;
			}
		}
	}
	tap_ok(disagreements == 0,
		   "constant-time acceptance: the fast decision agrees with the exact one in all %d "
		   "cases it decides, M within a few cells of X 2^48 included (%d disagreements)",
		   cases, disagreements);
	tap_ok(decided_far == far && undecided_near > 0,
		   "the fast decision settles every case more than 2^8 cells and 2^-40 relative from "
		   "X 2^48 (%d of %d), and leaves the nearest to the exact path (%d)",
		   decided_far, far, undecided_near);
}

/*
 * A tie, M = floor(X 2^48), is broken by F > r, r = frac(X 2^48), with F on
 * [0, 1) of density proportional to exp(-f 2^-48): P = 1 - r to within
 * 2^-48.  With sigma^2 = 5/2 (t = 2, D = 80) and a = 1 or 3, X = 1/80 or
 * 49/80 and r = 1/5 or 4/5 exactly (2^44 = 1 mod 5).
 */
static void
test_tie(void)
{
	dp_scale	sigma2 = {.numerator = 5, .denominator = 2};
	struct
	{
		dp_uint128	a;
		dp_uint128	cells;		/* floor(X 2^48) */
		double		r;
	}			ties[] = {
		{1, (((dp_uint128) 1 << 44) - 1) / 5, 0.2},
		{3, (49 * ((dp_uint128) 1 << 44) - 4) / 5, 0.8},
	};
	int			trials = 200000;

	for (size_t i = 0; i < sizeof(ties) / sizeof(ties[0]); i++)
	{
		dp_random	stream;
		long		accepted = 0;
		double		share;
		double		band = Z_TWO_SIDED_1E6 * sqrt(ties[i].r * (1 - ties[i].r) / trials);

		dp_random_init_keyed(&stream, "ties", 4);
		for (int k = 0; k < trials; k++)
			accepted += dp_gaussian_acceptance_exact(&stream, ties[i].a, &sigma2, 2,
													 ties[i].cells);
		share = (double) accepted / trials;
		tap_ok(dp_gaussian_acceptance_fast(ties[i].a, &sigma2, 2, ties[i].cells) == -1 &&
			   fabs(share - (1 - ties[i].r)) <= band,
			   "a tie at r = %.1f is left to the exact path, which accepts %.4f of %d (expected %.1f +- %.4f)",
			   ties[i].r, share, trials, 1 - ties[i].r, band);
	}
}

/* A stream without tables builds them for each attempt: the same values. */
static void
test_without_cache(void)
{
	dp_random	cached;
	dp_random	uncached;
	dp_scale	sigma2 = {.numerator = 37, .denominator = 3};
	bool		same = true;

	dp_random_init_keyed(&cached, "no cache", 8);
	dp_random_init_keyed(&uncached, "no cache", 8);
	cached.table_sampler = uncached.table_sampler = true;
	cached.constant_time_gaussian = uncached.constant_time_gaussian = true;
	cached.samplers = &test_cache;
	for (int i = 0; i < 200; i++)
		same &= dp_discrete_gaussian(&cached, &sigma2) == dp_discrete_gaussian(&uncached, &sigma2);
	tap_ok(same, "constant-time acceptance without a table cache draws the cached stream's values");
	/* and a fresh stream's (low bits by rejection), at a scale whose proposals take them too */
	cached.laplace_low = uncached.laplace_low = true;
	sigma2 = (dp_scale) {.numerator = (dp_uint128) 1 << 50, .denominator = 1};
	same = true;
	for (int i = 0; i < 200; i++)
		same &= dp_discrete_gaussian(&cached, &sigma2) == dp_discrete_gaussian(&uncached, &sigma2);
	tap_ok(same, "a fresh stream without a table cache draws the cached stream's values (sigma^2 = 2^50)");
}

static dp_int128
draw_constant_time(dp_random *stream, const dp_scale *sigma2)
{
	return dp_discrete_gaussian(stream, sigma2);
}

static void
test_constant_time_law(void)
{
	dp_random	saved = rng;
	dp_scale	scale;

	seed("dp_stream unit test: gaussian, constant-time acceptance");
	rng.table_sampler = true;
	rng.constant_time_gaussian = true;
	rng.samplers = &test_cache;
	draw_under_test = draw_constant_time;
	scale = (dp_scale) {.numerator = 1, .denominator = 4};
	check_histogram("constant-time acceptance, sigma^2 = 1/4", scale);
	scale = (dp_scale) {.numerator = 5, .denominator = 2};
	check_histogram("constant-time acceptance, sigma^2 = 5/2", scale);
	scale = (dp_scale) {.numerator = 1000, .denominator = 1};
	check_histogram("constant-time acceptance, sigma^2 = 1000", scale);
	dp_gaussian_scale_for(7, 0.3, &scale);
	check_histogram("constant-time acceptance, D^2 = 7, rho = 0.3 (rounded)", scale);

	/*
	 * A fresh stream (as the backend's): the exponential's magnitude, at
	 * scale 2^48, takes its low bits by rejection (dp_laplace_low.h).  The
	 * same law.  (Proposals take them only from scales of about 2^24, beyond
	 * this histogram's reach; test_laplace_table checks that law.)
	 */
	rng.laplace_low = true;
	scale = (dp_scale) {.numerator = 5, .denominator = 2};
	check_histogram("constant-time acceptance, fresh stream, sigma^2 = 5/2", scale);
	scale = (dp_scale) {.numerator = 1000, .denominator = 1};
	check_histogram("constant-time acceptance, fresh stream, sigma^2 = 1000", scale);
	rng.laplace_low = false;

	/* the exact path alone must give the same law */
	draw_under_test = draw_by_exact_path;
	scale = (dp_scale) {.numerator = 1, .denominator = 4};
	check_histogram("exact path alone, sigma^2 = 1/4", scale);
	scale = (dp_scale) {.numerator = 37, .denominator = 3};
	check_histogram("exact path alone, sigma^2 = 37/3", scale);
	draw_under_test = dp_discrete_gaussian;
	rng = saved;
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
	seed("dp_stream unit test: gaussian");

	test_scale();
	test_sub_gaussian();

	scale = (dp_scale) {.numerator = 1, .denominator = 4};
	check_histogram("discrete Gaussian sigma^2 = 1/4", scale);
	scale = (dp_scale) {.numerator = 1, .denominator = 1};
	check_histogram("discrete Gaussian sigma^2 = 1", scale);
	scale = (dp_scale) {.numerator = 5, .denominator = 2};
	check_histogram("discrete Gaussian sigma^2 = 5/2", scale);
	scale = (dp_scale) {.numerator = 37, .denominator = 3};
	check_histogram("discrete Gaussian sigma^2 = 37/3", scale);
	scale = (dp_scale) {.numerator = 1000, .denominator = 1};
	check_histogram("discrete Gaussian sigma^2 = 1000", scale);
	dp_gaussian_scale_for(7, 0.3, &scale);
	check_histogram("discrete Gaussian D^2 = 7, rho = 0.3 (rounded)", scale);

	test_fast_against_exact();
	test_tie();
	test_without_cache();
	test_constant_time_law();

	test_extremes();
	test_zcdp();
	test_chernoff_vs_exact();
	test_monte_carlo();
	test_chernoff_properties();
	test_speed();
	return tap_done();
}

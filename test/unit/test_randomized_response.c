/*
 * test_randomized_response.c
 *		Randomized response: the keep probability, the unbiasedness of the
 *		debiased count and its standard deviation, empirically.
 */
#include <math.h>
#include <stdint.h>

#include "dp_randomized_response.h"
#include "tap.h"

static dp_random rng;

static void
test_keep_probability(double epsilon)
{
	const long	draws = 1000000;
	long		kept = 0;
	double		used, p;

	dp_rr_epsilon(epsilon, &used);
	p = dp_rr_keep_probability(used);
	for (long i = 0; i < draws; i++)
		kept += dp_randomized_response(&rng, (int) (i & 1), epsilon) == (int) (i & 1);
	tap_ok(used <= epsilon && used > epsilon * (1 - 0x1p-21) &&
		   fabs((double) kept / draws - p) <= Z_TWO_SIDED_1E6 * sqrt(p * (1 - p) / draws),
		   "epsilon %g: kept %.5f of %ld bits vs e^eps / (1 + e^eps) = %.5f",
		   epsilon, (double) kept / draws, draws, p);
}

/* 1000 rows, 300 of them true, randomized 20000 times over */
static void
test_estimate(double epsilon)
{
	const int	rows = 1000, truth = 300, trials = 20000;
	double		used, p, sum = 0, sum_sq = 0, estimate, sd, kappa4, band;

	dp_rr_epsilon(epsilon, &used);
	p = dp_rr_keep_probability(used);
	for (int trial = 0; trial < trials; trial++)
	{
		int64_t		ones = 0;

		for (int i = 0; i < rows; i++)
			ones += dp_randomized_response(&rng, i < truth, epsilon);
		dp_rr_estimate(rows, ones, used, &estimate, &sd);
		sum += estimate - truth;
		sum_sq += (estimate - truth) * (estimate - truth);
	}
	/* ones is a sum of n Bernoulli(p or 1 - p): fourth cumulant n p q (1 - 6 p q) */
	kappa4 = rows * p * (1 - p) * (1 - 6 * p * (1 - p)) / pow(2 * p - 1, 4);
	band = Z_TWO_SIDED_1E6 * sqrt((kappa4 + 2 * sd * sd * sd * sd) / trials);
	tap_ok(fabs(sum / trials) <= Z_TWO_SIDED_1E6 * sd / sqrt(trials),
		   "epsilon %g: debiased count is unbiased (mean error %.3f, band +-%.3f)",
		   epsilon, sum / trials, Z_TWO_SIDED_1E6 * sd / sqrt(trials));
	tap_ok(fabs(sum_sq / trials - sd * sd) <= band,
		   "epsilon %g: error variance %.1f vs stated standard deviation^2 = %.1f (band +-%.1f)",
		   epsilon, sum_sq / trials, sd * sd, band);
}

int
main(void)
{
	static const char seed[] = "dp_stream unit test: randomized response";
	double		used;

	if (!dp_random_library_init())
	{
		printf("Bail out! libsodium failed to initialise\n");
		return 1;
	}
	dp_random_init_keyed(&rng, seed, sizeof(seed) - 1);
	test_keep_probability(0.5);
	test_keep_probability(3.0);
	test_estimate(0.5);
	test_estimate(2.0);
	tap_ok(dp_rr_epsilon(0, &used) == DP_ERROR_EPSILON && dp_rr_epsilon(NAN, &used) == DP_ERROR_EPSILON,
		   "epsilon 0 and NaN are refused");
	return tap_done();
}

/*
 * test_bands.c
 *		What dp_error_bound_max promises, and what it does not
 *		(docs/choosing_parameters.md, "A band at every step is not a band for
 *		the whole stream").
 *
 * dp_error_bound_max(m, T, c) (dp_planning_max_error_bound) is a per-step
 * bound.  At confidence 1 - (1 - c) / T it is a band for every step 1..T at
 * once with probability at least c (a union bound over the T steps): the
 * share of seeded streams whose release leaves it at some step must not
 * exceed 1 - c by more than 4.89 binomial standard errors (p = 1e-6).  And
 * at confidence c it is not such a band: for Binary over a year the share
 * of streams that leave it at some step must be above 1 - c by more than
 * the same margin (the docs say most streams do).  Streams carry no data:
 * a count's error does not depend on it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "test_support.h"
#include "dp_counter.h"
#include "dp_planning.h"

#define STREAMS 2000
#define STEPS 365

static double
band(const dp_mechanism *m, double confidence)
{
	double		bound = NAN;
	const char *field;

	if (dp_planning_max_error_bound(m, STEPS, confidence, NULL, &bound, &field) != DP_OK)
	{
		fprintf(stderr, "test_bands: no bound (%s)\n", field);
		exit(2);
	}
	return bound;
}

int
main(void)
{
	static const char *const mechanisms[] = {
		"binary(epsilon=1,horizon=365,max_per_step=1)",
		"two_level(epsilon=1,horizon=365,max_per_step=1)",
		"hybrid(epsilon=1,max_per_step=1)",
		"simple_ii(epsilon=1,max_per_step=1)",
		"expiring(epsilon=1,max_per_step=1,lambda=2)",
	};
	static const double confidences[] = {0.9, 0.95};
	static const char seed[] = "test_bands";
	dp_random	rng;

	if (!dp_random_library_init())
		return 2;
	dp_random_init_keyed(&rng, seed, sizeof(seed) - 1);

	for (int i = 0; i < (int) (sizeof(mechanisms) / sizeof(mechanisms[0])); i++)
	{
		dp_mechanism m = test_mechanism(mechanisms[i]);
		dp_counter *c = malloc(dp_counter_size(&m));
		double		per_step[2],
					simultaneous[2];
		int			left[2] = {0, 0},
					left_simultaneous[2] = {0, 0};
		const char *field;

		for (int j = 0; j < 2; j++)
		{
			per_step[j] = band(&m, confidences[j]);
			simultaneous[j] = band(&m, 1 - (1 - confidences[j]) / STEPS);
		}
		for (int s = 0; s < STREAMS; s++)
		{
			double		widest = 0;

			dp_counter_start(c, &m, &rng, &field);
			for (int t = 1; t <= STEPS; t++)
			{
				dp_counter_push(c, 0, &rng);
				widest = fmax(widest, fabs((double) dp_counter_release(c)));
			}

			/*
			 * The band of dp_error_bound_max(m, t, c) at t is at most its
			 * value at T: leaving the band at T at some step is the weaker
			 * event, so a share above 1 - c for it is one for the running
			 * band too.
			 */
			for (int j = 0; j < 2; j++)
			{
				left[j] += widest > per_step[j];
				left_simultaneous[j] += widest > simultaneous[j];
			}
		}
		for (int j = 0; j < 2; j++)
		{
			double		miss = 1 - confidences[j];
			double		margin = Z_TWO_SIDED_1E6 * sqrt(miss * (1 - miss) / STREAMS);

			tap_ok((double) left_simultaneous[j] / STREAMS <= miss + margin,
				   "%s: the band at confidence 1 - %g/%d (%.1f) is left at some step by %.4f "
				   "of %d streams (at most %.4f may be)", mechanisms[i], miss, STEPS,
				   simultaneous[j], (double) left_simultaneous[j] / STREAMS, STREAMS, miss + margin);
			if (i == 0)
				tap_ok((double) left[j] / STREAMS > miss + margin,
					   "%s: the per-step band at %g (%.1f) is left at some step by %.4f of "
					   "streams, more than %g: it is not a band for the whole stream",
					   mechanisms[i], confidences[j], per_step[j], (double) left[j] / STREAMS, miss);
		}
		free(c);
	}
	return tap_done();
}

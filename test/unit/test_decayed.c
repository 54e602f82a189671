/*
 * test_decayed.c
 *		The exponentially decayed sum (DP_MECHANISM_DECAYED, dp_decayed.c):
 *
 *		- the depth K is the one of least mean steady-state variance, and
 *		  the closed form of that variance equals the average of the noise
 *		  description over a block;
 *		- the noise description's variance at every step equals a reference
 *		  written out independently (the weights gamma^(r - end) of the
 *		  decomposition and gamma^(B m + r) of the closed blocks), and it is
 *		  bounded in t;
 *		- the release minus its noise is 2^f D_t within the kind's slack, at
 *		  every step, for several gammas and options;
 *		- the error is unbiased with the described variance over seeded
 *		  trials (bands of p = 1e-6);
 *		- a state serialized mid-block and read back continues with the
 *		  same releases, and its text form round-trips;
 *		- the refusals: gamma out of (0, 0.999999], the consistent and
 *		  zCDP options.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dp_counter.h"
#include "dp_decayed.h"
#include "tap.h"
#include "test_support.h"

static dp_random rng;

static double
unit_value(const dp_counter *counter)
{
	return ldexp(1.0, dp_decayed_fraction_bits(&counter->mechanism));
}

/*
 * The variance of the release at t in the values' units, written out: b the
 * scale, 2 b^2 per term (times 2 with the pan-private option) times the
 * squared weight gamma^(r mod 2^l) of each set bit l of r = t mod B, and
 * gamma^(B m + r) of the m-th most recent closed block, over 4^f.
 */
static double
reference_variance(const dp_counter *counter, int64_t t)
{
	double		gamma = counter->mechanism.shape;
	int			levels = dp_decayed_levels(gamma);
	int64_t		block = ((int64_t) 1) << levels;
	int64_t		r = t % block;
	int64_t		q = t / block;
	double		b = dp_scale_as_double(&counter->scale);
	double		sum = 0;

	for (int l = 0; l < levels; l++)
		if ((r >> l) & 1)
			sum += pow(gamma, 2.0 * (double) (r & ((((int64_t) 1) << l) - 1)));
	for (int64_t m = 0; m < q; m++)
		sum += pow(gamma, 2.0 * (double) (block * m + r));
	return 2 * b * b * sum * (dp_counter_pan_private(counter) ? 2 : 1) /
		(unit_value(counter) * unit_value(counter));
}

static void
test_levels(void)
{
	static const struct
	{
		double		gamma;
		int			levels;
	}			expected[] = {
		{0.5, 0}, {0.9, 0}, {0.99, 0}, {0.999, 7}, {0.9999, 11}, {0.99999, 14}, {0.999999, 18}
	};

	for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++)
	{
		double		gamma = expected[i].gamma;
		int			k = dp_decayed_levels(gamma);
		bool		least = true;

		for (int other = 0; other <= 24; other++)
			least &= dp_decayed_mean_variance_factor(gamma, other) >=
				dp_decayed_mean_variance_factor(gamma, k);
		tap_ok(k == expected[i].levels && least,
			   "gamma %g: K = %d (expected %d), the least mean variance of K = 0 .. 24",
			   gamma, k, expected[i].levels);
	}
}

/* the closed form of the mean variance against the noise description over a block */
static void
test_mean_variance(const char *text)
{
	dp_mechanism m = test_mechanism(text);
	dp_counter *counter = test_start_counter(&m, &rng);
	int			levels = dp_decayed_levels(m.shape);
	int64_t		block = ((int64_t) 1) << levels;
	/* enough closed blocks that gamma^(2 B q) is below 1e-15 */
	int64_t		q = 1;
	double		mean = 0;
	double		b = dp_scale_as_double(&counter->scale);
	double		unit = (double) dp_mechanism_unit_bound(&m) / m.epsilon;
	double		per_node = b / unit;	/* (K + 1)(2^f + 1) */
	double		expected;

	while (pow(m.shape, 2.0 * (double) (block * q)) > 1e-15)
		q++;
	for (int64_t r = 0; r < block; r++)
	{
		dp_noise_group groups[DP_NOISE_GROUPS_MAX];
		int			count = dp_counter_noise_groups_at(counter, q * block + r, groups);

		mean += dp_noise_sum_variance(groups, count);
	}
	mean /= (double) block;
	/* (K + 1)^2 in the factor; the rest of b / (U / epsilon) is 2^f + 1 */
	expected = 2 * unit * unit * dp_decayed_mean_variance_factor(m.shape, levels) *
		(per_node / (levels + 1)) * (per_node / (levels + 1)) /
		(unit_value(counter) * unit_value(counter));
	tap_ok(fabs(mean - expected) <= 1e-6 * expected,
		   "%s: the mean steady-state variance over a block is the closed form's "
		   "(%.6g vs %.6g)", text, mean, expected);
	free(counter);
}

/*
 * At every step up to `steps`: the noise description's variance is the
 * reference's, and the release without its noise is 2^f D_t within the
 * slack (two counters with the same noise, one pushed the data and one
 * zeros: the noise draws do not depend on the data).
 */
static void
test_exact(const char *text, int64_t steps)
{
	dp_mechanism m = test_mechanism(text);
	dp_random	a,
				z;
	dp_counter *data;
	dp_counter *zero;
	double		decayed = 0;
	double		largest = 0;
	int			variance_differs = 0;
	int			outside = 0;
	double		worst = 0;

	dp_random_init_keyed(&a, "decayed exact", 13);
	dp_random_init_keyed(&z, "decayed exact", 13);
	data = test_start_counter(&m, &a);
	zero = test_start_counter(&m, &z);
	for (int64_t t = 1; t <= steps; t++)
	{
		int64_t		x = (int64_t) dp_random_below(&rng, (uint64_t) m.max_per_step + 1);
		double		variance = reference_variance(data, t);
		double		difference;
		double		slack = data->kind->release_slack(data, t);

		dp_counter_push(data, x, &a);
		dp_counter_push(zero, 0, &z);
		decayed = decayed * m.shape + (double) x;
		if (fabs(dp_counter_noise_variance(data) - variance) > 1e-9 * variance)
			variance_differs++;
		if (variance > largest)
			largest = variance;
		difference = (double) (data->release - zero->release) / unit_value(data) - decayed;
		if (fabs(difference) > 2 * slack)
			outside++;
		if (fabs(difference) / slack > worst)
			worst = fabs(difference) / slack;
	}
	tap_ok(variance_differs == 0,
		   "%s: the noise description's variance is the reference's at each of %lld steps "
		   "(%d differ)", text, (long long) steps, variance_differs);
	tap_ok(largest <= 2 * pow(dp_scale_as_double(&data->scale) / unit_value(data), 2) *
		   (dp_counter_pan_private(data) ? 2 : 1) *
		   (dp_decayed_levels(m.shape) + 1 / (1 - pow(m.shape, 2.0 * ldexp(1, dp_decayed_levels(m.shape))))),
		   "%s: the variance stays below 2 b^2 (K + 1 / (1 - gamma^(2B))) (bounded in t)", text);
	tap_ok(outside == 0,
		   "%s: the release without noise is 2^f D_t within twice the slack at every step "
		   "(%d outside; worst %.3f of the slack)", text, outside, worst);
	free(data);
	free(zero);
}

/* the error over seeded trials: unbiased, with the described variance */
static void
test_error(const char *text)
{
	enum
	{
		TRIALS = 4000, POINTS = 4
	};
	static const int64_t points[POINTS] = {1, 37, 256, 600};
	dp_mechanism m = test_mechanism(text);
	dp_counter *counter = malloc(dp_counter_size(&m));
	double		sum[POINTS] = {0}, second[POINTS] = {0}, fourth[POINTS] = {0};
	double		expected[POINTS] = {0};
	double		unit = ldexp(1.0, dp_decayed_fraction_bits(&m));

	for (int trial = 0; trial < TRIALS; trial++)
	{
		double		truth = 0;
		int			next = 0;
		const char *field;

		dp_counter_start(counter, &m, &rng, &field);
		for (int64_t t = 1; t <= points[POINTS - 1]; t++)
		{
			int64_t		value = (int64_t) dp_random_below(&rng, (uint64_t) m.max_per_step + 1);

			dp_counter_push(counter, value, &rng);
			truth = truth * m.shape + (double) value;
			if (points[next] == t)
			{
				double		error = (double) counter->release / unit - truth;

				if (trial == 0)
					expected[next] = dp_counter_noise_variance(counter);
				sum[next] += error;
				second[next] += error * error;
				fourth[next] += error * error * error * error;
				next++;
			}
		}
	}
	for (int i = 0; i < POINTS; i++)
	{
		double		mean = sum[i] / TRIALS,
					m2 = second[i] / TRIALS,
					m4 = fourth[i] / TRIALS;
		double		spread = sqrt((m4 - m2 * m2) / TRIALS);

		tap_ok(fabs(mean) <= Z_TWO_SIDED_1E6 * sqrt(m2 / TRIALS) &&
			   fabs(m2 - expected[i]) <= Z_TWO_SIDED_1E6 * spread,
			   "%s, t = %lld: error mean %.4f, variance %.4f vs %.4f (band +-%.4f, p = 1e-6)",
			   text, (long long) points[i], mean, m2, expected[i], Z_TWO_SIDED_1E6 * spread);
	}
	free(counter);
}

/* serialize mid-block, read back, continue both: the same releases; the text form too */
static void
test_codec(const char *text, int64_t before, int64_t after)
{
	dp_mechanism m = test_mechanism(text);
	dp_counter *counter = test_start_counter(&m, &rng);
	dp_counter *copy = malloc(dp_counter_size(&m));
	dp_counter *parsed = malloc(dp_counter_size(&m));
	dp_parse_error error;
	dp_mechanism header;
	unsigned char *bytes;
	char	   *form;
	size_t		size;
	bool		same = true;
	dp_status	status;
	dp_status	text_status;
	dp_random	a,
				b;

	for (int64_t t = 1; t <= before; t++)
		dp_counter_push(counter, (int64_t) dp_random_below(&rng, (uint64_t) m.max_per_step + 1), &rng);
	size = dp_counter_serialized_size(counter);
	bytes = malloc(size);
	dp_counter_serialize(counter, bytes);
	status = dp_counter_deserialize(bytes, size, copy, dp_counter_size(&m), &error);
	form = malloc(dp_counter_text_size(counter));
	dp_counter_to_text(counter, form);
	text_status = dp_counter_parse(form, &header, NULL, 0, &error);
	if (text_status == DP_OK)
		text_status = dp_counter_parse(form, &header, parsed, dp_counter_size(&m), &error);
	tap_ok(status == DP_OK && copy->release == counter->release && copy->steps == counter->steps,
		   "%s: a state serialized after %lld steps reads back with its release", text,
		   (long long) before);
	tap_ok(text_status == DP_OK && parsed->release == counter->release &&
		   memcmp(parsed->nodes, counter->nodes, sizeof(dp_int128) * (size_t) counter->node_count) == 0,
		   "%s: its text form round-trips (%.60s...)", text, form);
	dp_random_init_keyed(&a, "decayed codec", 13);
	dp_random_init_keyed(&b, "decayed codec", 13);
	for (int64_t t = 1; status == DP_OK && t <= after; t++)
	{
		int64_t		x = (int64_t) dp_random_below(&rng, (uint64_t) m.max_per_step + 1);

		dp_counter_push(counter, x, &a);
		dp_counter_push(copy, x, &b);
		same &= counter->release == copy->release;
	}
	tap_ok(status == DP_OK && same, "%s: the copy continues with the same releases for %lld steps",
		   text, (long long) after);
	free(bytes);
	free(form);
	free(copy);
	free(parsed);
	free(counter);
}

static void
test_refusals(void)
{
	static const char *const refused[][2] = {
		{"decayed(epsilon=1,gamma=0,max_per_step=1)", "gamma"},
		{"decayed(epsilon=1,gamma=1,max_per_step=1)", "gamma"},
		{"decayed(epsilon=1,gamma=-0.5,max_per_step=1)", "gamma"},
		{"decayed(epsilon=1,gamma=0.9999995,max_per_step=1)", "gamma"},
		{"decayed(epsilon=1,gamma=nan,max_per_step=1)", "gamma"},
		{"decayed(epsilon=1,gamma=0.9,max_per_step=1,consistent=true)", "consistent"},
	};

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
	{
		dp_mechanism m;
		dp_parse_error error;
		const char *cursor = refused[i][0];
		const char *field = NULL;
		dp_status	status = dp_mechanism_parse(&cursor, &m, &error);

		if (status == DP_OK)
			status = dp_mechanism_validate(&m, &field);
		tap_ok(status != DP_OK && (field == NULL || strcmp(field, refused[i][1]) == 0),
			   "%s is refused (%s)", refused[i][0], field ? field : "by the parser");
	}
	{
		dp_mechanism m = test_mechanism("decayed(epsilon=1,gamma=0.9,max_per_step=1)");
		const char *field = NULL;
		dp_status	status;

		m.flags |= DP_FLAG_ZCDP;
		status = dp_mechanism_validate(&m, &field);
		tap_ok(status == DP_ERROR_OPTION && field != NULL && strcmp(field, "rho") == 0,
			   "decayed refuses rho-zCDP (%s)", field ? field : "-");
	}
	{
		dp_mechanism m = test_mechanism("decayed(epsilon=1,gamma=0.999,max_per_step=1)");

		tap_ok(dp_counter_kind_by_id(m.kind)->node_count(&m) == 9,
			   "decayed with gamma 0.999 keeps K + 2 = 9 nodes");
	}
}

int
main(void)
{
	dp_random_init_keyed(&rng, "test_decayed", 12);

	test_levels();
	test_mean_variance("decayed(epsilon=1,gamma=0.9,max_per_step=3)");
	test_mean_variance("decayed(epsilon=1,gamma=0.999,max_per_step=3)");
	test_mean_variance("decayed(epsilon=0.5,gamma=0.9999,max_per_step=2)");
	test_exact("decayed(epsilon=1,gamma=0.9,max_per_step=3)", 300);
	test_exact("decayed(epsilon=1,gamma=0.999,max_per_step=3)", 2000);
	test_exact("decayed(epsilon=1,gamma=0.999,max_per_step=3,pan_private=true)", 700);
	test_exact("decayed(epsilon=1,gamma=0.9999,max_per_step=1000000)", 5000);
	test_exact("decayed(epsilon=1,gamma=0.99,max_per_step=5,contributions=4)", 500);
	test_error("decayed(epsilon=1,gamma=0.9,max_per_step=3)");
	test_error("decayed(epsilon=1,gamma=0.999,max_per_step=3)");
	test_error("decayed(epsilon=1,gamma=0.999,max_per_step=3,pan_private=true)");
	test_codec("decayed(epsilon=1,gamma=0.999,max_per_step=3)", 133, 300);
	test_codec("decayed(epsilon=1,gamma=0.9,max_per_step=3)", 17, 50);
	test_codec("decayed(epsilon=1,gamma=0.9999,max_per_step=3,pan_private=true)", 5000, 200);
	test_refusals();
	return tap_done();
}

/*
 * test_statistics.c
 *		Sum, average and variance: sensitivities and budget shares written out
 *		here independently of the code, noise variances against them over
 *		seeded trials (a wrong split or sensitivity fails), exactness of the
 *		integer path, clamping, undefined estimates, error-bound coverage,
 *		stored forms and bad input.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dp_statistic.h"
#include "tap.h"
#include "test_support.h"

static dp_random rng;

#define MECH(kind_, eps_, horizon_) \
	{.kind = (kind_), .flags = 0, .epsilon = (eps_), .horizon = (horizon_), \
	 .max_per_step = 1, .block = 0}

static dp_statistic *
new_statistic(const dp_statistic_spec *spec)
{
	dp_statistic layout;
	dp_statistic *statistic;
	const char *field;

	if (dp_statistic_layout(&layout, spec, &field) != DP_OK)
	{
		printf("Bail out! could not lay out a statistic (%s)\n", field ? field : "-");
		exit(1);
	}
	statistic = malloc(dp_statistic_size(&layout));
	dp_statistic_start(statistic, &layout, &rng);
	return statistic;
}

/* width of each channel's range: the sensitivities of docs/aggregates.md */
typedef struct sensitivity_case
{
	const char *label;
	int32_t		kind;
	int32_t		domain;
	int32_t		estimator;
	double		lower;
	double		upper;
	double		widths[3];		/* count, sum, squares as present */
	int			parts;			/* how epsilon is split */
} sensitivity_case;

static const sensitivity_case sensitivity_cases[] = {
	{"sum [0,20]", DP_STATISTIC_SUM, DP_VALUES_REAL, 0, 0, 20, {20}, 1},
	{"sum [100,120] (NULL adds 0)", DP_STATISTIC_SUM, DP_VALUES_REAL, 0, 100, 120, {120}, 1},
	{"sum [-30,-10]", DP_STATISTIC_SUM, DP_VALUES_REAL, 0, -30, -10, {30}, 1},
	{"sum [-5,7] integer", DP_STATISTIC_SUM, DP_VALUES_INTEGER, 0, -5, 7, {12}, 1},
	{"average midpoint [100,120]", DP_STATISTIC_AVERAGE, DP_VALUES_REAL, DP_ESTIMATOR_MIDPOINT,
	 100, 120, {1, 20}, 2},
	{"average plain [100,120]", DP_STATISTIC_AVERAGE, DP_VALUES_REAL, DP_ESTIMATOR_PLAIN,
	 100, 120, {1, 120}, 2},
	{"average midpoint [-1e15,1e15]", DP_STATISTIC_AVERAGE, DP_VALUES_REAL, DP_ESTIMATOR_MIDPOINT,
	 -1e15, 1e15, {1, 2e15}, 2},
	{"variance [0,20]", DP_STATISTIC_VARIANCE, DP_VALUES_REAL, 0, 0, 20, {1, 20, 100}, 3},
	{"variance [3,4]", DP_STATISTIC_VARIANCE, DP_VALUES_REAL, 0, 3, 4, {1, 1, 0.25}, 3},
};

static void
test_sensitivities(void)
{
	for (size_t c = 0; c < sizeof(sensitivity_cases) / sizeof(sensitivity_cases[0]); c++)
	{
		const sensitivity_case *k = &sensitivity_cases[c];
		dp_statistic_spec spec = test_statistic_spec(k->kind, k->domain, k->estimator,
													 k->lower, k->upper,
													 (dp_mechanism) MECH(DP_MECHANISM_BINARY, 0.7, 64));
		dp_statistic layout;
		const char *field;
		double		epsilon_total = 0;
		bool		ok = dp_statistic_layout(&layout, &spec, &field) == DP_OK &&
			layout.channel_count == k->parts;

		for (int i = 0; ok && i < layout.channel_count; i++)
		{
			const dp_channel *channel = &layout.channels[i];
			double		g = ldexp(1, channel->granularity_exponent);
			double		charged = (double) channel->mechanism.max_per_step * g;

			/* charged >= width, rounding costs at most 2g, and g is fine */
			ok = ok && charged >= k->widths[i] && charged <= k->widths[i] + 2 * g &&
				(channel->role == DP_CHANNEL_COUNT || k->domain == DP_VALUES_INTEGER ||
				 g <= k->widths[i] * 0x1p-39);
			ok = ok && channel->mechanism.epsilon <= 0.7 / k->parts &&
				channel->mechanism.epsilon >= 0.7 / k->parts * (1 - 1e-15);
			epsilon_total += channel->mechanism.epsilon;
		}
		tap_ok(ok && epsilon_total <= 0.7,
			   "%s: channels charge their sensitivity within 2g, epsilon / %d each, total <= epsilon",
			   k->label, k->parts);
	}

	/* integers: granularity 1, so N is exactly the width */
	{
		dp_statistic_spec spec = test_statistic_spec(DP_STATISTIC_SUM, DP_VALUES_INTEGER, 0, -5, 7,
										 (dp_mechanism) MECH(DP_MECHANISM_BINARY, 1, 64));
		dp_statistic layout;
		const char *field;

		tap_ok(dp_statistic_layout(&layout, &spec, &field) == DP_OK &&
			   layout.channels[0].granularity_exponent == 0 &&
			   layout.channels[0].mechanism.max_per_step == 12 &&
			   layout.channels[0].base_units == -5,
			   "integer sum [-5,7]: granularity 1, N = 12, base -5");
	}
}

/*
 * The integer path is exact: the sum's release equals a bare counter fed
 * x - lower, shifted back, drawing from the same seed.
 */
static void
test_integer_path(void)
{
	dp_mechanism mechanism = MECH(DP_MECHANISM_HYBRID, 1, 0);
	dp_statistic_spec spec = test_statistic_spec(DP_STATISTIC_SUM, DP_VALUES_INTEGER, 0, -5, 7,
												 mechanism);
	dp_statistic *statistic;
	dp_mechanism bare_mechanism = mechanism;
	dp_counter *bare;
	const char *field;
	bool		same = true;
	bool		integral = true;
	static const unsigned char seed[] = "integer path";

	bare_mechanism.max_per_step = 12;
	dp_random_init_keyed(&rng, seed, sizeof(seed) - 1);
	statistic = new_statistic(&spec);
	dp_random_init_keyed(&rng, seed, sizeof(seed) - 1);
	bare = malloc(dp_counter_size(&bare_mechanism));
	dp_counter_start(bare, &bare_mechanism, &rng, &field);

	/* two streams from one seed cannot interleave: run them one after the other */
	{
		dp_random	rng_statistic;
		dp_random	rng_bare;
		int64_t		sums[300];

		dp_random_init_keyed(&rng_statistic, "stream", 6);
		dp_random_init_keyed(&rng_bare, "stream", 6);
		for (int t = 0; t < 300; t++)
		{
			int64_t		x = (t * 7919) % 23 - 11;	/* -11 .. 11, some clamped */
			double		estimate;

			dp_statistic_push_integer(statistic, t % 5 != 0, x, &rng_statistic);
			dp_statistic_estimate(statistic, DP_ESTIMATE_SUM, &estimate);
			integral = integral && estimate == floor(estimate);
			dp_statistic_integer_sum(statistic, &sums[t]);
			dp_counter_push(bare, t % 5 != 0 ? (x < -5 ? -5 : x > 7 ? 7 : x) + 5 : 5, &rng_bare);
			same = same && sums[t] == dp_counter_release(bare) - 5 * (t + 1);
		}
	}
	tap_ok(same, "integer sum equals a bare counter of x - lower, shifted back, at all 300 steps");
	tap_ok(integral, "integer sums are integers");
	free(statistic);
	free(bare);
}

/* sample variance of errors against sigma^2, band from the fourth moment, p = 1e-6 */
static void
check_variance(const char *label, const double *errors, int n, double sigma2, double kurtosis)
{
	double		mean = 0;
	double		s2 = 0;
	double		band;

	for (int i = 0; i < n; i++)
		mean += errors[i];
	mean /= n;
	for (int i = 0; i < n; i++)
		s2 += (errors[i] - mean) * (errors[i] - mean);
	s2 /= n - 1;
	band = Z_TWO_SIDED_1E6 * sigma2 * sqrt((kurtosis - 1) / n);
	tap_ok(fabs(s2 - sigma2) <= band && fabs(mean) <= Z_TWO_SIDED_1E6 * sqrt(sigma2 / n),
		   "%s: error variance %.6g vs %.6g (band %.3g), mean %.3g", label, s2, sigma2, band, mean);
}

/*
 * Binary, T = 64, checked at t = 63: six nodes of scale 7 * width / share
 * per channel.  Continuous-Laplace moments are exact to 1e-20 relative for
 * the real channels (scales of 2^40 units); the count uses the exact
 * discrete moments.
 */
#define TRIALS 20000
#define STEPS 63

static void
test_noise_of_channels(void)
{
	static const struct
	{
		const char *label;
		int32_t		kind;
		int32_t		estimator;
		double		widths[3];
		int			parts;
	}			cases[] = {
		{"sum [0,20]", DP_STATISTIC_SUM, 0, {20}, 1},
		{"average midpoint [0,20]", DP_STATISTIC_AVERAGE, DP_ESTIMATOR_MIDPOINT, {1, 20}, 2},
		{"average plain [100,120]", DP_STATISTIC_AVERAGE, DP_ESTIMATOR_PLAIN, {1, 120}, 2},
		{"variance [0,20]", DP_STATISTIC_VARIANCE, 0, {1, 20, 100}, 3},
	};
	double	   *errors = malloc(sizeof(double) * TRIALS * 3);

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
	{
		double		lower = cases[c].estimator == DP_ESTIMATOR_PLAIN ? 100 : 0;
		dp_statistic_spec spec = test_statistic_spec(cases[c].kind, DP_VALUES_REAL, cases[c].estimator,
										 lower, lower + 20,
										 (dp_mechanism) MECH(DP_MECHANISM_BINARY, 1.0, 64));
		int			parts = cases[c].parts;
		double		m = lower + 10;

		for (int trial = 0; trial < TRIALS; trial++)
		{
			dp_statistic *statistic = new_statistic(&spec);
			double		truth[3] = {0, 0, 0};

			for (int t = 1; t <= STEPS; t++)
			{
				bool		observed = t % 4 != 0;
				double		x = lower + fmod(t * 2.718281828, 21.0);	/* some above upper */
				double		clamped = fmin(x, lower + 20);
				double		y = parts == 1 || cases[c].estimator == DP_ESTIMATOR_PLAIN ?
					clamped : clamped - m;

				dp_statistic_push(statistic, observed, x, &rng);
				if (observed)
				{
					if (parts == 1)
						truth[0] += y;
					else
					{
						truth[0] += 1;
						truth[1] += y;
						if (parts == 3)
							truth[2] += y * y;
					}
				}
			}
			for (int i = 0; i < parts; i++)
				errors[i * TRIALS + trial] = dp_statistic_channel_estimate(statistic, i) - truth[i];
			free(statistic);
		}
		for (int i = 0; i < parts; i++)
		{
			double		share = 1.0 / parts;
			double		b = 7 * cases[c].widths[i] / share;
			double		sigma2;
			double		kurtosis;
			char		label[128];

			if (parts > 1 && i == 0)
			{
				double		variance;
				double		fourth;

				discrete_laplace_moments(b, &variance, &fourth);
				/* sum of 6 iid: kurtosis 3 + (k1 - 3) / 6 */
				sigma2 = 6 * variance;
				kurtosis = 3 + (fourth / (variance * variance) - 3) / 6;
			}
			else
			{
				sigma2 = 6 * 2 * b * b;
				kurtosis = 3 + 3.0 / 6;
			}
			snprintf(label, sizeof(label), "%s, %s channel at epsilon/%d", cases[c].label,
					 i == 0 && parts > 1 ? "count" : (i == 2 ? "squares" : "sum"), parts);
			check_variance(label, errors + i * TRIALS, TRIALS, sigma2, kurtosis);
		}
	}
	free(errors);
}

/*
 * With tiny epsilon the raw ratios fall far outside the bounds: every
 * estimate must still be inside them, and undefined below a count of 1 (2).
 */
static void
test_clamping(void)
{
	dp_statistic_spec spec = test_statistic_spec(DP_STATISTIC_VARIANCE, DP_VALUES_REAL, 0, 2, 6,
									 (dp_mechanism) MECH(DP_MECHANISM_HYBRID, 0.05, 0));
	dp_statistic_spec average_spec = test_statistic_spec(DP_STATISTIC_AVERAGE, DP_VALUES_REAL,
											 DP_ESTIMATOR_PLAIN, 2, 6,
											 (dp_mechanism) MECH(DP_MECHANISM_HYBRID, 0.05, 0));
	int			inside = 1;
	int			undefined_right = 1;
	int			at_bounds = 0;
	int			undefined = 0;
	int			defined = 0;

	for (int trial = 0; trial < 300; trial++)
	{
		dp_statistic *variance = new_statistic(&spec);
		dp_statistic *average = new_statistic(&average_spec);

		for (int t = 1; t <= 40; t++)
		{
			double		x = 1 + (t * 37 % 7);	/* 1 .. 7, clamped to [2, 6] */
			double		count;
			double		value;
			bool		have;

			dp_statistic_push(variance, t % 3 != 0, x, &rng);
			dp_statistic_push(average, t % 3 != 0, x, &rng);
			dp_statistic_estimate(variance, DP_ESTIMATE_COUNT, &count);

			for (int which = 0; which < 2; which++)
			{
				have = dp_statistic_estimate(which ? average : variance, DP_ESTIMATE_AVERAGE, &value);
				undefined_right &= have == (count >= 1) || which;
				if (have)
				{
					inside &= value >= 2 && value <= 6;
					at_bounds += value == 2 || value == 6;
				}
			}
			have = dp_statistic_estimate(variance, DP_ESTIMATE_VAR_POP, &value);
			undefined_right &= have == (count >= 1);
			if (have)
			{
				inside &= value >= 0 && value <= 4;
				at_bounds += value == 0 || value == 4;
				defined++;
			}
			else
				undefined++;
			have = dp_statistic_estimate(variance, DP_ESTIMATE_VAR_SAMP, &value);
			undefined_right &= have == (count >= 2);
			if (have)
				inside &= value >= 0 && value <= 4 * count / (count - 1) + 1e-12;
			have = dp_statistic_estimate(variance, DP_ESTIMATE_STDDEV_POP, &value);
			if (have)
				inside &= value >= 0 && value <= 2;
		}
		free(variance);
		free(average);
	}
	tap_ok(inside, "averages stay in [lower, upper], variances in [0, h^2] (sample: h^2 c/(c-1))");
	tap_ok(undefined_right, "undefined exactly when the noisy count is below 1 (sample: 2)");
	tap_ok(at_bounds > 100 && undefined > 100 && defined > 100,
		   "the check is not vacuous: %d estimates at a bound, %d undefined, %d defined",
		   at_bounds, undefined, defined);
}

/* With little noise the estimates come close to the truth (both estimators). */
static void
test_estimates(void)
{
	double		bounds[2];

	for (int estimator = DP_ESTIMATOR_MIDPOINT; estimator <= DP_ESTIMATOR_PLAIN; estimator++)
	{
		dp_statistic_spec spec = test_statistic_spec(DP_STATISTIC_AVERAGE, DP_VALUES_REAL,
													 estimator, 100, 120,
										 (dp_mechanism) MECH(DP_MECHANISM_BINARY, 100, 1024));
		dp_statistic *statistic = new_statistic(&spec);
		double		sum = 0;
		double		average;
		double		bound;

		for (int t = 1; t <= 1000; t++)
		{
			double		x = 100 + (t % 21);

			dp_statistic_push(statistic, true, x, &rng);
			sum += fmin(x, 120);
		}
		dp_statistic_estimate(statistic, DP_ESTIMATE_AVERAGE, &average);
		dp_statistic_error_bound(statistic, 0.999999, &bound);
		tap_ok(fabs(average - sum / 1000) <= bound,
			   "%s average at epsilon 100: %.6f vs %.6f, within its bound %.4f",
			   estimator == DP_ESTIMATOR_PLAIN ? "plain" : "midpoint", average, sum / 1000, bound);
		bounds[estimator] = bound;
		free(statistic);
	}

	/* [100, 120]: the midpoint sum has sensitivity 20, the plain one 120 */
	tap_ok(bounds[DP_ESTIMATOR_MIDPOINT] < bounds[DP_ESTIMATOR_PLAIN] / 4,
		   "far from zero the midpoint estimator's bound is the tighter: %.4f vs %.4f",
		   bounds[DP_ESTIMATOR_MIDPOINT], bounds[DP_ESTIMATOR_PLAIN]);

	/* variance of 0..20 uniform-ish values */
	{
		dp_statistic_spec spec = test_statistic_spec(DP_STATISTIC_VARIANCE, DP_VALUES_REAL, 0, 0, 20,
										 (dp_mechanism) MECH(DP_MECHANISM_TWO_LEVEL, 100, 4096));
		dp_statistic *statistic;
		double		sum = 0;
		double		squares = 0;
		double		pop;
		double		samp;
		double		sd;
		int			n = 4000;

		spec.mechanism.block = 64;
		statistic = new_statistic(&spec);
		for (int t = 0; t < n; t++)
		{
			double		x = (t * 13) % 21;

			dp_statistic_push(statistic, true, x, &rng);
			sum += x;
			squares += x * x;
		}
		dp_statistic_estimate(statistic, DP_ESTIMATE_VAR_POP, &pop);
		dp_statistic_estimate(statistic, DP_ESTIMATE_VAR_SAMP, &samp);
		dp_statistic_estimate(statistic, DP_ESTIMATE_STDDEV_SAMP, &sd);
		{
			double		truth = squares / n - (sum / n) * (sum / n);

			tap_ok(fabs(pop - truth) < 0.05 && fabs(samp - truth * n / (n - 1)) < 0.05 &&
				   fabs(sd - sqrt(samp)) < 1e-12,
				   "variance at epsilon 100: population %.4f vs %.4f, sample %.4f, stddev = sqrt",
				   pop, truth, samp);
		}
		free(statistic);
	}
}

/* Coverage of the sum's exact bound and the average's union bound at 90%. */
#define STREAM 1000
static void
test_error_bounds(void)
{
	int			n = 4000;
	int			sum_misses = 0;
	int			average_misses = 0;
	int			undefined = 0;
	dp_statistic_spec sum_spec = test_statistic_spec(DP_STATISTIC_SUM, DP_VALUES_REAL, 0, 0, 5,
										 (dp_mechanism) MECH(DP_MECHANISM_BINARY, 1, 1024));
	dp_statistic_spec average_spec = test_statistic_spec(DP_STATISTIC_AVERAGE, DP_VALUES_REAL, 0, 0, 5,
											 (dp_mechanism) MECH(DP_MECHANISM_BINARY, 1, 1024));

	for (int trial = 0; trial < n; trial++)
	{
		dp_statistic *sum = new_statistic(&sum_spec);
		dp_statistic *average = new_statistic(&average_spec);
		double		truth = 0;
		double		estimate;
		double		bound;

		for (int t = 1; t <= STREAM; t++)
		{
			double		x = (t * 3) % 6;

			dp_statistic_push(sum, true, x, &rng);
			dp_statistic_push(average, true, x, &rng);
			truth += fmin(x, 5);
		}
		dp_statistic_estimate(sum, DP_ESTIMATE_SUM, &estimate);
		dp_statistic_error_bound(sum, 0.9, &bound);
		sum_misses += fabs(estimate - truth) > bound;
		if (dp_statistic_estimate(average, DP_ESTIMATE_AVERAGE, &estimate) &&
			dp_statistic_error_bound(average, 0.9, &bound))
			average_misses += fabs(estimate - truth / STREAM) > bound;
		else
			undefined++;
		free(sum);
		free(average);
	}
	{
		double		se = sqrt(0.1 * 0.9 / n);
		double		sum_rate = (double) sum_misses / n;
		double		average_rate = (double) average_misses / n;

		tap_ok(fabs(sum_rate - 0.1) <= Z_TWO_SIDED_1E6 * se,
			   "sum bound at 90%% misses %.4f of the time (exact: 0.1 +- %.4f)", sum_rate,
			   Z_TWO_SIDED_1E6 * se);
		/* both noises inside their bounds and the estimate defined imply coverage */
		tap_ok(average_rate <= 0.1 + Z_ONE_SIDED_1E6 * se && undefined == 0,
			   "average bound at 90%% misses %.4f of the time (at most 0.1), %d undefined",
			   average_rate, undefined);
	}
}

static bool
same_releases(dp_statistic *a, dp_statistic *b)
{
	for (int i = 0; i < a->channel_count; i++)
		if (dp_counter_release_wide(dp_statistic_counter(a, i)) !=
			dp_counter_release_wide(dp_statistic_counter(b, i)))
			return false;
	return dp_statistic_steps(a) == dp_statistic_steps(b);
}

/* Store, load and continue: the loaded state goes on exactly like the original. */
static void
test_stored_forms(void)
{
	dp_mechanism pan = MECH(DP_MECHANISM_TWO_LEVEL, 1, 100);
	dp_statistic_spec specs[3];

	pan.block = 10;
	pan.flags = DP_FLAG_PAN_PRIVATE | DP_FLAG_CONSISTENT;
	specs[0] = test_statistic_spec(DP_STATISTIC_SUM, DP_VALUES_INTEGER, 0, -3, 9, pan);
	specs[1] = test_statistic_spec(DP_STATISTIC_AVERAGE, DP_VALUES_REAL, DP_ESTIMATOR_PLAIN, 0.5, 1e15,
					   (dp_mechanism) MECH(DP_MECHANISM_HYBRID, 0.3, 0));
	specs[2] = test_statistic_spec(DP_STATISTIC_VARIANCE, DP_VALUES_REAL, 0, -1e15, -1e14,
					   (dp_mechanism) MECH(DP_MECHANISM_BINARY, 2, 100));

	for (int s = 0; s < 3; s++)
	{
		dp_statistic *original = new_statistic(&specs[s]);
		bool		binary_ok = true;
		bool		text_ok = true;

		for (int t = 1; t <= 60; t++)
		{
			size_t		length;
			unsigned char *bytes;
			char	   *text;
			dp_statistic layout;
			dp_statistic *from_bytes;
			dp_statistic *from_text;
			dp_parse_error error;
			dp_random	copy;

			dp_statistic_push(original, t % 7 != 0, t * 1e13 - 5e14, &rng);
			length = dp_statistic_serialized_size(original);
			bytes = malloc(length);
			dp_statistic_serialize(original, bytes);
			text = malloc(dp_statistic_text_size(original));
			dp_statistic_to_text(original, text);

			binary_ok &= dp_statistic_peek(bytes, length, &layout, &error) == DP_OK;
			from_bytes = malloc(dp_statistic_size(&layout));
			binary_ok &= dp_statistic_deserialize(bytes, length, from_bytes,
												  dp_statistic_size(&layout), &error) == DP_OK;
			text_ok &= dp_statistic_parse(text, &layout, NULL, 0, &error) == DP_OK;
			from_text = malloc(dp_statistic_size(&layout));
			text_ok &= dp_statistic_parse(text, &layout, from_text, dp_statistic_size(&layout),
										  &error) == DP_OK;
			if (!text_ok)
				tap_diag("%s: %s in %s", error.field, error.problem, text);

			/* continue all three from one random state */
			copy = rng;
			dp_statistic_push(original, true, 7, &rng);
			{
				dp_random	second = copy;

				dp_statistic_push(from_bytes, true, 7, &copy);
				dp_statistic_push(from_text, true, 7, &second);
			}
			binary_ok &= same_releases(original, from_bytes);
			text_ok &= same_releases(original, from_text);
			free(bytes);
			free(text);
			free(from_bytes);
			free(from_text);
		}
		tap_ok(binary_ok, "%s: binary form round-trips and continues identically",
			   dp_statistic_kind_name(specs[s].kind));
		tap_ok(text_ok, "%s: text form round-trips and continues identically",
			   dp_statistic_kind_name(specs[s].kind));
		free(original);
	}

	/* a state whose counters do not match its bounds is refused */
	{
		dp_statistic *statistic = new_statistic(&specs[2]);
		char	   *text = malloc(dp_statistic_text_size(statistic));
		char	   *at;
		dp_statistic layout;
		dp_statistic *parsed;
		dp_parse_error error;
		dp_status	status;

		dp_statistic_to_text(statistic, text);
		at = strstr(text, "upper=-100000000000000");
		memcpy(at, "upper=-200000000000000", 22);
		dp_statistic_parse(text, &layout, NULL, 0, &error);
		parsed = malloc(dp_statistic_size(&layout));
		status = dp_statistic_parse(text, &layout, parsed, dp_statistic_size(&layout), &error);
		tap_ok(status == DP_ERROR_FORMAT && strcmp(error.field, "sum") == 0,
			   "changed bounds with the old counters are refused (field %s)", error.field);
		free(parsed);
		free(text);
		free(statistic);
	}
}

static void
test_bad_input(void)
{
	static const struct
	{
		double		lower;
		double		upper;
		int32_t		domain;
		int64_t		max_per_step;
		const char *field;
		dp_status	status;
	}			cases[] = {
		{5, 5, DP_VALUES_REAL, 1, "bounds", DP_ERROR_BOUNDS},
		{6, 5, DP_VALUES_REAL, 1, "bounds", DP_ERROR_BOUNDS},
		{NAN, 5, DP_VALUES_REAL, 1, "lower", DP_ERROR_BOUNDS},
		{0, INFINITY, DP_VALUES_REAL, 1, "upper", DP_ERROR_BOUNDS},
		{-INFINITY, 0, DP_VALUES_REAL, 1, "lower", DP_ERROR_BOUNDS},
		{0, 1e16, DP_VALUES_REAL, 1, "upper", DP_ERROR_BOUNDS},
		{0.5, 5, DP_VALUES_INTEGER, 1, "values", DP_ERROR_BOUNDS},
		{0, 5, DP_VALUES_REAL, 3, "max_per_step", DP_ERROR_MAX_PER_STEP},
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
	{
		dp_mechanism mechanism = MECH(DP_MECHANISM_BINARY, 1, 64);
		dp_statistic_spec spec;
		dp_statistic layout;
		const char *field = NULL;
		dp_status	status;

		mechanism.max_per_step = cases[c].max_per_step;
		spec = test_statistic_spec(DP_STATISTIC_SUM, cases[c].domain, 0, cases[c].lower, cases[c].upper,
					   mechanism);
		status = dp_statistic_layout(&layout, &spec, &field);
		tap_ok(status == cases[c].status && field && strcmp(field, cases[c].field) == 0,
			   "bounds [%g, %g] refused on field %s", cases[c].lower, cases[c].upper,
			   cases[c].field);
	}

	/* epsilon / 3 below the smallest epsilon */
	{
		dp_statistic_spec spec = test_statistic_spec(DP_STATISTIC_VARIANCE, DP_VALUES_REAL, 0, 0, 1,
										 (dp_mechanism) MECH(DP_MECHANISM_BINARY, 0x1p-40, 64));
		dp_statistic layout;
		const char *field = NULL;

		tap_ok(dp_statistic_layout(&layout, &spec, &field) == DP_ERROR_EPSILON,
			   "a variance at the smallest epsilon is refused: its thirds are too small");
	}

	/* NaN values are steps without an observation, infinities are clamped */
	{
		dp_statistic_spec spec = test_statistic_spec(DP_STATISTIC_AVERAGE, DP_VALUES_REAL, 0, 0, 10,
										 (dp_mechanism) MECH(DP_MECHANISM_BINARY, 100, 4));
		dp_statistic *statistic = new_statistic(&spec);
		double		count;
		double		average;
		double		bound;

		dp_statistic_push(statistic, true, NAN, &rng);
		dp_statistic_push(statistic, true, INFINITY, &rng);
		dp_statistic_push(statistic, true, -INFINITY, &rng);
		dp_statistic_estimate(statistic, DP_ESTIMATE_COUNT, &count);
		dp_statistic_estimate(statistic, DP_ESTIMATE_AVERAGE, &average);
		dp_statistic_error_bound(statistic, 0.999999, &bound);
		/* the count's noise has scale 3 / 50: it is 0 with probability 1 - 1e-7 */
		tap_ok(count == 2 && fabs(average - 5) <= bound,
			   "NaN is no observation, +-Infinity clamp: count %.0f, average %.3f (bound %.3f)",
			   count, average, bound);
		free(statistic);
	}
}

int
main(void)
{
	static const unsigned char seed[] = "dp_stream statistics";

	dp_random_init_keyed(&rng, seed, sizeof(seed) - 1);
	test_sensitivities();
	test_integer_path();
	test_bad_input();
	test_clamping();
	test_estimates();
	test_error_bounds();
	test_stored_forms();
	test_noise_of_channels();
	return tap_done();
}

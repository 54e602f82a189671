/*
 * fuzz_parameters.c
 *		Mechanism and statistic parameters taken as raw fields from the
 *		input, past every parser: dp_mechanism_validate, dp_statistic_layout,
 *		then for a valid mechanism a counter (start, up to 64 pushes,
 *		releases, bounds, both stored forms read back), for a valid layout a
 *		statistic (the same, every estimate), dp_default_block for any
 *		horizon, the noise helpers (scales, half-widths of one or two
 *		groups, the exact tail, one draw, the granularity method) on scales
 *		and term counts from the input, and randomized response.
 *
 * Input layout (little-endian, missing bytes read as zero):
 *   0  i8  mechanism kind      44 f64 confidence
 *   1  u8  flags               52 f64 lower
 *   2  f64 epsilon             60 f64 upper
 *   10 i64 horizon             68 i8 statistic kind, 69 i8 domain,
 *   18 i64 max_per_step        70 i8 estimator, 71 i8 noise group count
 *   26 i64 block               72 i64 terms[0], 80 i64 terms[1]
 *   34 u16 pushes (mod 65)     88 u64 sensitivity[0], 96 u64 sensitivity[1]
 *   36 i64 steps               104 i16 values, one per push
 * A kind with a real parameter (dp_mechanism.shape) takes it from the
 * upper field (60); the others keep 0.
 */
#include "fuzz_counter_common.h"
#include "fuzz_statistic_common.h"

#include "dp_counter.h"
#include "dp_mechanism.h"
#include "dp_noise.h"
#include "dp_noise_sum.h"
#include "dp_randomized_response.h"
#include "dp_statistic.h"

#define MAX_PUSHES 64

typedef struct reader
{
	const uint8_t *data;
	size_t		left;
} reader;

static uint64_t
read_bytes(reader *r, int count)
{
	uint64_t	value = 0;

	for (int i = 0; i < count; i++)
	{
		uint64_t	byte = 0;

		if (r->left > 0)
		{
			byte = *r->data++;
			r->left--;
		}
		value |= byte << (8 * i);
	}
	return value;
}

static double
read_f64(reader *r)
{
	uint64_t	bits = read_bytes(r, 8);
	double		value;

	memcpy(&value, &bits, sizeof(value));
	return value;
}

static bool
valid_confidence(double confidence)
{
	return confidence > 0 && confidence < 1;
}

/* ceil(sqrt(horizon)) for horizon >= 1, checked in 128-bit arithmetic */
static void
check_default_block(int64_t horizon)
{
	int64_t		block = dp_default_block(horizon);

	if (horizon >= 1)
	{
		FUZZ_CHECK(block >= 1);
		FUZZ_CHECK((__int128) block * block >= horizon);
		FUZZ_CHECK((__int128) (block - 1) * (block - 1) < horizon);
	}
}

static void
exercise_counter(const dp_mechanism *mechanism, const int16_t *values, int pushes,
				 double confidence)
{
	size_t		bytes = dp_counter_size(mechanism);
	dp_counter *counter = fuzz_alloc(bytes);
	dp_random	rng;
	const char *field;
	bool		consistent = (mechanism->flags & DP_FLAG_CONSISTENT) != 0;

	fuzz_rng(&rng);
	/* a count needs a stated step bound (0.14.0): refused, and nothing else to do */
	if (!dp_mechanism_step_bound_stated(mechanism))
	{
		FUZZ_CHECK(dp_counter_start(counter, mechanism, &rng, &field) ==
				   DP_ERROR_STEP_BOUND_UNSTATED);
		free(counter);
		return;
	}
	FUZZ_CHECK(dp_counter_start(counter, mechanism, &rng, &field) == DP_OK);
	FUZZ_CHECK(dp_counter_size(&counter->mechanism) <= bytes);
	for (int i = 0; i < pushes; i++)
	{
		int64_t		steps = counter->steps;
		dp_int128	before = dp_counter_release_wide(counter);
		int64_t		value = (int64_t) values[i] * (mechanism->max_per_step / 1024 + 1);
		dp_status	status = dp_counter_push(counter, value, &rng);

		if (status == DP_ERROR_HORIZON_EXCEEDED)
			FUZZ_CHECK(counter->steps == steps);
		if (status != DP_OK)
			break;				/* the horizon, or a refusal: both normal */
		FUZZ_CHECK(counter->steps == steps + 1);
		if (consistent)
		{
			dp_int128	increase = dp_counter_release_wide(counter) - before;

			FUZZ_CHECK(increase >= 0 && increase <= mechanism->max_per_step);
		}
	}
	(void) dp_counter_release(counter);
	(void) dp_counter_noise_variance(counter);
	FUZZ_CHECK(dp_counter_error_bound(counter, 0.9) >= 0);
	if (valid_confidence(confidence))
	{
		FUZZ_CHECK(dp_counter_error_bound(counter, confidence) >= 0);
		FUZZ_CHECK(dp_counter_error_bound_missing(counter, confidence) >= 0);
	}
	else
	{
		(void) dp_counter_error_bound(counter, confidence);
		(void) dp_counter_error_bound_missing(counter, confidence);
	}

	/* a genuine state is storable, and both forms read back to the same state */
	FUZZ_CHECK(dp_counter_check_storable(counter) == DP_OK);
	free(fuzz_counter_round_trip(counter));
	free(counter);
}

static void
exercise_statistic(const dp_statistic *layout, const int16_t *values, int pushes,
				   double confidence)
{
	size_t		bytes = dp_statistic_size(layout);
	dp_statistic *statistic = fuzz_alloc(bytes);
	const dp_statistic_spec *spec = &layout->spec;
	double		width = spec->upper - spec->lower;
	dp_random	rng;
	double		estimate;
	double		bound;
	int64_t		sum;

	fuzz_rng(&rng);
	dp_statistic_start(statistic, layout, &rng);
	for (int i = 0; i < pushes; i++)
	{
		int16_t		v = values[i];
		bool		observed = v % 7 != 0;
		double		x = v == INT16_MIN ? NAN : v == INT16_MAX ? INFINITY :
			v == INT16_MIN + 1 ? -INFINITY : spec->lower + width * (v / 8192.0);
		dp_status	status;

		if (spec->domain == DP_VALUES_INTEGER && (v & 1))
			status = dp_statistic_push_integer(statistic, observed,
											   isfinite(x) ? (int64_t) x : v < 0 ? INT64_MIN : INT64_MAX,
											   &rng);
		else
			status = dp_statistic_push(statistic, observed, x, &rng);
		if (status != DP_OK)
			break;
	}
	for (int what = DP_ESTIMATE_SUM; what <= DP_ESTIMATE_STDDEV_SAMP; what++)
		if (dp_statistic_provides(statistic, (dp_estimate_kind) what) &&
			dp_statistic_estimate(statistic, (dp_estimate_kind) what, &estimate))
			FUZZ_CHECK(!isnan(estimate));
	if (dp_statistic_error_bound(statistic, confidence, &bound) && valid_confidence(confidence))
		FUZZ_CHECK(bound >= 0);
	(void) dp_statistic_integer_sum(statistic, &sum);

	FUZZ_CHECK(dp_statistic_check_storable(statistic) == DP_OK);
	free(fuzz_statistic_round_trip(statistic));
	free(statistic);
}

/*
 * Two groups with terms, one of them beyond DP_EXACT_TERMS_MAX: the exact
 * two-group form does not reach that far and the expansion covers one
 * group only, so the half-width is NaN by design.  Three groups (the third
 * repeats the second's scale) may also leave the Chernoff bound's range of
 * 2^62 terms per group: NaN, never a negative width, is the answer then.
 */
static bool
half_width_uncovered(const dp_noise_group *groups, int count)
{
	int			positive = 0;
	bool		large = false;

	if (count >= 3)
		return true;
	for (int i = 0; i < count && i < 2; i++)
		if (groups[i].terms > 0)
		{
			positive++;
			large |= groups[i].terms > DP_EXACT_TERMS_MAX;
		}
	return positive == 2 && large;
}

static void
exercise_noise(const int64_t *terms, const uint64_t *sensitivity, int count, double epsilon,
			   double confidence, double threshold, double value)
{
	dp_noise_group groups[DP_NOISE_GROUPS_MAX + 1];
	dp_random	rng;
	double		noisy;
	int			exact_terms = (int) (int16_t) terms[0];

	memset(groups, 0, sizeof(groups));
	for (int i = 0; i < 2; i++)
	{
		if (dp_scale_for(sensitivity[i], epsilon, &groups[i].scale) != DP_SCALE_OK)
			return;
		FUZZ_CHECK(groups[i].scale.denominator != 0 && groups[i].scale.numerator != 0);
		FUZZ_CHECK(dp_scale_as_double(&groups[i].scale) > 0);
		groups[i].terms = terms[i];
		groups[i].weight = 1.0;
	}
	groups[2] = groups[1];

	{
		double		width = dp_noise_sum_half_width(groups, count, confidence);

		if (valid_confidence(confidence) && count <= DP_NOISE_GROUPS_MAX &&
			!half_width_uncovered(groups, count))
			FUZZ_CHECK(width >= 0);
		FUZZ_CHECK(!(width < 0));
	}
	{
		/* the same with the miss probability given directly (here: the confidence bits) */
		double		width = dp_noise_sum_half_width_missing(groups, count, confidence);

		if (confidence > 0 && confidence <= 1 && count <= DP_NOISE_GROUPS_MAX &&
			!half_width_uncovered(groups, count))
			FUZZ_CHECK(width >= 0);
	}
	if (count >= 0 && count <= DP_NOISE_GROUPS_MAX)
		FUZZ_CHECK(!isnan(dp_noise_sum_variance(groups, count)));

	{
		double		width = dp_discrete_laplace_sum_half_width(&groups[0].scale, exact_terms,
															   confidence);

		if (valid_confidence(confidence) && exact_terms <= DP_EXACT_TERMS_MAX)
			FUZZ_CHECK(width >= 0);
	}
	{
		double		tail = dp_discrete_laplace_sum_upper_tail(&groups[0].scale, exact_terms,
															  threshold);

		if (exact_terms >= 0 && exact_terms <= DP_EXACT_TERMS_MAX && !isnan(threshold))
			FUZZ_CHECK(tail >= 0 && tail <= 1);
	}
	if (terms[1] > 0 && valid_confidence(confidence))
		FUZZ_CHECK(dp_noise_sum_half_width_expansion(&groups[1].scale, terms[1], confidence) >= 0);

	fuzz_rng(&rng);
	(void) dp_discrete_laplace(&rng, &groups[0].scale);
	(void) dp_discrete_laplace_variance(&groups[0].scale);
	if (dp_real_laplace(&rng, value, (double) sensitivity[1], epsilon, &noisy) == 0)
		FUZZ_CHECK(isfinite(noisy));
}

/* randomized response: the epsilon actually used, one report, the estimate */
static void
exercise_randomized_response(double epsilon, const int64_t *terms)
{
	dp_random	rng;
	double		used;

	fuzz_rng(&rng);
	if (dp_rr_epsilon(epsilon, &used) == DP_OK)
	{
		double		keep = dp_rr_keep_probability(used);
		double		estimate;
		double		deviation;
		int			bit = dp_randomized_response(&rng, (int) (terms[0] & 1), epsilon);

		FUZZ_CHECK(used > 0 && used <= epsilon);
		FUZZ_CHECK(keep >= 0.5 && keep <= 1);
		FUZZ_CHECK(bit == 0 || bit == 1);
		dp_rr_estimate(terms[0], terms[1], used, &estimate, &deviation);
	}
	else
		FUZZ_CHECK(dp_randomized_response(&rng, 1, epsilon) == -1);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	reader		r = {data, size};
	dp_mechanism mechanism;
	dp_statistic_spec spec;
	dp_statistic layout;
	const char *field;
	int			pushes;
	int64_t		steps;
	double		confidence;
	int			group_count;
	int64_t		terms[2];
	uint64_t	sensitivity[2];
	int16_t		values[MAX_PUSHES];

	memset(&mechanism, 0, sizeof(mechanism));
	memset(&spec, 0, sizeof(spec));
	mechanism.kind = (int8_t) read_bytes(&r, 1);
	mechanism.flags = (uint32_t) read_bytes(&r, 1);
	mechanism.epsilon = read_f64(&r);
	mechanism.horizon = (int64_t) read_bytes(&r, 8);
	mechanism.max_per_step = (int64_t) read_bytes(&r, 8);
	mechanism.block = (int64_t) read_bytes(&r, 8);
	pushes = (int) (read_bytes(&r, 2) % (MAX_PUSHES + 1));
	steps = (int64_t) read_bytes(&r, 8);
	confidence = read_f64(&r);
	spec.lower = read_f64(&r);
	spec.upper = read_f64(&r);
	if (dp_counter_kind_by_id(mechanism.kind) && dp_counter_kind_by_id(mechanism.kind)->shape_name)
		mechanism.shape = spec.upper;
	spec.kind = (int8_t) read_bytes(&r, 1);
	spec.domain = (int8_t) read_bytes(&r, 1);
	spec.estimator = (int8_t) read_bytes(&r, 1);
	group_count = (int8_t) read_bytes(&r, 1);
	terms[0] = (int64_t) read_bytes(&r, 8);
	terms[1] = (int64_t) read_bytes(&r, 8);
	sensitivity[0] = read_bytes(&r, 8);
	sensitivity[1] = read_bytes(&r, 8);
	for (int i = 0; i < MAX_PUSHES; i++)
		values[i] = (int16_t) read_bytes(&r, 2);
	spec.mechanism = mechanism;

	check_default_block(mechanism.horizon);
	check_default_block(mechanism.block);

	if (dp_mechanism_validate(&mechanism, &field) == DP_OK)
	{
		double		bound = -1;

		if (dp_mechanism_error_bound(&mechanism, steps, confidence, &bound, &field) == DP_OK &&
			valid_confidence(confidence))
			FUZZ_CHECK(bound >= 0);
		exercise_counter(&mechanism, values, pushes, confidence);
	}
	if (dp_statistic_layout(&layout, &spec, &field) == DP_OK)
		exercise_statistic(&layout, values, pushes, confidence);

	exercise_randomized_response(mechanism.epsilon, terms);
	exercise_noise(terms, sensitivity, group_count, mechanism.epsilon, confidence,
				   spec.upper, spec.lower);
	return 0;
}

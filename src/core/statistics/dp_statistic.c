/*
 * dp_statistic.c
 *		Sum, average and variance as post-processing of one to three counters.
 *
 * Sensitivities under the neighbour relation of dp_statistic.h, with
 * h = (upper - lower) / 2 and m = lower + h:
 *
 *   count of observations          1 (an observation appears or vanishes)
 *   sum of x, NULL adding 0        max(upper, 0) - min(lower, 0)
 *   sum of x - m, NULL adding 0    2h = upper - lower (a value change; an
 *                                  observation appearing moves it by <= h)
 *   sum of (x - m)^2               h^2
 *
 * Each is the width of the channel's range [low, high], which always holds
 * 0, the contribution of a step without an observation.  Rounding to the
 * grid of g can move a value by less than g, so the counter is calibrated
 * to N = ceil(high / g) - floor(low / g) units and every unit value is
 * clamped into [0, N]: the sensitivity actually charged, N * g, is at least
 * the width and at most the width plus 2g.
 *
 * The counters share the budget: epsilon / 2 each for an average (Budaeva et al. [BLD+],
 * Theorem 5) and epsilon / 3 each for a variance.  By basic composition the
 * tuple of releases is epsilon-DP, and every estimate is a function of that
 * tuple only.
 */
#include "dp_statistic.h"

#include <float.h>
#include <math.h>
#include <string.h>

static int
channels_for(int32_t kind)
{
	switch (kind)
	{
		case DP_STATISTIC_SUM:
			return 1;
		case DP_STATISTIC_AVERAGE:
			return 2;
		case DP_STATISTIC_VARIANCE:
			return 3;
	}
	return 0;
}

/*
 * epsilon / parts, never above the exact quotient: a share rounded up by
 * one ulp would make the parts add up to more than epsilon.
 */
static double
epsilon_share(double epsilon, int parts)
{
	double		share = epsilon / parts;

	if (parts == 1 || parts == 2)
		return share;			/* exact in binary floating point */
	return nextafter(share, 0.0);
}

static double
half_range(const dp_statistic_spec *spec)
{
	return spec->upper / 2 - spec->lower / 2;
}

static double
midpoint(const dp_statistic_spec *spec)
{
	return spec->lower / 2 + spec->upper / 2;
}

static bool
uses_midpoint(const dp_statistic_spec *spec)
{
	return spec->kind == DP_STATISTIC_VARIANCE ||
		(spec->kind == DP_STATISTIC_AVERAGE && spec->estimator == DP_ESTIMATOR_MIDPOINT);
}

static dp_status
set_channel(dp_channel *channel, const dp_statistic_spec *spec, dp_channel_role role,
			const char **field)
{
	double		h = half_range(spec);
	int			exponent;

	channel->role = role;
	switch (role)
	{
		case DP_CHANNEL_COUNT:
			channel->low = 0;
			channel->high = 1;
			break;
		case DP_CHANNEL_SUM:
			if (uses_midpoint(spec))
			{
				channel->low = -h;
				channel->high = h;
			}
			else
			{
				channel->low = fmin(spec->lower, 0);
				channel->high = fmax(spec->upper, 0);
			}
			break;
		case DP_CHANNEL_SQUARES:
			channel->low = 0;
			channel->high = h * h;
			break;
	}

	if (role == DP_CHANNEL_COUNT)
		exponent = 0;
	else
	{
		/* range = f * 2^e with f in [0.5, 1): the range spans 2^39..2^40 units */
		(void) frexp(channel->high - channel->low, &exponent);
		exponent -= DP_STATISTIC_GRANULARITY_BITS;
		if (spec->domain == DP_VALUES_INTEGER && exponent < 0)
			exponent = 0;		/* integers stay exact and the noise integral */
	}
	channel->granularity_exponent = exponent;
	channel->base_units = (int64_t) floor(ldexp(channel->low, -exponent));

	channel->mechanism = spec->mechanism;
	channel->mechanism.epsilon = epsilon_share(spec->mechanism.epsilon,
											   channels_for(spec->kind));
	channel->mechanism.max_per_step =
		(int64_t) ceil(ldexp(channel->high, -exponent)) - channel->base_units;
	/* at person level a contribution is an observation: up to N units here */
	if (channel->mechanism.flags & DP_FLAG_PERSON)
		channel->mechanism.flags |= DP_FLAG_PER_OBSERVATION;
	return dp_mechanism_validate(&channel->mechanism, field);
}

static bool
bound_ok(double bound)
{
	return isfinite(bound) && fabs(bound) <= DP_STATISTIC_BOUND_MAX;
}

dp_status
dp_statistic_check_bounds(const dp_statistic_spec *spec, const char **field)
{
	*field = NULL;
	if (channels_for(spec->kind) == 0)
	{
		*field = "statistic";
		return DP_ERROR_FORMAT;
	}
	if (!bound_ok(spec->lower))
	{
		*field = "lower";
		return DP_ERROR_BOUNDS;
	}
	if (!bound_ok(spec->upper))
	{
		*field = "upper";
		return DP_ERROR_BOUNDS;
	}
	if (!(spec->lower < spec->upper))
	{
		*field = "bounds";
		return DP_ERROR_BOUNDS;
	}
	/* every channel's range, the squares' h^2 included, must be a normal double */
	if (!(spec->upper - spec->lower >= DP_STATISTIC_RANGE_MIN))
	{
		*field = "range";
		return DP_ERROR_BOUNDS;
	}
	if (spec->domain == DP_VALUES_INTEGER &&
		(spec->kind != DP_STATISTIC_SUM ||
		 spec->lower != floor(spec->lower) || spec->upper != floor(spec->upper)))
	{
		*field = "values";
		return DP_ERROR_BOUNDS;
	}
	if (spec->domain != DP_VALUES_REAL && spec->domain != DP_VALUES_INTEGER)
	{
		*field = "values";
		return DP_ERROR_FORMAT;
	}
	return DP_OK;
}

dp_status
dp_statistic_layout(dp_statistic *layout, const dp_statistic_spec *spec, const char **field)
{
	static const dp_channel_role roles[] = {DP_CHANNEL_COUNT, DP_CHANNEL_SUM, DP_CHANNEL_SQUARES};
	int			count = channels_for(spec->kind);
	size_t		offset;
	dp_status	status;

	status = dp_statistic_check_bounds(spec, field);
	if (status != DP_OK)
		return status;
	/* only an average has a choice; anything else is stored as MIDPOINT */
	if (spec->estimator != DP_ESTIMATOR_MIDPOINT &&
		!(spec->estimator == DP_ESTIMATOR_PLAIN && spec->kind == DP_STATISTIC_AVERAGE))
	{
		*field = "estimator";
		return DP_ERROR_FORMAT;
	}
	/*
	 * per_observation belongs to the counters the layout derives; on the
	 * user's mechanism it would not survive the binary form (the codec
	 * derives the user's mechanism without it)
	 */
	if (spec->mechanism.flags & DP_FLAG_PER_OBSERVATION)
	{
		*field = "per_observation";
		return DP_ERROR_FORMAT;
	}
	/*
	 * The bounds replace max_per_step: a statistic's mechanism states none.
	 * A stated 1 (every mechanism before 0.14.0 had one) means the same and
	 * is accepted; any other value would be ignored silently.
	 */
	if (spec->mechanism.max_per_step != DP_STEP_BOUND_UNSTATED && spec->mechanism.max_per_step != 1)
	{
		*field = "max_per_step";
		return DP_ERROR_MAX_PER_STEP;
	}
	status = dp_mechanism_validate(&spec->mechanism, field);
	if (status != DP_OK)
		return status;

	memset(layout, 0, sizeof(*layout));
	layout->spec = *spec;
	/* one statistic, one mechanism: a stated 1 is stored as not stated */
	layout->spec.mechanism.max_per_step = DP_STEP_BOUND_UNSTATED;
	layout->channel_count = count;
	/* a sum alone needs no count */
	offset = (sizeof(dp_statistic) + 15) & ~(size_t) 15;
	for (int i = 0; i < count; i++)
	{
		dp_channel *channel = &layout->channels[i];

		status = set_channel(channel, spec, count == 1 ? DP_CHANNEL_SUM : roles[i], field);
		if (status != DP_OK)
			return status;
		channel->counter_offset = offset;
		offset += (dp_counter_size(&channel->mechanism) + 15) & ~(size_t) 15;
	}
	return DP_OK;
}

size_t
dp_statistic_size(const dp_statistic *layout)
{
	const dp_channel *last = &layout->channels[layout->channel_count - 1];

	return last->counter_offset + dp_counter_size(&last->mechanism);
}

dp_counter *
dp_statistic_counter(dp_statistic *statistic, int channel)
{
	return (dp_counter *) ((char *) statistic + statistic->channels[channel].counter_offset);
}

const dp_counter *
dp_statistic_counter_const(const dp_statistic *statistic, int channel)
{
	return (const dp_counter *) ((const char *) statistic +
								 statistic->channels[channel].counter_offset);
}

void
dp_statistic_start(dp_statistic *statistic, const dp_statistic *layout, dp_random *rng)
{
	dp_statistic_start_keyed(statistic, layout, NULL, rng);
}

void
dp_statistic_start_keyed(dp_statistic *statistic, const dp_statistic *layout,
						 const unsigned char *noise_key, dp_random *rng)
{
	dp_statistic_start_with_sampler(statistic, layout, noise_key,
									dp_counter_default_table_sampler(rng,
																	 &layout->channels[0].mechanism),
									rng);
}

void
dp_statistic_start_with_sampler(dp_statistic *statistic, const dp_statistic *layout,
								const unsigned char *noise_key, bool table_sampler,
								dp_random *rng)
{
	dp_statistic_start_derived(statistic, layout, noise_key, table_sampler, DP_DERIVATION_1,
							   rng);
}

/* Each channel's noise key is derived from the statistic's and its index. */
void
dp_statistic_start_derived(dp_statistic *statistic, const dp_statistic *layout,
						   const unsigned char *noise_key, bool table_sampler, int derivation,
						   dp_random *rng)
{
	const char *field;

	if (statistic != layout)
		memcpy(statistic, layout, sizeof(dp_statistic));
	for (int i = 0; i < statistic->channel_count; i++)
	{
		unsigned char channel_key[DP_NOISE_KEY_BYTES];
		unsigned char label[] = {'c', 'h', 'a', 'n', 'n', 'e', 'l', (unsigned char) i};

		if (noise_key)
			dp_random_derive_key(channel_key, noise_key, label, sizeof(label));
		(void) dp_counter_start_derived(dp_statistic_counter(statistic, i),
										&statistic->channels[i].mechanism,
										noise_key ? channel_key : NULL, table_sampler,
										derivation, rng, &field);
	}
}

/*
 * ldexp(x, exponent) without glibc's scalbn call (a few percent of a
 * dp_avg query): where 2^exponent is a normal double, multiplying by it is
 * one correctly rounded operation, the same as ldexp's, so the results are
 * identical bit for bit.  Other exponents take ldexp.
 */
static inline double
scale_by_power_of_two(double x, int exponent)
{
	uint64_t	bits;
	double		power;

	if (exponent < -1022 || exponent > 1023)
		return ldexp(x, exponent);
	bits = (uint64_t) (exponent + 1023) << 52;
	memcpy(&power, &bits, sizeof(power));
	return x * power;
}

/*
 * fmin(fmax(value, low), high) for a value and bounds that are not NaN,
 * inline (glibc's fmin and fmax are calls, about 1% of a dp_avg query).  It
 * can differ from them only in the sign of a zero, which no caller's result
 * keeps: a channel's units are integers, the value's square is +0, and the
 * sum channel's zero becomes 0 units.
 */
static inline double
clamp_number(double value, double low, double high)
{
	if (value < low)
		return low;
	if (value > high)
		return high;
	return value;
}

/*
 * nearbyint(x), inline: below 2^52 in magnitude, adding and subtracting
 * 2^52 rounds to an integer in the current rounding mode, as nearbyint
 * does (only a zero's sign may differ, which the conversion to an integer
 * drops); at and above it x is an integer already.  A call into libm for
 * every channel of every row otherwise.  Where doubles are evaluated in
 * wider registers (FLT_EVAL_METHOD != 0) the addition would not round at
 * 2^52: nearbyint itself there.
 */
static inline double
round_to_integer(double x)
{
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
	const double two52 = 0x1p52;

	if (x >= 0 && x < two52)
		return (x + two52) - two52;
	if (x < 0 && x > -two52)
		return (x - two52) + two52;
	return x;
#else
	return nearbyint(x);
#endif
}

static int64_t
channel_units(const dp_channel *channel, double value)
{
	double		units;
	int64_t		result;

	value = clamp_number(value, channel->low, channel->high);
	units = round_to_integer(scale_by_power_of_two(value, -channel->granularity_exponent));
	result = (int64_t) units - channel->base_units;
	/* rounding may step one unit outside; the sensitivity is N units */
	if (result < 0)
		result = 0;
	else if (result > channel->mechanism.max_per_step)
		result = channel->mechanism.max_per_step;
	return result;
}

/*
 * The observation as the channels see it: clamped and centred (0 when it
 * is not observed: a NULL, or a NaN, which is not a number to observe;
 * refusing it would tell on the row).
 */
static inline bool
centred_observation(const dp_statistic_spec *spec, bool observed, double value, double *x)
{
	*x = 0;
	if (!observed || isnan(value))
		return false;
	*x = clamp_number(value, spec->lower, spec->upper) - (uses_midpoint(spec) ? midpoint(spec) : 0);
	return true;
}

/* what a step adds to one channel, in its units */
static inline int64_t
contribution_units(const dp_channel *channel, bool observed, double x)
{
	double		contribution = 0;

	if (observed)
	{
		switch (channel->role)
		{
			case DP_CHANNEL_COUNT:
				contribution = 1;
				break;
			case DP_CHANNEL_SUM:
				contribution = x;
				break;
			case DP_CHANNEL_SQUARES:
				contribution = x * x;
				break;
		}
	}
	return channel_units(channel, contribution);
}

int64_t
dp_statistic_units(const dp_statistic *statistic, int channel, bool observed, double value)
{
	double		x;

	observed = centred_observation(&statistic->spec, observed, value, &x);
	return contribution_units(&statistic->channels[channel], observed, x);
}

/*
 * A keyed step (derivation 2): the channels' terms of the step derived
 * together first, in lanes (dp_term_batch.h), then each channel's push
 * takes its own: the same values as pushing the channels one by one
 * (test_term_batch checks it), in a fraction of the time.  Out of line, so
 * that the batch's stack frame is only set up for keyed steps.
 */
static __attribute__((noinline)) dp_status
push_keyed(dp_statistic *statistic, bool observed, double x, dp_random *rng)
{
	int64_t		units[DP_STATISTIC_CHANNELS_MAX];
	dp_term_batch batch;
	dp_status	status = DP_OK;

	dp_term_batch_init(&batch);
	for (int i = 0; i < statistic->channel_count; i++)
	{
		units[i] = contribution_units(&statistic->channels[i], observed, x);
		dp_counter_plan(dp_statistic_counter(statistic, i), units[i], &batch);
	}
	if (batch.count > 0)
	{
		dp_term_batch_derive(&batch);
		dp_term_batch_attach(&batch, rng);
	}
	for (int i = 0; i < statistic->channel_count && status == DP_OK; i++)
	{
		/* all counters share the step count, so only the first can refuse */
		status = dp_counter_push(dp_statistic_counter(statistic, i), units[i], rng);
	}
	if (batch.count > 0)
		dp_term_batch_detach(&batch, rng);
	return status;
}

/*
 * One step of every channel.  Channels share their mechanism and kind of
 * key, so the first tells whether the step's keyed terms can be planned.
 */
dp_status
dp_statistic_push(dp_statistic *statistic, bool observed, double value, dp_random *rng)
{
	double		x;

	observed = centred_observation(&statistic->spec, observed, value, &x);
	if (dp_counter_plans(dp_statistic_counter(statistic, 0)))
		return push_keyed(statistic, observed, x, rng);
	for (int i = 0; i < statistic->channel_count; i++)
	{
		/* all counters share the step count, so only the first can refuse */
		dp_status	status = dp_counter_push(dp_statistic_counter(statistic, i),
											 contribution_units(&statistic->channels[i], observed, x),
											 rng);

		if (status != DP_OK)
			return status;
	}
	return DP_OK;
}

dp_status
dp_statistic_push_integer(dp_statistic *statistic, bool observed, int64_t value,
						  dp_random *rng)
{
	int64_t		lower;
	int64_t		upper;

	/* a real-valued state clamps to its own (possibly fractional) bounds */
	if (statistic->spec.domain != DP_VALUES_INTEGER)
		return dp_statistic_push(statistic, observed, (double) value, rng);

	/* integer states have integer bounds of at most 2^53, exact as both types */
	lower = (int64_t) statistic->spec.lower;
	upper = (int64_t) statistic->spec.upper;
	if (value < lower)
		value = lower;
	else if (value > upper)
		value = upper;
	return dp_statistic_push(statistic, observed, (double) value, rng);
}

int64_t
dp_statistic_steps(const dp_statistic *statistic)
{
	return dp_statistic_counter_const(statistic, 0)->steps;
}

/* The release in units of g, with the base added back, as an exact integer. */
static dp_int128
channel_total_units(const dp_statistic *statistic, int channel)
{
	const dp_counter *counter = dp_statistic_counter_const(statistic, channel);

	return dp_counter_release_wide(counter) +
		(dp_int128) counter->steps * statistic->channels[channel].base_units;
}

/*
 * (double) units, correctly rounded either way; a release almost always
 * fits 64 bits, whose conversion is one instruction where the 128-bit one
 * is a call into libgcc, once per channel in every final function call.
 */
static inline double
units_to_double(dp_int128 units)
{
	if (units >= INT64_MIN && units <= INT64_MAX)
		return (double) (int64_t) units;
	return (double) units;
}

double
dp_statistic_channel_estimate(const dp_statistic *statistic, int channel)
{
	return scale_by_power_of_two(units_to_double(channel_total_units(statistic, channel)),
								 statistic->channels[channel].granularity_exponent);
}

static int
channel_of(const dp_statistic *statistic, dp_channel_role role)
{
	for (int i = 0; i < statistic->channel_count; i++)
		if (statistic->channels[i].role == (int32_t) role)
			return i;
	return -1;
}

bool
dp_statistic_provides(const dp_statistic *statistic, dp_estimate_kind what)
{
	switch (what)
	{
		case DP_ESTIMATE_SUM:
			return true;
		case DP_ESTIMATE_COUNT:
		case DP_ESTIMATE_AVERAGE:
			return statistic->spec.kind != DP_STATISTIC_SUM;
		case DP_ESTIMATE_VAR_POP:
		case DP_ESTIMATE_VAR_SAMP:
		case DP_ESTIMATE_STDDEV_POP:
		case DP_ESTIMATE_STDDEV_SAMP:
			return statistic->spec.kind == DP_STATISTIC_VARIANCE;
	}
	return false;
}

static double
clamp(double value, double low, double high)
{
	return fmin(fmax(value, low), high);
}

/*
 * The channel releases in the user's units, each read and converted once:
 * a summary's seven estimates share them (0 for a channel the statistic
 * lacks, which no estimate it provides reads).
 */
typedef struct channel_reading
{
	double		count;
	double		sum;
	double		squares;
} channel_reading;

static void
read_channels(const dp_statistic *statistic, channel_reading *reading)
{
	int			count = channel_of(statistic, DP_CHANNEL_COUNT);
	int			sum = channel_of(statistic, DP_CHANNEL_SUM);
	int			squares = channel_of(statistic, DP_CHANNEL_SQUARES);

	reading->count = count >= 0 ? dp_statistic_channel_estimate(statistic, count) : 0;
	reading->sum = sum >= 0 ? dp_statistic_channel_estimate(statistic, sum) : 0;
	reading->squares = squares >= 0 ? dp_statistic_channel_estimate(statistic, squares) : 0;
}

/* The average in the sum channel's coordinates, clamped; false if count < 1. */
static bool
centred_average(const dp_statistic *statistic, const channel_reading *reading,
				double *count, double *average)
{
	const dp_channel *sum = &statistic->channels[channel_of(statistic, DP_CHANNEL_SUM)];
	double		c = reading->count;
	double		low = uses_midpoint(&statistic->spec) ? sum->low : statistic->spec.lower;
	double		high = uses_midpoint(&statistic->spec) ? sum->high : statistic->spec.upper;

	if (c < 1)
		return false;
	*count = c;
	*average = clamp(reading->sum / c, low, high);
	return true;
}

static bool
population_variance(const dp_statistic *statistic, const channel_reading *reading,
					double *count, double *variance)
{
	double		h = half_range(&statistic->spec);
	double		mean;
	double		mean_square;

	if (!centred_average(statistic, reading, count, &mean))
		return false;
	mean_square = clamp(reading->squares / *count, 0, h * h);
	*variance = clamp(mean_square - mean * mean, 0, h * h);
	return true;
}

/* dp_statistic_estimate from the channels read; `what` is provided */
static bool
estimate_from(const dp_statistic *statistic, const channel_reading *reading,
			  dp_estimate_kind what, double *estimate)
{
	const dp_statistic_spec *spec = &statistic->spec;
	double		count;
	double		value;

	switch (what)
	{
		case DP_ESTIMATE_SUM:
			value = reading->sum;
			if (uses_midpoint(spec))
				value += midpoint(spec) * reading->count;
			*estimate = value;
			return true;
		case DP_ESTIMATE_COUNT:
			*estimate = reading->count;
			return true;
		case DP_ESTIMATE_AVERAGE:
			if (!centred_average(statistic, reading, &count, &value))
				return false;
			if (uses_midpoint(spec))
				value += midpoint(spec);
			*estimate = clamp(value, spec->lower, spec->upper);
			return true;
		case DP_ESTIMATE_VAR_POP:
		case DP_ESTIMATE_STDDEV_POP:
			if (!population_variance(statistic, reading, &count, &value))
				return false;
			*estimate = what == DP_ESTIMATE_VAR_POP ? value : sqrt(value);
			return true;
		case DP_ESTIMATE_VAR_SAMP:
		case DP_ESTIMATE_STDDEV_SAMP:
			if (!population_variance(statistic, reading, &count, &value) || count < 2)
				return false;
			/* at most h^2 c / (c - 1), the largest sample variance of c values */
			value *= count / (count - 1);
			*estimate = what == DP_ESTIMATE_VAR_SAMP ? value : sqrt(value);
			return true;
	}
	return false;
}

bool
dp_statistic_estimate(const dp_statistic *statistic, dp_estimate_kind what, double *estimate)
{
	channel_reading reading;

	/* a sum has no count channel to read: never index a missing channel */
	if (!dp_statistic_provides(statistic, what))
		return false;
	read_channels(statistic, &reading);
	return estimate_from(statistic, &reading, what, estimate);
}

void
dp_statistic_estimates(const dp_statistic *statistic, const dp_estimate_kind *what, int count,
					   double *estimates, bool *defined)
{
	channel_reading reading;

	read_channels(statistic, &reading);
	for (int i = 0; i < count; i++)
	{
		defined[i] = dp_statistic_provides(statistic, what[i]) &&
			estimate_from(statistic, &reading, what[i], &estimates[i]);
		if (!defined[i])
			estimates[i] = 0;
	}
}

bool
dp_statistic_integer_sum(const dp_statistic *statistic, int64_t *sum)
{
	int			channel = channel_of(statistic, DP_CHANNEL_SUM);
	int			exponent = statistic->channels[channel].granularity_exponent;
	dp_int128	total;

	if (statistic->spec.domain != DP_VALUES_INTEGER || exponent < 0 || exponent > 62)
		return false;
	total = channel_total_units(statistic, channel);
	if (total > (dp_int128) (INT64_MAX >> exponent) || total < (dp_int128) (INT64_MIN >> exponent))
		return false;
	*sum = (int64_t) (total * ((dp_int128) 1 << exponent));
	return true;
}

bool
dp_statistic_error_bound(const dp_statistic *statistic, double confidence, double *bound)
{
	const dp_statistic_spec *spec = &statistic->spec;
	int			sum = channel_of(statistic, DP_CHANNEL_SUM);
	int			count_channel;
	double		each_miss;
	double		count_width;
	double		sum_width;
	double		count;
	double		mean;
	double		low;
	double		high;
	double		s;
	channel_reading reading;

	if (spec->kind == DP_STATISTIC_SUM)
	{
		*bound = ldexp(dp_counter_error_bound(dp_statistic_counter_const(statistic, sum), confidence),
					   statistic->channels[sum].granularity_exponent);
		return true;
	}
	if (spec->kind != DP_STATISTIC_AVERAGE)
		return false;
	read_channels(statistic, &reading);
	if (!centred_average(statistic, &reading, &count, &mean))
		return false;

	/*
	 * Both noises inside bounds that each miss with probability
	 * (1 - confidence) / 2: probability >= confidence.  1 - confidence is
	 * exact for confidence >= 1/2; halving it is exact.
	 */
	each_miss = (1.0 - confidence) / 2.0;
	count_channel = channel_of(statistic, DP_CHANNEL_COUNT);
	count_width = dp_counter_error_bound_missing(dp_statistic_counter_const(statistic, count_channel),
												 each_miss);
	sum_width = ldexp(dp_counter_error_bound_missing(dp_statistic_counter_const(statistic, sum),
													 each_miss),
					  statistic->channels[sum].granularity_exponent);
	if (isnan(count_width) || isnan(sum_width))
		return false;
	s = dp_statistic_channel_estimate(statistic, sum);

	/* S / C is monotone in each of S and C for C > 0: the corners bound it */
	{
		double		c_low = fmax(1, count - count_width);
		double		c_high = count + count_width;
		double		corners[4] = {
			(s - sum_width) / c_low, (s - sum_width) / c_high,
			(s + sum_width) / c_low, (s + sum_width) / c_high
		};
		double		range_low = uses_midpoint(spec) ? statistic->channels[sum].low : spec->lower;
		double		range_high = uses_midpoint(spec) ? statistic->channels[sum].high : spec->upper;

		low = high = corners[0];
		for (int i = 1; i < 4; i++)
		{
			low = fmin(low, corners[i]);
			high = fmax(high, corners[i]);
		}
		low = clamp(low, range_low, range_high);
		high = clamp(high, range_low, range_high);
	}
	*bound = fmax(mean - low, high - mean);
	return true;
}

const char *
dp_statistic_kind_name(int32_t kind)
{
	switch (kind)
	{
		case DP_STATISTIC_SUM:
			return "sum";
		case DP_STATISTIC_AVERAGE:
			return "average";
		case DP_STATISTIC_VARIANCE:
			return "variance";
	}
	return NULL;
}

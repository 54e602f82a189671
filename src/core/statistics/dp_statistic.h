/*
 * dp_statistic.h
 *		Private running sum, average and variance of real or integer values,
 *		built from counters (Budaeva et al. [BLD+], sections 4.1-4.3).
 *
 * A statistic runs one to three counters of the user's mechanism side by
 * side: a count of observations, a sum and a sum of squares.  Each counter
 * takes integers in [0, N], so a real value is first clamped into the
 * channel's range and rounded to a power-of-two granularity g; the channel's
 * counter then carries N units of g per step, with N * g >= the channel's
 * sensitivity (the rounding is charged to the sensitivity, as in Google's
 * "Secure Noise Generation").  The budget is split evenly between the
 * counters, and every estimate is post-processing of their releases.
 *
 * The neighbour relation: one time step's value changes within
 * [lower, upper], or one step holds an observation in one stream and none
 * (NULL) in the other.  docs/aggregates.md derives each sensitivity.
 */
#ifndef DP_STATISTIC_H
#define DP_STATISTIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dp_counter.h"

typedef enum dp_statistic_kind
{
	DP_STATISTIC_SUM = 1,		/* one channel: the sum */
	DP_STATISTIC_AVERAGE = 2,	/* count and sum, epsilon / 2 each */
	DP_STATISTIC_VARIANCE = 3	/* count, sum, squares, epsilon / 3 each */
} dp_statistic_kind;

/*
 * How values arrive.  Integers get granularity 1 (or a power of two above 1
 * when the range exceeds 2^40), so their releases and noise are integers.
 */
typedef enum dp_value_domain
{
	DP_VALUES_REAL = 0,
	DP_VALUES_INTEGER = 1
} dp_value_domain;

/*
 * The sum an average divides by the count.  MIDPOINT sums x - (lower +
 * upper) / 2, which keeps the count's noise from being multiplied by a mean
 * far from zero; PLAIN sums x itself (Budaeva et al. [BLD+], Algorithm 3).  MIDPOINT is
 * the default: bench/aggregates measures both.
 */
typedef enum dp_average_estimator
{
	DP_ESTIMATOR_MIDPOINT = 0,
	DP_ESTIMATOR_PLAIN = 1
} dp_average_estimator;

/* What the user asked for; everything else is derived from it. */
typedef struct dp_statistic_spec
{
	int32_t		kind;			/* dp_statistic_kind */
	int32_t		domain;			/* dp_value_domain */
	int32_t		estimator;		/* dp_average_estimator (sum and variance: MIDPOINT) */
	double		lower;
	double		upper;
	dp_mechanism mechanism;		/* the user's; its epsilon is the total */
} dp_statistic_spec;

/* Bounds beyond 2^53 could not hold every integer exactly as float8. */
#define DP_STATISTIC_BOUND_MAX 0x1p53
/*
 * The narrowest range: (upper - lower) / 2 squared, and its granularity,
 * stay normal doubles far above underflow.
 */
#define DP_STATISTIC_RANGE_MIN 0x1p-256
/* Rounding granularity: the widest channel range spans about 2^40 units. */
#define DP_STATISTIC_GRANULARITY_BITS 40
#define DP_STATISTIC_CHANNELS_MAX 3

typedef enum dp_channel_role
{
	DP_CHANNEL_COUNT = 0,
	DP_CHANNEL_SUM = 1,
	DP_CHANNEL_SQUARES = 2
} dp_channel_role;

/*
 * One counter carrying real values: a step's value v (in the channel's own
 * coordinates) is clamped into [low, high], becomes nearbyint(v / g) -
 * base_units, and that is clamped into [0, N = mechanism.max_per_step].
 */
typedef struct dp_channel
{
	int32_t		role;			/* dp_channel_role */
	int32_t		granularity_exponent;	/* g = 2^exponent */
	int64_t		base_units;		/* floor(low / g) */
	double		low;
	double		high;
	dp_mechanism mechanism;		/* the user's, with its share of epsilon and N */
	size_t		counter_offset; /* from the start of the dp_statistic */
} dp_channel;

typedef struct dp_statistic
{
	dp_statistic_spec spec;
	int			channel_count;
	dp_channel	channels[DP_STATISTIC_CHANNELS_MAX];
	/* the counters follow, at channels[i].counter_offset */
} dp_statistic;

/*
 * Checks the spec's statistic, bounds and value domain only (not the
 * mechanism): what a key registered for the statistic needs before any
 * state exists.  dp_statistic_layout runs it first.  On failure *field
 * names the culprit: "statistic", "lower", "upper", "bounds", "range" or
 * "values".
 */
extern dp_status dp_statistic_check_bounds(const dp_statistic_spec *spec, const char **field);

/*
 * Checks the spec and derives the channels (no counters yet).  On failure
 * *field names the culprit: "lower", "upper", "bounds", "max_per_step" or a
 * mechanism field.
 */
extern dp_status dp_statistic_layout(dp_statistic *layout, const dp_statistic_spec *spec,
									 const char **field);
/* Bytes for a statistic whose layout is known. */
extern size_t dp_statistic_size(const dp_statistic *layout);
/*
 * Starts a statistic in storage of dp_statistic_size(layout) bytes,
 * copying the layout into it.
 */
extern void dp_statistic_start(dp_statistic *statistic, const dp_statistic *layout,
							   dp_random *rng);
/* The same with a noise key for the statistic (DP_NOISE_KEY_BYTES; NULL: rng). */
extern void dp_statistic_start_keyed(dp_statistic *statistic, const dp_statistic *layout,
									 const unsigned char *noise_key, dp_random *rng);
/* The same with the sampler of the keyed terms chosen by the caller. */
extern void dp_statistic_start_with_sampler(dp_statistic *statistic, const dp_statistic *layout,
											const unsigned char *noise_key, bool table_sampler,
											dp_random *rng);
/* The same with the derivation of the keyed terms (DP_DERIVATION_1 or 2). */
extern void dp_statistic_start_derived(dp_statistic *statistic, const dp_statistic *layout,
									   const unsigned char *noise_key, bool table_sampler,
									   int derivation, dp_random *rng);

extern dp_counter *dp_statistic_counter(dp_statistic *statistic, int channel);
extern const dp_counter *dp_statistic_counter_const(const dp_statistic *statistic, int channel);

/*
 * One time step.  observed = false (a NULL, or a NaN) is a step without an
 * observation: it adds nothing to the sums and does not count.  Values are
 * clamped into [lower, upper] silently.
 */
extern dp_status dp_statistic_push(dp_statistic *statistic, bool observed, double value,
								   dp_random *rng);
/*
 * What one step with this observation adds to a channel, in the channel's
 * units (clamped, centred, rounded to its granularity): the value
 * dp_statistic_push pushes into the channel's counter.
 */
extern int64_t dp_statistic_units(const dp_statistic *statistic, int channel, bool observed,
								  double value);
/* The same for an integer, clamped in integer arithmetic first. */
extern dp_status dp_statistic_push_integer(dp_statistic *statistic, bool observed,
										   int64_t value, dp_random *rng);

extern int64_t dp_statistic_steps(const dp_statistic *statistic);

/* A channel's release converted back to the user's units. */
extern double dp_statistic_channel_estimate(const dp_statistic *statistic, int channel);

/* The noisy sum, count, average and variance (population or sample). */
typedef enum dp_estimate_kind
{
	DP_ESTIMATE_SUM,
	DP_ESTIMATE_COUNT,
	DP_ESTIMATE_AVERAGE,
	DP_ESTIMATE_VAR_POP,
	DP_ESTIMATE_VAR_SAMP,
	DP_ESTIMATE_STDDEV_POP,
	DP_ESTIMATE_STDDEV_SAMP
} dp_estimate_kind;

/* Whether this statistic can give that estimate (a sum has no count). */
extern bool dp_statistic_provides(const dp_statistic *statistic, dp_estimate_kind what);

/*
 * The estimate; false when it is undefined (an average or population
 * variance whose noisy count is below 1, a sample variance whose noisy
 * count is below 2).  Averages are clamped into [lower, upper], variances
 * into [0, ((upper - lower) / 2)^2] (sample: times c / (c - 1)).
 */
extern bool dp_statistic_estimate(const dp_statistic *statistic, dp_estimate_kind what,
								  double *estimate);
/*
 * Several estimates at once (a summary's seven, per window row), each the
 * value dp_statistic_estimate gives, the channels read once; defined[i]
 * false (estimates[i] 0) where it gives none.
 */
extern void dp_statistic_estimates(const dp_statistic *statistic, const dp_estimate_kind *what,
								   int count, double *estimates, bool *defined);

/*
 * Integer sums as an exact integer; false if it does not fit int64 (only
 * for DP_VALUES_INTEGER sums).
 */
extern bool dp_statistic_integer_sum(const dp_statistic *statistic, int64_t *sum);

/*
 * Half-width w with P[|estimate - truth| <= w] >= confidence.  Sums: exact
 * (the counter's bound times g).  Averages: the largest distance from the
 * estimate to the ends of the set of averages consistent with both noises
 * inside their bounds at confidence (1 + confidence) / 2 each (a union
 * bound); false when the average is undefined.  Variances: not provided.
 */
extern bool dp_statistic_error_bound(const dp_statistic *statistic, double confidence,
									 double *bound);

/* Binary form: a header, then each channel's counter in its own binary form. */
#define DP_STATISTIC_FORMAT_VERSION 1
/*
 * The public prefix of the binary form: the header (the spec and its
 * epsilon).  Before 0.12.0 it went on to the first channel's length, which
 * depends on the data.
 */
extern size_t dp_statistic_public_size(const dp_statistic *statistic);
/* What a sealed statistic is padded to (dp_counter_padded_size). */
extern size_t dp_statistic_padded_size(const dp_statistic *statistic);
extern size_t dp_statistic_serialized_size(const dp_statistic *statistic);
/* DP_ERROR_OVERFLOW when a channel could not be read back (dp_counter_check_storable). */
extern dp_status dp_statistic_check_storable(const dp_statistic *statistic);
extern void dp_statistic_serialize(const dp_statistic *statistic, unsigned char *out);
/* Reads the spec and derives the layout so the caller can size the statistic. */
extern dp_status dp_statistic_peek(const unsigned char *data, size_t length,
								   dp_statistic *layout, dp_parse_error *error);
/*
 * Decodes into storage of statistic_bytes; every channel's declared
 * mechanism is checked against the layout before its counter is decoded,
 * and nothing is written beyond the storage.
 */
extern dp_status dp_statistic_deserialize(const unsigned char *data, size_t length,
										  dp_statistic *statistic, size_t statistic_bytes,
										  dp_parse_error *error);

/*
 * Text form:
 *   v1 average(lower=0,upper=20,values=real,estimator=midpoint)
 *     hybrid(epsilon=1,max_per_step=1) count: <counter text> sum: <counter text>
 * Parsed in two calls like dp_counter_parse: statistic == NULL fills the
 * layout only.
 */
extern size_t dp_statistic_text_size(const dp_statistic *statistic);
extern void dp_statistic_to_text(const dp_statistic *statistic, char *buffer);
extern dp_status dp_statistic_parse(const char *text, dp_statistic *layout,
									dp_statistic *statistic, size_t statistic_bytes,
									dp_parse_error *error);

extern const char *dp_statistic_kind_name(int32_t kind);

#endif							/* DP_STATISTIC_H */

/*
 * fuzz_statistic_common.h
 *		Sum, average and variance states in fuzz_state_template.h, for
 *		fuzz_statistic_text, fuzz_statistic_binary and fuzz_parameters:
 *		both stored forms round-trip, pushes continue identically after a
 *		store, and every estimate, the error bound and the integer sum are
 *		defined and inside their ranges.  A state dp_statistic_check_storable
 *		accepts must read back.
 */
#ifndef FUZZ_STATISTIC_COMMON_H
#define FUZZ_STATISTIC_COMMON_H

#include "fuzz_common.h"

#include "dp_statistic.h"

/* Every channel's counter lies inside the storage and carries its mechanism. */
static void
fuzz_statistic_check_fits(const dp_statistic *statistic, size_t bytes)
{
	FUZZ_CHECK(statistic->channel_count >= 1 &&
			   statistic->channel_count <= DP_STATISTIC_CHANNELS_MAX);
	FUZZ_CHECK(dp_statistic_size(statistic) <= bytes);
	for (int i = 0; i < statistic->channel_count; i++)
	{
		const dp_channel *channel = &statistic->channels[i];
		const dp_counter *counter = dp_statistic_counter_const(statistic, i);

		FUZZ_CHECK(channel->counter_offset + sizeof(dp_counter) <= bytes);
		FUZZ_CHECK(channel->counter_offset + dp_counter_size(&counter->mechanism) <= bytes);
		FUZZ_CHECK(counter->node_count == dp_counter_persisted_node_count(&channel->mechanism));
		FUZZ_CHECK(counter->steps == dp_statistic_steps(statistic));
	}
}

/* A copy read back, or pushed alongside, is at the same step and releases. */
static void
fuzz_statistic_check_same(const dp_statistic *copy, const dp_statistic *statistic)
{
	FUZZ_CHECK(dp_statistic_steps(copy) == dp_statistic_steps(statistic));
	FUZZ_CHECK(copy->channel_count == statistic->channel_count);
	for (int i = 0; i < statistic->channel_count; i++)
		FUZZ_CHECK(dp_counter_release_wide(dp_statistic_counter_const(copy, i)) ==
				   dp_counter_release_wide(dp_statistic_counter_const(statistic, i)));
}

/* As fuzz_counter_adopt_noise_key, channel by channel. */
static void
fuzz_statistic_adopt_noise_key(dp_statistic *copy, const dp_statistic *original)
{
	for (int i = 0; i < original->channel_count && i < copy->channel_count; i++)
	{
		dp_counter *to = dp_statistic_counter(copy, i);
		const dp_counter *from = dp_statistic_counter_const(original, i);

		to->has_noise_key = from->has_noise_key;
		to->table_sampler = from->table_sampler;
		to->derivation = from->derivation;
		memcpy(to->noise_key, from->noise_key, sizeof(to->noise_key));
	}
}

/* Every estimate the statistic provides, the bound and the integer sum. */
static void
fuzz_statistic_read(const dp_statistic *statistic, double confidence)
{
	const dp_statistic_spec *spec = &statistic->spec;
	double		h = spec->upper / 2 - spec->lower / 2;
	double		bound;
	int64_t		sum;

	for (int what = DP_ESTIMATE_SUM; what <= DP_ESTIMATE_STDDEV_SAMP; what++)
	{
		double		estimate;

		if (!dp_statistic_provides(statistic, (dp_estimate_kind) what))
			continue;
		if (!dp_statistic_estimate(statistic, (dp_estimate_kind) what, &estimate))
			continue;
		switch (what)
		{
			case DP_ESTIMATE_SUM:
			case DP_ESTIMATE_COUNT:
				FUZZ_CHECK(!isnan(estimate));
				break;
			case DP_ESTIMATE_AVERAGE:
				FUZZ_CHECK(estimate >= spec->lower && estimate <= spec->upper);
				break;
			case DP_ESTIMATE_VAR_POP:
				FUZZ_CHECK(estimate >= 0 && estimate <= h * h);
				break;
			default:
				FUZZ_CHECK(estimate >= 0 && isfinite(estimate));
				break;
		}
	}
	for (int channel = 0; channel < statistic->channel_count; channel++)
		FUZZ_CHECK(!isnan(dp_statistic_channel_estimate(statistic, channel)));
	if (dp_statistic_error_bound(statistic, confidence, &bound) &&
		confidence > 0 && confidence < 1)
		FUZZ_CHECK(bound >= 0);
	(void) dp_statistic_integer_sum(statistic, &sum);
}

static dp_status
fuzz_statistic_push_byte(dp_statistic *statistic, uint8_t byte, dp_random *rng)
{
	const dp_statistic_spec *spec = &statistic->spec;
	bool		observed = byte % 5 != 4;

	if (spec->domain == DP_VALUES_INTEGER && byte % 2 == 1)
	{
		int64_t		value;

		double		x = fuzz_statistic_value(byte, spec->lower, spec->upper);

		if (byte == 9 || !(x > -0x1p63))
			value = INT64_MIN;	/* also NaN */
		else if (byte == 11 || !(x < 0x1p63))
			value = INT64_MAX;
		else
			value = (int64_t) x;
		return dp_statistic_push_integer(statistic, observed, value, rng);
	}
	return dp_statistic_push(statistic, observed,
							 fuzz_statistic_value(byte, spec->lower, spec->upper), rng);
}

#define FUZZ_STATE_PREFIX statistic
#define FUZZ_STATE_LAYOUT dp_statistic
/* the decoded state is the one read at a confidence taken from the input */
#define FUZZ_STATE_CONFIDENCE(data, size) fuzz_confidence(fuzz_byte(data, size, 6))
#define FUZZ_STATE_COPY_CONFIDENCE(data, size) 0.9
/* an overflow can stop a push between channels, leaving their steps apart */
#define FUZZ_STATE_READ_REFUSED false
#include "fuzz_state_template.h"

#endif							/* FUZZ_STATISTIC_COMMON_H */

/*
 * fuzz_statistic_common.h
 *		What fuzz_statistic_text and fuzz_statistic_binary do with a decoded
 *		sum, average or variance state: both stored forms round-trip, pushes
 *		continue identically after a store, and every estimate, the error
 *		bound and the integer sum are defined and inside their ranges.  A
 *		state dp_statistic_check_storable accepts must read back.
 */
#ifndef FUZZ_STATISTIC_COMMON_H
#define FUZZ_STATISTIC_COMMON_H

#include "fuzz_common.h"

#include "dp_statistic.h"

#define FUZZ_STATISTIC_PUSHES 4

/* The two-call pattern on text: NULL when refused; *bytes gets the size. */
static dp_statistic *
fuzz_statistic_from_text(const char *text, size_t *bytes)
{
	dp_statistic layout;
	dp_parse_error error;
	dp_statistic *statistic;

	if (dp_statistic_parse(text, &layout, NULL, 0, &error) != DP_OK)
		return NULL;
	*bytes = dp_statistic_size(&layout);
	statistic = fuzz_alloc(*bytes);
	if (dp_statistic_parse(text, &layout, statistic, *bytes, &error) != DP_OK)
	{
		free(statistic);
		return NULL;
	}
	return statistic;
}

/* The same on the binary form. */
static dp_statistic *
fuzz_statistic_from_bytes(const uint8_t *data, size_t length, size_t *bytes)
{
	dp_statistic layout;
	dp_parse_error error;
	dp_statistic *statistic;

	if (dp_statistic_peek(data, length, &layout, &error) != DP_OK)
		return NULL;
	*bytes = dp_statistic_size(&layout);
	statistic = fuzz_alloc(*bytes);
	if (dp_statistic_deserialize(data, length, statistic, *bytes, &error) != DP_OK)
	{
		free(statistic);
		return NULL;
	}
	return statistic;
}

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

static char *
fuzz_statistic_text_of(const dp_statistic *statistic)
{
	size_t		size = dp_statistic_text_size(statistic);
	char	   *text = fuzz_alloc(size);

	dp_statistic_to_text(statistic, text);
	FUZZ_CHECK(strlen(text) < size);
	return text;
}

static uint8_t *
fuzz_statistic_bytes_of(const dp_statistic *statistic, size_t *length)
{
	uint8_t    *out;

	*length = dp_statistic_serialized_size(statistic);
	out = fuzz_alloc(*length);
	dp_statistic_serialize(statistic, out);
	return out;
}

static bool
same_releases(const dp_statistic *a, const dp_statistic *b)
{
	if (a->channel_count != b->channel_count)
		return false;
	for (int i = 0; i < a->channel_count; i++)
		if (dp_counter_release_wide(dp_statistic_counter_const(a, i)) !=
			dp_counter_release_wide(dp_statistic_counter_const(b, i)))
			return false;
	return true;
}

/*
 * Both forms decode again, to the same text and bytes and the same
 * releases; returns the copy decoded from text.
 */
static dp_statistic *
fuzz_statistic_round_trip(const dp_statistic *statistic)
{
	char	   *text = fuzz_statistic_text_of(statistic);
	size_t		length;
	uint8_t    *binary = fuzz_statistic_bytes_of(statistic, &length);
	size_t		bytes;
	dp_statistic *from_text = fuzz_statistic_from_text(text, &bytes);
	dp_statistic *from_binary;
	char	   *text_again;
	char	   *text_of_binary;
	uint8_t    *binary_again;
	size_t		length_again;

	FUZZ_CHECK(from_text != NULL);
	fuzz_statistic_check_fits(from_text, bytes);
	from_binary = fuzz_statistic_from_bytes(binary, length, &bytes);
	FUZZ_CHECK(from_binary != NULL);
	fuzz_statistic_check_fits(from_binary, bytes);

	text_again = fuzz_statistic_text_of(from_text);
	text_of_binary = fuzz_statistic_text_of(from_binary);
	FUZZ_CHECK(strcmp(text, text_again) == 0);
	FUZZ_CHECK(strcmp(text, text_of_binary) == 0);
	binary_again = fuzz_statistic_bytes_of(from_binary, &length_again);
	FUZZ_CHECK(length_again == length && memcmp(binary, binary_again, length) == 0);
	free(binary_again);
	binary_again = fuzz_statistic_bytes_of(from_text, &length_again);
	FUZZ_CHECK(length_again == length && memcmp(binary, binary_again, length) == 0);

	FUZZ_CHECK(dp_statistic_steps(from_text) == dp_statistic_steps(statistic));
	FUZZ_CHECK(same_releases(from_text, statistic));
	FUZZ_CHECK(same_releases(from_binary, statistic));

	free(binary_again);
	free(text_of_binary);
	free(text_again);
	free(from_binary);
	free(binary);
	free(text);
	return from_text;
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

/*
 * Round trips, a few pushes with values from the input, every reading, then
 * a store: the stored copy and the original continue identically.
 */
static void
fuzz_statistic_exercise(dp_statistic *statistic, const uint8_t *data, size_t size)
{
	dp_random	rng;
	dp_random	rng_copy;
	dp_statistic *copy;
	double		confidence = fuzz_confidence(fuzz_byte(data, size, 6));

	/* a decoded state is within the decoders' node bounds */
	FUZZ_CHECK(dp_statistic_check_storable(statistic) == DP_OK);
	free(fuzz_statistic_round_trip(statistic));
	fuzz_statistic_read(statistic, confidence);

	fuzz_rng(&rng);
	for (unsigned i = 0; i < FUZZ_STATISTIC_PUSHES; i++)
	{
		dp_status	status = fuzz_statistic_push_byte(statistic, fuzz_byte(data, size, i), &rng);

		if (status == DP_ERROR_HORIZON_EXCEEDED)
			break;				/* refused before anything changed */
		if (status != DP_OK)
			return;				/* a refusal (DP_ERROR_OVERFLOW): the caller drops it */
	}
	fuzz_statistic_read(statistic, confidence);

	/* a state the caller would refuse to store (a forged node pushed past the bound) */
	if (dp_statistic_check_storable(statistic) != DP_OK)
		return;
	copy = fuzz_statistic_round_trip(statistic);
	rng_copy = rng;
	{
		uint8_t		byte = fuzz_byte(data, size, 7);
		dp_status	status = fuzz_statistic_push_byte(statistic, byte, &rng);

		FUZZ_CHECK(fuzz_statistic_push_byte(copy, byte, &rng_copy) == status);
		if (status == DP_OK)
			FUZZ_CHECK(same_releases(copy, statistic));
	}
	fuzz_statistic_read(copy, 0.9);
	free(copy);
}

#endif							/* FUZZ_STATISTIC_COMMON_H */

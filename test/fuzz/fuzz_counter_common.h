/*
 * fuzz_counter_common.h
 *		What fuzz_counter_text and fuzz_counter_binary do with a decoded
 *		counter: both stored forms round-trip, pushes continue identically
 *		after a store, and releases and error bounds are defined.  A state
 *		dp_counter_check_storable accepts must read back.
 */
#ifndef FUZZ_COUNTER_COMMON_H
#define FUZZ_COUNTER_COMMON_H

#include "fuzz_common.h"

#include "dp_counter.h"

#define FUZZ_COUNTER_PUSHES 4

/* The two-call pattern on text: NULL when refused; *bytes gets the size. */
static dp_counter *
fuzz_counter_from_text(const char *text, size_t *bytes)
{
	dp_mechanism mechanism;
	dp_parse_error error;
	dp_counter *counter;

	if (dp_counter_parse(text, &mechanism, NULL, 0, &error) != DP_OK)
		return NULL;
	*bytes = dp_counter_size(&mechanism);
	counter = fuzz_alloc(*bytes);
	if (dp_counter_parse(text, &mechanism, counter, *bytes, &error) != DP_OK)
	{
		free(counter);
		return NULL;
	}
	return counter;
}

/* The same on the binary form. */
static dp_counter *
fuzz_counter_from_bytes(const uint8_t *data, size_t length, size_t *bytes)
{
	dp_mechanism mechanism;
	dp_parse_error error;
	dp_counter *counter;

	if (dp_counter_peek(data, length, &mechanism, &error) != DP_OK)
		return NULL;
	*bytes = dp_counter_size(&mechanism);
	counter = fuzz_alloc(*bytes);
	if (dp_counter_deserialize(data, length, counter, *bytes, &error) != DP_OK)
	{
		free(counter);
		return NULL;
	}
	return counter;
}

/* A decoded counter must fit the storage it was decoded into. */
static void
fuzz_counter_check_fits(const dp_counter *counter, size_t bytes)
{
	FUZZ_CHECK(counter->node_count >= 0 && counter->node_count <= DP_COUNTER_MAX_NODES);
	FUZZ_CHECK(counter->node_count == dp_counter_persisted_node_count(&counter->mechanism));
	FUZZ_CHECK(dp_counter_size(&counter->mechanism) <= bytes);
}

static char *
fuzz_counter_text_of(const dp_counter *counter)
{
	size_t		size = dp_counter_text_size(counter);
	char	   *text = fuzz_alloc(size);

	dp_counter_to_text(counter, text);
	FUZZ_CHECK(strlen(text) < size);
	return text;
}

static uint8_t *
fuzz_counter_bytes_of(const dp_counter *counter, size_t *length)
{
	uint8_t    *out;

	*length = dp_counter_serialized_size(counter);
	out = fuzz_alloc(*length);
	dp_counter_serialize(counter, out);
	return out;
}

/*
 * Both forms of the counter decode again, to the same text and bytes, the
 * same steps and the same release; returns the copy decoded from text.
 */
static dp_counter *
fuzz_counter_round_trip(const dp_counter *counter)
{
	char	   *text = fuzz_counter_text_of(counter);
	size_t		length;
	uint8_t    *binary = fuzz_counter_bytes_of(counter, &length);
	size_t		bytes;
	dp_counter *from_text = fuzz_counter_from_text(text, &bytes);
	dp_counter *from_binary;
	char	   *text_again;
	char	   *text_of_binary;
	uint8_t    *binary_again;
	size_t		length_again;

	FUZZ_CHECK(from_text != NULL);
	fuzz_counter_check_fits(from_text, bytes);
	from_binary = fuzz_counter_from_bytes(binary, length, &bytes);
	FUZZ_CHECK(from_binary != NULL);
	fuzz_counter_check_fits(from_binary, bytes);

	text_again = fuzz_counter_text_of(from_text);
	text_of_binary = fuzz_counter_text_of(from_binary);
	FUZZ_CHECK(strcmp(text, text_again) == 0);
	FUZZ_CHECK(strcmp(text, text_of_binary) == 0);
	binary_again = fuzz_counter_bytes_of(from_binary, &length_again);
	FUZZ_CHECK(length_again == length && memcmp(binary, binary_again, length) == 0);
	free(binary_again);
	binary_again = fuzz_counter_bytes_of(from_text, &length_again);
	FUZZ_CHECK(length_again == length && memcmp(binary, binary_again, length) == 0);

	FUZZ_CHECK(from_text->steps == counter->steps && from_binary->steps == counter->steps);
	FUZZ_CHECK(dp_counter_release_wide(from_text) == dp_counter_release_wide(counter));
	FUZZ_CHECK(dp_counter_release_wide(from_binary) == dp_counter_release_wide(counter));

	free(binary_again);
	free(text_of_binary);
	free(text_again);
	free(from_binary);
	free(binary);
	free(text);
	return from_text;
}

static void
fuzz_counter_check_bounds(const dp_counter *counter, double confidence)
{
	double		bound = dp_counter_error_bound(counter, confidence);

	(void) dp_counter_release(counter);
	(void) dp_counter_noise_variance(counter);
	if (confidence > 0 && confidence < 1)
		FUZZ_CHECK(bound >= 0);	/* defined for every valid counter */
}

/*
 * Round trips, a few pushes with values from the input, then a store: the
 * stored copy and the original continue with the same release.
 */
static void
fuzz_counter_exercise(dp_counter *counter, const uint8_t *data, size_t size)
{
	dp_random	rng;
	dp_random	rng_copy;
	dp_counter *copy;

	/* a decoded state is within the decoders' node bounds */
	FUZZ_CHECK(dp_counter_check_storable(counter) == DP_OK);
	free(fuzz_counter_round_trip(counter));
	fuzz_counter_check_bounds(counter, 0.9);

	fuzz_rng(&rng);
	for (unsigned i = 0; i < FUZZ_COUNTER_PUSHES; i++)
	{
		int64_t		value = fuzz_counter_value(fuzz_byte(data, size, i),
											   counter->mechanism.max_per_step);
		dp_status	status = dp_counter_push(counter, value, &rng);

		if (status == DP_ERROR_HORIZON_EXCEEDED)
			break;				/* refused before anything changed */
		if (status != DP_OK)
		{
			/* a refusal (DP_ERROR_OVERFLOW): the caller drops the counter */
			fuzz_counter_check_bounds(counter, 0.9);
			return;
		}
	}
	fuzz_counter_check_bounds(counter, 0.9);

	/* a state the caller would refuse to store (a forged node pushed past the bound) */
	if (dp_counter_check_storable(counter) != DP_OK)
		return;
	copy = fuzz_counter_round_trip(counter);
	rng_copy = rng;
	{
		int64_t		value = fuzz_counter_value(fuzz_byte(data, size, 7),
											   counter->mechanism.max_per_step);
		dp_status	status = dp_counter_push(counter, value, &rng);

		/* the stored copy continues exactly as the original */
		FUZZ_CHECK(dp_counter_push(copy, value, &rng_copy) == status);
		if (status == DP_OK)
			FUZZ_CHECK(dp_counter_release_wide(copy) == dp_counter_release_wide(counter));
	}
	fuzz_counter_check_bounds(copy, fuzz_confidence(fuzz_byte(data, size, 5)));
	free(copy);
}

#endif							/* FUZZ_COUNTER_COMMON_H */

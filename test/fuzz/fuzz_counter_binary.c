/*
 * fuzz_counter_binary.c
 *		The binary decoder of counter states (dp_counter_peek, then
 *		dp_counter_deserialize into exactly dp_counter_size() bytes of heap),
 *		as the extension's recv and every stored-state read call it.  An
 *		accepted state goes through fuzz_counter_exercise.
 *
 *		Hostile variant (fuzz_split_binary): the last two bytes split the
 *		rest into a first part, whose peek sizes the allocation, and a second
 *		part decoded into it; the decoder must refuse or fit.
 */
#include "fuzz_counter_common.h"

static void
hostile(const uint8_t *data, size_t size)
{
	size_t		first_length;
	size_t		second_length;
	const uint8_t *second_start;
	uint8_t    *first;
	uint8_t    *second;
	dp_mechanism mechanism;
	dp_parse_error error;

	if (!fuzz_split_binary(data, size, &first_length, &second_start, &second_length))
		return;
	first = fuzz_copy(data, first_length);
	second = fuzz_copy(second_start, second_length);
	if (dp_counter_peek(first, first_length, &mechanism, &error) == DP_OK)
	{
		size_t		bytes = dp_counter_size(&mechanism);
		dp_counter *counter = fuzz_alloc(bytes);

		if (dp_counter_deserialize(second, second_length, counter, bytes, &error) == DP_OK)
		{
			fuzz_counter_check_fits(counter, bytes);
			fuzz_counter_exercise(counter, data, size);
		}
		free(counter);
	}
	free(second);
	free(first);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t		bytes;
	dp_counter *counter = fuzz_counter_from_bytes(data, size, &bytes);

	if (counter != NULL)
	{
		fuzz_counter_check_fits(counter, bytes);
		fuzz_counter_exercise(counter, data, size);
		free(counter);
	}
	hostile(data, size);
	return 0;
}

/*
 * fuzz_statistic_binary.c
 *		The binary decoder of sum, average and variance states
 *		(dp_statistic_peek, then dp_statistic_deserialize into exactly
 *		dp_statistic_size(&layout) bytes of heap).  An accepted state goes
 *		through fuzz_statistic_exercise.
 *
 *		Hostile variant (fuzz_split_binary): the last two bytes split the
 *		rest into a first part, whose peek sizes the allocation, and a second
 *		part decoded into it; the decoder must refuse or fit.
 */
#include "fuzz_statistic_common.h"

static void
hostile(const uint8_t *data, size_t size)
{
	size_t		first_length;
	size_t		second_length;
	const uint8_t *second_start;
	uint8_t    *first;
	uint8_t    *second;
	dp_statistic layout;
	dp_parse_error error;

	if (!fuzz_split_binary(data, size, &first_length, &second_start, &second_length))
		return;
	first = fuzz_copy(data, first_length);
	second = fuzz_copy(second_start, second_length);
	if (dp_statistic_peek(first, first_length, &layout, &error) == DP_OK)
	{
		size_t		bytes = dp_statistic_size(&layout);
		dp_statistic *statistic = fuzz_alloc(bytes);

		if (dp_statistic_deserialize(second, second_length, statistic, bytes, &error) == DP_OK)
		{
			fuzz_statistic_check_fits(statistic, bytes);
			fuzz_statistic_exercise(statistic, data, size);
		}
		free(statistic);
	}
	free(second);
	free(first);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t		bytes;
	dp_statistic *statistic = fuzz_statistic_from_bytes(data, size, &bytes);

	if (statistic != NULL)
	{
		fuzz_statistic_check_fits(statistic, bytes);
		fuzz_statistic_exercise(statistic, data, size);
		free(statistic);
	}
	hostile(data, size);
	return 0;
}

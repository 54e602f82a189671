/*
 * fuzz_statistic_text.c
 *		The text decoder of sum, average and variance states,
 *		dp_statistic_parse, in two calls: the first gives the layout, the
 *		second fills exactly dp_statistic_size(&layout) bytes of heap.  An
 *		accepted state goes through fuzz_statistic_exercise.
 *
 *		Hostile variant: when the input holds a NUL byte, the text before it
 *		sizes the allocation and the text after it is decoded into it.
 */
#include "fuzz_statistic_common.h"

static void
hostile(const char *first, const char *second, const uint8_t *data, size_t size)
{
	dp_statistic layout;
	dp_parse_error error;
	size_t		bytes;
	dp_statistic *statistic;

	if (dp_statistic_parse(first, &layout, NULL, 0, &error) != DP_OK)
		return;
	bytes = dp_statistic_size(&layout);
	statistic = fuzz_alloc(bytes);
	if (dp_statistic_parse(second, &layout, statistic, bytes, &error) == DP_OK)
	{
		fuzz_statistic_check_fits(statistic, bytes);
		fuzz_statistic_exercise(statistic, data, size);
	}
	free(statistic);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	   *text = fuzz_text(data, size);
	size_t		first_length = strlen(text);
	size_t		bytes;
	dp_statistic *statistic = fuzz_statistic_from_text(text, &bytes);

	if (statistic != NULL)
	{
		fuzz_statistic_check_fits(statistic, bytes);
		fuzz_statistic_exercise(statistic, data, size);
		free(statistic);
	}
	if (first_length < size)
	{
		char	   *second = fuzz_text(data + first_length + 1, size - first_length - 1);

		hostile(text, second, data, size);
		free(second);
	}
	free(text);
	return 0;
}

/*
 * fuzz_counter_text.c
 *		The text decoder of counter states, dp_counter_parse, called as the
 *		extension calls it: once to size the counter, once to fill exactly
 *		dp_counter_size() bytes of heap.  An accepted state goes through
 *		fuzz_counter_exercise (round trips, pushes, releases, bounds).
 *
 *		Hostile variant: when the input holds a NUL byte, the text before it
 *		sizes the allocation and the text after it is decoded into that
 *		allocation; the decoder must refuse or fit.
 */
#include "fuzz_counter_common.h"

static void
hostile(const char *first, const char *second, const uint8_t *data, size_t size)
{
	dp_mechanism mechanism;
	dp_parse_error error;
	size_t		bytes;
	dp_counter *counter;

	if (dp_counter_parse(first, &mechanism, NULL, 0, &error) != DP_OK)
		return;
	bytes = dp_counter_size(&mechanism);
	counter = fuzz_alloc(bytes);
	if (dp_counter_parse(second, &mechanism, counter, bytes, &error) == DP_OK)
	{
		fuzz_counter_check_fits(counter, bytes);
		fuzz_counter_exercise(counter, data, size);
	}
	free(counter);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	   *text = fuzz_text(data, size);
	size_t		first_length = strlen(text);
	size_t		bytes;
	dp_counter *counter = fuzz_counter_from_text(text, &bytes);

	if (counter != NULL)
	{
		fuzz_counter_check_fits(counter, bytes);
		fuzz_counter_exercise(counter, data, size);
		free(counter);
	}
	if (first_length < size)
	{
		/* a private copy of the second part, so that ASan sees reads past it */
		char	   *second = fuzz_text(data + first_length + 1, size - first_length - 1);

		hostile(text, second, data, size);
		free(second);
	}
	free(text);
	return 0;
}

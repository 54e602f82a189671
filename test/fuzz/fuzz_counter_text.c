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
 *
 *		The code is fuzz_counter_text_input of fuzz_state_template.h,
 *		shared by the harnesses of counters and statistics.
 */
#include "fuzz_counter_common.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_counter_text_input(data, size);
	return 0;
}

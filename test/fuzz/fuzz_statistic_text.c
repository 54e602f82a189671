/*
 * fuzz_statistic_text.c
 *		The text decoder of sum, average and variance states,
 *		dp_statistic_parse, in two calls: the first gives the layout, the
 *		second fills exactly dp_statistic_size(&layout) bytes of heap.  An
 *		accepted state goes through fuzz_statistic_exercise.
 *
 *		Hostile variant: when the input holds a NUL byte, the text before it
 *		sizes the allocation and the text after it is decoded into it.
 *
 *		The code is fuzz_statistic_text_input of fuzz_state_template.h,
 *		shared by the harnesses of counters and statistics.
 */
#include "fuzz_statistic_common.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_statistic_text_input(data, size);
	return 0;
}

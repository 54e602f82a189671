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
 *
 *		The code is fuzz_statistic_binary_input of fuzz_state_template.h,
 *		shared by the harnesses of counters and statistics.
 */
#include "fuzz_statistic_common.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_statistic_binary_input(data, size);
	return 0;
}

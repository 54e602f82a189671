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
 *
 *		The code is fuzz_counter_binary_input of fuzz_state_template.h,
 *		shared by the harnesses of counters and statistics.
 */
#include "fuzz_counter_common.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_counter_binary_input(data, size);
	return 0;
}

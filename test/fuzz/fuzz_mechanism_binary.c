/*
 * fuzz_mechanism_binary.c
 *		The stored form of a mechanism (dp_mechanism_decode), as every read
 *		of a dp_mechanism value calls it.  A value that decodes and validates
 *		must encode to exactly its input: one mechanism, one stored form.
 */
#include "fuzz_common.h"

#include "dp_mechanism.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	dp_mechanism mechanism;
	dp_parse_error error;
	const char *field = NULL;
	unsigned char *again;

	if (dp_mechanism_decode(data, size, &mechanism, &error) != DP_OK)
		return 0;
	if (dp_mechanism_validate(&mechanism, &field) != DP_OK)
		return 0;
	FUZZ_CHECK(dp_mechanism_encoded_size(&mechanism) == size);
	again = fuzz_alloc(size);
	dp_mechanism_encode(&mechanism, again);
	FUZZ_CHECK(memcmp(again, data, size) == 0);
	free(again);
	return 0;
}

/*
 * fuzz_mechanism_text.c
 *		dp_mechanism_parse and dp_mechanism_validate on arbitrary text.  A
 *		valid mechanism must survive dp_mechanism_to_text and a second parse
 *		unchanged, and its error bound must be defined at steps 0, 1 and the
 *		horizon (1000 for unbounded mechanisms).
 */
#include "fuzz_common.h"

#include "dp_counter.h"
#include "dp_mechanism.h"

static bool
same_mechanism(const dp_mechanism *a, const dp_mechanism *b)
{
	return a->kind == b->kind && a->flags == b->flags &&
		memcmp(&a->epsilon, &b->epsilon, sizeof(double)) == 0 &&
		a->horizon == b->horizon && a->max_per_step == b->max_per_step &&
		a->block == b->block;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	   *text = fuzz_text(data, size);
	const char *cursor = text;
	dp_mechanism mechanism;
	dp_parse_error error;
	const char *field;

	if (dp_mechanism_parse(&cursor, &mechanism, &error) == DP_OK)
	{
		FUZZ_CHECK(cursor > text && cursor <= text + strlen(text));
		if (dp_mechanism_validate(&mechanism, &field) == DP_OK)
		{
			char		buffer[DP_MECHANISM_TEXT_BYTES];
			const char *again = buffer;
			dp_mechanism reparsed;
			int			length = dp_mechanism_to_text(&mechanism, buffer, sizeof(buffer));
			int64_t		steps[3] = {0, 1, mechanism.horizon > 0 ? mechanism.horizon : 1000};

			FUZZ_CHECK(length > 0 && (size_t) length < sizeof(buffer));
			FUZZ_CHECK(strlen(buffer) == (size_t) length);
			FUZZ_CHECK(dp_mechanism_parse(&again, &reparsed, &error) == DP_OK);
			FUZZ_CHECK(*again == '\0');
			FUZZ_CHECK(same_mechanism(&mechanism, &reparsed));
			FUZZ_CHECK(dp_mechanism_validate(&reparsed, &field) == DP_OK);

			for (int i = 0; i < 3; i++)
			{
				double		bound = -1;

				FUZZ_CHECK(dp_mechanism_error_bound(&mechanism, steps[i], 0.95, &bound,
													&field) == DP_OK);
				FUZZ_CHECK(bound >= 0);	/* also false for NaN */
			}
		}
	}
	free(text);
	return 0;
}

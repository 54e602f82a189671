/*
 * test_codec.c
 *		The stored form of a mechanism (dp_mechanism_codec.c): every kind and
 *		option round-trips exactly, and every malformed input is refused
 *		before anything is read beyond the buffer.
 */
#include <string.h>

#include "tap.h"
#include "dp_mechanism.h"

static dp_mechanism
make(dp_mechanism_kind kind, uint32_t flags, int64_t horizon, int64_t block,
	 int64_t contributions, const char *key)
{
	dp_mechanism m;

	memset(&m, 0, sizeof(m));
	m.kind = kind;
	m.flags = flags;
	m.epsilon = 0.75;
	m.horizon = horizon;
	m.max_per_step = 20;
	m.block = block;
	m.contributions = contributions;
	if (key)
		strcpy(m.key, key);
	return m;
}

static void
test_round_trips(void)
{
	const dp_mechanism cases[] = {
		make(DP_MECHANISM_BINARY, 0, 365, 0, 0, NULL),
		make(DP_MECHANISM_TWO_LEVEL, DP_FLAG_PAN_PRIVATE | DP_FLAG_CONSISTENT, 10000, 100, 0, NULL),
		make(DP_MECHANISM_HYBRID, DP_FLAG_KEYED | DP_FLAG_PAN_PRIVATE, 0, 0, 0,
			 "a_key.with:every-kind_of_character_0123456789_abcdefghijklmnopq"),
		make(DP_MECHANISM_SIMPLE_II, DP_FLAG_PERSON | DP_FLAG_PER_OBSERVATION, 0, 0, 3, NULL),
		make(DP_MECHANISM_PPCUM, DP_FLAG_CONSISTENT, 64, 0, 0, NULL),
		make(DP_MECHANISM_SIMPLE_I, 0, 1, 0, 0, NULL),
	};
	int			same = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		unsigned char buffer[128];
		dp_mechanism back;
		dp_parse_error error;
		const char *field = NULL;
		size_t		size = dp_mechanism_encoded_size(&cases[i]);

		dp_mechanism_encode(&cases[i], buffer);
		if (dp_mechanism_validate(&cases[i], &field) == DP_OK &&
			dp_mechanism_decode(buffer, size, &back, &error) == DP_OK &&
			memcmp(&back, &cases[i], sizeof(back)) == 0)
			same++;
		else
			tap_diag("case %zu did not round-trip (%s)", i, field ? field : "-");
	}
	tap_ok(same == (int) (sizeof(cases) / sizeof(cases[0])),
		   "every kind and option round-trips exactly (%d cases)", same);
}

static void
test_refusals(void)
{
	dp_mechanism m = make(DP_MECHANISM_HYBRID, DP_FLAG_KEYED | DP_FLAG_PAN_PRIVATE, 0, 0, 0, "key");
	unsigned char buffer[128];
	unsigned char edited[128];
	dp_mechanism back;
	dp_parse_error error;
	size_t		size = dp_mechanism_encoded_size(&m);
	int			truncations = 0;

	dp_mechanism_encode(&m, buffer);
	tap_ok(size == 49 + 3, "a keyed mechanism is 49 bytes and its key's characters");
	for (size_t length = 0; length < size; length++)
		truncations += dp_mechanism_decode(buffer, length, &back, &error) != DP_OK;
	tap_ok(truncations == (int) size, "every truncation is refused");
	tap_ok(dp_mechanism_decode(buffer, size + 1, &back, &error) != DP_OK,
		   "a trailing byte is refused");

	memcpy(edited, buffer, size);
	edited[0] = 3;
	tap_ok(dp_mechanism_decode(edited, size, &back, &error) != DP_OK &&
		   strcmp(error.field, "version") == 0, "an unknown codec version is refused");
	memcpy(edited, buffer, size);
	edited[2] = 1;
	tap_ok(dp_mechanism_decode(edited, size, &back, &error) != DP_OK &&
		   strcmp(error.field, "reserved") == 0, "non-zero reserved bytes are refused");
	memcpy(edited, buffer, size);
	edited[48] = 64;
	tap_ok(dp_mechanism_decode(edited, size, &back, &error) != DP_OK &&
		   strcmp(error.field, "key") == 0, "a key name longer than 63 is refused");

	memcpy(edited, buffer, size);
	edited[50] = '\0';
	tap_ok(dp_mechanism_decode(edited, size, &back, &error) != DP_OK &&
		   strcmp(error.field, "key") == 0,
		   "a NUL inside the key name is refused: one mechanism, one stored form (found by fuzzing)");

	/* decoding does not validate: a key without the keyed flag decodes, and is refused by validation */
	memcpy(edited, buffer, size);
	edited[4] = (unsigned char) DP_FLAG_PAN_PRIVATE;
	{
		const char *field = NULL;
		int			decoded = dp_mechanism_decode(edited, size, &back, &error) == DP_OK;
		int			refused = decoded && dp_mechanism_validate(&back, &field) != DP_OK;

		tap_ok(decoded && refused, "a key name without the keyed flag is refused by validation (%s)",
			   field ? field : "-");
	}
}

int
main(void)
{
	test_round_trips();
	test_refusals();
	return tap_done();
}

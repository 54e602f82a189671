/*
 * test_codec.c
 *		The stored form of a mechanism (dp_mechanism_codec.c): every kind and
 *		option round-trips exactly, and every malformed input is refused
 *		before anything is read beyond the buffer.
 */
#include <string.h>

#include "tap.h"
#include "dp_bytes.h"
#include "dp_counter.h"
#include "dp_mechanism.h"
#include "test_support.h"

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
	edited[0] = 4;
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

/*
 * max_per_step not stated (0.14.0): 0 in the struct and in the stored
 * form, left out of the text form; a count refuses it, planning reads it
 * as 1.  Stored forms written before (always with a bound of 1 or more)
 * decode to the same mechanism.
 */
static void
test_step_bound(void)
{
	dp_mechanism unstated = make(DP_MECHANISM_BINARY, 0, 365, 0, 0, NULL);
	dp_mechanism stated_one = unstated;
	dp_mechanism back;
	dp_parse_error error;
	unsigned char buffer[128];
	unsigned char old[49];
	char		text[DP_MECHANISM_TEXT_BYTES];
	const char *cursor;
	const char *field = NULL;
	dp_counter	header;
	double		bound_unstated = 0;
	double		bound_one = -1;

	unstated.max_per_step = DP_STEP_BOUND_UNSTATED;
	stated_one.max_per_step = 1;

	tap_ok(dp_mechanism_validate(&unstated, &field) == DP_OK, "an unstated bound validates");
	dp_mechanism_encode(&unstated, buffer);
	tap_ok(dp_get_u64(buffer + 24) == 0 &&
		   dp_mechanism_decode(buffer, dp_mechanism_encoded_size(&unstated), &back, &error) == DP_OK &&
		   memcmp(&back, &unstated, sizeof(back)) == 0,
		   "an unstated bound round-trips through the stored form as 0");
	dp_mechanism_to_text(&unstated, text, sizeof(text));
	cursor = text;
	tap_ok(strstr(text, "max_per_step") == NULL &&
		   dp_mechanism_parse(&cursor, &back, &error) == DP_OK &&
		   memcmp(&back, &unstated, sizeof(back)) == 0,
		   "the text form leaves an unstated bound out and reads it back: %s", text);
	cursor = "binary(epsilon=0.75,horizon=365,max_per_step=0)";
	tap_ok(dp_mechanism_parse(&cursor, &back, &error) != DP_OK &&
		   strcmp(error.field, "max_per_step") == 0,
		   "max_per_step=0 in text is refused: one mechanism, one text");
	/* a parameter without a default: the rolling window's width */
	cursor = "rolling(epsilon=1,max_per_step=1)";
	tap_ok(dp_mechanism_parse(&cursor, &back, &error) != DP_OK && strcmp(error.field, "width") == 0,
		   "a rolling mechanism without its width is refused in text, naming the width");
	cursor = "rolling(epsilon=1,width=7,max_per_step=1)";
	tap_ok(dp_mechanism_parse(&cursor, &back, &error) == DP_OK && back.block == 7 &&
		   back.kind == DP_MECHANISM_ROLLING && back.horizon == 0,
		   "rolling(epsilon=1,width=7,max_per_step=1) reads back with its width");

	/* what 0.13.0 wrote: version 1, max_per_step 1, and its text */
	memset(old, 0, sizeof(old));
	old[0] = 1;
	old[1] = DP_MECHANISM_BINARY;
	dp_put_f64(old + 8, 0.75);
	dp_put_u64(old + 16, 365);
	dp_put_u64(old + 24, 1);
	tap_ok(dp_mechanism_decode(old, sizeof(old), &back, &error) == DP_OK &&
		   memcmp(&back, &stated_one, sizeof(back)) == 0,
		   "a stored form of 0.13.0 with max_per_step 1 decodes to a bound of 1");
	dp_mechanism_encode(&stated_one, buffer);
	tap_ok(memcmp(buffer, old, sizeof(old)) == 0, "and a bound of 1 is still written byte for byte so");
	cursor = "binary(epsilon=0.75,horizon=365,max_per_step=1)";
	tap_ok(dp_mechanism_parse(&cursor, &back, &error) == DP_OK &&
		   memcmp(&back, &stated_one, sizeof(back)) == 0,
		   "the text 0.13.0 wrote reads as a bound of 1");

	tap_ok(dp_counter_prepare(&header, &unstated, &field) == DP_ERROR_STEP_BOUND_UNSTATED &&
		   strcmp(field, "max_per_step") == 0, "a counter refuses an unstated bound");
	tap_ok(dp_counter_prepare(&header, &stated_one, &field) == DP_OK, "and accepts a stated one");
	{
		int			computed = dp_mechanism_error_bound(&unstated, 100, 0.95, &bound_unstated,
														&field) == DP_OK &&
			dp_mechanism_error_bound(&stated_one, 100, 0.95, &bound_one, &field) == DP_OK;

		tap_ok(computed && bound_unstated == bound_one,
			   "planning answers per unit of an unstated bound (%g = %g)", bound_unstated, bound_one);
	}

	back = unstated;
	back.max_per_step = -1;
	tap_ok(dp_mechanism_validate(&back, &field) == DP_ERROR_MAX_PER_STEP, "a negative bound is refused");
	back = make(DP_MECHANISM_SIMPLE_II, DP_FLAG_PERSON | DP_FLAG_PER_OBSERVATION, 0, 0, 3, NULL);
	back.max_per_step = DP_STEP_BOUND_UNSTATED;
	tap_ok(dp_mechanism_validate(&back, &field) == DP_ERROR_MAX_PER_STEP,
		   "a statistic's counter (per observation) must state its bound");
}

/* a counter's compact form decodes (1) or is refused (0) */
static int
decodes(const unsigned char *bytes, size_t length, const dp_mechanism *m)
{
	dp_counter *counter = malloc(dp_counter_size(m));
	dp_parse_error error;
	int			ok = dp_counter_deserialize(bytes, length, counter, dp_counter_size(m), &error) == DP_OK;

	free(counter);
	return ok;
}

/*
 * The compact state form (version 6): a round trip, every truncation and a
 * trailing byte refused, and one encoding per state: a longer varint, an
 * empty zero run, two zero runs in a row and a run past the node count
 * are refused.  Hand-built states of balanced_unbounded(arity=21), whose
 * levels above the open block are zero nodes.
 */
static void
test_compact_states(void)
{
	dp_mechanism m = test_mechanism("binary(epsilon=1,horizon=8,max_per_step=1)");
	dp_random	rng;
	dp_counter *counter;
	unsigned char bytes[512];
	size_t		size;
	int			truncations = 0;

	dp_random_init_keyed(&rng, "codec", 5);
	counter = test_start_counter(&m, &rng);
	for (int t = 0; t < 5; t++)
		dp_counter_push(counter, t & 1, &rng);
	size = dp_counter_serialized_size(counter);
	dp_counter_serialize(counter, bytes);
	tap_ok(bytes[0] == 6 && decodes(bytes, size, &m), "a compact Binary state (%zu bytes) reads back", size);
	for (size_t length = 0; length < size; length++)
		truncations += !decodes(bytes, length, &m);
	tap_ok(truncations == (int) size, "every truncation of it is refused");
	bytes[size] = 1;
	tap_ok(!decodes(bytes, size + 1, &m), "a trailing byte is refused");
	free(counter);

	m = test_mechanism("balanced_unbounded(epsilon=1,arity=21,max_per_step=1)");
	counter = test_start_counter(&m, &rng);
	size = dp_counter_serialized_size(counter);
	dp_counter_serialize(counter, bytes);
	tap_ok(decodes(bytes, size, &m) && size < 100,
		   "an unbounded state's unreached levels are one zero run: %zu bytes for %d nodes",
		   size, counter->node_count);
	{
		/* the nodes start after the public fields and the noise key flag */
		size_t		nodes = dp_counter_public_size(counter) + 1;
		size_t		run = nodes;
		unsigned char edited[600];

		/* the zero run: the last 0x00 token of the encoding */
		for (size_t i = nodes; i < size; i++)
			if (bytes[i] == 0 && i + 1 < size)
				run = i;
		/* the run's length n with one byte more than its shortest form */
		{
			unsigned __int128 n = 0;
			size_t		used = dp_get_varint(bytes + run + 1, size - run - 1, &n);
			size_t		length = run + 1;

			memcpy(edited, bytes, run + 1);
			length += dp_put_varint(edited + length, n);
			edited[length - 1] |= 0x80;
			edited[length++] = 0;
			memcpy(edited + length, bytes + run + 1 + used, size - run - 1 - used);
			length += size - run - 1 - used;
			tap_ok(used > 0 && !decodes(edited, length, &m),
				   "a varint longer than its shortest form is refused");
		}
		memcpy(edited, bytes, size);
		edited[run + 1] = 0;
		tap_ok(!decodes(edited, size, &m), "an empty zero run is refused");
		/* the run of n split in runs of 1 and n - 1 */
		{
			unsigned __int128 n = 0;
			size_t		used = dp_get_varint(bytes + run + 1, size - run - 1, &n);
			size_t		length = run + 1;

			memcpy(edited, bytes, run + 1);
			edited[length++] = 1;
			edited[length++] = 0;
			length += dp_put_varint(edited + length, n - 1);
			memcpy(edited + length, bytes + run + 1 + used, size - run - 1 - used);
			length += size - run - 1 - used;
			tap_ok(used > 0 && n > 1 && !decodes(edited, length, &m),
				   "two zero runs in a row are refused (one state, one encoding)");
		}
		memcpy(edited, bytes, size);
		edited[run + 1] = (unsigned char) (bytes[run + 1] + 1);
		tap_ok(!decodes(edited, size, &m), "a zero run past the node count is refused");
	}
	free(counter);
}

/*
 * A keyed mechanism that names a partition (0.12.0): codec version 3, text
 * partition=HEX; every mechanism without one keeps its stored form.
 */
static void
test_partitions(void)
{
	dp_mechanism m = make(DP_MECHANISM_BINARY, DP_FLAG_KEYED | DP_FLAG_PAN_PRIVATE, 50, 0, 0,
						  "ward_admissions");
	dp_mechanism plain = m;
	dp_mechanism back;
	dp_parse_error error;
	unsigned char buffer[160];
	unsigned char edited[160];
	char		text[DP_MECHANISM_TEXT_BYTES];
	const char *cursor;
	const char *field = NULL;
	size_t		size;
	int			truncations = 0;

	for (int i = 0; i < DP_PARTITION_BYTES; i++)
		m.partition[i] = (unsigned char) (0xf0 + i);

	/* without a partition: version 1, as before */
	dp_mechanism_encode(&plain, buffer);
	tap_ok(buffer[0] == 1 && dp_mechanism_encoded_size(&plain) == 49 + 15,
		   "a keyed mechanism without a partition keeps codec version 1");

	size = dp_mechanism_encoded_size(&m);
	dp_mechanism_encode(&m, buffer);
	tap_ok(size == 49 + 8 + DP_PARTITION_BYTES + 15 && buffer[0] == 3 &&
		   dp_mechanism_validate(&m, &field) == DP_OK &&
		   dp_mechanism_decode(buffer, size, &back, &error) == DP_OK &&
		   memcmp(&back, &m, sizeof(m)) == 0,
		   "a partition is codec version 3 and round-trips exactly");
	for (size_t length = 0; length < size; length++)
		truncations += dp_mechanism_decode(buffer, length, &back, &error) != DP_OK;
	tap_ok(truncations == (int) size && dp_mechanism_decode(buffer, size + 1, &back, &error) != DP_OK,
		   "every truncation of version 3, and a trailing byte, is refused");

	memcpy(edited, buffer, size);
	memset(edited + 57, 0, DP_PARTITION_BYTES);
	tap_ok(dp_mechanism_decode(edited, size, &back, &error) != DP_OK &&
		   strcmp(error.field, "version") == 0,
		   "version 3 without a partition is refused: one mechanism, one stored form");
	memcpy(edited, buffer, size);
	edited[56] = 0x80;			/* -0.0 as the real parameter */
	tap_ok(dp_mechanism_decode(edited, size, &back, &error) != DP_OK &&
		   strcmp(error.field, "shape") == 0, "version 3 with a -0.0 parameter is refused");

	/* a partition only with a key */
	back = m;
	back.flags = DP_FLAG_PAN_PRIVATE;
	memset(back.key, 0, sizeof(back.key));
	field = NULL;
	tap_ok(dp_mechanism_validate(&back, &field) == DP_ERROR_KEY && strcmp(field, "partition") == 0,
		   "a partition without a key is refused by validation");

	/* the text form */
	dp_mechanism_to_text(&m, text, sizeof(text));
	cursor = text;
	tap_ok(strstr(text, ",key=ward_admissions,partition=f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff)") != NULL &&
		   dp_mechanism_parse(&cursor, &back, &error) == DP_OK && *cursor == '\0' &&
		   memcmp(&back, &m, sizeof(m)) == 0,
		   "the text form names the partition and round-trips: %s", text);
	{
		static const char *const refused[] = {
			"binary(epsilon=1,horizon=50,pan_private=true,key=k,partition=F0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF)",
			"binary(epsilon=1,horizon=50,pan_private=true,key=k,partition=f0f1f2f3f4f5f6f7f8f9fafbfcfdfef)",
			"binary(epsilon=1,horizon=50,pan_private=true,key=k,partition=00000000000000000000000000000000)",
			"binary(epsilon=1,horizon=50,pan_private=true,key=k,partition=)",
		};
		int			count = 0;

		for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		{
			cursor = refused[i];
			count += dp_mechanism_parse(&cursor, &back, &error) != DP_OK;
		}
		tap_ok(count == 4, "upper-case, short, all-zero and empty partitions are refused in text");
	}

	/* the longest text fits its buffer */
	{
		dp_mechanism longest = make(DP_MECHANISM_TWO_LEVEL,
									DP_FLAG_KEYED | DP_FLAG_PAN_PRIVATE | DP_FLAG_CONSISTENT |
									DP_FLAG_PERSON | DP_FLAG_PER_OBSERVATION,
									DP_HORIZON_MAX, DP_HORIZON_MAX, DP_MAX_PER_STEP_MAX,
									"a_key.with:every-kind_of_character_0123456789_abcdefghijklmnopq");
		int			length;

		longest.epsilon = -1.2345678901234567e-300;
		longest.max_per_step = INT64_MIN;
		memcpy(longest.partition, m.partition, DP_PARTITION_BYTES);
		length = dp_mechanism_to_text(&longest, text, sizeof(text));
		tap_ok(length < (int) sizeof(text), "the longest text form (%d bytes) fits in %d", length,
			   DP_MECHANISM_TEXT_BYTES);
	}
}

int
main(void)
{
	test_round_trips();
	test_refusals();
	test_step_bound();
	test_partitions();
	test_compact_states();
	return tap_done();
}

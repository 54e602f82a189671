/*
 * test_security.c
 *		The holes of the 0.3.0 security review, at the level of the core:
 *		decoders that must check sizes before they write, a default block
 *		size that must terminate for every int64, node values a genuine
 *		state cannot hold, checked node arithmetic, strict text scanning and
 *		an average's error bound at the largest confidence below 1.
 *
 * Run under `make unit-sanitize` as well: storage is allocated at its
 * exact size, so any write past it is an AddressSanitizer report.  An
 * alarm turns a hang into a failure.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dp_statistic.h"
#include "dp_text.h"
#include "tap.h"

static dp_random rng;

/* exact ceil(sqrt(h)) by bisection on 128-bit squares, independent of the code */
static int64_t
reference_block(int64_t horizon)
{
	int64_t		low = 0;
	int64_t		high = 3037000500;	/* its square passes INT64_MAX */

	if (horizon <= 1)
		return 1;
	while (high - low > 1)
	{
		int64_t		middle = low + (high - low) / 2;

		if ((__int128) middle * middle >= horizon)
			high = middle;
		else
			low = middle;
	}
	return high;
}

static void
test_default_block(void)
{
	static const int64_t cases[] = {
		2, 3, 4, 5, 99, 100, 101, 1000000, 4611686018427387904LL, 4611686018427387903LL,
		9223372030926249001LL, 9223372030926249000LL, 9223372030926249002LL,
		9223372036854775806LL, INT64_MAX, 3037000499LL * 3037000499LL,
		3037000499LL * 3037000499LL + 1, 3037000499LL * 3037000499LL - 1
	};
	int			wrong = 0;

	for (int64_t h = 1; h <= 100000; h++)
		wrong += dp_default_block(h) != reference_block(h);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		wrong += dp_default_block(cases[i]) != reference_block(cases[i]);
	wrong += dp_default_block(0) != 1 || dp_default_block(-5) != 1 ||
		dp_default_block(INT64_MIN) != 1;
	tap_ok(wrong == 0, "ceil(sqrt(horizon)) is exact and returns for every int64 (%d wrong)", wrong);
	tap_ok(dp_default_block(INT64_MAX) == 3037000500LL,
		   "the horizon that hung 0.3.0 (2^63 - 1) gives 3037000500");
}

static dp_statistic *
average(dp_statistic *layout, size_t *size, int64_t horizon, int steps)
{
	dp_statistic_spec spec = {.kind = DP_STATISTIC_AVERAGE, .domain = DP_VALUES_REAL,
		.estimator = DP_ESTIMATOR_MIDPOINT, .lower = 0, .upper = 1,
	.mechanism = {.kind = DP_MECHANISM_BINARY, .epsilon = 1, .horizon = horizon, .max_per_step = 1}};
	const char *field;
	dp_statistic *statistic;

	if (dp_statistic_layout(layout, &spec, &field) != DP_OK)
		return NULL;
	*size = dp_statistic_size(layout);
	statistic = malloc(*size);
	dp_statistic_start(statistic, layout, &rng);
	for (int t = 0; t < steps; t++)
		dp_statistic_push(statistic, true, 0.25 * (t % 4), &rng);
	return statistic;
}

/*
 * 0.3.0 copied a channel's counter into the slot of its layout before it
 * checked the counter's mechanism: a sum channel declaring horizon 2^40
 * (41 nodes) in an average of horizon 4 (3 nodes) wrote past the storage.
 */
static void
test_statistic_channel_overflow(void)
{
	dp_statistic layout;
	size_t		size;
	dp_statistic *genuine = average(&layout, &size, 4, 3);
	dp_mechanism big = genuine->channels[1].mechanism;
	dp_counter *big_counter;
	unsigned char *bytes;
	unsigned char *forged;
	size_t		length;
	size_t		count_length;
	size_t		forged_length;
	dp_statistic *target;
	dp_parse_error error = {0};
	char	   *text;
	char	   *forged_text;
	char	   *at;
	const char *field;
	dp_status	status;

	/* the binary form: header, the genuine count channel, then a 41-node sum channel */
	big.horizon = ((int64_t) 1) << 40;
	big_counter = malloc(dp_counter_size(&big));
	dp_counter_start(big_counter, &big, &rng, &field);
	length = dp_statistic_serialized_size(genuine);
	bytes = malloc(length);
	dp_statistic_serialize(genuine, bytes);
	count_length = 4 + dp_counter_serialized_size(dp_statistic_counter(genuine, 0));
	forged_length = 32 + count_length + 4 + dp_counter_serialized_size(big_counter);
	forged = malloc(forged_length);
	memcpy(forged, bytes, 32 + count_length);
	{
		uint32_t	big_length = (uint32_t) dp_counter_serialized_size(big_counter);
		unsigned char *p = forged + 32 + count_length;

		for (int i = 0; i < 4; i++)
			p[i] = (unsigned char) (big_length >> (8 * i));
		dp_counter_serialize(big_counter, p + 4);
	}
	target = malloc(size);
	status = dp_statistic_deserialize(forged, forged_length, target, size, &error);
	tap_ok(status == DP_ERROR_FORMAT && strcmp(error.field, "sum") == 0,
		   "binary: a channel declaring more nodes than its layout is refused (field %s: %s)",
		   error.field, error.problem);
	tap_ok(dp_statistic_deserialize(bytes, length, target, size, &error) == DP_OK,
		   "binary: the genuine state of the same shape is read");
	tap_ok(dp_statistic_deserialize(bytes, length, target, size - 1, &error) == DP_ERROR_FORMAT,
		   "binary: storage one byte short is refused, not overrun");

	/* the text form: the same forgery */
	text = malloc(dp_statistic_text_size(genuine));
	dp_statistic_to_text(genuine, text);
	forged_text = malloc(strlen(text) + 1024);
	at = strstr(text, " sum: ");
	memcpy(forged_text, text, (size_t) (at - text) + 6);
	dp_counter_to_text(big_counter, forged_text + (at - text) + 6);
	status = dp_statistic_parse(forged_text, &layout, NULL, 0, &error);
	if (status == DP_OK)
		status = dp_statistic_parse(forged_text, &layout, target, size, &error);
	tap_ok(status == DP_ERROR_FORMAT && strcmp(error.field, "sum") == 0,
		   "text: a channel declaring more nodes than its layout is refused (field %s: %s)",
		   error.field, error.problem);
	tap_ok(dp_statistic_parse(text, &layout, target, size - 1, &error) == DP_ERROR_FORMAT,
		   "text: storage one byte short is refused, not overrun");
	tap_ok(dp_statistic_parse(text, &layout, target, size, &error) == DP_OK,
		   "text: the genuine state is read");

	free(genuine);
	free(big_counter);
	free(bytes);
	free(forged);
	free(target);
	free(text);
	free(forged_text);
}

/* A counter decoded into storage sized for a smaller one is refused untouched. */
static void
test_counter_capacity(void)
{
	dp_mechanism small = {.kind = DP_MECHANISM_BINARY, .epsilon = 1, .horizon = 4, .max_per_step = 1};
	dp_mechanism large = small;
	dp_counter *counter;
	unsigned char *bytes;
	char	   *text;
	unsigned char *storage;
	size_t		small_size = dp_counter_size(&small);
	dp_parse_error error;
	const char *field;
	int			untouched = 1;

	large.horizon = 1 << 20;
	counter = malloc(dp_counter_size(&large));
	dp_counter_start(counter, &large, &rng, &field);
	bytes = malloc(dp_counter_serialized_size(counter));
	dp_counter_serialize(counter, bytes);
	text = malloc(dp_counter_text_size(counter));
	dp_counter_to_text(counter, text);
	storage = malloc(small_size);
	memset(storage, 0xa5, small_size);
	tap_ok(dp_counter_deserialize(bytes, dp_counter_serialized_size(counter),
								  (dp_counter *) storage, small_size, &error) == DP_ERROR_FORMAT &&
		   dp_counter_parse(text, &small, (dp_counter *) storage, small_size, &error) == DP_ERROR_FORMAT,
		   "a 21-node counter is not decoded into storage for 3 nodes (binary and text)");
	for (size_t i = 0; i < small_size; i++)
		untouched &= storage[i] == 0xa5;
	tap_ok(untouched, "and the storage was not written");
	free(counter);
	free(bytes);
	free(text);
	free(storage);
}

static dp_status
parse_counter(const char *text, dp_parse_error *error)
{
	dp_mechanism mechanism;
	dp_counter *counter;
	dp_status	status = dp_counter_parse(text, &mechanism, NULL, 0, error);
	size_t		size;

	if (status != DP_OK)
		return status;
	size = dp_counter_size(&mechanism);
	counter = malloc(size);
	status = dp_counter_parse(text, &mechanism, counter, size, error);
	free(counter);
	return status;
}

/* Node values: what a genuine state can hold, and checked arithmetic beyond. */
static void
test_node_values(void)
{
	dp_parse_error error = {0};
	dp_mechanism mechanism = {.kind = DP_MECHANISM_TWO_LEVEL, .epsilon = 1, .horizon = 9,
	.block = 1, .max_per_step = 1};
	dp_counter *counter = malloc(dp_counter_size(&mechanism));
	unsigned char *bytes;
	const char *field;

	tap_ok(parse_counter("v2 simple_ii(epsilon=1,max_per_step=1) steps=1 nodes=[1329227995784915872903807060280344576]",
						 &error) == DP_OK,
		   "a node of exactly 2^120 is read");
	tap_ok(parse_counter("v2 simple_ii(epsilon=1,max_per_step=1) steps=1 nodes=[1329227995784915872903807060280344577]",
						 &error) == DP_ERROR_FORMAT && strcmp(error.field, "nodes") == 0,
		   "2^120 + 1 is refused, naming nodes");
	tap_ok(parse_counter("v2 binary(epsilon=1,horizon=4,max_per_step=1) steps=3 nodes=[170141183460469231731687303715884105727,0,-170141183460469231731687303715884105728]",
						 &error) == DP_ERROR_FORMAT,
		   "the extremes of 128 bits are refused");

	/* the binary form checks the same bound */
	dp_counter_start(counter, &mechanism, &rng, &field);
	counter->nodes[0] = DP_NODE_VALUE_MAX + 1;
	bytes = malloc(dp_counter_serialized_size(counter));
	dp_counter_serialize(counter, bytes);
	tap_ok(dp_counter_deserialize(bytes, dp_counter_serialized_size(counter), counter,
								  dp_counter_size(&mechanism), &error) == DP_ERROR_FORMAT &&
		   strcmp(error.field, "nodes") == 0,
		   "binary: a node beyond 2^120 is refused");

	/*
	 * In memory, past the decoders: a block closing adds its accumulator to
	 * the closed blocks' sum, which would pass 2^126 and is refused instead
	 * of wrapping.
	 */
	dp_counter_start(counter, &mechanism, &rng, &field);
	counter->nodes[0] = DP_ARITHMETIC_MAX - 5;
	counter->nodes[1] = DP_NODE_VALUE_MAX;
	tap_ok(dp_counter_push(counter, 1, &rng) == DP_ERROR_OVERFLOW,
		   "a push whose node arithmetic would leave the checked range is refused");
	dp_counter_start(counter, &mechanism, &rng, &field);
	counter->nodes[0] = -DP_ARITHMETIC_MAX + 5;
	counter->nodes[1] = -DP_NODE_VALUE_MAX;
	tap_ok(dp_counter_push(counter, 0, &rng) == DP_ERROR_OVERFLOW, "and so is its negative");
	dp_counter_start(counter, &mechanism, &rng, &field);
	tap_ok(dp_counter_push(counter, 1, &rng) == DP_OK, "a genuine push is not");
	free(counter);
	free(bytes);
}

static int
double_accepted(const char *text)
{
	const char *cursor = text;
	double		value;

	return dp_text_double(&cursor, &value);
}

static void
test_text(void)
{
	dp_mechanism mechanism;
	dp_parse_error error = {0};
	const char *cursor;
	const char *field;
	char		long_number[1024];
	int			refused = 0;
	static const char *not_numbers[] = {
		"0x1p-3", "0X10", "inf", "-inf", "nan", "NaN", "Infinity", "1.5abc", "1e", "1e+",
		".", "-", "+", "e5", "1..2", "1.2.3", " "
	};
	static const char *numbers[] = {"1", "-1", "+1", "0.5", ".5", "5.", "1e-3", "1E+300", "2.5e0"};

	for (size_t i = 0; i < sizeof(not_numbers) / sizeof(not_numbers[0]); i++)
		refused += !double_accepted(not_numbers[i]);
	tap_ok(refused == (int) (sizeof(not_numbers) / sizeof(not_numbers[0])),
		   "hex floats, inf, nan and malformed numbers are refused (%d of %zu)",
		   refused, sizeof(not_numbers) / sizeof(not_numbers[0]));
	refused = 0;
	for (size_t i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++)
		refused += !double_accepted(numbers[i]);
	tap_ok(refused == 0, "plain decimals are read");
	memset(long_number, '1', sizeof(long_number) - 1);
	long_number[sizeof(long_number) - 1] = '\0';
	tap_ok(!double_accepted(long_number), "a number of 1023 digits is refused, not copied");

	cursor = "binary(epsilon=1,horizon=10,epsilon=50)";
	tap_ok(dp_mechanism_parse(&cursor, &mechanism, &error) == DP_ERROR_FORMAT &&
		   strcmp(error.field, "epsilon") == 0 && strstr(error.problem, "more than once"),
		   "a parameter given twice is refused");
	cursor = "two_level(epsilon=1,horizon=100,block=0)";
	tap_ok(dp_mechanism_parse(&cursor, &mechanism, &error) == DP_OK && mechanism.block == 0 &&
		   dp_mechanism_validate(&mechanism, &field) == DP_ERROR_BLOCK,
		   "block=0 is kept and refused by validation, not replaced by the default");
	cursor = "two_level(epsilon=1,horizon=100)";
	tap_ok(dp_mechanism_parse(&cursor, &mechanism, &error) == DP_OK && mechanism.block == 10,
		   "an absent block gets ceil(sqrt(horizon))");
	cursor = "two_level(epsilon=1,horizon=9223372036854775807)";
	tap_ok(dp_mechanism_parse(&cursor, &mechanism, &error) == DP_OK &&
		   dp_mechanism_validate(&mechanism, &field) == DP_ERROR_HORIZON,
		   "the horizon that hung 0.3.0 parses at once and is refused as a horizon");
	tap_ok(parse_counter("v1 hybrid(epsilon=1,max_per_step=1) steps=0 nodes=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]",
						 &error) == DP_ERROR_FORMAT && strcmp(error.field, "version") == 0,
		   "a v1 text header is refused for any mechanism but plain Binary");
	tap_ok(parse_counter("v1 binary(epsilon=1,horizon=4,pan_private=true) steps=0 nodes=[0,0,0]",
						 &error) == DP_ERROR_FORMAT,
		   "and for Binary with an option");
	tap_ok(parse_counter("v1 binary(epsilon=1,horizon=4,max_per_step=1) steps=0 nodes=[0,0,0]", &error) == DP_OK,
		   "a v1 plain Binary state is still read");
	tap_ok(parse_counter("v1 binary(epsilon=1,horizon=4) steps=0 nodes=[0,0,0]", &error) == DP_ERROR_FORMAT &&
		   strcmp(error.field, "max_per_step") == 0,
		   "a state whose mechanism states no max_per_step is refused (no version wrote one)");
}

static void
test_statistics_bounds(void)
{
	dp_statistic layout;
	size_t		size;
	dp_statistic *statistic;
	dp_statistic_spec spec = {.kind = DP_STATISTIC_VARIANCE, .domain = DP_VALUES_REAL,
		.lower = 0, .upper = 1e-300,
	.mechanism = {.kind = DP_MECHANISM_BINARY, .epsilon = 1, .horizon = 4, .max_per_step = 1}};
	const char *field;
	double		high = 0;
	double		ninety_five = 0;
	bool		defined;

	tap_ok(dp_statistic_layout(&layout, &spec, &field) == DP_ERROR_BOUNDS &&
		   strcmp(field, "range") == 0,
		   "a range below 2^-256 is refused as a range, not as max_per_step");
	spec.upper = 0x1p-256;
	tap_ok(dp_statistic_layout(&layout, &spec, &field) == DP_OK,
		   "a range of exactly 2^-256 is accepted for a variance");

	/* 1000 observations: the noisy count is far above 1, the average defined */
	statistic = average(&layout, &size, 1024, 1000);
	defined = dp_statistic_error_bound(statistic, 0.9999999999999999, &high) &&
		dp_statistic_error_bound(statistic, 0.95, &ninety_five);
	tap_ok(defined && high > 0 && high > ninety_five,
		   "an average's bound at confidence 0.9999999999999999 is positive and wider than at 0.95 (%g, %g)",
		   high, ninety_five);
	free(statistic);
}

int
main(void)
{
	alarm(60);					/* a regression to an endless loop fails here */
	dp_random_library_init();
	dp_random_init_keyed(&rng, "security", 8);
	test_default_block();
	test_statistic_channel_overflow();
	test_counter_capacity();
	test_node_values();
	test_text();
	test_statistics_bounds();
	return tap_done();
}

/*
 * fuzz_stream.c
 *		Whole streams of every mechanism, counter or statistic, pushed for up
 *		to a few hundred steps and stored along the way exactly as the
 *		extension stores them: serialized, sealed under a known key, then
 *		peeked, opened and decoded into exactly the bytes the peek asked
 *		for.  The other harnesses decode hostile bytes; this one makes the
 *		mechanisms themselves run long enough to close intervals, fill and
 *		wrap rings and reach their later levels, and checks that a stream
 *		continued from its stored copy is the same stream.
 *
 * Input: the mechanism's text form, a NUL, then control bytes (missing
 * bytes read as zero):
 *   0  options: 1 a noise key (always with a keyed mechanism), 2 the table
 *      sampler, 4 a sampler cache, 8 constant-time Gaussian acceptance,
 *      16 a statistic instead of a counter, 32 checkpoints also through the
 *      text form, 64 through the fixed layout of versions 4 and 5,
 *      128 restart the counter at the end (dp_counter_restart)
 *   1  pushes / 2 (up to 510; a bounded mechanism stops at its horizon; 24
 *      at most when every draw builds its own table, see pushes_of)
 *   2  a store every that many steps (0: only at the end)
 *   3  statistic kind (sum, average, variance), 4 domain and estimator
 *      (bits 0 and 1), keyed derivation 2 for a keyed stream (bit 2),
 *   5  bounds (a small table: narrow, wide, negative, integers near 2^53)
 *   6  confidence of the error bounds (fuzz_confidence)
 *   7… the values, one byte per push, cycled
 *
 * Two copies run side by side from one random stream position: the
 * original, never stored, and the copy that is stored and read back at
 * every checkpoint.  They must agree on steps and releases after every
 * push.  A statistic's copy pushes its real values channel by channel,
 * the original through dp_statistic_push, so a keyed step whose terms were
 * derived together must also equal one derived term by term.  Both draw from their own dp_random, copied at the start, so a
 * stored state that lost or changed anything (a node, a ring position, a
 * noise key, the sampler flag) shows up as a different release.
 */
#include "fuzz_arena.h"
#include "fuzz_counter_common.h"
#include "fuzz_statistic_common.h"

#include "dp_counter.h"
#include "dp_laplace_table.h"
#include "dp_seal.h"
#include "dp_statistic.h"

#define OPTION_NOISE_KEY	0x01
#define OPTION_TABLES		0x02
#define OPTION_CACHE		0x04
#define OPTION_CONSTANT_TIME 0x08
#define OPTION_STATISTIC	0x10
#define OPTION_TEXT			0x20
#define OPTION_FIXED		0x40
#define OPTION_RESTART		0x80

#define MECHANISM_TEXT_MAX 400

static const unsigned char seal_key[DP_SEAL_KEY_BYTES] = "fuzz_stream: the sealing key...";
static const unsigned char noise_key[DP_NOISE_KEY_BYTES] = "fuzz_stream: the noise key.....";

typedef struct controls
{
	const uint8_t *bytes;
	size_t		length;
} controls;

static uint8_t
control(const controls *c, size_t i)
{
	return i < c->length ? c->bytes[i] : 0;
}

/* ---- sealing, as the extension does it around every stored state ---- */

/*
 * Seals plain (its public prefix public_length bytes) as the extension does
 * since 0.12.0 (version 2: bound to a role and a stream, padded to
 * padded_length, which depends on the public fields only), then peeks and
 * opens it; returns the opened state (the caller frees it), which must be
 * the very bytes sealed, with its binding.  Every fourth value also goes
 * through version 1, which the extension still reads.
 */
static unsigned char *
seal_and_open(const unsigned char *plain, size_t plain_length, size_t public_length,
			  size_t padded_length, dp_sealed_kind kind)
{
	bool		bound = (plain_length & 3) != 0;
	size_t		sealed_length = bound ? dp_seal_bound_size(public_length, padded_length) :
		dp_seal_size(public_length, plain_length);
	unsigned char *sealed = fuzz_alloc(sealed_length);
	unsigned char *opened;
	dp_seal_info info;
	dp_parse_error error;
	dp_seal_binding binding = {.version = DP_SEAL_VERSION, .role = "fuzz_role", .stream_id = 7};
	dp_seal_binding read;
	size_t		state_length = 0;

	FUZZ_CHECK(public_length <= DP_SEAL_PUBLIC_MAX && plain_length <= DP_SEAL_PLAIN_MAX);
	FUZZ_CHECK(padded_length >= plain_length);
	if (bound)
		dp_seal_bound(sealed, kind, 42, seal_key, &binding, plain, plain_length, public_length,
					  padded_length);
	else
		dp_seal(sealed, kind, 42, seal_key, plain, plain_length, public_length);
	FUZZ_CHECK(dp_seal_claims(sealed, sealed_length));
	FUZZ_CHECK(dp_seal_peek(sealed, sealed_length, kind, &info, &error) == DP_OK);
	FUZZ_CHECK(info.key_id == 42 && info.public_length == public_length);
	FUZZ_CHECK(memcmp(info.public_fields, plain, public_length) == 0);
	opened = fuzz_alloc(info.plain_length);
	FUZZ_CHECK(dp_seal_open_bound(sealed, sealed_length, &info, seal_key, opened, &read,
								  &state_length, &error) == DP_OK);
	FUZZ_CHECK(state_length == plain_length && memcmp(opened, plain, plain_length) == 0);
	if (bound)
		FUZZ_CHECK(read.version == DP_SEAL_VERSION && strcmp(read.role, binding.role) == 0 &&
				   read.stream_id == binding.stream_id);
	else
		FUZZ_CHECK(read.version == 1);
	/* a different secret opens nothing */
	{
		unsigned char other[DP_SEAL_KEY_BYTES];
		unsigned char *scratch = fuzz_alloc(info.plain_length);

		memcpy(other, seal_key, sizeof(other));
		other[plain_length % sizeof(other)] ^= 0x20;
		FUZZ_CHECK(dp_seal_open_bound(sealed, sealed_length, &info, other, scratch, &read,
									  &state_length, &error) != DP_OK);
		free(scratch);
	}
	free(sealed);
	return opened;
}

/*
 * Pushes to run: a table built for every draw (no cache) costs about a
 * millisecond under the sanitizers, so such streams stop after a few
 * dozen steps; those with a cache build each table once.
 */
static int
pushes_of(const controls *c)
{
	uint8_t		options = control(c, 0);
	int			pushes = 2 * control(c, 1);

	if ((options & (OPTION_TABLES | OPTION_CONSTANT_TIME)) && !(options & OPTION_CACHE))
		pushes = pushes < 24 ? pushes : 24;
	return pushes;
}

/* ---- counters ---- */

/* The counter's stored copy read back through the sealed binary form. */
static dp_counter *
counter_through_seal(const dp_counter *counter, size_t *bytes)
{
	size_t		length = dp_counter_serialized_size(counter);
	size_t		public_length = dp_counter_public_size(counter);
	unsigned char *plain = fuzz_alloc(length);
	unsigned char *opened;
	dp_mechanism mechanism;
	dp_parse_error error;
	dp_counter *copy;

	FUZZ_CHECK(public_length <= length);
	dp_counter_serialize(counter, plain);
	opened = seal_and_open(plain, length, public_length, dp_counter_padded_size(counter),
						   DP_SEALED_COUNTER);
	FUZZ_CHECK(dp_counter_peek(opened, length, &mechanism, &error) == DP_OK);
	*bytes = dp_counter_size(&mechanism);
	copy = fuzz_alloc(*bytes);
	FUZZ_CHECK(dp_counter_deserialize(opened, length, copy, *bytes, &error) == DP_OK);
	fuzz_counter_check_fits(copy, *bytes);
	fuzz_counter_check_same(copy, counter);
	FUZZ_CHECK(copy->has_noise_key == counter->has_noise_key &&
			   copy->table_sampler == counter->table_sampler &&
			   (!counter->has_noise_key || copy->derivation == counter->derivation));
	free(opened);
	free(plain);
	return copy;
}

/* The text form and the fixed layout of versions 4 and 5 read back the same state. */
static void
counter_other_forms(const dp_counter *counter, uint8_t options)
{
	dp_parse_error error;
	dp_mechanism mechanism;

	if (options & OPTION_TEXT)
	{
		char	   *text = fuzz_alloc(dp_counter_text_size(counter));
		dp_counter *copy;
		size_t		bytes;

		dp_counter_to_text(counter, text);
		FUZZ_CHECK(strlen(text) < dp_counter_text_size(counter));
		FUZZ_CHECK(dp_counter_parse(text, &mechanism, NULL, 0, &error) == DP_OK);
		bytes = dp_counter_size(&mechanism);
		copy = fuzz_alloc(bytes);
		FUZZ_CHECK(dp_counter_parse(text, &mechanism, copy, bytes, &error) == DP_OK);
		fuzz_counter_check_same(copy, counter);
		free(copy);
		free(text);
	}
	if (options & OPTION_FIXED)
	{
		size_t		length = dp_counter_fixed_size(counter);
		unsigned char *fixed = fuzz_alloc(length);
		dp_counter *copy;
		size_t		bytes;

		dp_counter_serialize_fixed(counter, fixed);
		FUZZ_CHECK(dp_counter_peek(fixed, length, &mechanism, &error) == DP_OK);
		bytes = dp_counter_size(&mechanism);
		copy = fuzz_alloc(bytes);
		FUZZ_CHECK(dp_counter_deserialize(fixed, length, copy, bytes, &error) == DP_OK);
		fuzz_counter_check_same(copy, counter);
		/*
		 * versions 4 and 5 had no table sampler and no derivation 2: such a
		 * state comes back keyless, never under its key with derivation 1
		 */
		FUZZ_CHECK(copy->has_noise_key == (counter->has_noise_key && !counter->table_sampler &&
										   counter->derivation != DP_DERIVATION_2));
		FUZZ_CHECK(!copy->has_noise_key || copy->derivation == DP_DERIVATION_1);
		free(copy);
		free(fixed);
	}
}

static void
counter_readings(const dp_counter *counter, double confidence)
{
	dp_noise_group groups[DP_NOISE_GROUPS_MAX];
	int			count = dp_counter_noise_groups(counter, groups);
	double		variance = dp_counter_noise_variance(counter);

	FUZZ_CHECK(count >= 0 && count <= DP_NOISE_GROUPS_MAX);
	FUZZ_CHECK(!(variance < 0));
	fuzz_counter_read(counter, confidence);
	if (confidence > 0 && confidence <= 1)
		FUZZ_CHECK(!(dp_counter_error_bound_missing(counter, confidence) < 0));
}

/* keyed derivation 2 (0.17.0) when bit 2 of control byte 4 is set */
static int
derivation_of(const controls *c)
{
	return (control(c, 4) & 4) ? DP_DERIVATION_2 : DP_DERIVATION_1;
}

static void
run_counter(const dp_mechanism *mechanism, const controls *c, dp_random *rng)
{
	uint8_t		options = control(c, 0);
	int			pushes = pushes_of(c);
	int			every = control(c, 2);
	double		confidence = fuzz_confidence(control(c, 6));
	bool		keyed = (options & OPTION_NOISE_KEY) || (mechanism->flags & DP_FLAG_KEYED);
	size_t		bytes = dp_counter_size(mechanism);
	dp_counter *original = fuzz_alloc(bytes);
	dp_counter *stored;
	size_t		stored_bytes = bytes;
	dp_random	copy_rng;
	const char *field;

	FUZZ_CHECK(dp_counter_start_derived(original, mechanism, keyed ? noise_key : NULL,
										(options & OPTION_TABLES) != 0, derivation_of(c), rng,
										&field) == DP_OK);
	fuzz_counter_check_fits(original, bytes);
	memcpy(&copy_rng, rng, sizeof(copy_rng));
	stored = counter_through_seal(original, &stored_bytes);

	for (int i = 0; i < pushes; i++)
	{
		uint8_t		byte = control(c, 7 + (size_t) i % (c->length > 7 ? c->length - 7 : 1));
		int64_t		value = fuzz_counter_value(byte, mechanism->max_per_step);
		dp_status	first = dp_counter_push(original, value, rng);
		dp_status	second = dp_counter_push(stored, value, &copy_rng);

		FUZZ_CHECK(first == second);
		if (first != DP_OK)
			break;				/* the horizon, or an overflow: both normal */
		fuzz_counter_check_same(stored, original);
		if (every != 0 && (i + 1) % every == 0)
		{
			dp_counter *next;

			if (dp_counter_check_storable(stored) != DP_OK)
				break;
			next = counter_through_seal(stored, &stored_bytes);
			counter_other_forms(stored, options);
			counter_readings(next, confidence);
			free(stored);
			stored = next;
		}
	}
	counter_readings(original, confidence);
	if (dp_counter_check_storable(original) == DP_OK)
	{
		size_t		last_bytes;

		free(counter_through_seal(original, &last_bytes));
		counter_other_forms(original, options);
	}
	/* a keyless counter run again from step 0: the audit's reuse of one counter */
	if ((options & OPTION_RESTART) && !original->has_noise_key)
	{
		dp_counter_restart(original, rng);
		FUZZ_CHECK(original->steps == 0);
		for (int i = 0; i < 8 && dp_counter_push(original, i, rng) == DP_OK; i++)
			;
		counter_readings(original, confidence);
	}
	(void) dp_counter_value_from_double(original, (double) control(c, 7) / 3.0 - 20.0);
	(void) dp_counter_value_from_double(original, NAN);
	(void) dp_counter_value_from_double(original, 1e300);
	free(stored);
	free(original);
}

/* ---- statistics ---- */

static const double bounds[][2] = {
	{0, 1}, {-5, 20}, {0, 1e6}, {-1e15, 1e15}, {0.5, 0.5000001}, {0, 100},
	{-0x1p53, 0x1p53}, {-3, -1}, {1e-70, 1e-69}, {0, 0x1p-200},
};

static dp_statistic *
statistic_through_seal(const dp_statistic *statistic, size_t *bytes)
{
	size_t		length = dp_statistic_serialized_size(statistic);
	size_t		public_length = dp_statistic_public_size(statistic);
	unsigned char *plain = fuzz_alloc(length);
	unsigned char *opened;
	dp_statistic layout;
	dp_parse_error error;
	dp_statistic *copy;

	FUZZ_CHECK(public_length <= length);
	dp_statistic_serialize(statistic, plain);
	opened = seal_and_open(plain, length, public_length, dp_statistic_padded_size(statistic),
						   DP_SEALED_STATISTIC);
	FUZZ_CHECK(dp_statistic_peek(opened, length, &layout, &error) == DP_OK);
	*bytes = dp_statistic_size(&layout);
	copy = fuzz_alloc(*bytes);
	FUZZ_CHECK(dp_statistic_deserialize(opened, length, copy, *bytes, &error) == DP_OK);
	fuzz_statistic_check_same(copy, statistic);
	free(opened);
	free(plain);
	return copy;
}

static void
statistic_readings(const dp_statistic *statistic, double confidence)
{
	double		estimate;
	double		bound;
	int64_t		sum;

	for (int what = DP_ESTIMATE_SUM; what <= DP_ESTIMATE_STDDEV_SAMP; what++)
		if (dp_statistic_provides(statistic, (dp_estimate_kind) what) &&
			dp_statistic_estimate(statistic, (dp_estimate_kind) what, &estimate))
			FUZZ_CHECK(!isnan(estimate));
	for (int channel = 0; channel < statistic->channel_count; channel++)
		(void) dp_statistic_channel_estimate(statistic, channel);
	if (dp_statistic_error_bound(statistic, confidence, &bound) &&
		confidence > 0 && confidence < 1)
		FUZZ_CHECK(bound >= 0);
	(void) dp_statistic_integer_sum(statistic, &sum);
}

/*
 * A step channel by channel, each keyed term derived when it is drawn: what
 * dp_statistic_push, which derives a keyed step's terms together
 * (dp_term_batch.h), must equal.  Unkeyed channels draw from rng in the
 * same order either way.
 */
static dp_status
push_channel_by_channel(dp_statistic *statistic, bool observed, double value, dp_random *rng)
{
	dp_status	status = DP_OK;

	for (int i = 0; i < statistic->channel_count && status == DP_OK; i++)
		status = dp_counter_push(dp_statistic_counter(statistic, i),
								 dp_statistic_units(statistic, i, observed, value), rng);
	return status;
}

static void
run_statistic(const dp_mechanism *mechanism, const controls *c, dp_random *rng)
{
	uint8_t		options = control(c, 0);
	int			pushes = pushes_of(c);
	int			every = control(c, 2);
	double		confidence = fuzz_confidence(control(c, 6));
	bool		keyed = (options & OPTION_NOISE_KEY) || (mechanism->flags & DP_FLAG_KEYED);
	dp_statistic_spec spec;
	dp_statistic layout;
	dp_statistic *original;
	dp_statistic *stored;
	size_t		bytes;
	dp_random	copy_rng;
	const char *field;

	memset(&spec, 0, sizeof(spec));
	spec.kind = DP_STATISTIC_SUM + control(c, 3) % 3;
	spec.domain = control(c, 4) & 1;
	spec.estimator = (control(c, 4) >> 1) & 1;
	spec.lower = bounds[control(c, 5) % (sizeof(bounds) / sizeof(bounds[0]))][0];
	spec.upper = bounds[control(c, 5) % (sizeof(bounds) / sizeof(bounds[0]))][1];
	spec.mechanism = *mechanism;
	if (dp_statistic_layout(&layout, &spec, &field) != DP_OK)
		return;
	bytes = dp_statistic_size(&layout);
	original = fuzz_alloc(bytes);
	dp_statistic_start_derived(original, &layout, keyed ? noise_key : NULL,
							   (options & OPTION_TABLES) != 0, derivation_of(c), rng);
	memcpy(&copy_rng, rng, sizeof(copy_rng));
	stored = statistic_through_seal(original, &bytes);

	for (int i = 0; i < pushes; i++)
	{
		uint8_t		byte = control(c, 7 + (size_t) i % (c->length > 7 ? c->length - 7 : 1));
		bool		observed = byte % 11 != 0;
		double		value = fuzz_statistic_value(byte, spec.lower, spec.upper);
		dp_status	first;
		dp_status	second;

		if (spec.domain == DP_VALUES_INTEGER && (byte & 1))
		{
			int64_t		integer = isfinite(value) && fabs(value) < 0x1p62 ? (int64_t) value :
				byte < 128 ? INT64_MIN : INT64_MAX;

			first = dp_statistic_push_integer(original, observed, integer, rng);
			second = dp_statistic_push_integer(stored, observed, integer, &copy_rng);
		}
		else
		{
			first = dp_statistic_push(original, observed, value, rng);
			second = push_channel_by_channel(stored, observed, value, &copy_rng);
		}
		FUZZ_CHECK(first == second);
		if (first != DP_OK)
			break;
		fuzz_statistic_check_same(stored, original);
		if (every != 0 && (i + 1) % every == 0)
		{
			dp_statistic *next;

			if (dp_statistic_check_storable(stored) != DP_OK)
				break;
			next = statistic_through_seal(stored, &bytes);
			if (options & OPTION_TEXT)
				free(fuzz_statistic_round_trip(stored));
			statistic_readings(next, confidence);
			free(stored);
			stored = next;
		}
	}
	statistic_readings(original, confidence);
	if (dp_statistic_check_storable(original) == DP_OK)
		free(statistic_through_seal(original, &bytes));
	free(stored);
	free(original);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t		text_length = nul ? (size_t) (nul - data) : size;
	controls	c = {nul ? nul + 1 : data + size, nul ? size - text_length - 1 : 0};
	uint8_t		options = control(&c, 0);
	char	   *text;
	const char *cursor;
	dp_mechanism mechanism;
	dp_parse_error error;
	const char *field;
	dp_random	rng;
	dp_sampler_cache cache;
	fuzz_arena	tables = {{0}, 0, 0};

	if (text_length > MECHANISM_TEXT_MAX)
		return 0;
	text = fuzz_text(data, text_length);
	cursor = text;
	if (dp_mechanism_parse(&cursor, &mechanism, &error) != DP_OK ||
		dp_mechanism_validate(&mechanism, &field) != DP_OK)
	{
		free(text);
		return 0;
	}
	/* a count needs a stated step bound (0.14.0): a stream of values is counted with 1 */
	if (!dp_mechanism_step_bound_stated(&mechanism))
		mechanism.max_per_step = 1;

	fuzz_rng(&rng);
	rng.table_sampler = (options & OPTION_TABLES) != 0;
	/* the fresh stream's two flags, set together as the backend's stream sets them */
	rng.constant_time_gaussian = (options & OPTION_CONSTANT_TIME) != 0;
	rng.laplace_low = (options & OPTION_CONSTANT_TIME) != 0;
	if (options & OPTION_CACHE)
	{
		memset(&cache, 0, sizeof(cache));
		cache.allocate = fuzz_arena_allocate;
		cache.release_all = fuzz_arena_release;
		cache.context = &tables;
		rng.samplers = &cache;
	}

	if (options & OPTION_STATISTIC)
		run_statistic(&mechanism, &c, &rng);
	else
		run_counter(&mechanism, &c, &rng);

	fuzz_arena_release(&tables);
	free(text);
	return 0;
}

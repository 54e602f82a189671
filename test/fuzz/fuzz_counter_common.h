/*
 * fuzz_counter_common.h
 *		Counters in fuzz_state_template.h, for fuzz_counter_text,
 *		fuzz_counter_binary and fuzz_parameters: both stored forms
 *		round-trip, pushes continue identically after a store, and releases
 *		and error bounds are defined.  A state dp_counter_check_storable
 *		accepts must read back.
 */
#ifndef FUZZ_COUNTER_COMMON_H
#define FUZZ_COUNTER_COMMON_H

#include "fuzz_common.h"

#include "dp_counter.h"

/* A decoded counter must fit the storage it was decoded into. */
static void
fuzz_counter_check_fits(const dp_counter *counter, size_t bytes)
{
	FUZZ_CHECK(counter->node_count >= 0 && counter->node_count <= DP_COUNTER_MAX_NODES);
	FUZZ_CHECK(counter->node_count == dp_counter_persisted_node_count(&counter->mechanism));
	FUZZ_CHECK(dp_counter_size(&counter->mechanism) <= bytes);
}

/* A copy read back, or pushed alongside, is at the same step and release. */
static void
fuzz_counter_check_same(const dp_counter *copy, const dp_counter *counter)
{
	FUZZ_CHECK(copy->steps == counter->steps);
	FUZZ_CHECK(dp_counter_release_wide(copy) == dp_counter_release_wide(counter));
}

/*
 * The text form carries everything but the noise key, which exists only
 * inside sealed values (and the binary form inside them): a copy read from
 * text gets the original's.
 */
static void
fuzz_counter_adopt_noise_key(dp_counter *copy, const dp_counter *original)
{
	copy->has_noise_key = original->has_noise_key;
	copy->table_sampler = original->table_sampler;
	copy->derivation = original->derivation;
	memcpy(copy->noise_key, original->noise_key, sizeof(copy->noise_key));
}

static dp_status
fuzz_counter_push_byte(dp_counter *counter, uint8_t byte, dp_random *rng)
{
	return dp_counter_push(counter, fuzz_counter_value(byte, counter->mechanism.max_per_step),
						   rng);
}

static void
fuzz_counter_read(const dp_counter *counter, double confidence)
{
	double		bound = dp_counter_error_bound(counter, confidence);

	(void) dp_counter_release(counter);
	(void) dp_counter_noise_variance(counter);
	if (confidence > 0 && confidence < 1)
		FUZZ_CHECK(bound >= 0);	/* defined for every valid counter */
}

#define FUZZ_STATE_PREFIX counter
#define FUZZ_STATE_LAYOUT dp_mechanism
/* the stored copy is the one read at a confidence taken from the input */
#define FUZZ_STATE_CONFIDENCE(data, size) 0.9
#define FUZZ_STATE_COPY_CONFIDENCE(data, size) fuzz_confidence(fuzz_byte(data, size, 5))
/* an overflow spoils the nodes, not the noise the bound comes from: still read */
#define FUZZ_STATE_READ_REFUSED true
#include "fuzz_state_template.h"

#endif							/* FUZZ_COUNTER_COMMON_H */

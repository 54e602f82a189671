/*
 * test_support.h
 *		Helpers the C unit tests share: a mechanism from its text form and a
 *		started counter, each bailing out of the TAP run when it cannot be
 *		made (a test's own setup failing is not a check that failed); the
 *		memory of a sampler cache.
 */
#ifndef DP_TEST_SUPPORT_H
#define DP_TEST_SUPPORT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dp_counter.h"
#include "dp_laplace_table.h"
#include "dp_statistic.h"

/*
 * The mechanism of a text form, parsed and validated.  A text that leaves
 * max_per_step out gets a bound of 1, what it meant when these tests were
 * written (0.14.0 reads it as "not stated", which a counter refuses): the
 * tests exercise counters, and a counter that failed to start would make
 * an audit's check vacuous.
 */
static inline dp_mechanism
test_mechanism(const char *text)
{
	dp_mechanism mechanism;
	dp_parse_error error;
	const char *cursor = text;
	const char *field;

	if (dp_mechanism_parse(&cursor, &mechanism, &error) != DP_OK ||
		dp_mechanism_validate(&mechanism, &field) != DP_OK)
	{
		printf("Bail out! %s does not parse or validate\n", text);
		exit(1);
	}
	if (!dp_mechanism_step_bound_stated(&mechanism))
		mechanism.max_per_step = 1;
	return mechanism;
}

/* A counter of the mechanism at step 0, in storage of its own (free it). */
static inline dp_counter *
test_start_counter(const dp_mechanism *mechanism, dp_random *rng)
{
	dp_counter *counter = malloc(dp_counter_size(mechanism));
	const char *field = NULL;

	if (counter == NULL || dp_counter_start(counter, mechanism, rng, &field) != DP_OK)
	{
		printf("Bail out! could not start a counter (%s)\n", field ? field : "-");
		exit(1);
	}
	return counter;
}

/*
 * A counter written and read back, in storage of its own (free it): the
 * same stored form, and no memo (what a state read from a table gives).
 */
static inline dp_counter *
test_reload_counter(const dp_counter *counter)
{
	size_t		length = dp_counter_serialized_size(counter);
	size_t		size = dp_counter_size(&counter->mechanism);
	unsigned char *bytes = malloc(length);
	dp_counter *loaded = malloc(size);
	dp_parse_error error;

	memset(&error, 0, sizeof(error));
	if (bytes == NULL || loaded == NULL)
	{
		printf("Bail out! out of memory\n");
		exit(1);
	}
	dp_counter_serialize(counter, bytes);
	if (dp_counter_deserialize(bytes, length, loaded, size, &error) != DP_OK)
	{
		printf("Bail out! a %s state did not read back\n", counter->kind->name);
		exit(1);
	}
	free(bytes);
	return loaded;
}

/*
 * The noise terms of a balanced-digit release at t, written out
 * independently of the mechanism: the sum of |d_j| over the digits of t in
 * [-(k - 1) / 2, (k - 1) / 2], odd k.
 */
static inline int64_t
test_balanced_terms(int64_t t, int64_t k)
{
	int64_t		h = (k - 1) / 2,
				terms = 0;

	while (t != 0)
	{
		int64_t		d = t % k;

		if (d > h)
			d -= k;
		terms += d < 0 ? -d : d;
		t = (t - d) / k;
	}
	return terms;
}

/* What a user asks of a statistic (dp_statistic_layout derives the rest). */
static inline dp_statistic_spec
test_statistic_spec(int32_t kind, int32_t domain, int32_t estimator, double lower, double upper,
					dp_mechanism mechanism)
{
	dp_statistic_spec spec;

	memset(&spec, 0, sizeof(spec));
	spec.kind = kind;
	spec.domain = domain;
	spec.estimator = estimator;
	spec.lower = lower;
	spec.upper = upper;
	spec.mechanism = mechanism;
	return spec;
}

/* Memory for a sampler cache (dp_sampler_cache): freed when it starts again. */
typedef struct test_arena
{
	void	   *blocks[DP_SAMPLER_CACHE_SIZE + 1];
	int			count;
	int			resets;
} test_arena;

static inline void *
test_arena_allocate(void *context, size_t size)
{
	test_arena *arena = context;
	void	   *block = malloc(size);

	if (block == NULL || arena->count == DP_SAMPLER_CACHE_SIZE + 1)
	{
		printf("Bail out! the test arena is full or out of memory\n");
		exit(1);
	}
	return arena->blocks[arena->count++] = block;
}

static inline void
test_arena_release(void *context)
{
	test_arena *arena = context;

	for (int i = 0; i < arena->count; i++)
		free(arena->blocks[i]);
	arena->count = 0;
	arena->resets++;
}

/* A cache whose tables live in arena. */
static inline dp_sampler_cache
test_sampler_cache(test_arena *arena)
{
	dp_sampler_cache cache;

	memset(&cache, 0, sizeof(cache));
	cache.allocate = test_arena_allocate;
	cache.release_all = test_arena_release;
	cache.context = arena;
	return cache;
}

#endif							/* DP_TEST_SUPPORT_H */

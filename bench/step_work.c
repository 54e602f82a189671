/*
 * step_work.c
 *		The driver of bench/step_work.sh: one counter of a given mechanism
 *		pushed for a number of steps, so that the script can count the
 *		instructions of dp_counter_push (under callgrind) and tell whether a
 *		mechanism's work per step grows with the horizon (issue 29: per-step
 *		work O(1) amortised for every tree mechanism).
 *
 * Usage:
 *   step_work --kinds             the registry's kinds, a name a line (the
 *                                 script's list of mechanisms must name
 *                                 each: a new kind without an entry fails)
 *   step_work MECHANISM STEPS     MECHANISM a text form, "%ld" in it
 *                                 replaced by STEPS (the horizon); pushes
 *                                 STEPS values (at most 2^20) through one
 *                                 counter and prints the last release
 *
 * The noise is seeded and drawn by the table sampler with its cache, as a
 * query draws it; the values pushed are 0 and max_per_step in a fixed
 * pattern.  The script subtracts the draws (dp_counter_noise), whose cost
 * depends on the scale, not on the work a step does around them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_tables.h"
#include "dp_counter.h"
#include "dp_laplace_table.h"
#include "dp_mechanism.h"
#include "dp_random.h"
#include "dp_registry.h"

#define STEPS_MAX (1L << 20)

static int
usage(void)
{
	fprintf(stderr, "usage: step_work --kinds | step_work MECHANISM STEPS\n");
	return 2;
}

int
main(int argc, char **argv)
{
	static const char seed[] = "dp_stream bench: step work";
	char		text[DP_MECHANISM_TEXT_BYTES];
	const char *cursor = text;
	const char *field = "";
	dp_mechanism mechanism;
	dp_parse_error error;
	void	   *blocks[BENCH_TABLE_BLOCKS] = {0};
	dp_sampler_cache cache = {.allocate = bench_tables_allocate, .release_all = bench_tables_release,
	.context = blocks};
	dp_random	rng;
	dp_counter *counter;
	long		steps;

	if (argc == 2 && strcmp(argv[1], "--kinds") == 0)
	{
		const dp_counter_kind *kind;

		for (size_t i = 0; (kind = dp_counter_kind_at(i)) != NULL; i++)
			printf("%s\n", kind->name);
		return 0;
	}
	if (argc != 3)
		return usage();
	steps = strtol(argv[2], NULL, 10);
	if (steps < 1)
		return usage();
	/* the pattern is the script's own, one %ld at most */
	snprintf(text, sizeof(text), argv[1], steps);
	if (steps > STEPS_MAX)
		steps = STEPS_MAX;

	memset(&mechanism, 0, sizeof(mechanism));
	memset(&error, 0, sizeof(error));
	if (dp_mechanism_parse(&cursor, &mechanism, &error) != DP_OK)
	{
		fprintf(stderr, "step_work: mechanism not parsed: %s\n", text);
		return 2;
	}
	if (!dp_random_library_init())
		return 1;
	dp_random_init_keyed(&rng, seed, sizeof(seed) - 1);
	rng.samplers = &cache;
	rng.table_sampler = true;
	rng.constant_time_gaussian = true;
	counter = malloc(dp_counter_size(&mechanism));
	if (counter == NULL)
		return 1;
	if (dp_counter_start(counter, &mechanism, &rng, &field) != DP_OK)
	{
		fprintf(stderr, "step_work: mechanism refused (%s): %s\n", field, text);
		return 2;
	}
	for (long t = 0; t < steps; t++)
	{
		if (dp_counter_push(counter, t % 3 == 0 ? counter->mechanism.max_per_step : 0,
							&rng) != DP_OK)
		{
			fprintf(stderr, "step_work: push refused at step %ld: %s\n", t + 1, text);
			return 1;
		}
	}
	printf("%s: %lld\n", text, (long long) dp_counter_release(counter));
	bench_tables_release(blocks);
	free(counter);
	return 0;
}

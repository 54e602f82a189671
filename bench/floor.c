/*
 * floor.c
 *		The noise a private running release cannot do without, timed: one
 *		exact draw per channel per step, at each channel's own scale, through
 *		the same counter, random stream and sampler tables as a query
 *		(bench/throughput.sh adds it to the plain twin's time: the floor of
 *		each ratio of issue 29's table).
 *
 * Why one draw per channel per step is a floor: the releases are
 * R_t = S_t + N_t with N_t a fixed combination of noise terms; were N_t a
 * combination sum c_j N_j of the earlier releases' noise, R_t - sum c_j R_j
 * = S_t - sum c_j S_j would be exact and move with step t's value one for
 * one, so neighbouring streams would be told apart with certainty.  The
 * noise of T releases therefore spans T dimensions: a counter released at
 * every step (a count, a sum, a sum of squares) has drawn at least t terms
 * by step t, one a step on average (terms may be drawn ahead of their step,
 * so not necessarily at it).  The draw's cost depends on
 * the channel's scale in its own units (a real-valued sum channel's is about
 * 2^45 units, 11 chunks of the table sampler), which this program reads off
 * the statistic the aggregate would build: the same spec, the same layout.
 *
 * Usage: floor STATISTIC MECHANISM STEPS [keyed]
 *   STATISTIC  count, sum, avg or variance (bounds 0 and 10, real values, as
 *              in bench/throughput.sh; count: max_per_step 1)
 *   MECHANISM  the mechanism's text form, e.g. "balanced(epsilon=1,horizon=2000000,arity=21)"
 *   keyed      noise terms derived from a key (derivation 2), as a keyed
 *              release draws them: an opening term (its position only) and
 *              a closing term (its position and content) per channel and
 *              step, the two a keyed stream draws per step on average (a
 *              repeatable release whose noise depended on the position only
 *              would give the exact change between a rolled-back step and
 *              the real one: docs/keyed_noise.md), the channels' terms of
 *              a step derived together as dp_statistic_push derives them;
 *              so the keyed floor is the keyed design's, not any design's.  Otherwise fresh noise
 *              from the secure stream through the table sampler and its
 *              fresh draw, as a query without a seed
 * Prints the nanoseconds per step (all channels), the best of five runs.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dp_counter.h"
#include "bench_tables.h"
#include "dp_laplace_table.h"
#include "dp_mechanism.h"
#include "dp_random.h"
#include "dp_statistic.h"
#include "dp_term_batch.h"

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int
usage(void)
{
	fprintf(stderr, "usage: floor count|sum|avg|variance MECHANISM STEPS [keyed]\n");
	return 2;
}

int
main(int argc, char **argv)
{
	const char *cursor;
	const char *field = "";
	dp_parse_error error;
	dp_statistic_spec spec;
	dp_statistic layout;
	dp_statistic *statistic;
	dp_counter *counters[DP_STATISTIC_CHANNELS_MAX];
	int			channels;
	long		steps;
	int			keyed;
	bool		counting;
	void	   *blocks[BENCH_TABLE_BLOCKS] = {0};
	dp_sampler_cache cache = {.allocate = bench_tables_allocate, .release_all = bench_tables_release,
	.context = blocks};
	unsigned char key[DP_NOISE_KEY_BYTES];
	dp_random	rng;
	double		best = -1;
	volatile dp_int128 sink = 0;

	if (argc < 4 || argc > 5)
		return usage();
	steps = strtol(argv[3], NULL, 10);
	keyed = argc == 5 && strcmp(argv[4], "keyed") == 0;
	if (steps < 1 || (argc == 5 && !keyed))
		return usage();

	memset(&spec, 0, sizeof(spec));
	memset(&error, 0, sizeof(error));
	cursor = argv[2];
	if (dp_mechanism_parse(&cursor, &spec.mechanism, &error) != DP_OK)
	{
		fprintf(stderr, "floor: mechanism not parsed: %s\n", argv[2]);
		return 2;
	}
	counting = strcmp(argv[1], "count") == 0;
	if (strcmp(argv[1], "sum") == 0)
		spec.kind = DP_STATISTIC_SUM;
	else if (strcmp(argv[1], "avg") == 0)
		spec.kind = DP_STATISTIC_AVERAGE;
	else if (strcmp(argv[1], "variance") == 0)
		spec.kind = DP_STATISTIC_VARIANCE;
	else if (!counting)
		return usage();

	if (!dp_random_library_init())
		return 1;
	dp_random_init_secure(&rng);
	rng.samplers = &cache;
	rng.table_sampler = true;
	rng.constant_time_gaussian = true;
	rng.laplace_low = true;		/* as a query's stream of fresh noise */
	for (size_t i = 0; i < sizeof(key); i++)
		key[i] = (unsigned char) (i * 29 + 7);

	if (counting)
	{
		/* dp_count: one counter, the mechanism as given */
		dp_counter *counter;

		if (spec.mechanism.max_per_step < 1)
			spec.mechanism.max_per_step = 1;
		counter = malloc(dp_counter_size(&spec.mechanism));
		if (dp_counter_start_derived(counter, &spec.mechanism, keyed ? key : NULL, true,
									 DP_DERIVATION_2, &rng, &field) != DP_OK)
		{
			fprintf(stderr, "floor: mechanism refused (%s)\n", field);
			return 2;
		}
		counters[0] = counter;
		channels = 1;
	}
	else
	{
		spec.domain = DP_VALUES_REAL;
		spec.estimator = DP_ESTIMATOR_MIDPOINT;
		spec.lower = 0;
		spec.upper = 10;
		if (dp_statistic_layout(&layout, &spec, &field) != DP_OK)
		{
			fprintf(stderr, "floor: statistic refused (%s)\n", field);
			return 2;
		}
		statistic = malloc(dp_statistic_size(&layout));
		dp_statistic_start_derived(statistic, &layout, keyed ? key : NULL, true,
								   DP_DERIVATION_2, &rng);
		channels = statistic->channel_count;
		for (int c = 0; c < channels; c++)
			counters[c] = dp_statistic_counter(statistic, c);
	}

	for (int run = 0; run < 5; run++)
	{
		double		start = now_ns();
		double		per_step;

		for (long t = 0; t < steps; t++)
		{
			dp_term_batch batch;

			/*
			 * keyed: the step's terms of every channel derived together
			 * first, as dp_statistic_push derives them (dp_term_batch.h)
			 */
			dp_term_batch_init(&batch);
			for (int c = 0; keyed && c < channels; c++)
			{
				dp_noise_plan plans[2] = {
					{t, 0, DP_NOISE_OPEN, 0}, {t, 0, DP_NOISE_CLOSE, (dp_int128) t}
				};

				dp_counter_plan_terms(counters[c], plans, 2, &batch);
			}
			if (batch.count > 0)
			{
				dp_term_batch_derive(&batch);
				dp_term_batch_attach(&batch, &rng);
			}
			for (int c = 0; c < channels; c++)
			{
				counters[c]->steps = t;	/* a keyed term's position moves on */
				sink += dp_counter_noise(counters[c], &rng, &counters[c]->scale, 0,
										 DP_NOISE_OPEN, 0);
				if (keyed)
					sink += dp_counter_noise(counters[c], &rng, &counters[c]->scale, 0,
											 DP_NOISE_CLOSE, (dp_int128) t);
			}
			if (batch.count > 0)
				dp_term_batch_detach(&batch, &rng);
		}
		per_step = (now_ns() - start) / (double) steps;
		if (best < 0 || per_step < best)
			best = per_step;
	}
	printf("%.1f\n", best);
	(void) sink;
	return 0;
}

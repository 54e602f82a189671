/*
 * sampler_timing.c
 *		Time of one noise draw against the value drawn (the timing channel
 *		of issue 14): discrete Laplace by the reference sampler (Canonne,
 *		Kamath and Steinke; its loops run longer for larger draws) and by
 *		the constant-time table sampler, the discrete Gaussian with either
 *		acceptance test, and the draws per second of each.
 *
 * Draws at scale 21 (Binary's node scale at T = 2^20, epsilon = 1), at
 * scale 1000 and at 2^45 (a real-valued sum channel's, in its units), and
 * at 2^45 the table's fresh draw, whose low bits come by rejection
 * (dp_laplace_low.h); then the discrete Gaussian at sigma 21 and 1000 with the
 * reference and the constant-time acceptance test.  Each draw is timed with
 * clock_gettime around it and grouped by |value| / scale (or sigma); the
 * median and the 90th percentile of each group are printed.  A flat sampler shows the same figures in every group.  The
 * throughput is measured apart, in loops without clocks (the best of five).
 * Usage: sampler_timing [draws]
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include "dp_gaussian.h"
#include "bench_tables.h"
#include "dp_laplace_table.h"
#include "dp_noise.h"
#include "dp_random.h"

#define GROUPS 10

static int
compare(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* What is timed: a sampler and its parameters. */
typedef struct timed_sampler
{
	const char *label;
	const dp_laplace_table *table;	/* the Laplace table sampler, or NULL */
	const dp_scale *scale;		/* Laplace b, or Gaussian sigma^2 */
	bool		gaussian;
	double		unit;			/* values are grouped by |value| / unit */
	bool		fresh;			/* the table's fresh draw (its low part, dp_laplace_low.h) */
} timed_sampler;

static dp_int128
draw(const timed_sampler *sampler, dp_random *rng)
{
	if (sampler->gaussian)
		return dp_discrete_gaussian(rng, sampler->scale);
	if (sampler->table && sampler->fresh)
		return dp_laplace_table_draw_fresh(sampler->table, rng);
	return sampler->table ? dp_laplace_table_draw(sampler->table, rng) :
		dp_discrete_laplace_reference(rng, sampler->scale);
}

/* the throughput (best of five runs), then each draw timed alone, by value group */
static void
time_sampler(const timed_sampler *sampler, dp_random *rng, long draws, const char *extra)
{
	double	   *times[GROUPS];
	long		counts[GROUPS] = {0};
	double		best = 0;
	dp_int128	checksum = 0;

	for (int run = 0; run < 5; run++)
	{
		double		start = now_ns();
		double		elapsed;

		for (long i = 0; i < draws; i++)
			checksum += draw(sampler, rng);
		elapsed = now_ns() - start;
		best = run == 0 || elapsed < best ? elapsed : best;
	}
	printf("%s: %.1f million draws/s on one core (best of 5 runs of %ld; checksum %ld)%s\n",
		   sampler->label, draws / (best / 1e9) / 1e6, draws, (long) (checksum & 1), extra);

	for (int g = 0; g < GROUPS; g++)
		times[g] = malloc(sizeof(double) * (size_t) draws);
	for (long i = 0; i < draws; i++)
	{
		double		t0 = now_ns();
		dp_int128	z = draw(sampler, rng);
		double		t1 = now_ns();
		long		group = (long) ((double) (z < 0 ? -z : z) / sampler->unit);

		if (group >= GROUPS)
			group = GROUPS - 1;
		times[group][counts[group]++] = t1 - t0;
	}
	printf("  |value|/%s  draws      median ns  p90 ns (clock overhead included)\n",
		   sampler->gaussian ? "sigma" : "scale");
	for (int g = 0; g < GROUPS; g++)
	{
		if (counts[g] > 0)
		{
			qsort(times[g], (size_t) counts[g], sizeof(double), compare);
			printf("  %s%d%s       %9ld  %8.0f  %8.0f\n", g == GROUPS - 1 ? ">=" : "  ", g,
				   g == GROUPS - 1 ? "" : "  ", counts[g], times[g][counts[g] / 2],
				   times[g][counts[g] * 9 / 10]);
		}
		free(times[g]);
	}
}

int
main(int argc, char **argv)
{
	long		draws = argc > 1 ? atol(argv[1]) : 2000000;
	/* and 2^45: a real-valued sum channel's scale in its units (11 chunks) */
	long		scales[] = {21, 1000, 35184372088832L};
	dp_scale	variances[] = {{441, 1}, {1000000, 1}};
	void	   *blocks[BENCH_TABLE_BLOCKS] = {0};
	dp_sampler_cache cache = {.allocate = bench_tables_allocate, .release_all = bench_tables_release,
	.context = blocks};
	dp_random	rng;

	dp_random_library_init();
	dp_random_init_keyed(&rng, "timing", 6);
	/* the reference sampler, the table sampler, and its fresh draw where it differs */
	for (int kind = 0; kind < 3; kind++)
		for (int s = 0; s < 3; s++)
		{
			dp_scale	scale = {.numerator = (dp_uint128) scales[s], .denominator = 1};
			dp_laplace_table *table = NULL;
			char		label[128];
			char		extra[128] = "";
			timed_sampler sampler;
			bool		table_sampler = kind > 0;

			if (table_sampler)
			{
				double		t0 = now_ns();

				table = malloc(dp_laplace_table_size(&scale));
				dp_laplace_table_build(table, &scale, 64);
				snprintf(extra, sizeof(extra), ", table built in %.2f ms (%zu bytes)",
						 (now_ns() - t0) / 1e6, dp_laplace_table_size(&scale));
			}
			if (kind == 2 && table->low_chunks == 0)
			{
				free(table);
				continue;
			}
			if (kind == 2)
				snprintf(extra, sizeof(extra), ", %d low bits by rejection, %d chunks of %d",
						 table->low.bits, table->chunk_count - table->low_chunks,
						 table->chunk_count);
			snprintf(label, sizeof(label), "%s sampler, scale %ld",
					 kind == 0 ? "reference" : kind == 1 ? "table" : "table (fresh draw)",
					 scales[s]);
			sampler = (timed_sampler) {label, table, &scale, false, (double) scales[s],
			kind == 2};
			time_sampler(&sampler, &rng, draws, extra);
			free(table);
		}

	/*
	 * The discrete Gaussian, proposals from the table sampler in both: the
	 * reference acceptance test (keyed noise) and the constant-time one
	 * (fresh noise).
	 */
	rng.table_sampler = true;
	rng.samplers = &cache;
	for (int constant_time = 0; constant_time < 2; constant_time++)
		for (int s = 0; s < 2; s++)
		{
			char		label[128];
			timed_sampler sampler;

			/* the constant-time test as fresh noise runs it: with the low part */
			rng.constant_time_gaussian = constant_time;
			rng.laplace_low = constant_time;
			snprintf(label, sizeof(label), "Gaussian, %s acceptance, sigma^2 %ld",
					 constant_time ? "constant-time" : "reference",
					 (long) variances[s].numerator);
			sampler = (timed_sampler) {label, NULL, &variances[s], true,
			sqrt((double) variances[s].numerator), false};
			time_sampler(&sampler, &rng, draws, "");
		}
	bench_tables_release(blocks);
	return 0;
}

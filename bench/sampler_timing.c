/*
 * sampler_timing.c
 *		Time of one discrete Laplace draw against the value drawn (the
 *		timing channel of issue 14), for the reference sampler (Canonne,
 *		Kamath and Steinke; its loops run longer for larger draws) and for
 *		the constant-time table sampler, and the draws per second of each.
 *
 * Draws at scale 21 (Binary's node scale at T = 2^20, epsilon = 1) and at
 * scale 1000.  Each draw is timed with clock_gettime around it and grouped
 * by |value| / scale; the median and the 90th percentile of each group are
 * printed.  A flat sampler shows the same figures in every group.  The
 * throughput is measured apart, in loops without clocks (the best of five).
 * Usage: sampler_timing [draws]
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

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

static dp_int128
draw(const dp_laplace_table *table, dp_random *rng, const dp_scale *scale)
{
	return table ? dp_laplace_table_draw(table, rng) : dp_discrete_laplace_reference(rng, scale);
}

int
main(int argc, char **argv)
{
	long		draws = argc > 1 ? atol(argv[1]) : 2000000;
	long		scales[] = {21, 1000};
	dp_random	rng;

	dp_random_library_init();
	dp_random_init_keyed(&rng, "timing", 6);
	for (int sampler = 0; sampler < 2; sampler++)
		for (int s = 0; s < 2; s++)
		{
			dp_scale	scale = {.numerator = (dp_uint128) scales[s], .denominator = 1};
			dp_laplace_table *table = NULL;
			double	   *times[GROUPS];
			long		counts[GROUPS] = {0};
			double		start;
			double		build = 0;
			double		best = 0;
			dp_int128	checksum = 0;

			if (sampler == 1)
			{
				double		t0 = now_ns();

				table = malloc(dp_laplace_table_size(&scale));
				dp_laplace_table_build(table, &scale, 64);
				build = now_ns() - t0;
			}
			/* the best of five runs: this machine's other load only slows a run */
			for (int run = 0; run < 5; run++)
			{
				double		elapsed;

				start = now_ns();
				for (long i = 0; i < draws; i++)
					checksum += draw(table, &rng, &scale);
				elapsed = now_ns() - start;
				best = run == 0 || elapsed < best ? elapsed : best;
			}
			printf("%s sampler, scale %ld: %.1f million draws/s on one core (best of 5 runs of %ld; checksum %ld)",
				   sampler ? "table" : "reference", scales[s], draws / (best / 1e9) / 1e6, draws,
				   (long) (checksum & 1));
			if (sampler)
				printf(", table built in %.2f ms (%zu bytes)", build / 1e6,
					   dp_laplace_table_size(&scale));
			printf("\n");

			for (int g = 0; g < GROUPS; g++)
				times[g] = malloc(sizeof(double) * (size_t) draws);
			for (long i = 0; i < draws; i++)
			{
				double		t0 = now_ns();
				dp_int128	z = draw(table, &rng, &scale);
				double		t1 = now_ns();
				long		group = (long) ((z < 0 ? -z : z) / scales[s]);

				if (group >= GROUPS)
					group = GROUPS - 1;
				times[group][counts[group]++] = t1 - t0;
			}
			printf("  |value|/scale  draws      median ns  p90 ns (clock overhead included)\n");
			for (int g = 0; g < GROUPS; g++)
			{
				if (counts[g] == 0)
					continue;
				qsort(times[g], (size_t) counts[g], sizeof(double), compare);
				printf("  %s%d%s       %9ld  %8.0f  %8.0f\n", g == GROUPS - 1 ? ">=" : "  ", g,
					   g == GROUPS - 1 ? "" : "  ", counts[g], times[g][counts[g] / 2],
					   times[g][counts[g] * 9 / 10]);
				free(times[g]);
			}
			free(table);
		}
	return 0;
}

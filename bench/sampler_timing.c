/*
 * sampler_timing.c
 *		Time of one discrete Laplace draw against the value drawn: the
 *		timing channel of issue 14 (a draw whose time grows with |value|
 *		tells whoever times pushes how large the noise was).
 *
 * Draws at scale 21 (Binary's node scale at T = 2^20, epsilon = 1) and at
 * scale 1000, each timed with the TSC through clock_gettime around a
 * single draw, grouped by |value| / scale; prints the median time per
 * group and the draws per second overall.  A flat sampler shows the same
 * median in every group.  Usage: sampler_timing [draws]
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

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

int
main(int argc, char **argv)
{
	long		draws = argc > 1 ? atol(argv[1]) : 2000000;
	long		scales[] = {21, 1000};
	dp_random	rng;

	dp_random_library_init();
	dp_random_init_keyed(&rng, "timing", 6);
	for (int s = 0; s < 2; s++)
	{
		dp_scale	scale = {.numerator = (dp_uint128) scales[s], .denominator = 1};
		double	   *times[GROUPS];
		long		counts[GROUPS] = {0};
		double		start = now_ns();

		for (int g = 0; g < GROUPS; g++)
			times[g] = malloc(sizeof(double) * (size_t) draws);
		for (long i = 0; i < draws; i++)
		{
			double		t0 = now_ns();
			dp_int128	z = dp_discrete_laplace(&rng, &scale);
			double		t1 = now_ns();
			long		group = (long) ((z < 0 ? -z : z) / scales[s]);

			if (group >= GROUPS)
				group = GROUPS - 1;
			times[group][counts[group]++] = t1 - t0;
		}
		printf("scale %ld: %.1f million draws/s (timed one by one)\n", scales[s],
			   draws / ((now_ns() - start) / 1e9) / 1e6);
		printf("  |value|/scale  draws      median ns\n");
		for (int g = 0; g < GROUPS; g++)
		{
			if (counts[g] == 0)
				continue;
			qsort(times[g], (size_t) counts[g], sizeof(double), compare);
			printf("  %s%d%s       %9ld  %8.0f\n", g == GROUPS - 1 ? ">=" : "  ", g,
				   g == GROUPS - 1 ? "" : "  ", counts[g], times[g][counts[g] / 2]);
			free(times[g]);
		}
	}
	return 0;
}

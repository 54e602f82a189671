/*
 * comparison.c
 *		Maddi's comparison [Mad] with this project's mechanisms: epsilon = 1,
 *		T = 1000 and 10000, 25 trials of random bit streams, error at t =
 *		|M(t) - c(t)|.  Writes the mean absolute error at every t for every
 *		mechanism (one .dat file per T), prints the total error (sum over t,
 *		mean over trials) and the figures the post's findings are judged by.
 *
 *		usage: comparison TRIALS OUTDIR
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dp_counter.h"

typedef struct entry
{
	const char *label;
	dp_mechanism mechanism;
} entry;

#define MECHANISMS 12

static void
mechanisms_for(int64_t horizon, entry *list)
{
	int64_t		root = dp_default_block(horizon);
	entry		all[MECHANISMS] = {
		{"simple_i", {.kind = DP_MECHANISM_SIMPLE_I}},
		{"simple_ii", {.kind = DP_MECHANISM_SIMPLE_II}},
		{"two_level_B10", {.kind = DP_MECHANISM_TWO_LEVEL, .block = 10}},
		{"two_level_B25", {.kind = DP_MECHANISM_TWO_LEVEL, .block = 25}},
		{"two_level_B50", {.kind = DP_MECHANISM_TWO_LEVEL, .block = 50}},
		{"two_level_B100", {.kind = DP_MECHANISM_TWO_LEVEL, .block = 100}},
		{"two_level_sqrtT", {.kind = DP_MECHANISM_TWO_LEVEL, .block = root}},
		{"binary", {.kind = DP_MECHANISM_BINARY}},
		{"hybrid", {.kind = DP_MECHANISM_HYBRID}},
		{"ppcum", {.kind = DP_MECHANISM_PPCUM}},
		{"binary_pan", {.kind = DP_MECHANISM_BINARY, .flags = DP_FLAG_PAN_PRIVATE}},
		{"two_level_sqrtT_pan", {.kind = DP_MECHANISM_TWO_LEVEL, .block = root,
		.flags = DP_FLAG_PAN_PRIVATE}},
	};

	for (int i = 0; i < MECHANISMS; i++)
	{
		list[i] = all[i];
		list[i].mechanism.epsilon = 1.0;
		list[i].mechanism.max_per_step = 1;
		list[i].mechanism.horizon = list[i].mechanism.kind == DP_MECHANISM_SIMPLE_II ||
			list[i].mechanism.kind == DP_MECHANISM_HYBRID ? 0 : horizon;
	}
}

static int
index_of(const entry *list, const char *label)
{
	for (int i = 0; i < MECHANISMS; i++)
		if (strcmp(list[i].label, label) == 0)
			return i;
	return -1;
}

/* running mean of the per-t error over a centred window, for crossovers */
static double
smoothed(const double *error, int64_t horizon, int64_t t, int64_t half)
{
	double		sum = 0;
	int64_t		count = 0;

	for (int64_t s = t - half; s <= t + half; s++)
		if (s >= 1 && s <= horizon)
		{
			sum += error[s];
			count++;
		}
	return sum / count;
}

static void
run(int64_t horizon, int trials, const char *outdir, dp_random *rng)
{
	entry		list[MECHANISMS];
	double	   *error[MECHANISMS];
	char		path[512];
	FILE	   *out;
	unsigned char *bits = malloc((size_t) horizon + 1);

	mechanisms_for(horizon, list);
	for (int m = 0; m < MECHANISMS; m++)
		error[m] = calloc((size_t) horizon + 1, sizeof(double));

	for (int trial = 0; trial < trials; trial++)
	{
		/* one random bit stream per trial, shared by all mechanisms */
		for (int64_t t = 1; t <= horizon; t++)
			bits[t] = (unsigned char) dp_random_bit(rng);
		for (int m = 0; m < MECHANISMS; m++)
		{
			dp_counter *counter = malloc(dp_counter_size(&list[m].mechanism));
			const char *field;
			int64_t		truth = 0;

			if (dp_counter_start(counter, &list[m].mechanism, rng, &field) != DP_OK)
			{
				fprintf(stderr, "%s: bad mechanism (%s)\n", list[m].label, field);
				exit(1);
			}
			for (int64_t t = 1; t <= horizon; t++)
			{
				dp_counter_push(counter, bits[t], rng);
				truth += bits[t];
				error[m][t] += fabs((double) (dp_counter_release(counter) - truth)) / trials;
			}
			free(counter);
		}
	}

	snprintf(path, sizeof(path), "%s/comparison_T%lld.dat", outdir, (long long) horizon);
	out = fopen(path, "w");
	fprintf(out, "# t");
	for (int m = 0; m < MECHANISMS; m++)
		fprintf(out, " %s", list[m].label);
	fprintf(out, "\n");
	for (int64_t t = 1; t <= horizon; t++)
	{
		fprintf(out, "%lld", (long long) t);
		for (int m = 0; m < MECHANISMS; m++)
			fprintf(out, " %.3f", error[m][t]);
		fprintf(out, "\n");
	}
	fclose(out);

	printf("\nT = %lld, epsilon = 1, %d trials: total error = sum over t of mean |M(t) - c(t)|\n",
		   (long long) horizon, trials);
	printf("| mechanism | total error | mean per step | at t = T/10 | at t = T |\n|---|---|---|---|---|\n");
	for (int m = 0; m < MECHANISMS; m++)
	{
		double		total = 0;

		for (int64_t t = 1; t <= horizon; t++)
			total += error[m][t];
		printf("| %s%s | %.0f | %.2f | %.2f | %.2f |\n", list[m].label,
			   list[m].mechanism.kind == DP_MECHANISM_TWO_LEVEL && strstr(list[m].label, "sqrtT") ?
			   (strstr(list[m].label, "pan") ? " (B=ceil(sqrt T))" : " (B=ceil(sqrt T))") : "",
			   total, total / horizon, smoothed(error[m], horizon, horizon / 10, horizon / 100),
			   smoothed(error[m], horizon, horizon, horizon / 100));
	}

	{
		int			two = index_of(list, "two_level_B10");
		int			simple = index_of(list, "simple_ii");
		int			binary = index_of(list, "binary");
		int64_t		two_best = 0;
		int64_t		crossover = 0;
		int64_t		half = horizon / 100;

		for (int64_t t = 1; t <= horizon; t++)
			two_best += smoothed(error[two], horizon, t, half) < smoothed(error[simple], horizon, t, half) &&
				smoothed(error[two], horizon, t, half) < smoothed(error[binary], horizon, t, half);
		/* the last t at which binary is not yet below both others (smoothed) */
		for (int64_t t = 1; t <= horizon; t++)
			if (smoothed(error[binary], horizon, t, half) >= smoothed(error[two], horizon, t, half) ||
				smoothed(error[binary], horizon, t, half) >= smoothed(error[simple], horizon, t, half))
				crossover = t;
		printf("\ntwo_level B=10 below both simple_ii and binary at %lld of %lld steps "
			   "(errors smoothed over +-%lld steps)\n",
			   (long long) two_best, (long long) horizon, (long long) half);
		printf("binary below both two_level B=10 and simple_ii from t = %lld on\n",
			   (long long) crossover + 1);
	}

	for (int m = 0; m < MECHANISMS; m++)
		free(error[m]);
	free(bits);
}

int
main(int argc, char **argv)
{
	dp_random	rng;
	/* the key of the recorded runs (docs/benchmarks.md): keep it */
	static const char seed[] = "dp_stream bench: seed 003 comparison";
	int			trials = argc > 1 ? atoi(argv[1]) : 25;

	if (argc < 3 || !dp_random_library_init())
	{
		fprintf(stderr, "usage: comparison TRIALS OUTDIR\n");
		return 1;
	}
	dp_random_init_keyed(&rng, seed, sizeof(seed) - 1);
	run(1000, trials, argv[2], &rng);
	run(10000, trials, argv[2], &rng);
	return 0;
}

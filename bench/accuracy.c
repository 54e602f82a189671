/*
 * accuracy.c
 *		Empirical error of the Binary mechanism against its theoretical
 *		variance, at several horizons and epsilons.
 *
 * Usage: accuracy TRIALS OUTPUT_DIR
 * Prints a table; writes OUTPUT_DIR/accuracy_by_t.dat (T = 1024, epsilon 1,
 * empirical and theoretical RMSE at every t) for the plot.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dp_counter.h"

int
main(int argc, char **argv)
{
	int			trials = argc > 1 ? atoi(argv[1]) : 200;
	const char *out_dir = argc > 2 ? argv[2] : ".";
	static const int log_horizons[] = {10, 14, 16};
	static const double epsilons[] = {0.5, 1.0, 2.0};
	dp_random	rng;
	char		path[1024];

	dp_random_library_init();
	dp_random_init_keyed(&rng, "bench accuracy", 14);

	printf("Binary mechanism, streams of random bits (N = 1), %d trials each\n", trials);
	printf("%8s %6s %8s %16s %16s %8s\n", "T", "eps", "L", "empirical MSE", "theory MSE", "ratio");
	for (size_t h = 0; h < sizeof(log_horizons) / sizeof(log_horizons[0]); h++)
	{
		for (size_t e = 0; e < sizeof(epsilons) / sizeof(epsilons[0]); e++)
		{
			int64_t		T = (int64_t) 1 << log_horizons[h];
			dp_mechanism mechanism = {.kind = DP_MECHANISM_BINARY, .epsilon = epsilons[e],
			.horizon = T, .max_per_step = 1};
			dp_counter *counter = malloc(dp_counter_size(&mechanism));
			const char *field;
			double		squared = 0, theory = 0;
			double	   *by_t_sq = calloc((size_t) T + 1, sizeof(double));
			int			track = (log_horizons[h] == 10 && epsilons[e] == 1.0);

			for (int trial = 0; trial < trials; trial++)
			{
				int64_t		truth = 0;

				dp_counter_start(counter, &mechanism, &rng, &field);
				for (int64_t t = 1; t <= T; t++)
				{
					int64_t		bit = (int64_t) (dp_random_uint64(&rng) & 1);
					double		error;

					dp_counter_push(counter, bit, &rng);
					truth += bit;
					error = (double) (dp_counter_release(counter) - truth);
					squared += error * error;
					if (track)
						by_t_sq[t] += error * error;
				}
			}
			for (int64_t t = 1; t <= T; t++)
			{
				counter->steps = t;
				theory += dp_counter_noise_variance(counter);
			}
			printf("%8lld %6.1f %8d %16.1f %16.1f %8.3f\n", (long long) T, epsilons[e],
				   counter->node_count, squared / trials / T, theory / T,
				   squared / trials / theory);
			if (track)
			{
				FILE	   *data;

				snprintf(path, sizeof(path), "%s/accuracy_by_t.dat", out_dir);
				data = fopen(path, "w");
				fprintf(data, "# t empirical_rmse theory_rmse\n");
				for (int64_t t = 1; t <= T; t++)
				{
					counter->steps = t;
					fprintf(data, "%lld %.3f %.3f\n", (long long) t, sqrt(by_t_sq[t] / trials),
							sqrt(dp_counter_noise_variance(counter)));
				}
				fclose(data);
			}
			free(by_t_sq);
			free(counter);
		}
	}
	return 0;
}

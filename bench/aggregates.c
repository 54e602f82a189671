/*
 * aggregates.c
 *		Measures the Conjectures 1 (Binary Average) and 2 (Binary
 *		Variance) of Budaeva et al. [BLD+] (docs/references.md), and compares the two average estimators.
 *
 *   aggregates conjectures TRIALS OUTDIR   error against t for T = 2^10..2^16,
 *                                       epsilon 1 and 0.1, two data sets
 *   aggregates estimators TRIALS           midpoint against plain averages
 *
 * Errors are normalised by the range: |average error| / (upper - lower) and
 * |variance error| / ((upper - lower) / 2)^2, so that the conjecture's bound,
 * stated without a range, is compared on values in a unit range.  At each
 * checkpoint t the program reports the 95th percentile over trials (the
 * conjecture's "(alpha, delta)-useful" with delta = 0.05) and the mean.  An
 * undefined estimate (noisy count below 1 or 2) is scored as the midpoint
 * (for a variance: 0), the value a reader would have to assume.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dp_statistic.h"

static dp_random rng;

typedef enum data_set
{
	UNIFORM,					/* i.i.d. uniform on [0, 1], bounds [0, 1] */
	METER						/* hourly kWh with a daily profile, bounds [0, 4] */
} data_set;

static double
uniform01(void)
{
	return (double) (dp_random_uint64(&rng) >> 11) * 0x1p-53;
}

/* One hourly reading: night base, morning and evening peaks, 5% missing. */
static bool
next_value(data_set set, int64_t t, double *value)
{
	if (set == UNIFORM)
	{
		*value = uniform01();
		return true;
	}
	else
	{
		int			hour = (int) (t % 24);
		double		base = 0.3;

		if (hour >= 6 && hour <= 8)
			base = 1.4;
		else if (hour >= 17 && hour <= 21)
			base = 2.4;
		else if (hour >= 9 && hour <= 16)
			base = 0.8;
		if (uniform01() < 0.05)
			return false;
		/* occasional spikes above the bound (an oven, a charger): clamped */
		*value = base * (0.7 + 0.6 * uniform01()) + (uniform01() < 0.02 ? 3.0 : 0.0);
		return true;
	}
}

static void
bounds_of(data_set set, double *lower, double *upper)
{
	*lower = 0;
	*upper = set == UNIFORM ? 1 : 4;
}

static dp_statistic *
new_statistic(dp_statistic_kind kind, int32_t estimator, double lower, double upper,
			  double epsilon, int64_t horizon)
{
	dp_statistic_spec spec;
	dp_statistic layout;
	dp_statistic *statistic;
	const char *field;

	memset(&spec, 0, sizeof(spec));
	spec.kind = kind;
	spec.domain = DP_VALUES_REAL;
	spec.estimator = estimator;
	spec.lower = lower;
	spec.upper = upper;
	spec.mechanism.kind = DP_MECHANISM_BINARY;
	spec.mechanism.epsilon = epsilon;
	spec.mechanism.horizon = horizon;
	spec.mechanism.max_per_step = 1;
	if (dp_statistic_layout(&layout, &spec, &field) != DP_OK)
	{
		fprintf(stderr, "bad spec (%s)\n", field);
		exit(1);
	}
	statistic = malloc(dp_statistic_size(&layout));
	dp_statistic_start(statistic, &layout, &rng);
	return statistic;
}

static int
compare_doubles(const void *a, const void *b)
{
	double		x = *(const double *) a;
	double		y = *(const double *) b;

	return (x > y) - (x < y);
}

static double
percentile95(double *values, int n)
{
	qsort(values, (size_t) n, sizeof(double), compare_doubles);
	return values[(int) ceil(0.95 * n) - 1];
}

#define CHECKPOINTS_MAX 64

/* t = 2, 4, 8, ... and the midpoints 3, 6, 12, ... up to T */
static int
checkpoints_for(int64_t horizon, int64_t *points)
{
	int			count = 0;

	for (int64_t t = 2; t <= horizon; t *= 2)
	{
		points[count++] = t;
		if (t + t / 2 <= horizon && t >= 2)
			points[count++] = t + t / 2;
	}
	return count;
}

/* the conjecture's bound with constant 1 and delta = 0.05 */
static double
conjectured(double epsilon, int64_t horizon, int64_t t)
{
	return (1 / epsilon) * (2 * log2((double) horizon)) * sqrt(log2((double) t)) * log(1 / 0.05);
}

static void
run_conjectures(int trials, const char *outdir)
{
	static const double epsilons[] = {1.0, 0.1};
	static const char *const set_names[] = {"uniform", "meter"};
	char		path[512];
	FILE	   *summary;

	snprintf(path, sizeof(path), "%s/aggregates_summary.txt", outdir);
	summary = fopen(path, "w");
	printf("%-8s %-9s %6s %4s | %-28s | %-17s | %s\n", "data", "statistic", "T", "eps",
		   "p95 err at t=64, 1024, T", "slope  constant", "max p95/conjecture");
	fprintf(summary, "data statistic T epsilon p95_64 p95_1024 p95_T slope constant max_ratio_to_conjecture\n");

	for (int set = UNIFORM; set <= METER; set++)
		for (int e = 0; e < 2; e++)
			for (int log_horizon = 10; log_horizon <= 16; log_horizon++)
			{
				int64_t		horizon = (int64_t) 1 << log_horizon;
				double		epsilon = epsilons[e];
				double		lower;
				double		upper;
				int64_t		points[CHECKPOINTS_MAX];
				int			point_count = checkpoints_for(horizon, points);
				double	   *errors[2];
				FILE	   *data;

				bounds_of((data_set) set, &lower, &upper);
				for (int s = 0; s < 2; s++)
					errors[s] = calloc((size_t) point_count * trials, sizeof(double));

				for (int trial = 0; trial < trials; trial++)
				{
					dp_statistic *average = new_statistic(DP_STATISTIC_AVERAGE, DP_ESTIMATOR_MIDPOINT,
														  lower, upper, epsilon, horizon);
					dp_statistic *variance = new_statistic(DP_STATISTIC_VARIANCE, DP_ESTIMATOR_MIDPOINT,
														   lower, upper, epsilon, horizon);
					double		count = 0;
					double		sum = 0;
					double		squares = 0;
					int			next = 0;
					double		shift = (lower + upper) / 2;

					for (int64_t t = 1; t <= horizon; t++)
					{
						double		x = 0;
						bool		observed = next_value((data_set) set, t, &x);

						dp_statistic_push(average, observed, x, &rng);
						dp_statistic_push(variance, observed, x, &rng);
						if (observed)
						{
							double		y = fmin(fmax(x, lower), upper) - shift;

							count += 1;
							sum += y;
							squares += y * y;
						}
						if (next < point_count && t == points[next])
						{
							double		h = (upper - lower) / 2;
							double		true_average = count > 0 ? shift + sum / count : shift;
							double		true_variance = count > 1 ?
								(squares - sum * sum / count) / (count - 1) : 0;
							double		estimate;

							if (!dp_statistic_estimate(average, DP_ESTIMATE_AVERAGE, &estimate))
								estimate = shift;
							errors[0][next * trials + trial] =
								fabs(estimate - true_average) / (upper - lower);
							if (!dp_statistic_estimate(variance, DP_ESTIMATE_VAR_SAMP, &estimate))
								estimate = 0;
							errors[1][next * trials + trial] =
								fabs(estimate - true_variance) / (h * h);
							next++;
						}
					}
					free(average);
					free(variance);
				}

				for (int s = 0; s < 2; s++)
				{
					double		p95[CHECKPOINTS_MAX];
					double		mean[CHECKPOINTS_MAX];
					double		sx = 0, sy = 0, sxx = 0, sxy = 0;
					int			fitted = 0;
					double		slope;
					double		constant = 0;
					double		max_ratio = 0;
					double		at64 = 0, at1024 = 0;

					snprintf(path, sizeof(path), "%s/aggregates_%s_%s_T%d_eps%g.dat", outdir,
							 set_names[set], s == 0 ? "average" : "variance", log_horizon, epsilon);
					data = fopen(path, "w");
					fprintf(data, "# t p95 mean conjecture\n");
					for (int i = 0; i < point_count; i++)
					{
						mean[i] = 0;
						for (int trial = 0; trial < trials; trial++)
							mean[i] += errors[s][i * trials + trial];
						mean[i] /= trials;
						p95[i] = percentile95(errors[s] + i * trials, trials);
						fprintf(data, "%lld %.6g %.6g %.6g\n", (long long) points[i], p95[i], mean[i],
								conjectured(epsilon, horizon, points[i]));
						max_ratio = fmax(max_ratio, p95[i] / conjectured(epsilon, horizon, points[i]));
						if (points[i] == 64)
							at64 = p95[i];
						if (points[i] == 1024)
							at1024 = p95[i];
						/*
						 * fit the decay over the last four octaves, where the
						 * estimate is no longer pinned to the bounds
						 */
						if (points[i] >= horizon / 16 && p95[i] < 0.1)
						{
							double		lx = log((double) points[i]);
							double		ly = log(p95[i]);

							sx += lx;
							sy += ly;
							sxx += lx * lx;
							sxy += lx * ly;
							fitted++;
							constant += p95[i] * (double) points[i] * epsilon /
								pow(log2((double) horizon), 1.5);
						}
					}
					fclose(data);
					/* too few unsaturated points: no slope (NaN in the tables) */
					slope = fitted >= 3 ? (fitted * sxy - sx * sy) / (fitted * sxx - sx * sx) : NAN;
					constant = fitted >= 3 ? constant / fitted : NAN;
					printf("%-8s %-9s %6lld %4g | %8.4f %8.5f %9.6f | %6.3f %8.3f | %.2g\n",
						   set_names[set], s == 0 ? "average" : "variance", (long long) horizon,
						   epsilon, at64, at1024, p95[point_count - 1], slope, constant, max_ratio);
					fprintf(summary, "%s %s %lld %g %.6g %.6g %.6g %.4f %.4f %.3g\n", set_names[set],
							s == 0 ? "average" : "variance", (long long) horizon, epsilon, at64,
							at1024, p95[point_count - 1], slope, constant, max_ratio);
					fflush(stdout);
				}
				for (int s = 0; s < 2; s++)
					free(errors[s]);
			}
	fclose(summary);
}

/*
 * Midpoint against plain averages: root mean squared error at t = 64, 256
 * and 1024 (Binary, T = 1024, epsilon = 1) on data placed differently
 * within and around the bounds.
 */
static void
run_estimators(int trials)
{
	static const struct
	{
		const char *label;
		double		lower;
		double		upper;
		double		data_low;
		double		data_high;
	}			cases[] = {
		{"bounds [0,20], data uniform on [0,20]", 0, 20, 0, 20},
		{"bounds [0,20], data uniform on [0,2]", 0, 20, 0, 2},
		{"bounds [0,20], data uniform on [18,20]", 0, 20, 18, 20},
		{"bounds [-10,10], data uniform on [-10,10]", -10, 10, -10, 10},
		{"bounds [100,120], data uniform on [100,120]", 100, 120, 100, 120},
		{"bounds [1000,1020], data uniform on [1000,1020]", 1000, 1020, 1000, 1020},
	};
	static const int64_t points[] = {64, 256, 1024};

	printf("%-48s | %-26s | %-26s\n", "case (Binary, T = 1024, epsilon = 1)",
		   "midpoint RMSE t=64/256/1024", "plain RMSE t=64/256/1024");
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
	{
		double		squared[2][3] = {{0}};

		for (int trial = 0; trial < trials; trial++)
			for (int estimator = 0; estimator < 2; estimator++)
			{
				dp_statistic *average = new_statistic(DP_STATISTIC_AVERAGE, estimator,
													  cases[c].lower, cases[c].upper, 1.0, 1024);
				double		sum = 0;
				int			next = 0;

				for (int64_t t = 1; t <= 1024; t++)
				{
					double		x = cases[c].data_low +
						(cases[c].data_high - cases[c].data_low) * uniform01();
					double		estimate;

					dp_statistic_push(average, true, x, &rng);
					sum += x;
					if (t == points[next])
					{
						if (!dp_statistic_estimate(average, DP_ESTIMATE_AVERAGE, &estimate))
							estimate = (cases[c].lower + cases[c].upper) / 2;
						squared[estimator][next] += pow(estimate - sum / (double) t, 2);
						next++;
					}
				}
				free(average);
			}
		printf("%-48s | %8.4f %8.4f %8.4f | %8.4f %8.4f %8.4f\n", cases[c].label,
			   sqrt(squared[0][0] / trials), sqrt(squared[0][1] / trials),
			   sqrt(squared[0][2] / trials), sqrt(squared[1][0] / trials),
			   sqrt(squared[1][1] / trials), sqrt(squared[1][2] / trials));
	}
}

int
main(int argc, char **argv)
{
	/* the key of the recorded runs (docs/benchmarks.md): keep it */
	static const unsigned char seed[] = "dp_stream seed 004 bench";

	if (argc < 3)
	{
		fprintf(stderr, "usage: aggregates conjectures TRIALS OUTDIR | estimators TRIALS\n");
		return 2;
	}
	dp_random_init_keyed(&rng, seed, sizeof(seed) - 1);
	if (strcmp(argv[1], "conjectures") == 0 && argc >= 4)
		run_conjectures(atoi(argv[2]), argv[3]);
	else
		run_estimators(atoi(argv[2]));
	return 0;
}

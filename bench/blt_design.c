/*
 * blt_design.c
 *		Tunes buffered-linear-Toeplitz (BLT) factorizations for continual
 *		counting (src/core/mechanisms/dp_blt.c) and compares them with the
 *		square-root factorization and the binary tree.
 *
 * Objective, at rho = 1/2 and max_per_step 1 (so sigma^2 = sens^2): the mean
 * over t = 1 .. T of the release variance,
 *	 sum_{n<T} c_n^2 * mean_t sum_{n<t} H_n^2,
 * of the dyadic parameters actually used (theta, omega rounded to /2^62),
 * evaluated by dp_blt's closed forms and checked against a direct O(T d)
 * recursion in long double.  The optimizer is Nelder-Mead on
 * (log(1 - theta_j), log omega_j) from deterministic starts: log-spaced
 * 1 - theta_j with omega_j fitted to the decay of the square-root
 * factorization's coefficients binom(2n, n) / 4^n ~ 1 / sqrt(pi n)
 * (Fichtenberger, Henzinger, Upadhyay, ICML 2023), which is
 * (1/pi) integral exp(-delta n) sqrt(delta) d(log delta), so omega_j ~
 * (L / pi) sqrt(delta_j) for a log-step L; and from the best d - 1 buffer
 * solution with one more buffer.
 *
 * Usage: blt_design            the comparison table at T = 2^10, 2^16, 2^20
 *		  blt_design --table    C rows for dp_blt.c, horizons 2^1 .. 2^62
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dp_blt.h"

#define MAX_D DP_BLT_MAX_BUFFERS
#define MAX_DIM (2 * MAX_D)
#define INVALID 1e300
#define PARAM_ONE_D 4611686018427387904.0	/* 2^62 */

typedef struct problem
{
	int			d;
	int64_t		horizon;
	long		evaluations;
} problem;

/* log-parameters -> dyadic parameters; 0 when outside the accepted region */
static int
to_params(const problem *problem, const double *x, dp_blt_params *params)
{
	memset(params, 0, sizeof(*params));
	params->buffers = problem->d;
	params->design_horizon = problem->horizon;
	params->guard_bits = 40;
	for (int j = 0; j < problem->d; j++)
	{
		double		delta = exp(x[j]);
		double		omega = exp(x[problem->d + j]);

		if (!(delta >= 0x1p-62 && delta <= 0.999) || !(omega >= 0x1p-60 && omega <= 1.99))
			return 0;
		params->theta_num[j] = (((int64_t) 1) << 62) - (int64_t) llround(delta * PARAM_ONE_D);
		params->omega_num[j] = (int64_t) llround(omega * PARAM_ONE_D);
		/*
		 * keep the decays apart (ratio >= e^0.1): near-equal poles add
		 * nothing a single buffer cannot do and make the roots ill-posed
		 */
		for (int k = 0; k < j; k++)
			if (fabs(x[j] - x[k]) < 0.1)
				return 0;
	}
	/* guard bits do not change the objective; validity is checked at 2^0 horizon scale */
	params->guard_bits = 0;
	return dp_blt_params_valid(params, 1) == DP_OK;
}

static double
objective_of(const dp_blt_params *params, int64_t horizon)
{
	return (double) dp_blt_column_norm_squared(params, horizon) *
		dp_blt_mean_variance(params, horizon);
}

static double
objective(problem *problem, const double *x)
{
	dp_blt_params params;

	problem->evaluations++;
	if (!to_params(problem, x, &params))
		return INVALID;
	{
		double		value = objective_of(&params, problem->horizon);

		return isfinite(value) && value > 0 ? value : INVALID;
	}
}

/* Nelder-Mead from x with initial steps `step`; x receives the best point */
static double
nelder_mead(problem *problem, double *x, double step, int max_evaluations)
{
	int			n = 2 * problem->d;
	double		simplex[MAX_DIM + 1][MAX_DIM];
	double		value[MAX_DIM + 1];
	int			used = 0;

	for (int i = 0; i <= n; i++)
	{
		memcpy(simplex[i], x, sizeof(double) * n);
		if (i > 0)
			simplex[i][i - 1] += step;
		value[i] = objective(problem, simplex[i]);
		used++;
	}
	while (used < max_evaluations)
	{
		int			best = 0,
					worst = 0,
					second = 0;
		double		centroid[MAX_DIM],
					trial[MAX_DIM],
					trial_value;

		for (int i = 1; i <= n; i++)
		{
			if (value[i] < value[best])
				best = i;
			if (value[i] > value[worst])
				worst = i;
		}
		second = best;
		for (int i = 0; i <= n; i++)
			if (i != worst && value[i] > value[second])
				second = i;
		if (value[worst] - value[best] <= 1e-13 * fabs(value[best]))
			break;
		for (int k = 0; k < n; k++)
		{
			centroid[k] = 0;
			for (int i = 0; i <= n; i++)
				if (i != worst)
					centroid[k] += simplex[i][k] / n;
		}
		for (int k = 0; k < n; k++)
			trial[k] = centroid[k] + (centroid[k] - simplex[worst][k]);
		trial_value = objective(problem, trial);
		used++;
		if (trial_value < value[best])
		{
			double		expanded[MAX_DIM],
						expanded_value;

			for (int k = 0; k < n; k++)
				expanded[k] = centroid[k] + 2 * (centroid[k] - simplex[worst][k]);
			expanded_value = objective(problem, expanded);
			used++;
			if (expanded_value < trial_value)
			{
				memcpy(simplex[worst], expanded, sizeof(double) * n);
				value[worst] = expanded_value;
			}
			else
			{
				memcpy(simplex[worst], trial, sizeof(double) * n);
				value[worst] = trial_value;
			}
		}
		else if (trial_value < value[second])
		{
			memcpy(simplex[worst], trial, sizeof(double) * n);
			value[worst] = trial_value;
		}
		else
		{
			double		contracted[MAX_DIM],
						contracted_value;
			int			outside = trial_value < value[worst];

			for (int k = 0; k < n; k++)
				contracted[k] = outside
					? centroid[k] + 0.5 * (trial[k] - centroid[k])
					: centroid[k] + 0.5 * (simplex[worst][k] - centroid[k]);
			contracted_value = objective(problem, contracted);
			used++;
			if (contracted_value < (outside ? trial_value : value[worst]))
			{
				memcpy(simplex[worst], contracted, sizeof(double) * n);
				value[worst] = contracted_value;
			}
			else
			{
				for (int i = 0; i <= n; i++)
				{
					if (i == best)
						continue;
					for (int k = 0; k < n; k++)
						simplex[i][k] = simplex[best][k] + 0.5 * (simplex[i][k] - simplex[best][k]);
					value[i] = objective(problem, simplex[i]);
					used++;
				}
			}
		}
	}
	{
		int			best = 0;

		for (int i = 1; i <= n; i++)
			if (value[i] < value[best])
				best = i;
		memcpy(x, simplex[best], sizeof(double) * n);
		return value[best];
	}
}

/* restarts with shrinking steps, until a restart no longer helps */
static double
polish(problem *problem, double *x, double step, int budget)
{
	double		best = objective(problem, x);

	for (int round = 0; round < 12; round++)
	{
		double		candidate[MAX_DIM];
		double		value;

		memcpy(candidate, x, sizeof(candidate));
		value = nelder_mead(problem, candidate, step, budget);
		if (value < best)
		{
			int			improved_much = value < best * (1 - 1e-9);

			best = value;
			memcpy(x, candidate, sizeof(candidate));
			if (!improved_much)
				step *= 0.5;
		}
		else
			step *= 0.3;
		if (step < 1e-4)
			break;
	}
	return best;
}

/* log-spaced deltas from low / T to high, omega fitted to 1 / sqrt(pi n) */
static void
fitted_start(int d, int64_t horizon, double low, double high, double *x)
{
	double		lo = log(low / (double) horizon);
	double		hi = log(high);
	double		step = d > 1 ? (hi - lo) / (d - 1) : 0;
	double		width = d > 1 ? step : 1.0;

	if (lo > hi - 1e-3)
		lo = hi - 1e-3;
	for (int j = 0; j < d; j++)
	{
		double		log_delta = d > 1 ? lo + j * step : 0.5 * (lo + hi);

		x[j] = log_delta;
		x[d + j] = log(width / 3.14159265358979323846 * sqrt(exp(log_delta)));
	}
}

/* x = (log deltas, log omegas) of `from` buffers, widened to d with one extra */
static void
widen(const double *from, int from_d, int d, int extra, int64_t horizon, double *x)
{
	for (int j = 0; j < from_d; j++)
	{
		x[j] = from[j];
		x[d + j] = from[from_d + j];
	}
	if (from_d < d)
	{
		/* a slower buffer than all, or a fast one */
		x[d - 1] = extra == 0 ? log(0.5 / (double) horizon) : log(0.9);
		x[2 * d - 1] = extra == 0 ? log(0.05 / sqrt((double) horizon)) : log(0.05);
	}
}

/*
 * The best parameters for d buffers at horizon, from the fitted starts and
 * from warm starts: `same` (d buffers, e.g. the previous horizon's) and
 * `fewer` (d - 1 buffers at this horizon), either may be NULL.
 */
static double
optimize(int d, int64_t horizon, const double *same, const double *fewer, double *best_x)
{
	problem		problem = {d, horizon, 0};
	double		best = INVALID;
	static const double lows[] = {0.5, 2.0, 8.0};
	static const double highs[] = {0.2, 0.6, 0.95};

	for (int start = 0; start < 9 + 3; start++)
	{
		double		x[MAX_DIM] = {0};
		double		value;

		if (start < 9)
			fitted_start(d, horizon, lows[start / 3], highs[start % 3], x);
		else if (start == 9 && same != NULL)
			widen(same, d, d, 0, horizon, x);
		else if (start >= 10 && fewer != NULL && d > 1)
			widen(fewer, d - 1, d, start - 10, horizon, x);
		else
			continue;
		value = nelder_mead(&problem, x, start < 9 ? 0.4 : 0.3, 600 * d);
		if (value < best)
		{
			best = value;
			memcpy(best_x, x, sizeof(x));
		}
	}
	return polish(&problem, best_x, 0.2, 1500 * d);
}

/* direct O(T d) evaluation in long double from the dyadic parameters */
static void
direct_figures(const dp_blt_params *params, int64_t horizon, double *sens_squared,
			   double *mean_variance, double *max_variance)
{
	int			d = params->buffers;
	long double theta[MAX_D],
				omega[MAX_D],
				coefficient_buffer[MAX_D] = {0},
				inverse_buffer[MAX_D] = {0};
	long double norm = 0,
				partial = 0,
				cumulative = 0,
				total = 0;

	for (int j = 0; j < d; j++)
	{
		theta[j] = ldexpl((long double) params->theta_num[j], -62);
		omega[j] = ldexpl((long double) params->omega_num[j], -62);
	}
	for (int64_t n = 0; n < horizon; n++)
	{
		/* c_n from the impulse through the encoder recursion */
		long double c = n == 0 ? 1 : 0;
		long double h;

		for (int j = 0; j < d; j++)
			c += omega[j] * coefficient_buffer[j];
		for (int j = 0; j < d; j++)
			coefficient_buffer[j] = theta[j] * coefficient_buffer[j] + (n == 0 ? 1 : 0);
		norm += c * c;

		/* h_n = (C^-1 e_0)_n by forward substitution */
		h = n == 0 ? 1 : 0;
		for (int j = 0; j < d; j++)
			h -= omega[j] * inverse_buffer[j];
		for (int j = 0; j < d; j++)
			inverse_buffer[j] = theta[j] * inverse_buffer[j] + h;
		partial += h;			/* H_n */
		cumulative += partial * partial;	/* sum_{m<=n} H_m^2 = V_{n+1} */
		total += cumulative;
	}
	*sens_squared = (double) norm;
	*mean_variance = (double) (norm * total / horizon);
	*max_variance = (double) (norm * cumulative);
}

static void
square_root_figures(int64_t horizon, double *sens_squared, double *mean_variance,
					double *max_variance)
{
	long double c = 1,
				cumulative = 0,
				total = 0;

	for (int64_t n = 0; n < horizon; n++)
	{
		if (n > 0)
			c *= (long double) (2 * n - 1) / (long double) (2 * n);
		cumulative += c * c;
		total += cumulative;
	}
	/* B = C for the square root, so H_n = c_n */
	*sens_squared = (double) cumulative;
	*mean_variance = (double) (cumulative * total / horizon);
	*max_variance = (double) (cumulative * cumulative);
}

/* binary tree with Gaussian noise: log2 T + 1 levels, popcount(t) nodes */
static void
binary_tree_figures(int64_t horizon, double *mean_variance, double *max_variance)
{
	int			levels = 1;
	long double total = 0;
	int			most = 0;

	while ((((int64_t) 1) << (levels - 1)) < horizon)
		levels++;
	for (int64_t t = 1; t <= horizon; t++)
	{
		int			count = __builtin_popcountll((unsigned long long) t);

		total += count;
		if (count > most)
			most = count;
	}
	*mean_variance = (double) (levels * total / horizon);
	*max_variance = (double) levels * most;
}

static void
print_params(const dp_blt_params *params)
{
	printf("    theta:");
	for (int j = 0; j < params->buffers; j++)
		printf(" %.12Lf", ldexpl((long double) params->theta_num[j], -62));
	printf("\n    omega:");
	for (int j = 0; j < params->buffers; j++)
		printf(" %.6Le", ldexpl((long double) params->omega_num[j], -62));
	printf("\n");
}

static int
comparison(void)
{
	static const int exponents[] = {10, 16, 20};

	printf("BLT continual counting at rho = 1/2, max_per_step 1 (variance = sens^2 * sum_{n<t} H_n^2)\n");
	for (int e = 0; e < 3; e++)
	{
		int64_t		horizon = ((int64_t) 1) << exponents[e];
		double		x[MAX_DIM] = {0};
		double		previous[MAX_DIM] = {0};
		double		sqrt_sens,
					sqrt_mean,
					sqrt_max,
					tree_mean,
					tree_max;

		square_root_figures(horizon, &sqrt_sens, &sqrt_mean, &sqrt_max);
		binary_tree_figures(horizon, &tree_mean, &tree_max);
		printf("\nT = 2^%d\n", exponents[e]);
		printf("  square-root factorization: sens^2 %.4f  mean variance %.4f  max variance %.4f\n",
			   sqrt_sens, sqrt_mean, sqrt_max);
		printf("  binary tree (Gaussian):    sens^2 %d  mean variance %.4f  max variance %.4f\n",
			   exponents[e] + 1, tree_mean, tree_max);
		for (int d = 1; d <= MAX_D; d++)
		{
			problem		problem = {d, horizon, 0};
			dp_blt_params params;
			double		value,
						sens_squared,
						mean_variance,
						max_variance;

			value = optimize(d, horizon, NULL, d > 1 ? previous : NULL, x);
			if (!to_params(&problem, x, &params))
			{
				printf("  d = %d: no valid parameters\n", d);
				continue;
			}
			direct_figures(&params, horizon, &sens_squared, &mean_variance, &max_variance);
			printf("  d = %d: sens^2 %.4f  mean variance %.4f (closed form %.4f)  max variance %.4f  "
				   "(x sqrt %.4f)\n", d, sens_squared, mean_variance, value, max_variance,
				   mean_variance / sqrt_mean);
			print_params(&params);
			memcpy(previous, x, sizeof(x));
		}
	}
	return 0;
}

/*
 * C rows for dp_blt.c, horizons 2^1 .. 2^62: at each horizon the fewest
 * buffers (up to max_d) within 0.1% of the best mean variance found with
 * up to max_d, warm-started from the previous horizon and from d - 1.
 */
static int
table(int max_d)
{
	double		previous[MAX_D + 1][MAX_DIM] = {{0}};

	printf("static const blt_table_row blt_table[DP_BLT_TABLE_ROWS] = {\n");
	for (int k = 1; k <= 62; k++)
	{
		int64_t		horizon = ((int64_t) 1) << k;
		double		found[MAX_D + 1][MAX_DIM] = {{0}};
		double		value[MAX_D + 1];
		double		best = INVALID;
		int			chosen = 1;
		problem		problem;
		dp_blt_params params;

		for (int d = 1; d <= max_d; d++)
		{
			value[d] = optimize(d, horizon, k > 1 ? previous[d] : NULL,
								d > 1 ? found[d - 1] : NULL, found[d]);
			if (value[d] < best)
				best = value[d];
		}
		while (value[chosen] > best * (1 + 1e-3))
			chosen++;
		memcpy(previous, found, sizeof(previous));
		problem.d = chosen;
		problem.horizon = horizon;
		if (!to_params(&problem, found[chosen], &params))
		{
			fprintf(stderr, "no valid parameters at 2^%d\n", k);
			return 1;
		}
		printf("\t/* 2^%d: d = %d, mean variance %.6f (%d buffers: %.6f) */\n\t{%d, {", k, chosen,
			   value[chosen], max_d, value[max_d], chosen);
		for (int j = 0; j < MAX_D; j++)
			printf("%sINT64_C(%lld)", j ? ", " : "", (long long) params.theta_num[j]);
		printf("}, {");
		for (int j = 0; j < MAX_D; j++)
			printf("%sINT64_C(%lld)", j ? ", " : "", (long long) params.omega_num[j]);
		printf("}},\n");
		fflush(stdout);
	}
	printf("};\n");
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--table") == 0)
		return table(argc > 2 ? atoi(argv[2]) : MAX_D);
	return comparison();
}

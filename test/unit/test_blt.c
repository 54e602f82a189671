/*
 * test_blt.c
 *		The BLT factorization mechanism (dp_blt.c): the integer encoder against
 *		the exact linear map it approximates, its sensitivity bound against
 *		brute-force neighbours, the decoder against exact prefix sums, the
 *		closed-form variances against direct recursions and against simulated
 *		Gaussian noise, the published table's validity, and the target: mean
 *		variance at T = 2^16 (rho = 1/2, max_per_step 1) at most 20.6.
 *
 * The reference computations here are written independently of dp_blt.c:
 * c_n from the dyadic parameters by powers, C^-1 by forward substitution in
 * long double, all O(T) or O(T^2) on small T.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dp_blt.h"
#include "dp_random.h"
#include "tap.h"

#define SMALL_T 512

static dp_random rng;

static long double
dyadic(int64_t numerator)
{
	return ldexpl((long double) numerator, -DP_BLT_PARAM_BITS);
}

/* c_0 .. c_{T-1} from the dyadic parameters: c_n = sum_j omega_j theta_j^(n-1) */
static void
reference_coefficients(const dp_blt_params *params, int T, long double *c)
{
	long double power[DP_BLT_MAX_BUFFERS];

	for (int j = 0; j < params->buffers; j++)
		power[j] = 1;
	c[0] = 1;
	for (int n = 1; n < T; n++)
	{
		c[n] = 0;
		for (int j = 0; j < params->buffers; j++)
		{
			c[n] += dyadic(params->omega_num[j]) * power[j];
			power[j] *= dyadic(params->theta_num[j]);
		}
	}
}

/* H_0 .. H_{T-1}: partial sums of C^-1's coefficients, by forward substitution */
static void
reference_release_weights(const long double *c, int T, long double *H)
{
	long double *h = malloc(sizeof(long double) * T);
	long double partial = 0;

	for (int n = 0; n < T; n++)
	{
		long double value = n == 0 ? 1 : 0;

		for (int i = 1; i <= n; i++)
			value -= c[i] * h[n - i];
		h[n] = value;
		partial += value;
		H[n] = partial;
	}
	free(h);
}

static int64_t
random_value(int64_t max_per_step)
{
	return (int64_t) dp_random_below(&rng, (uint64_t) max_per_step + 1);
}

/* standard normal by Box-Muller from two uniform draws in (0, 1) */
static double
gaussian(void)
{
	double		u1 = ((double) (dp_random_uint64(&rng) >> 11) + 0.5) * 0x1p-53;
	double		u2 = ((double) (dp_random_uint64(&rng) >> 11) + 0.5) * 0x1p-53;

	return sqrt(-2.0 * log(u1)) * cos(2.0 * 3.14159265358979323846 * u2);
}

/* Wilson-Hilferty quantile of chi-squared(df) at standard normal quantile z */
static double
chi_squared_quantile(int df, double z)
{
	double		a = 2.0 / (9.0 * df);
	double		base = 1.0 - a + z * sqrt(a);

	return df * base * base * base;
}

static void
test_table(void)
{
	dp_blt_params params;
	int			all_valid = 1;
	int			all_finite = 1;
	int			first_bad = 0;

	for (int k = 1; k <= 62; k++)
	{
		int64_t		horizon = ((int64_t) 1) << k;
		double		mean;

		if (dp_blt_design(horizon, &params) != DP_OK ||
			dp_blt_params_valid(&params, horizon) != DP_OK ||
			params.design_horizon != horizon)
		{
			if (all_valid)
				first_bad = k;
			all_valid = 0;
			continue;
		}
		mean = dp_blt_mean_variance(&params, horizon) *
			(double) dp_blt_column_norm_squared(&params, horizon);
		if (!(isfinite(mean) && mean > 0 && mean < 1e4))
			all_finite = 0;
	}
	tap_ok(all_valid, "the table's parameters are valid at every horizon 2^1 .. 2^62 (first bad: %d)",
		   first_bad);
	tap_ok(all_finite, "their mean variance is finite and positive at every horizon");
	tap_ok(dp_blt_design(0, &params) == DP_ERROR_HORIZON &&
		   dp_blt_design(DP_BLT_HORIZON_LIMIT + 1, &params) == DP_ERROR_HORIZON,
		   "horizons outside 1 .. 2^62 are refused");
	tap_ok(dp_blt_design(1000, &params) == DP_OK && params.design_horizon == 1024 &&
		   dp_blt_design(1, &params) == DP_OK && params.design_horizon == 2,
		   "a horizon takes the parameters of the power of two at or above it");
	tap_ok(dp_blt_state_words(&params) == 2 * params.buffers + 1, "a state is 2d + 1 words");
	tap_ok(dp_blt_fraction_bits(1) == 40 && dp_blt_fraction_bits(1000) == 30 &&
		   dp_blt_fraction_bits(1 << 24) == 16 && dp_blt_fraction_bits(1024) == 30,
		   "fraction bits: 2^F max_per_step <= 2^40");
}

static void
test_target(void)
{
	static const int exponents[] = {10, 16, 20};

	for (int e = 0; e < 3; e++)
	{
		int64_t		horizon = ((int64_t) 1) << exponents[e];
		dp_blt_params params;
		double		sensitivity,
					scale,
					mean,
					largest;

		dp_blt_design(horizon, &params);
		/* rho = 1/2: sigma = sensitivity (units 2^-F); release in data units */
		sensitivity = dp_blt_sensitivity_bound(&params, horizon, 40, 1);
		scale = ldexp(sensitivity, -40);
		mean = scale * scale * dp_blt_mean_variance(&params, horizon);
		largest = scale * scale * dp_blt_variance_at(&params, horizon);
		tap_diag("T = 2^%d: d = %d, sens^2 %.4f, mean variance %.4f, max variance %.4f",
				 exponents[e], params.buffers, scale * scale, mean, largest);
		if (exponents[e] == 16)
			tap_ok(mean <= 20.6, "mean variance at T = 2^16, rho = 1/2, including rounding: %.4f <= 20.6",
				   mean);
	}
}

/*
 * The encoder against 2^F C x, within r; run on T steps of random values.
 * coarse: F = 0 and no guard bits, so the buffers' rounding is not drowned
 * by the final rounding and the whole of r's argument is exercised.
 */
static void
test_encoder_exactness(int64_t max_per_step, int T, int coarse)
{
	dp_blt_params params;
	int			F = coarse ? 0 : dp_blt_fraction_bits(max_per_step);
	long double *c = malloc(sizeof(long double) * T);
	int64_t    *x = malloc(sizeof(int64_t) * T);
	dp_int128	encoder[DP_BLT_MAX_BUFFERS] = {0};
	double		r;
	long double worst = 0;
	long double largest_buffer = 0;
	int			status_ok = 1;

	dp_blt_design(T, &params);
	if (coarse)
		params.guard_bits = 0;
	r = dp_blt_encoder_rounding_bound(&params, T);
	reference_coefficients(&params, T, c);
	for (int t = 0; t < T; t++)
	{
		dp_int128	encoded;
		long double exact = 0;

		x[t] = random_value(max_per_step);
		status_ok &= dp_blt_encode_step(&params, encoder, x[t], F, &encoded) == DP_OK;
		for (int u = 0; u <= t; u++)
			exact += c[t - u] * (long double) x[u];
		exact = ldexpl(exact, F);
		if (fabsl((long double) encoded - exact) > worst)
			worst = fabsl((long double) encoded - exact);
		for (int j = 0; j < params.buffers; j++)
			if (fabsl((long double) encoder[j]) > largest_buffer)
				largest_buffer = fabsl((long double) encoder[j]);
	}
	/* long double reference error: about 2^-64 * T * |value|, far below 1e-3 */
	tap_ok(status_ok && worst <= r + 1e-3,
		   "encoder, max_per_step %lld, T %d%s: |e_t - 2^F (C x)_t| <= r: %.4Lf <= %.6f",
		   (long long) max_per_step, T, coarse ? ", F = 0, G = 0" : "", worst, r);
	tap_ok(largest_buffer <= dp_blt_encoder_buffer_bound(&params, T),
		   "encoder buffers stay within their bound: %.3Le <= %.3Le", largest_buffer,
		   dp_blt_encoder_buffer_bound(&params, T));
	free(c);
	free(x);
}

/* ||E(x) - E(x')||_2 by brute force, x and x' differing at step u by max_per_step */
static double
neighbour_distance(const dp_blt_params *params, int T, int64_t max_per_step, int F, int u,
				   const int64_t *x)
{
	dp_int128	first[DP_BLT_MAX_BUFFERS] = {0},
				second[DP_BLT_MAX_BUFFERS] = {0};
	long double total = 0;

	for (int t = 0; t < T; t++)
	{
		dp_int128	a,
					b;
		int64_t		other = x[t];

		if (t == u)
			other = x[t] == 0 ? max_per_step : 0;
		dp_blt_encode_step(params, first, x[t], F, &a);
		dp_blt_encode_step(params, second, other, F, &b);
		total += (long double) (a - b) * (long double) (a - b);
	}
	return (double) sqrtl(total);
}

static void
test_sensitivity(int64_t max_per_step, int T, int coarse)
{
	dp_blt_params params;
	int			F = coarse ? 0 : dp_blt_fraction_bits(max_per_step);
	int64_t    *x = malloc(sizeof(int64_t) * T);
	int			positions[3] = {0, T / 2, T - 1};
	double		bound;
	double		largest = 0;
	int			holds = 1;

	dp_blt_design(T, &params);
	if (coarse)
		params.guard_bits = 0;
	bound = dp_blt_sensitivity_bound(&params, T, F, max_per_step);
	for (int trial = 0; trial < 20; trial++)
	{
		for (int t = 0; t < T; t++)
			/* extremes as well as random values, so rounding lands everywhere */
			x[t] = trial < 2 ? trial * max_per_step : random_value(max_per_step);
		for (int p = 0; p < 3; p++)
		{
			double		distance = neighbour_distance(&params, T, max_per_step, F, positions[p], x);

			holds &= distance <= bound;
			if (distance > largest)
				largest = distance;
		}
	}
	tap_ok(holds, "sensitivity, max_per_step %lld, T %d%s: brute-force neighbours (first, middle, last "
		   "step) within the bound: %.6e <= %.6e", (long long) max_per_step, T,
		   coarse ? ", F = 0, G = 0" : "", largest, bound);
	/* the first step's column is the whole of C's: the bound is nearly tight */
	if (!coarse)
		tap_ok(largest >= bound * (1 - 1e-3), "  and the bound is within 0.1%% of the worst neighbour");
	free(x);
}

/* No noise: y_t = S_t within 2^-F r sum|H| (encoder) + the decoder's bias. */
static void
test_decoder_exactness(int64_t max_per_step, int T)
{
	dp_blt_params params;
	int			F = dp_blt_fraction_bits(max_per_step);
	dp_int128	encoder[DP_BLT_MAX_BUFFERS] = {0};
	dp_int128	decoder[2 * DP_BLT_MAX_BUFFERS + 1] = {0};
	int64_t		prefix = 0;
	double		r;
	int			within = 1,
				rounded_exact = 1;
	double		worst_ratio = 0;

	dp_blt_design(T, &params);
	r = dp_blt_encoder_rounding_bound(&params, T);
	for (int t = 1; t <= T; t++)
	{
		int64_t		value = random_value(max_per_step);
		dp_int128	encoded;
		long double error;
		double		allowed;

		dp_blt_encode_step(&params, encoder, value, F, &encoded);
		within &= dp_blt_decode_step(&params, decoder, encoded) == DP_OK;
		prefix += value;
		error = fabsl(dp_blt_release_value(&params, decoder, F) - (long double) prefix);
		allowed = ldexp(r, -F) * dp_blt_abs_release_weight(&params, t) +
			dp_blt_decoder_bias_bound(&params, t, F);
		within &= error <= allowed;
		if (error / allowed > worst_ratio)
			worst_ratio = (double) (error / allowed);
		rounded_exact &= dp_blt_release_rounded(&params, decoder, F) == prefix;
	}
	tap_ok(within, "decoder without noise, max_per_step %lld, T %d: |y_t - S_t| within the stated "
		   "bound (worst at %.3f of it)", (long long) max_per_step, T, worst_ratio);
	tap_ok(rounded_exact, "  and the rounded release is the exact prefix sum at every step");
}

/* closed forms against direct O(T) and O(T^2) computations */
static void
test_closed_forms(int T)
{
	dp_blt_params params;
	long double *c = malloc(sizeof(long double) * T);
	long double *H = malloc(sizeof(long double) * T);
	long double norm = 0,
				cumulative = 0,
				total = 0,
				absolute = 0;
	double		worst = 0;
	int			weight_bounds = 1;

	dp_blt_design(T, &params);
	reference_coefficients(&params, T, c);
	reference_release_weights(c, T, H);
	for (int n = 0; n < T; n++)
	{
		norm += c[n] * c[n];
		cumulative += H[n] * H[n];	/* V_{n+1} */
		total += cumulative;
		absolute += fabsl(H[n]);
		if (n % 7 == 0 || n == T - 1)
		{
			double		closed = dp_blt_variance_at(&params, n + 1);
			double		relative = fabs(closed - (double) cumulative) / (double) cumulative;

			if (relative > worst)
				worst = relative;
			weight_bounds &= dp_blt_abs_release_weight(&params, n + 1) >= (double) absolute;
		}
	}
	tap_ok(worst < 1e-9, "T %d: dp_blt_variance_at matches sum_{n<t} H_n^2 (worst relative %.2e)",
		   T, worst);
	tap_ok(fabs(dp_blt_mean_variance(&params, T) - (double) (total / T)) < 1e-9 * (double) (total / T),
		   "T %d: dp_blt_mean_variance matches the direct mean: %.10f vs %.10Lf", T,
		   dp_blt_mean_variance(&params, T), total / T);
	tap_ok(dp_blt_column_norm_squared(&params, T) >= norm &&
		   dp_blt_column_norm_squared(&params, T) <= norm * (1 + 1e-10L),
		   "T %d: sum c_n^2 upward and tight: %.12Lf >= %.12Lf", T,
		   dp_blt_column_norm_squared(&params, T), norm);
	tap_ok(weight_bounds, "T %d: dp_blt_abs_release_weight bounds sum_{n<t} |H_n|", T);
	free(c);
	free(H);
}

/* simulated Gaussian noise: empirical variance of y_t - S_t at several t */
static void
test_noise(int T, int trials)
{
	dp_blt_params params;
	int			F = dp_blt_fraction_bits(1);
	int			checkpoints[4] = {1, 10, T / 3, T};
	double		squares[4] = {0};
	double		sigma;
	int64_t    *x = malloc(sizeof(int64_t) * T);

	dp_blt_design(T, &params);
	/* rho = 1/2: variance parameter sensitivity^2, units 2^-F */
	sigma = dp_blt_sensitivity_bound(&params, T, F, 1);
	for (int t = 0; t < T; t++)
		x[t] = random_value(1);
	for (int trial = 0; trial < trials; trial++)
	{
		dp_int128	encoder[DP_BLT_MAX_BUFFERS] = {0};
		dp_int128	decoder[2 * DP_BLT_MAX_BUFFERS + 1] = {0};
		int64_t		prefix = 0;
		int			next = 0;

		for (int t = 1; t <= T; t++)
		{
			dp_int128	encoded;
			dp_int128	noise = (dp_int128) llround(sigma * gaussian());

			dp_blt_encode_step(&params, encoder, x[t - 1], F, &encoded);
			dp_blt_decode_step(&params, decoder, encoded + noise);
			prefix += x[t - 1];
			if (next < 4 && t == checkpoints[next])
			{
				double		deviation = (double) (dp_blt_release_value(&params, decoder, F) - prefix);

				squares[next] += deviation * deviation;
				next++;
			}
		}
	}
	for (int i = 0; i < 4; i++)
	{
		/*
		 * The deviation is Gaussian with mean (the rounding bias, below 1e-9
		 * here) ~ 0 and variance (2^-F sigma)^2 V_t, plus 1/12 of integer
		 * rounding in units 2^-F (2^-80 relative): sum of squares / variance
		 * is chi-squared with `trials` degrees of freedom.  Two-sided at
		 * 1e-6 per check (Wilson-Hilferty), so a false failure of the four
		 * has probability below 4e-6.
		 */
		double		expected = ldexp(sigma, -F) * ldexp(sigma, -F) *
			dp_blt_variance_at(&params, checkpoints[i]);
		double		statistic = squares[i] / expected;
		double		low = chi_squared_quantile(trials, -Z_TWO_SIDED_1E6);
		double		high = chi_squared_quantile(trials, Z_TWO_SIDED_1E6);

		tap_ok(statistic >= low && statistic <= high,
			   "noise, T %d, %d trials, t = %d: empirical variance %.4f vs %.4f (chi2 %.1f in [%.1f, %.1f])",
			   T, trials, checkpoints[i], squares[i] / trials, expected, statistic, low, high);
	}
	free(x);
}

static void
test_decoder_overflow(void)
{
	dp_blt_params params;
	dp_int128	decoder[2 * DP_BLT_MAX_BUFFERS + 1] = {0};
	dp_int128	before[2 * DP_BLT_MAX_BUFFERS + 1];

	dp_blt_design(1024, &params);
	dp_blt_decode_step(&params, decoder, 12345);
	memcpy(before, decoder, sizeof(decoder));
	tap_ok(dp_blt_decode_step(&params, decoder, ((dp_int128) 1) << 126) == DP_ERROR_OVERFLOW &&
		   memcmp(before, decoder, sizeof(decoder)) == 0,
		   "the decoder refuses an out-of-range word and keeps its state");
	tap_ok(dp_blt_encode_step(&params, decoder, (((int64_t) 1) << 20) + 1, 20, &before[0]) ==
		   DP_ERROR_OVERFLOW, "the encoder refuses a value beyond 2^40 / 2^F");
}

/* a long run at full input scale: buffers within bound, release exact after rounding */
static void
test_long_run(void)
{
	int64_t		T = ((int64_t) 1) << 20;
	dp_blt_params params;
	dp_int128	encoder[DP_BLT_MAX_BUFFERS] = {0};
	dp_int128	decoder[2 * DP_BLT_MAX_BUFFERS + 1] = {0};
	long double bound;
	long double largest = 0;
	int64_t		prefix = 0;
	int			exact = 1;

	dp_blt_design(T, &params);
	bound = dp_blt_encoder_buffer_bound(&params, T);
	for (int64_t t = 0; t < T; t++)
	{
		dp_int128	encoded;

		dp_blt_encode_step(&params, encoder, 1, 40, &encoded);
		dp_blt_decode_step(&params, decoder, encoded);
		prefix += 1;
		for (int j = 0; j < params.buffers; j++)
			if (fabsl((long double) encoder[j]) > largest)
				largest = fabsl((long double) encoder[j]);
		if ((t & 4095) == 4095)
			exact &= dp_blt_release_rounded(&params, decoder, 40) == prefix;
	}
	tap_ok(largest <= bound && exact,
		   "2^20 steps of the largest value: buffers %.3Le <= %.3Le, release exact after rounding",
		   largest, bound);
	tap_diag("  at 2^20: r = %.6f, decoder bias bound %.3e, sensitivity overhead of rounding %.3e",
			 dp_blt_encoder_rounding_bound(&params, T), dp_blt_decoder_bias_bound(&params, T, 40),
			 dp_blt_sensitivity_bound(&params, T, 40, 1) /
			 (ldexp(1, 40) * sqrt((double) dp_blt_column_norm_squared(&params, T))) - 1);
}

/* every table row up to 2^16: the closed-form mean against the direct recursion */
static void
test_table_closed_forms(void)
{
	double		worst = 0;

	for (int k = 1; k <= 16; k++)
	{
		int			T = 1 << k;
		dp_blt_params params;
		long double *c = malloc(sizeof(long double) * T);
		long double buffer[DP_BLT_MAX_BUFFERS] = {0};
		long double partial = 0,
					cumulative = 0,
					total = 0,
					direct;
		double		relative;

		dp_blt_design(T, &params);
		reference_coefficients(&params, T, c);
		/* h by forward substitution through d buffers, O(T d) */
		for (int n = 0; n < T; n++)
		{
			long double h = n == 0 ? 1 : 0;

			for (int j = 0; j < params.buffers; j++)
				h -= dyadic(params.omega_num[j]) * buffer[j];
			for (int j = 0; j < params.buffers; j++)
				buffer[j] = dyadic(params.theta_num[j]) * buffer[j] + h;
			partial += h;
			cumulative += partial * partial;
			total += cumulative;
		}
		direct = total / T;
		relative = (double) fabsl((long double) dp_blt_mean_variance(&params, T) - direct) / (double) direct;
		if (relative > worst)
			worst = relative;
		free(c);
	}
	tap_ok(worst < 1e-9, "every table row up to 2^16: closed-form mean variance matches the direct "
		   "recursion (worst relative %.2e)", worst);
}

/* the figures at large horizons, where 128-bit rounding starts to cost */
static void
test_large_horizons(void)
{
	static const int exponents[] = {30, 40, 50, 56, 62};
	int			sane = 1;

	for (int e = 0; e < 5; e++)
	{
		int64_t		T = ((int64_t) 1) << exponents[e];
		dp_blt_params params;
		double		linear,
					bound;

		dp_blt_design(T, &params);
		linear = ldexp(sqrt((double) dp_blt_column_norm_squared(&params, T)), 40);
		bound = dp_blt_sensitivity_bound(&params, T, 40, 1);
		sane &= bound >= linear && isfinite(dp_blt_decoder_bias_bound(&params, T, 40));
		tap_diag("T = 2^%d: d = %d, G = %d, mean variance %.2f, rounding overhead of the "
				 "sensitivity %.2e, decoder bias bound %.2e", exponents[e], params.buffers,
				 params.guard_bits, ldexp(bound, -40) * ldexp(bound, -40) * dp_blt_mean_variance(&params, T),
				 bound / linear - 1, dp_blt_decoder_bias_bound(&params, T, 40));
	}
	tap_ok(sane, "large horizons: bounds finite and above the linear term");
}

int
main(void)
{
	static const char seed[] = "test_blt";

	if (!dp_random_library_init())
	{
		printf("Bail out! libsodium\n");
		return 1;
	}
	dp_random_init_keyed(&rng, seed, sizeof(seed) - 1);

	test_table();
	test_target();
	test_closed_forms(1024);
	test_closed_forms(4096);
	test_table_closed_forms();
	test_encoder_exactness(1, SMALL_T, 0);
	test_encoder_exactness(1000, SMALL_T, 0);
	test_encoder_exactness(1 << 24, SMALL_T, 0);
	test_encoder_exactness(1, SMALL_T, 1);
	test_encoder_exactness(1000, SMALL_T, 1);
	test_sensitivity(1, 64, 0);
	test_sensitivity(1, SMALL_T, 0);
	test_sensitivity(1 << 24, SMALL_T, 0);
	test_sensitivity(1, 64, 1);
	test_sensitivity(1, SMALL_T, 1);
	test_large_horizons();
	test_decoder_exactness(1, 4096);
	test_decoder_exactness(1 << 24, 4096);
	test_noise(256, 400);
	test_decoder_overflow();
	test_long_run();
	return tap_done();
}

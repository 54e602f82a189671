/*
 * test_honaker.c
 *		The Honaker estimator on a k-ary tree (dp_honaker.c) against its
 *		variance formula, written out here from the recursion of Honaker
 *		("Efficient Use of Differentially Private Binary Trees", TPDP 2015)
 *		independently of the implementation's closed forms; its noise
 *		description; its stored forms at every step; keyed determinism; the
 *		default arity; and the parameters it refuses.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dp_counter.h"
#include "tap.h"
#include "test_support.h"

static dp_random rng;

#define FIXED_ONE 16777216.0	/* the accumulators' unit is 2^-24 */
#define ROUNDING_SLACK (0.5 + 0x1p-11)	/* release vs the described sum */
/* the most noise groups of a release the mechanism accepts */
#define GROUPS_LIMIT (DP_NOISE_GROUPS_MAX < 256 ? DP_NOISE_GROUPS_MAX : 256)

static dp_mechanism
honaker(double epsilon, int64_t horizon, int64_t n, int64_t arity, uint32_t flags)
{
	dp_mechanism m;

	memset(&m, 0, sizeof(m));
	m.kind = DP_MECHANISM_HONAKER;
	m.flags = flags;
	m.epsilon = epsilon;
	m.horizon = horizon;
	m.max_per_step = n;
	m.block = arity;
	return m;
}

static double
scale_of(uint64_t sensitivity, double epsilon)
{
	dp_scale	scale;

	dp_scale_for(sensitivity, epsilon, &scale);
	return dp_scale_as_double(&scale);
}

/* base-k digits of the horizon, by repeated division */
static int
digits_of(int64_t x, int64_t k)
{
	int			digits = 0;

	for (; x > 0; x /= k)
		digits++;
	return digits;
}

/*
 * The noise of the release at t from the estimator's definition: per node
 * noise variance s2 (one discrete Laplace term of scale L N / epsilon, two
 * when pan-private), v_0 = s2, a_j = k v_(j-1) / (s2 + k v_(j-1)), v_j =
 * s2 a_j; variance sum_j d_j v_j.  The fourth cumulant needs the weight of
 * each term: a term at depth i below a level-j node has weight
 * a_(j-i) prod_(l = j-i+1 .. j) (1 - a_l), a_0 = 1.
 */
typedef struct expected_noise
{
	double		variance;
	double		excess_fourth;	/* sum of weight^4 (m4 - 3 v^2) over the terms */
	double		scale;
} expected_noise;

static expected_noise
expected_for(const dp_mechanism *m, int64_t t)
{
	expected_noise e = {0, 0, 0};
	int64_t		k = m->block;
	int			levels = digits_of(m->horizon, k);
	int			copies = (m->flags & DP_FLAG_PAN_PRIVATE) ? 2 : 1;
	double		v1, m4, s2;
	double		a[64], v[64];
	int64_t		rest = t;

	e.scale = scale_of((uint64_t) levels * (uint64_t) m->max_per_step, m->epsilon);
	discrete_laplace_moments(e.scale, &v1, &m4);
	s2 = copies * v1;
	a[0] = 1;
	v[0] = s2;
	for (int j = 1; j < levels; j++)
	{
		a[j] = k * v[j - 1] / (s2 + k * v[j - 1]);
		v[j] = s2 * k * v[j - 1] / (s2 + k * v[j - 1]);
	}
	for (int j = 0; rest > 0; j++, rest /= k)
	{
		int64_t		d = rest % k;
		double		nodes = 1;	/* k^i */

		e.variance += d * v[j];
		for (int i = 0; i <= j && d > 0; i++, nodes *= k)
		{
			double		w = a[j - i];

			for (int l = j - i + 1; l <= j; l++)
				w *= 1 - a[l];
			e.excess_fourth += d * nodes * copies * pow(w, 4) * (m4 - 3 * v1 * v1);
		}
	}
	return e;
}

/* The sum the release rounds: the accumulators (odd nodes) in counts. */
static double
unrounded_release(const dp_counter *counter)
{
	dp_int128	sum = 0;

	for (int i = 1; i < counter->kind_nodes; i += 2)
		sum += counter->nodes[i];
	return (double) sum / FIXED_ONE;
}

typedef struct config
{
	const char *label;
	dp_mechanism mechanism;
	int64_t		points[4];		/* steps at which the error is checked */
} config;

#define TRIALS 20000
#define BOUND_CONFIDENCE 0.9

/*
 * Over TRIALS seeded streams of random values in [0, N], the error at each
 * point, before and after the final rounding, has mean 0 and the variance of
 * the formula; bands are for p = 1e-6 from the exact second and fourth
 * moments (the rounded error may also carry the variance of the rounding,
 * at most 1/12 more).  The implementation's noise description must agree
 * with the formula, the release must be within 0.5 + 2^-11 of the unrounded
 * sum at every step, and, when the counter has an error bound for weighted
 * sums, it must cover the error at least at its confidence.
 */
static void
test_error_formula(const config *c)
{
	const dp_mechanism *m = &c->mechanism;
	dp_counter *counter = test_start_counter(m, &rng);
	double		sum[4] = {0}, sum_sq[4] = {0};
	double		rounded_sum[4] = {0}, rounded_sq[4] = {0};
	double		implementation_variance[4] = {0};
	double		bound[4] = {0};
	double		slack[4] = {0};
	int64_t		misses[4] = {0};
	int64_t		far = 0;

	for (int trial = 0; trial < TRIALS; trial++)
	{
		int64_t		truth = 0;
		int			next = 0;
		const char *field;

		dp_counter_start(counter, m, &rng, &field);
		for (int64_t t = 1; t <= m->horizon; t++)
		{
			int64_t		value = (int64_t) dp_random_below(&rng, (uint64_t) m->max_per_step + 1);
			double		error, rounded;

			dp_counter_push(counter, value, &rng);
			truth += value;
			error = unrounded_release(counter) - (double) truth;
			rounded = (double) (counter->release - truth);
			far += !(fabs(rounded - error) <= ROUNDING_SLACK);
			if (next < 4 && c->points[next] == t)
			{
				sum[next] += error;
				sum_sq[next] += error * error;
				rounded_sum[next] += rounded;
				rounded_sq[next] += rounded * rounded;
				if (trial == 0)
				{
					dp_noise_group groups[DP_NOISE_GROUPS_MAX];
					int			count = dp_counter_noise_groups(counter, groups);

					implementation_variance[next] = dp_counter_noise_variance(counter);
					bound[next] = dp_counter_error_bound(counter, BOUND_CONFIDENCE);
					slack[next] = bound[next] - dp_noise_sum_half_width(groups, count,
																		 BOUND_CONFIDENCE);
				}
				misses[next] += fabs(rounded) > bound[next];
				next++;
			}
		}
	}

	tap_ok(far == 0, "%s: every release within 0.5 + 2^-11 of the unrounded sum (%lld not)",
		   c->label, (long long) far);
	for (int i = 0; i < 4; i++)
	{
		expected_noise e = expected_for(m, c->points[i]);
		double		mean = sum[i] / TRIALS, second = sum_sq[i] / TRIALS;
		double		rounded_mean = rounded_sum[i] / TRIALS, rounded_second = rounded_sq[i] / TRIALS;
		double		spread = sqrt((e.excess_fourth + 2 * e.variance * e.variance) / TRIALS);
		double		mean_band = Z_TWO_SIDED_1E6 * sqrt(e.variance / TRIALS);
		double		miss = 1 - BOUND_CONFIDENCE;

		tap_ok(fabs(second - e.variance) <= Z_TWO_SIDED_1E6 * spread && fabs(mean) <= mean_band,
			   "%s, t = %lld: unrounded error mean %.3f, variance %.2f vs formula %.2f "
			   "(b = %.3g), band +-%.2f", c->label, (long long) c->points[i], mean, second,
			   e.variance, e.scale, Z_TWO_SIDED_1E6 * spread);
		tap_ok(fabs(rounded_second - e.variance - 1.0 / 24) <= Z_TWO_SIDED_1E6 * spread + 1.0 / 24 &&
			   fabs(rounded_mean) <= mean_band + 0.5 / sqrt(TRIALS),
			   "%s, t = %lld: released error mean %.3f, variance %.2f vs formula %.2f (+ 0..1/12)",
			   c->label, (long long) c->points[i], rounded_mean, rounded_second, e.variance);
		tap_ok(fabs(implementation_variance[i] - e.variance) <= 1e-9 * e.variance,
			   "%s, t = %lld: the mechanism's own noise description agrees (%.9g vs %.9g)",
			   c->label, (long long) c->points[i], implementation_variance[i], e.variance);
		if (isnan(bound[i]))
			printf("ok %d - # SKIP %s, t = %lld: no error bound for weighted groups in this build\n",
				   ++tap_count, c->label, (long long) c->points[i]);
		else
			tap_ok(bound[i] > 0 && (double) misses[i] / TRIALS <=
				   miss + Z_ONE_SIDED_1E6 * sqrt(miss * (1 - miss) / TRIALS) &&
				   slack[i] >= 0.5 && slack[i] <= ROUNDING_SLACK,
				   "%s, t = %lld: the %g error bound %.2f (rounding slack %.7f) covers the "
				   "release: %.4f missed", c->label, (long long) c->points[i],
				   BOUND_CONFIDENCE, bound[i], slack[i], (double) misses[i] / TRIALS);
	}
	free(counter);
}

/* A counter without nodes, for the noise description at any step. */
static dp_counter *
prepared(const dp_mechanism *m)
{
	dp_counter *header = malloc(sizeof(dp_counter));
	const char *field = NULL;

	if (dp_counter_prepare(header, m, &field) != DP_OK)
	{
		printf("Bail out! could not prepare a counter (%s)\n", field ? field : "-");
		exit(1);
	}
	return header;
}

/* The described variance agrees with the formula at every step. */
static void
test_description(const dp_mechanism *m, const char *label)
{
	dp_counter *header = prepared(m);
	int64_t		disagreeing = 0;
	double		worst = 0;

	for (int64_t t = 0; t <= m->horizon; t++)
	{
		double		formula = expected_for(m, t).variance;
		double		described;

		header->steps = t;
		described = dp_counter_noise_variance(header);
		if (fabs(described - formula) > 1e-9 * formula)
			disagreeing++;
		if (formula > 0 && fabs(described - formula) / formula > worst)
			worst = fabs(described - formula) / formula;
	}
	tap_ok(disagreeing == 0, "%s: described variance = formula at every t <= T "
		   "(worst relative difference %.2g)", label, worst);
	free(header);
}

/*
 * The known figure: Binary tree with Honaker's estimator, T = 2^10,
 * epsilon = 1, N = 1: mean variance over t <= T about 702, max about 1404.
 */
static void
test_known_figure(void)
{
	dp_mechanism m = honaker(1.0, 1024, 1, 2, 0);
	dp_counter *header = prepared(&m);
	double		total = 0, largest = 0;

	for (int64_t t = 1; t <= m.horizon; t++)
	{
		double		v;

		header->steps = t;
		v = dp_counter_noise_variance(header);
		total += v;
		if (v > largest)
			largest = v;
	}
	tap_ok(fabs(total / m.horizon - 702) < 1 && fabs(largest - 1404) < 1,
		   "k = 2, T = 2^10, epsilon = 1: mean variance %.2f (~702), max %.2f (~1404)",
		   total / m.horizon, largest);
	free(header);
}

/*
 * Storing and continuing changes nothing: stored at every step in both
 * forms, rebuilt, and fed the same values with copies of the same noise
 * source, the copies make exactly the original's releases.
 */
static void
test_continuation(const char *label, dp_mechanism m)
{
	dp_counter *original = test_start_counter(&m, &rng);
	size_t		size = dp_counter_size(&m);
	dp_counter *from_binary = malloc(size);
	dp_counter *from_text = malloc(size);
	int			mismatches = 0;
	int			failures = 0;

	for (int64_t stop = 0; stop <= m.horizon; stop++)
	{
		const char *field;
		unsigned char *bytes;
		char	   *text;
		dp_parse_error error;
		dp_mechanism parsed;
		dp_random	copy_a, copy_b;

		dp_counter_start(original, &m, &rng, &field);
		for (int64_t t = 1; t <= stop; t++)
			dp_counter_push(original, (int64_t) dp_random_below(&rng, (uint64_t) m.max_per_step + 1),
							&rng);

		failures += dp_counter_check_storable(original) != DP_OK;
		bytes = malloc(dp_counter_serialized_size(original));
		dp_counter_serialize(original, bytes);
		text = malloc(dp_counter_text_size(original));
		dp_counter_to_text(original, text);
		failures += dp_counter_deserialize(bytes, dp_counter_serialized_size(original),
										   from_binary, size, &error) != DP_OK;
		failures += dp_counter_parse(text, &parsed, from_text, size, &error) != DP_OK;
		if (failures && stop == 0)
			printf("# %s\n", text);
		free(bytes);
		free(text);
		if (failures)
			break;
		mismatches += dp_counter_release_wide(from_binary) != dp_counter_release_wide(original);
		mismatches += dp_counter_release_wide(from_text) != dp_counter_release_wide(original);

		for (int64_t t = stop + 1; t <= m.horizon; t++)
		{
			int64_t		value = (int64_t) dp_random_below(&rng, (uint64_t) m.max_per_step + 1);

			copy_a = rng;
			copy_b = rng;
			dp_counter_push(original, value, &rng);
			dp_counter_push(from_binary, value, &copy_a);
			dp_counter_push(from_text, value, &copy_b);
			mismatches += dp_counter_release_wide(from_binary) != dp_counter_release_wide(original);
			mismatches += dp_counter_release_wide(from_text) != dp_counter_release_wide(original);
			/* the stored form continues the estimates, not only the releases */
			for (int i = 1; i < original->kind_nodes; i += 2)
				mismatches += (from_binary->nodes[i] != original->nodes[i]) +
					(from_text->nodes[i] != original->nodes[i]);
		}
	}
	tap_ok(failures == 0 && mismatches == 0,
		   "%s: stored at every step and continued, binary and text forms give the "
		   "original's releases (%d failures, %d mismatches)", label, failures, mismatches);
	free(original);
	free(from_binary);
	free(from_text);
}

/*
 * A stored state holds no raw partial sum: an open node's stored value less
 * the data it has covered so far is its opening noise, of variance v.
 */
static void
test_stored_open_node(void)
{
	dp_mechanism m = honaker(1.0, 125, 2, 5, 0);
	dp_counter *counter = test_start_counter(&m, &rng);
	dp_int128	stored[DP_COUNTER_MAX_NODES];
	double		sum = 0, sum_sq = 0, v, m4;
	const int	trials = TRIALS;

	/* 4 levels; after 37 steps the level-1 node (35, 40] holds steps 36 and 37 */
	discrete_laplace_moments(scale_of((uint64_t) digits_of(m.horizon, m.block) * 2, 1.0), &v, &m4);
	for (int trial = 0; trial < trials; trial++)
	{
		const char *field;
		int64_t		covered = 0;
		double		noise;

		dp_counter_start(counter, &m, &rng, &field);
		for (int64_t t = 1; t <= 37; t++)
		{
			int64_t		value = (int64_t) dp_random_below(&rng, 3);

			dp_counter_push(counter, value, &rng);
			if (t > 35)
				covered += value;
		}
		dp_counter_persisted_nodes(counter, stored);
		noise = (double) (stored[2] - covered);
		sum += noise;
		sum_sq += noise * noise;
	}
	tap_ok(fabs(sum / trials) <= Z_TWO_SIDED_1E6 * sqrt(v / trials) &&
		   fabs(sum_sq / trials - v) <= Z_TWO_SIDED_1E6 * sqrt((m4 - v * v) / trials),
		   "stored open node = partial sum + noise: mean %.3f, variance %.2f vs %.2f",
		   sum / trials, sum_sq / trials, v);
	free(counter);
}

/* Keyed noise: the same key and data give the same releases, whatever the rng. */
static void
test_keyed(void)
{
	dp_mechanism m = honaker(1.0, 200, 3, 4, DP_FLAG_KEYED | DP_FLAG_PAN_PRIVATE);
	unsigned char key[DP_NOISE_KEY_BYTES];
	dp_counter *a = malloc(dp_counter_size(&m));
	dp_counter *b = malloc(dp_counter_size(&m));
	dp_random	other;
	const char *field = "";
	int			mismatches = 0;
	int			started;

	strcpy(m.key, "visits");
	for (int i = 0; i < DP_NOISE_KEY_BYTES; i++)
		key[i] = (unsigned char) (7 * i + 1);
	dp_random_init_keyed(&other, "another", 7);
	started = dp_counter_start_keyed(a, &m, key, &rng, &field) == DP_OK &&
		dp_counter_start_keyed(b, &m, key, &other, &field) == DP_OK;
	for (int64_t t = 1; started && t <= m.horizon; t++)
	{
		int64_t		value = (int64_t) dp_random_below(&rng, 4);

		dp_counter_push(a, value, &rng);
		dp_counter_push(b, value, &other);
		mismatches += dp_counter_release_wide(a) != dp_counter_release_wide(b);
	}
	tap_ok(started && mismatches == 0, "keyed: same key and data, same releases (%d mismatches)",
		   mismatches);
	free(a);
	free(b);
}

/* sum over the non-zero digits j of t of (j + 1), maximised over t <= T */
static int64_t
max_groups_brute(int64_t horizon, int64_t k)
{
	int64_t		best = 0;

	for (int64_t t = 1; t <= horizon; t++)
	{
		int64_t		g = 0;
		int			j = 0;

		for (int64_t rest = t; rest > 0; rest /= k, j++)
			if (rest % k)
				g += j + 1;
		if (g > best)
			best = g;
	}
	return best;
}

static void
expect_refused(const char *label, dp_mechanism m, dp_status status, const char *field_name)
{
	const char *field = NULL;
	dp_status	got = dp_mechanism_validate(&m, &field);

	tap_ok(got == status && field && strcmp(field, field_name) == 0,
		   "refused: %s (status %d, field %s)", label, (int) got, field ? field : "-");
}

static void
test_parameters(void)
{
	const dp_counter_kind *kind = dp_counter_kind_by_name("honaker");
	const char *field = NULL;
	int			invalid_defaults = 0;
	int			wrong_limits = 0;

	tap_ok(kind != NULL && kind == dp_counter_kind_by_id(10) && kind->has_block &&
		   strcmp(kind->block_name, "arity") == 0 && kind->bounded,
		   "registered as \"honaker\", id 10, with an arity");

	expect_refused("arity 0", honaker(1, 100, 1, 0, 0), DP_ERROR_BLOCK, "arity");
	expect_refused("arity 1", honaker(1, 100, 1, 1, 0), DP_ERROR_BLOCK, "arity");
	expect_refused("arity 65", honaker(1, 100, 1, 65, 0), DP_ERROR_BLOCK, "arity");
	expect_refused("arity 2^40", honaker(1, 100, 1, ((int64_t) 1) << 40, 0), DP_ERROR_BLOCK, "arity");
	expect_refused("arity -3", honaker(1, 100, 1, -3, 0), DP_ERROR_BLOCK, "arity");
	expect_refused("horizon 0", honaker(1, 0, 1, 2, 0), DP_ERROR_HORIZON, "horizon");
	expect_refused("horizon 2^62 + 1", honaker(1, DP_HORIZON_MAX + 1, 1, 8, 0), DP_ERROR_HORIZON, "horizon");
	/* 64^11 > 2^64: the weights' denominators would not fit 64 bits */
	expect_refused("arity 64 at horizon 2^62", honaker(1, DP_HORIZON_MAX, 1, 64, 0),
				   DP_ERROR_BLOCK, "arity");
	expect_refused("k = 2 at horizon 2^62 (2016 noise groups)", honaker(1, DP_HORIZON_MAX, 1, 2, 0),
				   DP_ERROR_BLOCK, "arity");
#if GROUPS_LIMIT >= 231
	/* k = 8 fits 2^62 (21 levels, at most 231 groups); two terms per node would not */
	expect_refused("pan-private at horizon 2^62", honaker(1, DP_HORIZON_MAX, 1, 8, DP_FLAG_PAN_PRIVATE),
				   DP_ERROR_HORIZON, "horizon");
#endif
	expect_refused("fixed point out of range: max_per_step 2^50 at epsilon 2^-40",
				   honaker(0x1p-40, 1000, ((int64_t) 1) << 50, 10, 0),
				   DP_ERROR_SENSITIVITY, "max_per_step");
	/* 64^9 = 2^54: 10 levels, at most 55 groups */
	expect_refused("fixed point out of range: horizon 2^54 x max_per_step 2^41",
				   honaker(1, ((int64_t) 1) << 54, ((int64_t) 1) << 41, 64, 0),
				   DP_ERROR_SENSITIVITY, "max_per_step");
	{
		dp_mechanism m = honaker(1, 1000, 1, 10, DP_FLAG_PERSON);

		m.contributions = ((int64_t) 1) << 50;
		m.epsilon = 0x1p-30;
		expect_refused("fixed point out of range: 2^50 contributions at epsilon 2^-30", m,
					   DP_ERROR_SENSITIVITY, "contributions");
	}
#ifdef DP_FLAG_ZCDP
	expect_refused("no Gaussian noise", honaker(1, 1000, 1, 10, DP_FLAG_ZCDP), DP_ERROR_OPTION, "rho");
#endif
	tap_ok(dp_mechanism_validate(&(dp_mechanism) {.kind = DP_MECHANISM_HONAKER, .epsilon = 0.1,
										 .horizon = 1000000, .max_per_step = 1000, .block = 17},
								 &field) == DP_OK,
		   "accepted: epsilon 0.1, T = 10^6, N = 1000, k = 17");

	/* every horizon has a valid default arity */
	for (int64_t horizon = 1; horizon <= 3000; horizon++)
	{
		dp_mechanism m = honaker(1, horizon, 1, kind->default_block(horizon), DP_FLAG_PAN_PRIVATE);

		invalid_defaults += dp_mechanism_validate(&m, &field) != DP_OK;
	}
	for (int bits = 1; bits <= 62; bits++)
		for (int64_t delta = -1; delta <= 1; delta++)
		{
			int64_t		horizon = (((int64_t) 1) << bits) + delta;
			dp_mechanism m;

			if (horizon > DP_HORIZON_MAX)
				continue;
			m = honaker(1, horizon, 1, kind->default_block(horizon), 0);
			if (dp_mechanism_validate(&m, &field) != DP_OK)
			{
				/* only where no arity fits (a limit of groups below 231) */
				for (m.block = 2; m.block <= 64; m.block++)
					invalid_defaults += dp_mechanism_validate(&m, &field) == DP_OK;
				invalid_defaults += GROUPS_LIMIT >= 231;
			}
		}
	tap_ok(invalid_defaults == 0, "the default arity is valid for every horizon tried where "
		   "any arity is (%d not)", invalid_defaults);
	tap_ok(kind->default_block(1024) == 11 && kind->default_block(65536) == 17 &&
		   kind->default_block(1 << 20) == 17,
		   "default arity: %lld at 2^10, %lld at 2^16, %lld at 2^20 (least mean variance: 11, 17, 17)",
		   (long long) kind->default_block(1024), (long long) kind->default_block(65536),
		   (long long) kind->default_block(1 << 20));

	/* the group limit: accepted exactly when the worst release fits */
	for (int64_t k = 2; k <= 5; k++)
		for (int64_t horizon = 1; horizon <= (k == 2 ? (1 << 23) : 20000);
			 horizon = horizon < 64 ? horizon + 1 : horizon * 2 - 1)
		{
			dp_mechanism m = honaker(1, horizon, 1, k, 0);
			int			fits = max_groups_brute(horizon, k) <= GROUPS_LIMIT;

			wrong_limits += (dp_mechanism_validate(&m, &field) == DP_OK) != fits;
		}
	tap_ok(wrong_limits == 0, "accepted exactly when every release fits %d noise groups (%d wrong)",
		   GROUPS_LIMIT, wrong_limits);

	/* the largest release at the largest k = 2 horizon accepted */
	{
		int			bits = 1;
		dp_counter *header;
		dp_noise_group groups[DP_NOISE_GROUPS_MAX];
		int			count;

		while ((bits + 1) * (bits + 2) / 2 <= GROUPS_LIMIT)
			bits++;
		header = prepared(&(dp_mechanism) {.kind = DP_MECHANISM_HONAKER, .epsilon = 1,
							.horizon = (((int64_t) 1) << bits) - 1, .max_per_step = 1,
							.block = 2, .flags = DP_FLAG_PAN_PRIVATE});
		count = dp_counter_noise_groups_at(header, header->mechanism.horizon, groups);
		{
			double		bound;

			header->steps = header->mechanism.horizon;
			bound = dp_counter_error_bound(header, 0.95);
			if (isnan(bound))
				printf("ok %d - # SKIP no error bound for weighted groups in this build\n", ++tap_count);
			else
				tap_ok(isfinite(bound) && bound >= sqrt(dp_counter_noise_variance(header)),
					   "k = 2, T = 2^%d - 1 pan-private: 95%% error bound at t = T %.1f (sd %.1f)",
					   bits, bound, sqrt(dp_counter_noise_variance(header)));
		}
		tap_ok(count == bits * (bits + 1) / 2 &&
			   fabs(dp_noise_sum_variance(groups, count) -
					expected_for(&header->mechanism, header->mechanism.horizon).variance) <=
			   1e-9 * dp_noise_sum_variance(groups, count),
			   "k = 2, T = 2^%d - 1 pan-private: %d groups at t = T, variance as the formula",
			   bits, count);
		free(header);
	}
}

#define M(eps_, horizon_, n_, k_, flags_) \
	{.kind = DP_MECHANISM_HONAKER, .flags = (flags_), .epsilon = (eps_), \
	 .horizon = (horizon_), .max_per_step = (n_), .block = (k_)}

static const config configs[] = {
	/* 32 and 64 powers of k, 63 just before one, 100 the horizon */
	{"k=2 T=100", M(1.0, 100, 1, 2, 0), {32, 63, 64, 100}},
	{"k=2 pan-private T=100 N=2", M(1.0, 100, 2, 2, DP_FLAG_PAN_PRIVATE), {31, 32, 99, 100}},
	{"k=5 T=150", M(1.0, 150, 1, 5, 0), {25, 124, 125, 150}},
	{"k=5 pan-private T=150 N=3 eps=0.5", M(0.5, 150, 3, 5, DP_FLAG_PAN_PRIVATE), {24, 25, 125, 150}},
};

/*
 * The release a step computes from the sum before it (kept in the memo,
 * the touched accumulators replaced) against the sum of every level's
 * accumulator (a copy resumed, which sums them all), after every step;
 * with a copy stepped in between from a stale memo (a restart) too.
 */
static void
test_incremental_release(const char *label, dp_mechanism m, int64_t steps)
{
	size_t		size = dp_counter_size(&m);
	dp_counter *a = malloc(size);
	dp_counter *copy = malloc(size);
	const char *field;
	int64_t		mismatches = 0;

	if (dp_counter_start(a, &m, &rng, &field) != DP_OK)
	{
		printf("Bail out! could not start %s\n", label);
		exit(1);
	}
	for (int64_t t = 1; t <= steps; t++)
	{
		dp_counter_push(a, (int64_t) dp_random_below(&rng, (uint64_t) m.max_per_step + 1), &rng);
		memcpy(copy, a, size);
		copy->kind->resume(copy);
		mismatches += copy->release != a->release;
		if (t == steps / 2)
		{
			/* a restart keeps the old memo: its first steps must not read it */
			dp_counter_restart(a, &rng);
			t = 0;
			steps /= 2;
		}
	}
	tap_ok(mismatches == 0 && !a->overflow,
		   "%s: every step's release from the sum before equals the rounded sum of every level's "
		   "accumulator (%lld mismatches)", label, (long long) mismatches);
	free(a);
	free(copy);
}

int
main(void)
{
	static const char seed[] = "dp_stream unit test: honaker";

	if (!dp_random_library_init())
	{
		printf("Bail out! libsodium failed to initialise\n");
		return 1;
	}
	dp_random_init_keyed(&rng, seed, sizeof(seed) - 1);

	test_parameters();
	test_known_figure();
	for (size_t i = 0; i < sizeof(configs) / sizeof(configs[0]); i++)
	{
		test_description(&configs[i].mechanism, configs[i].label);
		test_error_formula(&configs[i]);
	}
	test_description(&(dp_mechanism) M(1.0, 5000, 1, 7, DP_FLAG_PAN_PRIVATE), "k=7 pan-private T=5000");
	test_description(&(dp_mechanism) M(0.3, 4096, 9, 16, 0), "k=16 T=4096");
	test_continuation("k=2 T=100", (dp_mechanism) M(1.0, 100, 4, 2, 0));
	test_continuation("k=5 pan-private T=130", (dp_mechanism) M(1.0, 130, 4, 5, DP_FLAG_PAN_PRIVATE));
	test_continuation("k=3 consistent T=90", (dp_mechanism) M(0.7, 90, 3, 3, DP_FLAG_CONSISTENT));
	{
		dp_mechanism m = M(1.0, 64, 2, 4, DP_FLAG_PERSON | DP_FLAG_PER_OBSERVATION);

		m.contributions = 5;
		test_continuation("k=4 person level T=64", m);
	}
	test_stored_open_node();
	test_keyed();
	test_incremental_release("k=2 T=5000", (dp_mechanism) M(1.0, 5000, 3, 2, 0), 5000);
	test_incremental_release("k=7 pan-private T=3000", (dp_mechanism) M(1.0, 3000, 1, 7, DP_FLAG_PAN_PRIVATE), 3000);
	test_incremental_release("k=16 T=70000", (dp_mechanism) M(0.3, 70000, 9, 16, 0), 70000);
	return tap_done();
}

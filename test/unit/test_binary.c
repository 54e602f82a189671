/*
 * test_binary.c
 *		The Binary mechanism against a straightforward reference, against the
 *		exact variance of its noise, and through its serialized forms.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dp_counter.h"
#include "tap.h"

static dp_random rng;

static dp_counter *
new_counter(double epsilon, int64_t horizon, int64_t max_per_step)
{
	dp_mechanism mechanism = {.kind = DP_MECHANISM_BINARY, .epsilon = epsilon,
	.horizon = horizon, .max_per_step = max_per_step};
	dp_counter *counter = malloc(dp_counter_size(&mechanism));
	const char *field;

	if (dp_counter_start(counter, &mechanism, &rng, &field) != DP_OK)
	{
		printf("Bail out! could not start a counter\n");
		exit(1);
	}
	return counter;
}

/*
 * Record each closed interval's noise the moment it closes, then rebuild
 * every release from the textbook decomposition of t into dyadic intervals.
 */
static void
test_reference_decomposition(void)
{
	enum
	{
		T = 1000, N = 5
	};
	dp_counter *counter = new_counter(0.7, T, N);
	static int64_t prefix[T + 1];
	static dp_int128 noise[11][T + 1];
	static int64_t releases[T + 1];
	int			mismatches = 0;

	prefix[0] = 0;
	for (int t = 1; t <= T; t++)
	{
		int64_t		value = (int64_t) dp_random_below(&rng, N + 3) - 1;	/* some clamped */
		int			level = __builtin_ctz((unsigned) t);
		int64_t		clamped = value < 0 ? 0 : value > N ? N : value;

		dp_counter_push(counter, value, &rng);
		prefix[t] = prefix[t - 1] + clamped;
		noise[level][t] = counter->nodes[level] - (prefix[t] - prefix[t - (1 << level)]);
		releases[t] = dp_counter_release(counter);
	}
	for (int t = 1; t <= T; t++)
	{
		dp_int128	expected = 0;

		for (int level = 0; level < 11; level++)
		{
			if ((t >> level) & 1)
			{
				int			end = (t >> level) << level;

				expected += prefix[end] - prefix[end - (1 << level)] + noise[level][end];
			}
		}
		mismatches += (expected != releases[t]);
	}
	tap_ok(mismatches == 0,
		   "releases at t = 1..%d equal the dyadic decomposition over one set of node noises "
		   "(%d mismatches)", T, mismatches);
	free(counter);
}

static void
test_error_distribution(void)
{
	enum
	{
		T = 1024, TRIALS = 20000, POINTS = 7
	};
	static const int points[POINTS] = {1, 2, 3, 511, 512, 1023, 1024};
	double		sum_sq[POINTS] = {0};
	long		covered[POINTS] = {0};
	double		bound[POINTS];
	double		pan_sum = 0, pan_sum_sq = 0;
	const double epsilon = 1.0;
	const int	levels = 11;	/* floor(log2 1024) + 1 */
	double		b = levels * 1.0 / epsilon;
	double		variance, fourth;
	dp_counter *counter = new_counter(epsilon, T, 1);

	tap_ok(counter->node_count == levels &&
		   dp_scale_as_double(&counter->scale) == b,
		   "T = 1024: %d levels, node scale L N / epsilon = %.0f", levels, b);

	discrete_laplace_moments(b, &variance, &fourth);
	for (int trial = 0; trial < TRIALS; trial++)
	{
		int64_t		truth = 0;
		int			next = 0;
		const char *field;
		dp_int128	persisted[DP_COUNTER_MAX_NODES];
		int64_t		window = 0;

		dp_counter_start(counter, &counter->mechanism, &rng, &field);
		for (int t = 1; t <= T; t++)
		{
			int64_t		bit = (int64_t) (dp_random_uint64(&rng) & 1);

			dp_counter_push(counter, bit, &rng);
			truth += bit;
			if (t > 992)
				window += bit;
			if (t == 1000)
			{
				/* level 4 (bit clear at t = 1000) holds (992, 1000] plus noise */
				dp_counter_persisted_nodes(counter, persisted);
				pan_sum += (double) (persisted[4] - window);
				pan_sum_sq += (double) (persisted[4] - window) * (double) (persisted[4] - window);
			}
			if (next < POINTS && t == points[next])
			{
				double		error = (double) (dp_counter_release(counter) - truth);

				if (trial == 0)
					bound[next] = dp_counter_error_bound(counter, 0.95);
				sum_sq[next] += error * error;
				covered[next] += fabs(error) <= bound[next];
				next++;
			}
		}
	}

	for (int i = 0; i < POINTS; i++)
	{
		int			k = __builtin_popcount((unsigned) points[i]);
		double		expected = k * variance;
		/* Var of the squared error of a sum of k iid terms: 2 (k v)^2 + k (m4 - 3 v^2) */
		double		spread = sqrt((2 * expected * expected + k * (fourth - 3 * variance * variance)) / TRIALS);
		double		band = Z_TWO_SIDED_1E6 * spread;
		double		exact_coverage = 1 - 2 * dp_discrete_laplace_sum_upper_tail(&counter->scale, k, bound[i] + 1);
		double		coverage_band = Z_TWO_SIDED_1E6 * sqrt(exact_coverage * (1 - exact_coverage) / TRIALS);
		double		observed = sum_sq[i] / TRIALS;

		tap_ok(fabs(observed - expected) <= band,
			   "t = %d: error variance %.1f vs popcount(t) * Var = %d * %.2f = %.1f "
			   "(2 (L N / eps)^2 = %.0f per term), band +-%.1f",
			   points[i], observed, k, variance, expected, 2 * b * b, band);
		tap_ok(exact_coverage >= 0.95 &&
			   fabs((double) covered[i] / TRIALS - exact_coverage) <= coverage_band,
			   "t = %d: 95%% bound %.0f covers %.4f (exact %.4f, band +-%.4f)",
			   points[i], bound[i], (double) covered[i] / TRIALS, exact_coverage,
			   coverage_band);
	}

	{
		double		mean = pan_sum / TRIALS;
		double		second = pan_sum_sq / TRIALS;

		tap_ok(fabs(mean) <= Z_TWO_SIDED_1E6 * sqrt(variance / TRIALS) &&
			   fabs(second - variance) <= Z_TWO_SIDED_1E6 * sqrt((fourth - variance * variance) / TRIALS),
			   "persisted open accumulator = raw partial sum + noise of full scale "
			   "(mean %.3f, variance %.1f vs %.1f)", mean, second, variance);
	}
	free(counter);
}

static void
test_horizon_and_limits(void)
{
	dp_counter *counter = new_counter(1.0, 5, 1);
	int			ok = 1;
	int64_t		before;
	dp_mechanism mechanism = {.kind = DP_MECHANISM_BINARY, .epsilon = 1.0, .max_per_step = 1};
	const char *field = NULL;

	for (int t = 1; t <= 5; t++)
		ok &= dp_counter_push(counter, 1, &rng) == DP_OK;
	before = dp_counter_release(counter);
	tap_ok(ok && dp_counter_push(counter, 1, &rng) == DP_ERROR_HORIZON_EXCEEDED &&
		   counter->steps == 5 && dp_counter_release(counter) == before,
		   "step T + 1 is refused and leaves the state unchanged");
	free(counter);

	counter = new_counter(1.0, 1, 1);
	tap_ok(counter->node_count == 1 && dp_counter_push(counter, 1, &rng) == DP_OK &&
		   dp_counter_push(counter, 1, &rng) == DP_ERROR_HORIZON_EXCEEDED,
		   "T = 1: one level, one step");
	free(counter);

	mechanism.horizon = DP_HORIZON_MAX;
	tap_ok(dp_mechanism_validate(&mechanism, &field) == DP_OK &&
		   dp_counter_kind_by_id(DP_MECHANISM_BINARY)->node_count(&mechanism) == 63,
		   "horizon 2^62 is accepted with 63 levels");
	mechanism.horizon = DP_HORIZON_MAX + 1;
	tap_ok(dp_mechanism_validate(&mechanism, &field) == DP_ERROR_HORIZON &&
		   strcmp(field, "horizon") == 0, "horizon 2^62 + 1 is refused, naming horizon");
	mechanism.horizon = 0;
	tap_ok(dp_mechanism_validate(&mechanism, &field) == DP_ERROR_HORIZON, "horizon 0 is refused");
	mechanism.horizon = 10;
	mechanism.max_per_step = -1;
	tap_ok(dp_mechanism_validate(&mechanism, &field) == DP_ERROR_MAX_PER_STEP &&
		   strcmp(field, "max_per_step") == 0, "max_per_step -1 is refused");
	mechanism.max_per_step = DP_STEP_BOUND_UNSTATED;
	tap_ok(dp_mechanism_validate(&mechanism, &field) == DP_OK,
		   "max_per_step 0 is \"not stated\": a valid mechanism (which a count refuses)");
	mechanism.max_per_step = DP_MAX_PER_STEP_MAX + 1;
	tap_ok(dp_mechanism_validate(&mechanism, &field) == DP_ERROR_MAX_PER_STEP,
		   "max_per_step above 2^50 is refused");
	mechanism.max_per_step = DP_MAX_PER_STEP_MAX;
	mechanism.horizon = DP_HORIZON_MAX;
	mechanism.epsilon = DP_EPSILON_MIN;
	tap_ok(dp_mechanism_validate(&mechanism, &field) == DP_OK,
		   "the largest horizon and bound with the smallest epsilon are valid together");
	{
		dp_counter *extreme = malloc(dp_counter_size(&mechanism));
		int			pushed = dp_counter_start(extreme, &mechanism, &rng, &field) == DP_OK;

		for (int t = 0; t < 1000; t++)
			pushed &= dp_counter_push(extreme, DP_MAX_PER_STEP_MAX, &rng) == DP_OK;
		tap_ok(pushed && isfinite(dp_counter_error_bound(extreme, 0.99)),
			   "extreme parameters: 1000 steps and an error bound, no overflow");
		free(extreme);
	}
}

static void
test_clamping(void)
{
	dp_random	copy;
	dp_counter *a,
			   *b;
	int			same = 1;

	copy = rng;
	a = new_counter(1.0, 64, 3);
	rng = copy;
	b = new_counter(1.0, 64, 3);
	for (int t = 1; t <= 64; t++)
	{
		dp_random	before = rng;
		int64_t		wild = (t % 3 == 0) ? 1000 : (t % 3 == 1) ? -1000 : 2;
		int64_t		tame = (t % 3 == 0) ? 3 : (t % 3 == 1) ? 0 : 2;

		dp_counter_push(a, wild, &rng);
		rng = before;
		dp_counter_push(b, tame, &rng);
		same &= dp_counter_release(a) == dp_counter_release(b);
	}
	tap_ok(same, "values outside [0, N] behave exactly as the clamped values");
	tap_ok(dp_counter_value_from_double(a, NAN) == 0 &&
		   dp_counter_value_from_double(a, INFINITY) == 3 &&
		   dp_counter_value_from_double(a, -INFINITY) == 0 &&
		   dp_counter_value_from_double(a, 2.5) == 2 &&
		   dp_counter_value_from_double(a, 1.5) == 2 &&
		   dp_counter_value_from_double(a, 0.4) == 0,
		   "double values: NaN -> 0, +-Infinity clamped, halves to even");
	free(a);
	free(b);
}

static void
test_round_trips(void)
{
	dp_counter *counter = new_counter(0.25, 300, 4);
	size_t		copy_size = dp_counter_size(&counter->mechanism);
	dp_counter *copy = malloc(copy_size);
	unsigned char *bytes;
	char	   *text, *text_again;
	dp_parse_error error;
	dp_mechanism parsed;
	int			same = 1;
	dp_random	twin;

	for (int t = 0; t < 37; t++)
		dp_counter_push(counter, t % 5, &rng);

	bytes = malloc(dp_counter_serialized_size(counter));
	dp_counter_serialize(counter, bytes);
	tap_ok(dp_counter_deserialize(bytes, dp_counter_serialized_size(counter), copy, copy_size, &error) == DP_OK &&
		   copy->steps == 37 && dp_counter_release(copy) == dp_counter_release(counter),
		   "binary form round-trips steps and release");

	/* the loaded state must continue exactly like the original */
	twin = rng;
	for (int t = 37; t < 300; t++)
	{
		dp_random	before = rng;

		dp_counter_push(counter, t % 5, &rng);
		twin = before;
		dp_counter_push(copy, t % 5, &twin);
		same &= dp_counter_release(counter) == dp_counter_release(copy);
	}
	tap_ok(same, "a loaded state continues exactly like the original up to the horizon");

	text = malloc(dp_counter_text_size(counter));
	text_again = malloc(dp_counter_text_size(counter));
	dp_counter_to_text(counter, text);
	tap_ok(dp_counter_parse(text, &parsed, NULL, 0, &error) == DP_OK &&
		   dp_counter_parse(text, &parsed, copy, copy_size, &error) == DP_OK,
		   "text form parses: %.60s...", text);
	dp_counter_to_text(copy, text_again);
	tap_ok(strcmp(text, text_again) == 0 && dp_counter_release(copy) == dp_counter_release(counter),
		   "text form round-trips exactly");

	for (size_t cut = 0; cut + 1 < strlen(text); cut += 7)
	{
		char		truncated[4096];
		dp_mechanism scratch;

		memcpy(truncated, text, cut);
		truncated[cut] = '\0';
		if (dp_counter_parse(truncated, &scratch, copy, copy_size, &error) == DP_OK)
		{
			tap_ok(0, "truncated text at %zu was accepted", cut);
			break;
		}
	}
	tap_ok(1, "every truncation of the text form is refused");

	for (size_t cut = 0; cut < dp_counter_serialized_size(counter); cut += 5)
	{
		if (dp_counter_deserialize(bytes, cut, copy, copy_size, &error) == DP_OK)
		{
			tap_ok(0, "truncated binary form at %zu was accepted", cut);
			break;
		}
	}
	tap_ok(1, "every truncation of the binary form is refused");
	bytes[0] = 9;
	tap_ok(dp_counter_deserialize(bytes, dp_counter_serialized_size(counter), copy, copy_size, &error) == DP_ERROR_FORMAT &&
		   strcmp(error.field, "version") == 0, "an unknown format version is refused, naming version");

	free(bytes);
	free(text);
	free(text_again);
	free(copy);
	free(counter);
}

static void
test_malformed_text(void)
{
	static const struct
	{
		const char *text;
		const char *field;
	}			cases[] = {
		{"", "version"},
		{"v3 binary(epsilon=1,horizon=2,max_per_step=1) steps=0 nodes=[0,0]", "version"},
		{"v1 banana(epsilon=1,horizon=2) steps=0 nodes=[0,0]", "mechanism"},
		{"v1 binary(epsilon=0,horizon=2,max_per_step=1) steps=0 nodes=[0,0]", "epsilon"},
		{"v1 binary(epsilon=nan,horizon=2,max_per_step=1) steps=0 nodes=[0,0]", "epsilon"},
		{"v1 binary(epsilon=x,horizon=2,max_per_step=1) steps=0 nodes=[0,0]", "epsilon"},
		{"v1 binary(horizon=2,max_per_step=1) steps=0 nodes=[0,0]", "epsilon"},
		{"v1 binary(epsilon=1,max_per_step=1) steps=0 nodes=[0,0]", "horizon"},
		{"v1 binary(epsilon=1,horizon=-4,max_per_step=1) steps=0 nodes=[0,0]", "horizon"},
		{"v1 binary(epsilon=1,horizon=2,max_per_step=0) steps=0 nodes=[0,0]", "max_per_step"},
		{"v1 binary(epsilon=1,horizon=2,colour=1) steps=0 nodes=[0,0]", "mechanism"},
		{"v1 binary(epsilon=1,horizon=2) nodes=[0,0]", "steps"},
		{"v1 binary(epsilon=1,horizon=2) steps=3 nodes=[0,0]", "steps"},
		{"v1 binary(epsilon=1,horizon=2) steps=-1 nodes=[0,0]", "steps"},
		{"v1 binary(epsilon=1,horizon=2) steps=1 nodes=[0]", "nodes"},
		{"v1 binary(epsilon=1,horizon=2) steps=1 nodes=[0,0,0]", "nodes"},
		{"v1 binary(epsilon=1,horizon=2) steps=1 nodes=[0,x]", "nodes"},
		{"v1 binary(epsilon=1,horizon=2) steps=1 nodes=[0,999999999999999999999999999999999999999999]", "nodes"},
		{"v1 binary(epsilon=1,horizon=2) steps=1 nodes=[0,0] extra", "end"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		dp_mechanism mechanism;
		dp_parse_error error = {0};
		dp_status	status = dp_counter_parse(cases[i].text, &mechanism, NULL, 0, &error);

		tap_ok(status != DP_OK && error.field && strcmp(error.field, cases[i].field) == 0,
			   "refused, naming %s (got %s: %s): \"%s\"", cases[i].field,
			   error.field ? error.field : "-", error.problem ? error.problem : "-",
			   cases[i].text);
	}
}

/* A state written by dp_stream 0.1.0 (format 1: no block field) still reads. */
static void
test_version_1_bytes(void)
{
	dp_mechanism mechanism = {.kind = DP_MECHANISM_BINARY, .epsilon = 0.5, .horizon = 100,
	.max_per_step = 2};
	dp_counter *counter = malloc(dp_counter_size(&mechanism));
	dp_counter *reread = malloc(dp_counter_size(&mechanism));
	size_t		size;
	unsigned char *bytes;
	dp_parse_error error;

	dp_counter_start(counter, &mechanism, &rng, &(const char *) {NULL});
	for (int t = 0; t < 37; t++)
		dp_counter_push(counter, t % 3, &rng);
	size = dp_counter_fixed_size(counter);
	bytes = malloc(size);
	dp_counter_serialize_fixed(counter, bytes);
	tap_ok(bytes[0] == 4 && dp_counter_deserialize(bytes, size, reread, dp_counter_size(&mechanism), &error) == DP_OK &&
		   dp_counter_release(reread) == dp_counter_release(counter) && reread->steps == 37,
		   "a version-4 state (0.7.0 to 0.9.0) reads with the same release and steps");
	/* format 2 (0.2.0 to 0.5.0): version byte 2, the nodes right after byte 56 */
	bytes[0] = 2;
	memmove(bytes + 56, bytes + 168, size - 168);
	tap_ok(dp_counter_deserialize(bytes, size - 112, reread, dp_counter_size(&mechanism), &error) == DP_OK &&
		   dp_counter_release(reread) == dp_counter_release(counter) && reread->steps == 37 &&
		   !reread->has_noise_key,
		   "a version-2 state (0.5.0) reads with the same release and steps, without a noise key");
	/* format 1: version byte 1, and the nodes right after byte 48 */
	bytes[0] = 1;
	memmove(bytes + 48, bytes + 56, size - 168);
	tap_ok(dp_counter_deserialize(bytes, size - 120, reread, dp_counter_size(&mechanism), &error) == DP_OK &&
		   dp_counter_release(reread) == dp_counter_release(counter) && reread->steps == 37,
		   "a version-1 state (0.1.0) reads with the same release and steps");
	bytes[4] = DP_MECHANISM_HYBRID;
	tap_ok(dp_counter_deserialize(bytes, size - 120, reread, dp_counter_size(&mechanism), &error) != DP_OK &&
		   strcmp(error.field, "version") == 0,
		   "a version-1 state of any mechanism but Binary is refused");
	free(bytes);
	free(counter);
	free(reread);
}

static void
test_sizes(void)
{
	dp_mechanism mechanism = {.kind = DP_MECHANISM_BINARY, .epsilon = 1.0, .max_per_step = 1};
	dp_counter *counter;

	mechanism.horizon = (int64_t) 1 << 20;
	counter = malloc(dp_counter_size(&mechanism));
	dp_counter_start(counter, &mechanism, &rng, &(const char *) {NULL});
	tap_ok(dp_counter_fixed_size(counter) == 168 + 16 * 21,
		   "fixed layout at T = 2^20: %zu bytes (21 levels)", dp_counter_fixed_size(counter));
	/*
	 * The compact form over a whole stream of 0/1 values: about 20 bytes of
	 * header and one to three bytes per level (noise of scale 21, partial
	 * sums below 2^21): at most 100 bytes, read back to the same release.
	 */
	for (int64_t t = 0; t < ((int64_t) 1 << 20); t++)
		dp_counter_push(counter, t & 1, &rng);
	{
		size_t		size = dp_counter_serialized_size(counter);
		unsigned char *bytes = malloc(size);
		dp_counter *reread = malloc(dp_counter_size(&mechanism));
		dp_parse_error error;

		dp_counter_serialize(counter, bytes);
		tap_ok(size <= 100 && bytes[0] == 6 &&
			   dp_counter_deserialize(bytes, size, reread, dp_counter_size(&mechanism), &error) == DP_OK &&
			   dp_counter_release(reread) == dp_counter_release(counter) &&
			   reread->steps == counter->steps,
			   "compact state at T = 2^20 after 2^20 steps: %zu bytes (21 levels), reads back", size);
		free(bytes);
		free(reread);
	}
	free(counter);
	mechanism.horizon = (int64_t) 1 << 40;
	counter = malloc(dp_counter_size(&mechanism));
	dp_counter_start(counter, &mechanism, &rng, &(const char *) {NULL});
	tap_ok(dp_counter_fixed_size(counter) == 168 + 16 * 41 && dp_counter_serialized_size(counter) <= 20 + 3 * 41,
		   "T = 2^40 at step 0: fixed layout %zu bytes, compact %zu (41 levels)",
		   dp_counter_fixed_size(counter), dp_counter_serialized_size(counter));
	free(counter);
}

int
main(void)
{
	static const char seed[] = "dp_stream unit test: binary mechanism";

	if (!dp_random_library_init())
	{
		printf("Bail out! libsodium failed to initialise\n");
		return 1;
	}
	dp_random_init_keyed(&rng, seed, sizeof(seed) - 1);

	test_reference_decomposition();
	test_horizon_and_limits();
	test_clamping();
	test_round_trips();
	test_malformed_text();
	test_sizes();
	test_version_1_bytes();
	test_error_distribution();
	return tap_done();
}

/*
 * test_expiring.c
 *		Privacy expiration (dp_expiring) and its window baseline
 *		(dp_expiring_baseline) on the delayed tree:
 *		- every release equals a reference that keeps every interval and
 *		  builds the cover from scratch, greedily from the left, with the
 *		  same noise draws (so the rings never drop an interval still in
 *		  use), also across a store and a continuation;
 *		- the error is unbiased with the variance of the cover, seeded;
 *		- the guaranteed loss curve against its formula;
 *		- the exact loss of the noise-shifting argument (shortest path)
 *		  never above the curve, equal to epsilon for a fresh item, and
 *		  above the curve of a smaller lambda (a negative control);
 *		- refusals.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dp_counter.h"
#include "dp_delayed_tree.h"
#include "tap.h"
#include "test_support.h"

#define STEPS 1500
#define LEVELS 62

static dp_random rng;

/* D_l, written out from the definitions of the two mechanisms */
static int64_t
reference_delay(const dp_mechanism *m, int level)
{
	if (level == 0)
		return 0;
	if (m->kind == DP_MECHANISM_EXPIRING)
		return (((int64_t) 1) << level) - 1 + m->block;
	{
		int			top = 0;

		while ((((int64_t) 2) << top) <= m->block + 1)
			top++;
		return level <= top ? 0 : m->block;
	}
}

static int
reference_levels(const dp_mechanism *m)
{
	int			levels = 0;

	if (m->kind == DP_MECHANISM_EXPIRING)
		return LEVELS;
	while ((((int64_t) 1) << levels) <= m->horizon)
		levels++;
	return levels;
}

typedef struct reference
{
	dp_mechanism mechanism;
	int			levels;
	int64_t		steps;
	dp_int128  *noise;			/* [level][k], open and close terms together */
	int64_t    *prefix;			/* prefix sums of the data */
	dp_scale	scales[LEVELS];
} reference;

static dp_int128 *
noise_at(reference *r, int level, int64_t k)
{
	return &r->noise[(size_t) level * (STEPS + 3) + (size_t) k];
}

/* the cover at t, greedily from the left: the widest usable aligned interval at each point */
static dp_int128
reference_release(reference *r, int64_t t, double *variance)
{
	dp_int128	release = 0;
	int64_t		p = 0;

	*variance = 0;
	while (p < t)
	{
		int			level;

		for (level = r->levels - 1; level >= 0; level--)
		{
			int64_t		width = ((int64_t) 1) << level;
			int64_t		end = p + width;

			if (p % width == 0 && end + reference_delay(&r->mechanism, level) <= t)
				break;
		}
		if (level < 0)
		{
			printf("Bail out! no usable interval at %lld, t = %lld\n", (long long) p, (long long) t);
			exit(1);
		}
		{
			int64_t		end = p + (((int64_t) 1) << level);
			double		v, m4;

			release += *noise_at(r, level, end >> level) + (r->prefix[end] - r->prefix[p]);
			discrete_laplace_moments(dp_scale_as_double(&r->scales[level]), &v, &m4);
			*variance += v * ((r->mechanism.flags & DP_FLAG_PAN_PRIVATE) ? 2 : 1);
			p = end;
		}
	}
	return release;
}

/* the draws of the engine, in its order: opens at start; per step closes, then opens */
static void
reference_open(reference *r, int level, int64_t k)
{
	if (k <= STEPS + 2)
		*noise_at(r, level, k) += dp_discrete_laplace(&rng, &r->scales[level]);
	else
		(void) dp_discrete_laplace(&rng, &r->scales[level]);
}

static void
reference_step(reference *r, int64_t value)
{
	int64_t		t = ++r->steps;
	int			closing = __builtin_ctzll((uint64_t) t);

	r->prefix[t] = r->prefix[t - 1] + value;
	if (closing > r->levels - 1)
		closing = r->levels - 1;
	if (r->mechanism.flags & DP_FLAG_PAN_PRIVATE)
		for (int level = 0; level <= closing; level++)
			*noise_at(r, level, t >> level) += dp_discrete_laplace(&rng, &r->scales[level]);
	for (int level = 0; level <= closing; level++)
		reference_open(r, level, (t >> level) + 1);
}

/* a counter stored and read back (binary form), as a stored state would be */
static dp_counter *
stored_and_read(dp_counter *counter)
{
	size_t		size = dp_counter_serialized_size(counter);
	unsigned char *bytes = malloc(size);
	dp_counter *copy = malloc(dp_counter_size(&counter->mechanism));
	dp_parse_error error;
	dp_status	status;

	dp_counter_serialize(counter, bytes);
	status = dp_counter_deserialize(bytes, size, copy, dp_counter_size(&counter->mechanism), &error);
	if (status != DP_OK)
	{
		printf("Bail out! stored state does not read back (%s: %s)\n", error.field, error.problem);
		exit(1);
	}
	free(bytes);
	free(counter);
	return copy;
}

static void
test_against_reference(const char *text)
{
	dp_mechanism m = test_mechanism(text);
	reference	r = {.mechanism = m, .levels = reference_levels(&m)};
	dp_counter *counter;
	int			differ = 0,
				variance_differs = 0;
	dp_random	saved;

	r.noise = calloc((size_t) r.levels * (STEPS + 3), sizeof(dp_int128));
	r.prefix = calloc(STEPS + 1, sizeof(int64_t));
	counter = malloc(dp_counter_size(&m));
	{
		const char *field;

		dp_counter_prepare(counter, &m, &field);
		for (int level = 0; level < r.levels; level++)
		{
			dp_delayed_tree tree;

			dp_delayed_tree_of(&m, &tree);
			r.scales[level] = dp_counter_class_scale(counter, dp_delayed_tree_class(&tree, level));
		}
	}
	free(counter);

	/* the same draws: the counter first, then the reference from a copy of the generator */
	saved = rng;
	counter = test_start_counter(&m, &rng);
	{
		dp_random	counter_rng = rng;

		rng = saved;
		for (int level = 0; level < r.levels; level++)
			reference_open(&r, level, 1);
		for (int64_t t = 1; t <= STEPS && t <= (m.horizon ? m.horizon : STEPS); t++)
		{
			int64_t		value = (int64_t) ((uint64_t) t * 2654435761u % (uint64_t) (m.max_per_step + 1));
			double		variance;
			dp_random	reference_rng;

			reference_step(&r, value);
			reference_rng = rng;
			rng = counter_rng;
			dp_counter_push(counter, value, &rng);
			counter_rng = rng;
			rng = reference_rng;
			if (reference_release(&r, t, &variance) != counter->release)
				differ++;
			if (fabs(dp_counter_noise_variance(counter) - variance) > 1e-9 * variance)
				variance_differs++;
			if (t % 97 == 0)
				counter = stored_and_read(counter);
		}
		rng = counter_rng;
	}
	tap_ok(differ == 0, "%s: every release equals the reference cover with the same noise, "
		   "stored and read every 97 steps (%d differ)", text, differ);
	tap_ok(variance_differs == 0, "%s: the noise description equals the reference cover's "
		   "variance at every step (%d differ)", text, variance_differs);
	free(counter);
	free(r.noise);
	free(r.prefix);
}

/* the error at a few steps over seeded trials: unbiased, with the cover's variance */
static void
test_error(const char *text)
{
	enum
	{
		TRIALS = 4000, POINTS = 4
	};
	static const int64_t points[POINTS] = {1, 37, 256, 600};
	dp_mechanism m = test_mechanism(text);
	dp_counter *counter = malloc(dp_counter_size(&m));
	double		sum[POINTS] = {0}, second[POINTS] = {0}, fourth[POINTS] = {0};
	double		expected[POINTS] = {0};

	for (int trial = 0; trial < TRIALS; trial++)
	{
		int64_t		truth = 0;
		int			next = 0;
		const char *field;

		dp_counter_start(counter, &m, &rng, &field);
		for (int64_t t = 1; t <= points[POINTS - 1]; t++)
		{
			int64_t		value = (int64_t) dp_random_below(&rng, (uint64_t) m.max_per_step + 1);

			dp_counter_push(counter, value, &rng);
			truth += value;
			if (points[next] == t)
			{
				double		error = (double) (counter->release - truth);

				if (trial == 0)
					expected[next] = dp_counter_noise_variance(counter);
				sum[next] += error;
				second[next] += error * error;
				fourth[next] += error * error * error * error;
				next++;
			}
		}
	}
	for (int i = 0; i < POINTS; i++)
	{
		double		mean = sum[i] / TRIALS,
					m2 = second[i] / TRIALS,
					m4 = fourth[i] / TRIALS;
		double		spread = sqrt((m4 - m2 * m2) / TRIALS);

		tap_ok(fabs(mean) <= Z_TWO_SIDED_1E6 * sqrt(m2 / TRIALS) &&
			   fabs(m2 - expected[i]) <= Z_TWO_SIDED_1E6 * spread,
			   "%s, t = %lld: error mean %.3f, variance %.3f vs %.3f (band +-%.3f, p = 1e-6)",
			   text, (long long) points[i], mean, m2, expected[i], Z_TWO_SIDED_1E6 * spread);
	}
	free(counter);
}

/*
 * epsilon g(d) of dp_expiring written out: level 0, and levels l >= 1 with
 * 2^l <= d - B + 1, each epsilon (l + 1)^(lambda - 1), also where the
 * level's noise was drawn for a budget cut to 100 (the curve stays nominal
 * so that it bounds a statistic's counters too).
 */
static double
expiring_curve(double epsilon, double lambda, int64_t delay, int64_t age)
{
	double		loss = epsilon;

	for (int level = 1; level < LEVELS; level++)
		if ((((int64_t) 1) << level) <= age - delay + 1)
			loss += epsilon * pow(level + 1, lambda - 1);
	return loss;
}

static void
test_curve(void)
{
	static const double lambdas[] = {0.5, 1, 1.5, 2, 3};
	int			wrong = 0;

	for (int i = 0; i < 5; i++)
		for (int64_t delay = 0; delay <= 9; delay += 3)
		{
			char		text[128];
			dp_mechanism m;

			snprintf(text, sizeof(text), "expiring(epsilon=0.7,lambda=%g,delay=%lld)",
					 lambdas[i], (long long) delay);
			m = test_mechanism(text);
			for (int64_t age = 0; age < 5000; age += 1 + age / 16)
			{
				double		want = expiring_curve(0.7, lambdas[i], delay, age);

				if (fabs(dp_delayed_tree_privacy_loss(&m, age) - want) > 1e-12 * want)
					wrong++;
			}
		}
	tap_ok(wrong == 0, "the loss curve is epsilon times the sum of (l + 1)^(lambda - 1) over "
		   "the released levels, for 5 lambdas, 4 delays and ages up to 5000 (%d differ)", wrong);
	{
		dp_mechanism m = test_mechanism("expiring_baseline(epsilon=1,horizon=100000,window=127,past_ratio=0.25,max_per_step=1)");
		double		at_126 = dp_delayed_tree_privacy_loss(&m, 126),
					at_127 = dp_delayed_tree_privacy_loss(&m, 127);

		tap_ok(fabs(at_126 - 1) < 1e-12 && fabs(at_127 - 1.25) < 1e-12,
			   "baseline: epsilon_current = 1 for an item 126 steps old, + epsilon_past = 1.25 at 127 "
			   "(%.15g, %.15g)", at_126, at_127);
	}
	{
		dp_mechanism m = test_mechanism("binary(epsilon=0.3,horizon=100,max_per_step=1)");

		tap_ok(dp_delayed_tree_privacy_loss(&m, 50) == 0.3,
			   "a mechanism without expiration loses its epsilon at every age");
	}
}

/*
 * The exact loss of the noise-shifting argument for items at positions
 * that end many intervals (the worst case of the curve's argument) and
 * others, against the curve; with the level losses of a larger lambda (a
 * mechanism with less noise than its guarantee needs) it must exceed the
 * curve somewhere.
 */
static void
test_exact_loss(const char *text, bool expect_tight_start)
{
	static const int64_t positions[] = {1, 2, 3, 7, 64, 255, 256, 257, 1000, 1024};
	static const int64_t ages[] = {0, 1, 2, 3, 5, 8, 15, 16, 31, 64, 100, 127, 128, 255,
	511, 1000, 2047, 4095};
	dp_mechanism m = test_mechanism(text);
	double		worst_ratio = 0;
	int			above = 0,
				fresh_wrong = 0;

	for (size_t p = 0; p < sizeof(positions) / sizeof(positions[0]); p++)
		for (size_t a = 0; a < sizeof(ages) / sizeof(ages[0]); a++)
		{
			double		loss = -1;
			double		curve = dp_delayed_tree_privacy_loss(&m, ages[a]);

			if (m.horizon && positions[p] + ages[a] > m.horizon)
				continue;
			if (dp_delayed_tree_exact_loss(&m, NULL, positions[p], ages[a], &loss) != DP_OK)
			{
				above++;
				continue;
			}
			if (loss > curve * (1 + 1e-12))
				above++;
			if (loss / curve > worst_ratio)
				worst_ratio = loss / curve;
			if (ages[a] == 0 && expect_tight_start && fabs(loss - m.epsilon) > 1e-12)
				fresh_wrong++;
		}
	tap_ok(above == 0, "%s: the exact loss never exceeds the curve over 10 positions and 18 "
		   "ages up to 4095 (largest ratio %.4f)", text, worst_ratio);
	if (expect_tight_start)
		tap_ok(fresh_wrong == 0, "%s: an item's exact loss at age 0 is epsilon (%d differ)",
			   text, fresh_wrong);
}

/*
 * Negative controls: the check must be able to fail.  (1) The noise of
 * level 0 halved (its loss doubled): an item whose step joins the
 * release alone costs 2 epsilon at age 0, above the curve.  (2) lambda =
 * 2's noise held against the guarantee of the smaller lambda = 1: the
 * exact loss grows past that curve.
 */
static void
test_negative_controls(void)
{
	dp_mechanism m = test_mechanism("expiring(epsilon=1,lambda=2,delay=0,max_per_step=1)");
	dp_mechanism smaller = test_mechanism("expiring(epsilon=1,lambda=1,delay=0,max_per_step=1)");
	double		losses[LEVELS];
	double		loss = 0;
	int			above = 0;
	double		worst = 0;

	for (int level = 0; level < LEVELS; level++)
		losses[level] = level + 1;	/* lambda = 2: epsilon (l + 1) */
	losses[0] = 2;
	tap_ok(dp_delayed_tree_exact_loss(&m, losses, 4095, 0, &loss) == DP_OK &&
		   loss > dp_delayed_tree_privacy_loss(&m, 0) * (1 + 1e-9),
		   "negative control: level 0's noise halved, an item at step 4095 loses %.3f at "
		   "age 0, above the guaranteed %.3f", loss, dp_delayed_tree_privacy_loss(&m, 0));
	losses[0] = 1;
	for (int64_t age = 1; age <= 4096; age *= 2)
	{
		if (dp_delayed_tree_exact_loss(&m, losses, 4096, age, &loss) == DP_OK &&
			loss > dp_delayed_tree_privacy_loss(&smaller, age) * (1 + 1e-9))
		{
			above++;
			if (loss / dp_delayed_tree_privacy_loss(&smaller, age) > worst)
				worst = loss / dp_delayed_tree_privacy_loss(&smaller, age);
		}
	}
	tap_ok(above > 0, "negative control: lambda = 2's noise against lambda = 1's curve "
		   "exceeds it at %d of 13 ages (up to %.3fx)", above, worst);
}

static void
test_refusals(void)
{
	static const char *const refused[] = {
		"expiring(epsilon=1,lambda=0)",
		"expiring(epsilon=1,lambda=-1)",
		"expiring(epsilon=1,lambda=17)",
		"expiring(epsilon=1,lambda=nan)",
		"expiring(epsilon=1,lambda=2,delay=-1)",
		"expiring(epsilon=1,lambda=2,delay=257)",
		"expiring(epsilon=1e-12,lambda=0.01)",
		"expiring(rho=1,lambda=2)",
		"expiring_baseline(epsilon=1,horizon=100,window=0,past_ratio=0.1)",
		"expiring_baseline(epsilon=1,horizon=100,window=10,past_ratio=0)",
		"expiring_baseline(epsilon=1,horizon=100,window=10,past_ratio=1000)",
		"expiring_baseline(epsilon=1,window=10,past_ratio=0.1)",
	};
	int			accepted = 0;

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
	{
		dp_mechanism m;
		dp_parse_error error;
		const char *cursor = refused[i];
		const char *field;

		if (dp_mechanism_parse(&cursor, &m, &error) == DP_OK &&
			dp_mechanism_validate(&m, &field) == DP_OK)
		{
			tap_diag("accepted: %s", refused[i]);
			accepted++;
		}
	}
	tap_ok(accepted == 0, "12 invalid parameter sets are refused (%d accepted)", accepted);
	{
		dp_mechanism m;
		dp_parse_error error;
		const char *cursor = "expiring(epsilon=1)";

		tap_ok(dp_mechanism_parse(&cursor, &m, &error) != DP_OK &&
			   strcmp(error.field, "lambda") == 0, "lambda is required");
	}
	{
		dp_mechanism m = test_mechanism("expiring(epsilon=0.5,lambda=2.25,delay=3,pan_private=true,max_per_step=1)");
		char		text[DP_MECHANISM_TEXT_BYTES];
		dp_mechanism back;
		dp_parse_error error;
		const char *cursor = text;
		unsigned char bytes[128];
		dp_mechanism decoded;

		dp_mechanism_to_text(&m, text, sizeof(text));
		tap_ok(dp_mechanism_parse(&cursor, &back, &error) == DP_OK &&
			   memcmp(&back, &m, sizeof(m)) == 0, "text form round trip: %s", text);
		dp_mechanism_encode(&m, bytes);
		tap_ok(dp_mechanism_encoded_size(&m) == 57 && bytes[0] == 2 &&
			   dp_mechanism_decode(bytes, 57, &decoded, &error) == DP_OK &&
			   memcmp(&decoded, &m, sizeof(m)) == 0, "stored form: codec version 2 with lambda");
		m = test_mechanism("binary(epsilon=0.5,horizon=8,max_per_step=1)");
		dp_mechanism_encode(&m, bytes);
		tap_ok(dp_mechanism_encoded_size(&m) == 49 && bytes[0] == 1,
			   "mechanisms without a real parameter keep codec version 1");
	}
}

/* the ring of each level is never shorter than the intervals it must hold */
static void
test_rings(void)
{
	static const char *const texts[] = {
		"expiring(epsilon=1,lambda=2,delay=0)",
		"expiring(epsilon=1,lambda=2,delay=1)",
		"expiring(epsilon=1,lambda=2,delay=256)",
		"expiring_baseline(epsilon=1,horizon=1000000,window=1,past_ratio=0.1)",
		"expiring_baseline(epsilon=1,horizon=1000000,window=127,past_ratio=0.1)",
		"expiring_baseline(epsilon=1,horizon=1000000,window=1023,past_ratio=0.1)",
		"expiring_baseline(epsilon=1,horizon=100,window=1023,past_ratio=0.1)",
	};
	int			short_rings = 0,
				largest = 0;

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
	{
		dp_mechanism m = test_mechanism(texts[i]);
		dp_delayed_tree tree;
		int			nodes;

		dp_delayed_tree_of(&m, &tree);
		nodes = dp_delayed_tree_node_count(&tree);
		if (nodes > largest)
			largest = nodes;
		for (int level = 0; level + 1 < tree.levels; level++)
			for (int64_t k = 1; k < 4096; k++)
			{
				/* interval k is needed until its parent joins; k + ring opens at (k + ring - 1) 2^l */
				int64_t		parent_joins = (((k + 1) / 2) << (level + 1)) + reference_delay(&m, level + 1);
				int64_t		reused = (k + dp_delayed_tree_ring(&tree, level) - 1) << level;

				if (level > 40)
					break;
				if (reused < parent_joins)
					short_rings++;
			}
	}
	tap_ok(short_rings == 0, "no ring slot is reused before its interval leaves the cover "
		   "(7 configurations; %d violations; largest state %d nodes)", short_rings, largest);
}

int
main(void)
{
	dp_random_init_keyed(&rng, "expiring", 8);

	test_refusals();
	test_rings();
	test_against_reference("expiring(epsilon=1,lambda=2,delay=0)");
	test_against_reference("expiring(epsilon=0.5,lambda=1,delay=5,max_per_step=2)");
	test_against_reference("expiring(epsilon=1,lambda=0.5,delay=40,pan_private=true)");
	test_against_reference("expiring(epsilon=2,lambda=3,delay=1,consistent=true)");
	test_against_reference("expiring_baseline(epsilon=1,horizon=1500,window=127,past_ratio=0.1)");
	test_against_reference("expiring_baseline(epsilon=1,horizon=1200,window=5,past_ratio=2,pan_private=true)");
	test_against_reference("expiring_baseline(epsilon=1,horizon=700,window=1023,past_ratio=0.5)");
	test_error("expiring(epsilon=1,lambda=2,delay=0)");
	test_error("expiring(epsilon=0.5,lambda=1,delay=3,max_per_step=3)");
	test_error("expiring_baseline(epsilon=1,horizon=1000,window=127,past_ratio=0.1)");
	test_curve();
	test_exact_loss("expiring(epsilon=1,lambda=1,delay=0)", true);
	test_exact_loss("expiring(epsilon=1,lambda=2,delay=0)", true);
	test_exact_loss("expiring(epsilon=1,lambda=3,delay=0)", true);
	test_exact_loss("expiring(epsilon=1,lambda=0.5,delay=0)", false);
	test_exact_loss("expiring(epsilon=0.5,lambda=2,delay=7)", true);
	test_exact_loss("expiring_baseline(epsilon=1,horizon=100000,window=127,past_ratio=0.1)", false);
	test_exact_loss("expiring_baseline(epsilon=1,horizon=100000,window=31,past_ratio=3)", false);
	test_negative_controls();
	return tap_done();
}

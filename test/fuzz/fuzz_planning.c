/*
 * fuzz_planning.c
 *		What is computed from a mechanism alone, before any data: the
 *		planning functions (the error's standard deviation, the epsilon for a
 *		wanted error, the widest bound up to a step), the error bound at any
 *		step, the privacy loss of the delayed trees by age (the guaranteed
 *		curve and the exact shortest-path loss), the BLT factorization's
 *		closed forms, and the zCDP to (epsilon, delta) conversion.  Public
 *		inputs only; no noise is drawn.
 *
 * Input: the mechanism's text form, a NUL, then (missing bytes are zero):
 *   0-7  steps (i64; also taken modulo the horizon + 1, and modulo 2049 for
 *        the scan of every step)
 *   8    confidence (fuzz_confidence)
 *   9    the wanted half-width, as a multiple of the bound at that step
 *        (0 NaN, 1 -1, 2 infinity, 3 the bound itself, else byte / 16)
 *   10-11 position, 12-13 age of the privacy-loss computations (u16)
 *   14-21 delta of the zCDP conversion (f64)
 */
#include "fuzz_common.h"

#include "dp_blt.h"
#include "dp_counter.h"
#include "dp_delayed_tree.h"
#include "dp_gaussian.h"
#include "dp_mechanism.h"
#include "dp_planning.h"

#define MECHANISM_TEXT_MAX 400
#define SCAN_STEPS_MAX 2048
#define LOSS_STEPS_MAX 4096

static void
check_interrupts(void)
{
}

/* The bound the planning functions see at a step, or NaN when refused. */
static double
bound_at(const dp_mechanism *mechanism, int64_t steps, double confidence)
{
	double		bound;
	const char *field;

	if (dp_mechanism_error_bound(mechanism, steps, confidence, &bound, &field) != DP_OK)
		return NAN;
	return bound;
}

static void
planning(const dp_mechanism *mechanism, int64_t steps, double confidence, uint8_t wanted)
{
	const char *field;
	double		sd;
	double		bound = bound_at(mechanism, steps, confidence);
	double		half_width;
	double		epsilon;
	double		widest;
	int64_t		scanned = steps % (SCAN_STEPS_MAX + 1);

	if (dp_planning_error_sd(mechanism, steps, &sd, &field) == DP_OK)
		FUZZ_CHECK(sd >= 0);

	half_width = wanted == 0 ? NAN : wanted == 1 ? -1 : wanted == 2 ? INFINITY :
		wanted == 3 ? bound : bound * wanted / 16.0;
	if (dp_planning_epsilon_for(mechanism, steps, confidence, half_width, &epsilon,
								&field) == DP_OK)
	{
		dp_mechanism planned = *mechanism;

		/* the epsilon found must meet the target it was asked for */
		FUZZ_CHECK(epsilon >= DP_EPSILON_MIN && epsilon <= DP_EPSILON_MAX);
		planned.epsilon = epsilon;
		FUZZ_CHECK(bound_at(&planned, steps, confidence) <= half_width);
	}

	if (dp_planning_max_error_bound(mechanism, scanned, confidence, check_interrupts, &widest,
									&field) == DP_OK && confidence > 0 && confidence < 1)
	{
		double		last = bound_at(mechanism, scanned, confidence);

		/* a band that never narrows: at least the bound of its last step */
		FUZZ_CHECK(widest >= 0);
		if (!isnan(last))
			FUZZ_CHECK(widest >= last * (1 - 1e-12));
	}
}

/* The delayed trees (expiring and its baseline): the loss by age, exact and guaranteed. */
static void
privacy_loss(const dp_mechanism *mechanism, int64_t position, int64_t age)
{
	dp_delayed_tree tree;
	double		curve = dp_delayed_tree_privacy_loss(mechanism, age);
	double		loss;

	FUZZ_CHECK(!(curve < 0));
	if (!dp_delayed_tree_of(mechanism, &tree))
	{
		FUZZ_CHECK(dp_delayed_tree_exact_loss(mechanism, NULL, position, age, &loss) ==
				   DP_ERROR_KIND);
		return;
	}
	FUZZ_CHECK(tree.levels >= 1 && tree.levels <= DP_DELAYED_TREE_LEVELS_MAX);
	FUZZ_CHECK(dp_delayed_tree_node_count(&tree) >= 1);
	for (int level = 0; level < tree.levels; level++)
	{
		int64_t		first;
		int64_t		last;

		FUZZ_CHECK(dp_delayed_tree_delay(&tree, level) >= 0);
		FUZZ_CHECK(dp_delayed_tree_ring(&tree, level) >= 1);
		FUZZ_CHECK(!(dp_delayed_tree_level_loss(mechanism, &tree, level) < 0));
		dp_delayed_tree_segment(&tree, level, position + age, &first, &last);
		FUZZ_CHECK(first <= last || last < 0 || first >= 0);
	}
	/* the loss over time never decreases as the data ages into more levels */
	FUZZ_CHECK(!(dp_delayed_tree_privacy_loss(mechanism, age + 1) < curve));
	if (position + age <= LOSS_STEPS_MAX &&
		dp_delayed_tree_exact_loss(mechanism, NULL, position, age, &loss) == DP_OK)
	{
		/* the exact loss never exceeds the guaranteed curve (docs/expiring.md) */
		FUZZ_CHECK(loss >= 0);
		FUZZ_CHECK(loss <= curve * (1 + 1e-12));
	}
}

/* The closed forms of the BLT factorization, at the mechanism's horizon and at steps. */
static void
blt(const dp_mechanism *mechanism, int64_t steps)
{
	dp_blt_params params;
	int			fraction_bits;

	if (dp_blt_design(mechanism->horizon, &params) != DP_OK)
		return;
	FUZZ_CHECK(dp_blt_params_valid(&params, mechanism->horizon) == DP_OK);
	FUZZ_CHECK(dp_blt_state_words(&params) >= 3);
	fraction_bits = dp_blt_fraction_bits(mechanism->max_per_step);
	FUZZ_CHECK(dp_blt_variance_at(&params, steps) >= 0);
	FUZZ_CHECK(dp_blt_mean_variance(&params, steps) >= 0);
	FUZZ_CHECK(dp_blt_abs_release_weight(&params, steps) >= 0);
	FUZZ_CHECK(dp_blt_decoder_bias_bound(&params, steps, fraction_bits) >= 0);
	FUZZ_CHECK(dp_blt_encoder_rounding_bound(&params, mechanism->horizon) >= 0);
	FUZZ_CHECK(dp_blt_encoder_buffer_bound(&params, mechanism->horizon) >= 0);
	FUZZ_CHECK(dp_blt_column_norm_squared(&params, mechanism->horizon) >= 1);
	FUZZ_CHECK(dp_blt_sensitivity_bound(&params, mechanism->horizon, fraction_bits,
										mechanism->max_per_step) > 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t		text_length = nul ? (size_t) (nul - data) : size;
	const uint8_t *c = nul ? nul + 1 : data + size;
	size_t		length = nul ? size - text_length - 1 : 0;
	int64_t		steps = (int64_t) fuzz_read_le(c, length, 0, 8);
	double		confidence = fuzz_confidence((uint8_t) fuzz_read_le(c, length, 8, 1));
	uint8_t		wanted = (uint8_t) fuzz_read_le(c, length, 9, 1);
	int64_t		position = 1 + (int64_t) fuzz_read_le(c, length, 10, 2);
	int64_t		age = (int64_t) fuzz_read_le(c, length, 12, 2);
	uint64_t	delta_bits = fuzz_read_le(c, length, 14, 8);
	double		delta;
	char	   *text;
	const char *cursor;
	dp_mechanism mechanism;
	dp_parse_error error;
	const char *field;

	memcpy(&delta, &delta_bits, sizeof(delta));
	if (text_length > MECHANISM_TEXT_MAX)
		return 0;
	text = fuzz_text(data, text_length);
	cursor = text;
	if (dp_mechanism_parse(&cursor, &mechanism, &error) == DP_OK &&
		dp_mechanism_validate(&mechanism, &field) == DP_OK)
	{
		/* steps as given (often refused), and inside the horizon */
		planning(&mechanism, steps, confidence, wanted);
		if (steps > 0)
			planning(&mechanism, steps % ((mechanism.horizon > 0 ? mechanism.horizon :
										   DP_HORIZON_MAX) + 1), confidence, wanted);
		privacy_loss(&mechanism, position, age);
		if (mechanism.kind == DP_MECHANISM_BLT)
		{
			/* the encoder's bounds take a stated step bound; planning reads none as 1 */
			dp_mechanism per_unit = dp_mechanism_per_unit(&mechanism);

			blt(&per_unit, steps < 0 ? -(steps + 1) : steps);
		}
		if (mechanism.flags & DP_FLAG_ZCDP)
		{
			double		epsilon = dp_zcdp_epsilon(mechanism.epsilon, delta);

			if (delta > 0 && delta < 1)
				FUZZ_CHECK(epsilon > 0 && isfinite(epsilon));
		}
	}
	/* the conversion on raw numbers too: rho from the steps bits */
	{
		double		rho;
		double		epsilon;

		memcpy(&rho, &steps, sizeof(rho));
		epsilon = dp_zcdp_epsilon(rho, delta);
		if (rho >= 0 && isfinite(rho) && delta > 0 && delta < 1)
			FUZZ_CHECK(epsilon >= 0 && isfinite(epsilon));
	}
	(void) dp_kary_default_arity(steps);
	(void) dp_balanced_default_arity(steps);
	free(text);
	return 0;
}

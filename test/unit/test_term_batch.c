/*
 * test_term_batch.c
 *		A keyed statistic's step with its channels' terms derived together
 *		(dp_statistic_push, dp_term_batch.c) against the same step pushed
 *		channel by channel (dp_counter_push, each term derived when drawn):
 *		every channel's release equal at every step, for the mechanisms with
 *		a plan hook and one without, every statistic, real and integer
 *		values, unobserved steps, keys of derivations 1 and 2.  The plans
 *		must also be complete: replaying dp_statistic_push's batch by hand,
 *		no derived term may be left untaken (otherwise the batch would cost
 *		time and save none, and the equality above would hold vacuously).
 *		A plan that guesses wrong must change nothing: entries with another
 *		content are never taken.  (Whether a plan names every term of a
 *		step is a matter of speed, not of values: bench/floor.c and
 *		bench/throughput.sh measure it.)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sodium.h>

#include "dp_counter.h"
#include "dp_mechanism.h"
#include "dp_random.h"
#include "dp_statistic.h"
#include "dp_term_batch.h"
#include "tap.h"

#define STEPS 700

static const char *const mechanisms[] = {
	"binary(epsilon=1,horizon=700,pan_private=true)",
	"binary(epsilon=1,horizon=700)",
	"honaker(epsilon=1,horizon=700,arity=3,pan_private=true)",
	"honaker(epsilon=1,horizon=700,arity=18,pan_private=true)",
	"honaker(epsilon=0.5,horizon=700,arity=2)",
	"kary(epsilon=1,horizon=700,arity=4,pan_private=true)",
	"kary(epsilon=1,horizon=700,arity=2)",
	"hybrid(epsilon=1,pan_private=true)",	/* no plan hook */
};

typedef struct case_spec
{
	dp_statistic_kind kind;
	dp_value_domain domain;
	int			derivation;
} case_spec;

static dp_statistic *
start(const dp_statistic *layout, const unsigned char *key, int derivation)
{
	dp_statistic *statistic = malloc(dp_statistic_size(layout));
	dp_random	rng;

	dp_random_init_secure(&rng);
	dp_statistic_start_derived(statistic, layout, key, true, derivation, &rng);
	return statistic;
}

/* the step's value: in and out of the bounds, sometimes unobserved or NaN */
static double
value_at(int step, bool *observed)
{
	uint32_t	h = (uint32_t) step * 2654435761u;

	*observed = h % 11 != 0;
	if (h % 23 == 0)
		return 0.0 / 0.0;
	return (double) (h % 1400) / 100.0 - 2.0;
}

static bool
same_releases(const dp_statistic *a, const dp_statistic *b)
{
	for (int c = 0; c < a->channel_count; c++)
		if (dp_counter_release_wide(dp_statistic_counter_const(a, c)) !=
			dp_counter_release_wide(dp_statistic_counter_const(b, c)))
			return false;
	return true;
}

static void
run_case(const char *text, case_spec spec_case, dp_random *rng)
{
	const char *cursor = text;
	const char *field = "";
	dp_parse_error error;
	dp_statistic_spec spec;
	dp_statistic layout;
	dp_statistic *batched;
	dp_statistic *single;
	dp_statistic *replay;
	unsigned char key[DP_NOISE_KEY_BYTES];
	int			differ_at = -1;
	int			untaken = 0;
	int			derived = 0;
	int			wrong_taken = 0;
	bool		planned;

	memset(&spec, 0, sizeof(spec));
	memset(&error, 0, sizeof(error));
	if (dp_mechanism_parse(&cursor, &spec.mechanism, &error) != DP_OK)
	{
		tap_ok(0, "%s parses", text);
		return;
	}
	spec.kind = spec_case.kind;
	spec.domain = spec_case.domain;
	spec.estimator = DP_ESTIMATOR_MIDPOINT;
	spec.lower = 0;
	spec.upper = 10;
	if (dp_statistic_layout(&layout, &spec, &field) != DP_OK)
	{
		tap_ok(0, "%s: layout (%s)", text, field);
		return;
	}
	for (int i = 0; i < (int) sizeof(key); i++)
		key[i] = (unsigned char) (i * 31 + spec_case.kind * 7 + spec_case.domain);
	batched = start(&layout, key, spec_case.derivation);
	single = start(&layout, key, spec_case.derivation);
	replay = start(&layout, key, spec_case.derivation);
	planned = spec_case.derivation == DP_DERIVATION_2 &&
		dp_statistic_counter(batched, 0)->kind->plan != NULL;

	for (int step = 1; step <= STEPS; step++)
	{
		bool		observed;
		double		value = value_at(step, &observed);
		dp_term_batch batch;
		int			real;

		if (dp_statistic_push(batched, observed, value, rng) != DP_OK)
			break;
		for (int c = 0; c < single->channel_count; c++)
			dp_counter_push(dp_statistic_counter(single, c),
							dp_statistic_units(single, c, observed, value), rng);

		/* dp_statistic_push's batch by hand: every derived term taken */
		dp_term_batch_init(&batch);
		for (int c = 0; c < replay->channel_count; c++)
			dp_counter_plan(dp_statistic_counter(replay, c),
							dp_statistic_units(replay, c, observed, value), &batch);
		real = batch.count;
		/* and a wrong guess beside each closing term: another content */
		for (int i = 0; i < real; i++)
			if (batch.terms[i].kind == DP_TERM_WIDE)
			{
				dp_term    *wrong = dp_term_batch_add(&batch);

				if (wrong == NULL)
					break;
				*wrong = batch.terms[i];
				wrong->position[16] ^= 1;
			}
		dp_term_batch_derive(&batch);
		derived += real;
		dp_term_batch_attach(&batch, rng);
		for (int c = 0; c < replay->channel_count; c++)
			dp_counter_push(dp_statistic_counter(replay, c),
							dp_statistic_units(replay, c, observed, value), rng);
		for (int i = 0; i < batch.count; i++)
		{
			if (i < real && batch.terms[i].ready)
				untaken++;
			if (i >= real && !batch.terms[i].ready)
				wrong_taken++;
		}
		dp_term_batch_detach(&batch, rng);

		if (differ_at < 0 && (!same_releases(batched, single) || !same_releases(replay, single)))
			differ_at = step;
	}
	tap_ok(differ_at < 0, "%s, statistic %d, domain %d, derivation %d: batched = one by one at every step%s",
		   text, spec_case.kind, spec_case.domain, spec_case.derivation,
		   differ_at < 0 ? "" : " (differs)");
	if (planned)
		tap_ok(derived >= STEPS / 2 && untaken == 0 && wrong_taken == 0,
			   "  its plan: %d terms derived ahead in %d steps, %d not taken, %d wrong guesses taken",
			   derived, STEPS, untaken, wrong_taken);
	else
		tap_ok(derived == 0, "  nothing derived ahead without a plan (%d)", derived);
	free(batched);
	free(single);
	free(replay);
}

int
main(void)
{
	dp_random	rng;
	static const case_spec cases[] = {
		{DP_STATISTIC_VARIANCE, DP_VALUES_REAL, DP_DERIVATION_2},
		{DP_STATISTIC_AVERAGE, DP_VALUES_REAL, DP_DERIVATION_2},
		{DP_STATISTIC_SUM, DP_VALUES_INTEGER, DP_DERIVATION_2},
		{DP_STATISTIC_SUM, DP_VALUES_REAL, DP_DERIVATION_2},
		{DP_STATISTIC_VARIANCE, DP_VALUES_REAL, DP_DERIVATION_1},
	};

	if (!dp_random_library_init())
		return 1;
	dp_random_init_secure(&rng);
	for (int m = 0; m < (int) (sizeof(mechanisms) / sizeof(mechanisms[0])); m++)
		for (int c = 0; c < (int) (sizeof(cases) / sizeof(cases[0])); c++)
			run_case(mechanisms[m], cases[c], &rng);
	return tap_done();
}

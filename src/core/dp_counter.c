/*
 * dp_counter.c
 *		The operations common to all counting mechanisms, and the services
 *		their hooks call back (noise terms, class scales).
 */
#include "dp_counter.h"

#include "dp_bytes.h"
#include "dp_gaussian.h"

#include <math.h>
#include <string.h>

void
dp_counter_persisted_nodes(const dp_counter *counter, dp_int128 *nodes)
{
	int			first = 0;

	if (counter->kind->persist)
	{
		counter->kind->persist(counter, nodes);
		first = counter->kind_nodes;
	}
	for (int i = first; i < counter->node_count; i++)
		nodes[i] = counter->nodes[i];
}

/*
 * Whether the counter can be stored so that it reads back: a forged state
 * whose nodes sit just below DP_NODE_VALUE_MAX can be pushed past it (its
 * open accumulators grow by the values), and such a state is refused
 * before it is written rather than when it is read.
 */
dp_status
dp_counter_check_storable(const dp_counter *counter)
{
	dp_int128	nodes[DP_COUNTER_MAX_NODES];

	dp_counter_persisted_nodes(counter, nodes);
	for (int i = 0; i < counter->node_count; i++)
		if (nodes[i] > DP_NODE_VALUE_MAX || nodes[i] < -DP_NODE_VALUE_MAX)
			return DP_ERROR_OVERFLOW;
	return DP_OK;
}

dp_scale
dp_counter_scale_for(uint64_t sensitivity, double epsilon)
{
	dp_scale	scale = {1, 1};

	/* validation already checked both ranges, so this cannot fail */
	(void) dp_scale_for(sensitivity, epsilon, &scale);
	return scale;
}

dp_scale
dp_counter_class_scale(const dp_counter *counter, int index)
{
	dp_noise_class class;
	uint64_t	unit = dp_mechanism_unit_bound(&counter->mechanism);
	dp_scale	scale;
	dp_scale_status status;

#ifdef DP_TEST_IGNORE_PERSON_OF
	/*
	 * A deliberately broken build for the exact calibration check (make
	 * lp-broken), never shipped: one kind calibrated to one step's bound
	 * whatever the privacy unit.
	 */
	if (counter->mechanism.kind == DP_TEST_IGNORE_PERSON_OF)
		unit = (uint64_t) counter->mechanism.max_per_step;
#endif

	/* not reached (kinds ask for their own classes): more noise, never less */
	if (!counter->kind->noise_class(&counter->mechanism, index, &class))
		return (dp_scale) {((dp_uint128) 1) << 110, 1};
	if (dp_counter_gaussian(counter))
		status = dp_gaussian_scale_for(class.l2_absolute ?
									   class.l2_squared_units * class.share_denominator :
									   class.l2_squared_units * unit * unit * class.share_denominator,
									   counter->mechanism.epsilon, &scale);
	else
	{
		/* a weighted budget is cut to the accepted range: more noise, never less */
		double		budget = counter->mechanism.epsilon * class.budget_weight;

		if (budget > DP_EPSILON_MAX)
			budget = DP_EPSILON_MAX;
		status = dp_scale_for(class.l1_units * unit * class.share_denominator, budget, &scale);
	}

	/*
	 * Not reached: each kind's validation keeps its sensitivities in range.
	 * Were it reached, the answer must be more noise, never less.
	 */
	if (status != DP_SCALE_OK)
		scale = (dp_scale) {((dp_uint128) 1) << 110, 1};
#ifdef DP_TEST_HALVE_NOISE_OF
	/*
	 * A deliberately broken build for the privacy audit (make audit-broken),
	 * never shipped: one kind's noise halved (a Gaussian scale is sigma^2).
	 */
	if (counter->mechanism.kind == DP_TEST_HALVE_NOISE_OF)
		scale.denominator *= dp_counter_gaussian(counter) ? 4 : 2;
#endif
	return scale;
}

/* One draw of the counter's noise family at `scale`. */
static dp_int128
family_draw(const dp_counter *counter, dp_random *rng, const dp_scale *scale)
{
	if (dp_counter_gaussian(counter))
		return dp_discrete_gaussian(rng, scale);
	return dp_discrete_laplace(rng, scale);
}

/* The consistent release, when asked for, is kept in one node after the mechanism's. */
static int
total_node_count(const dp_mechanism *mechanism)
{
	const dp_counter_kind *kind = dp_counter_kind_by_id(mechanism->kind);

	return kind->node_count(mechanism) + ((mechanism->flags & DP_FLAG_CONSISTENT) ? 1 : 0);
}

size_t
dp_counter_size(const dp_mechanism *mechanism)
{
	return sizeof(dp_counter) + sizeof(dp_int128) * (size_t) total_node_count(mechanism);
}

int
dp_counter_persisted_node_count(const dp_mechanism *mechanism)
{
	return total_node_count(mechanism);
}

/* step 0: no data, no release, no key */
static void
clear_progress(dp_counter *counter)
{
	counter->steps = 0;
	counter->running_total = 0;
	counter->release = 0;
	counter->overflow = false;
	counter->has_noise_key = false;
	counter->table_sampler = false;
	memset(counter->noise_key, 0, sizeof(counter->noise_key));
	counter->noise_prf_ready = false;
	memset(counter->noise_prf_key, 0, sizeof(counter->noise_prf_key));
	memset(&counter->noise_prf, 0, sizeof(counter->noise_prf));
	counter->derivation = DP_DERIVATION_1;
	memset(&counter->noise_prf_wide, 0, sizeof(counter->noise_prf_wide));
	memset(counter->noise_opening_key, 0, sizeof(counter->noise_opening_key));
}

/* the kind's nodes at step 0, their opening noise drawn */
static void
open_nodes(dp_counter *counter, dp_random *rng)
{
	memset(counter->nodes, 0, sizeof(dp_int128) * (size_t) counter->node_count);
	counter->kind->start(counter, rng);
}

dp_status
dp_counter_prepare(dp_counter *counter, const dp_mechanism *mechanism, const char **field)
{
	dp_status	status = dp_mechanism_validate(mechanism, field);
	const dp_counter_kind *kind;

	if (status != DP_OK)
		return status;
	/*
	 * A counter clamps every step into [0, max_per_step] and calibrates its
	 * noise to that bound: without one it would have to guess, and a guess
	 * of 1 clamped every day of a daily count to 1 before 0.14.0.  Decided
	 * from the mechanism alone, never from the data.
	 */
	if (!dp_mechanism_step_bound_stated(mechanism))
	{
		*field = "max_per_step";
		return DP_ERROR_STEP_BOUND_UNSTATED;
	}
	kind = dp_counter_kind_by_id(mechanism->kind);

	counter->mechanism = *mechanism;
	counter->kind = kind;
	clear_progress(counter);
	counter->kind_nodes = kind->node_count(mechanism);
	counter->node_count = total_node_count(mechanism);
	counter->scale = dp_counter_class_scale(counter, 0);
	counter->second_scale = counter->scale;
	{
		dp_noise_class second;

		if (kind->noise_class(mechanism, 1, &second))
			counter->second_scale = dp_counter_class_scale(counter, 1);
	}
	memset(counter->derived, 0, sizeof(counter->derived));
	counter->memo_step = -1;
	counter->noise_wide_continues = true;
	if (kind->derive)
		kind->derive(counter);
	return DP_OK;
}

dp_status
dp_counter_start(dp_counter *counter, const dp_mechanism *mechanism, dp_random *rng,
				 const char **field)
{
	return dp_counter_start_keyed(counter, mechanism, NULL, rng, field);
}

dp_status
dp_counter_start_keyed(dp_counter *counter, const dp_mechanism *mechanism,
					   const unsigned char *noise_key, dp_random *rng, const char **field)
{
	return dp_counter_start_with_sampler(counter, mechanism, noise_key,
										 dp_counter_default_table_sampler(rng, mechanism),
										 rng, field);
}

dp_status
dp_counter_start_with_sampler(dp_counter *counter, const dp_mechanism *mechanism,
							  const unsigned char *noise_key, bool table_sampler, dp_random *rng,
							  const char **field)
{
	return dp_counter_start_derived(counter, mechanism, noise_key, table_sampler,
									DP_DERIVATION_1, rng, field);
}

dp_status
dp_counter_start_derived(dp_counter *counter, const dp_mechanism *mechanism,
						 const unsigned char *noise_key, bool table_sampler, int derivation,
						 dp_random *rng, const char **field)
{
	dp_status	status = dp_counter_prepare(counter, mechanism, field);

	if (status != DP_OK)
		return status;
	if (noise_key)
	{
		memcpy(counter->noise_key, noise_key, DP_NOISE_KEY_BYTES);
		counter->has_noise_key = true;
		counter->table_sampler = table_sampler;
		counter->derivation = derivation == DP_DERIVATION_2 ? DP_DERIVATION_2 : DP_DERIVATION_1;
	}
	open_nodes(counter, rng);
	return DP_OK;
}

void
dp_counter_restart(dp_counter *counter, dp_random *rng)
{
	clear_progress(counter);
	open_nodes(counter, rng);
}

#ifdef DP_TEST_NOISE_HOOK
dp_test_noise_hook_function dp_test_noise_hook = NULL;
void	   *dp_test_noise_hook_context = NULL;
#endif

/*
 * The position (step, node, role) makes every term of one counter's life a
 * distinct PRF input, so with a key drawn at random the terms are as
 * independent as draws from one stream; with the same key, the same
 * position and the same content always give the same term.
 *
 * Derivation 1 (every key made up to 0.16.0): each term reads ChaCha20
 * under BLAKE2b-256(K, step | node | role | content), K the noise key: one
 * BLAKE2b compression and two ChaCha20 blocks a term.
 *
 * Derivation 2 (keys registered since 0.17.0), two families of inputs, one
 * PRF evaluation a term and no per-term key derivation for opening terms:
 *   - an opening term (no content) reads ChaCha20 under the opening key
 *     K_open = BLAKE2b-256(K, "dp_stream derivation 2: opening terms"),
 *     made once per counter, with nonce = step and block counter starting
 *     at node * 2^32.  ChaCha20's block function under a secret key is a
 *     PRF of its 128-bit input (nonce, counter); distinct (step, node) give
 *     disjoint ranges of inputs (a draw reads far fewer than 2^32 blocks,
 *     node < DP_COUNTER_MAX_NODES), so no two opening terms share keystream.
 *   - a term with content (closing, item) reads W = BLAKE2b-512(K, step |
 *     node | role | content), one compression: W's second half first, then
 *     ChaCha20 under W's first half, generated only when a draw reads more
 *     than 32 bytes.  Distinct positions are distinct PRF inputs, so their
 *     outputs, and the streams they key, are independent.
 * The three uses of K are domain-separated by BLAKE2b's parameter block
 * (digest length 32 against 64) and by the message length (37 against 32),
 * and K_open is used by ChaCha20 only.  Modelling keyed BLAKE2b and
 * ChaCha20 as PRFs, every term of derivation 2 is an independent draw of
 * its distribution, as in derivation 1; the values differ, which is why a
 * key keeps the derivation it was made with.
 */
static const char opening_label[] = "dp_stream derivation 2: opening terms";

/* step, node, role, content: one block of the derivation's BLAKE2b */
#define NOISE_POSITION_BYTES (8 + 4 + 4 + 16)
_Static_assert(NOISE_POSITION_BYTES <= DP_RANDOM_PRF_MAX_MESSAGE, "a position fits one block");
_Static_assert(sizeof(opening_label) - 1 != NOISE_POSITION_BYTES, "the opening label is no position");

/*
 * Derivation 2 reads an opening term (its position only) from ChaCha20
 * under the opening key, every other term from the wide derivation of its
 * position and content.
 */
static inline bool
opening_term(dp_noise_role role, dp_int128 content)
{
	return role == DP_NOISE_OPEN && content == 0;
}

/* a term's position, the message of its derivation: step, node, role, content */
static void
noise_position(unsigned char position[NOISE_POSITION_BYTES], int64_t steps, int node,
			   dp_noise_role role, dp_int128 content)
{
	dp_uint128	content_bits = (dp_uint128) content;

	dp_put_u64(position, (uint64_t) steps);
	dp_put_u64(position + 8, (uint64_t) (uint32_t) node | (uint64_t) (uint32_t) role << 32);
	dp_put_u64(position + 16, (uint64_t) content_bits);
	dp_put_u64(position + 24, (uint64_t) (content_bits >> 64));
}

/*
 * The noise key prepared for derivations, prepared again whenever the key
 * is not the one it was prepared from: the key is set in several places
 * (start, the decoders, the fuzz harnesses' copies), the cache follows it
 * from here.  The noise key and its prepared form stay in the counter as
 * the key always did.
 */
static void
prepare_noise_key(dp_counter *counter)
{
	if (!counter->noise_prf_ready ||
		memcmp(counter->noise_prf_key, counter->noise_key, DP_NOISE_KEY_BYTES) != 0)
	{
		dp_random_prf_prepare(&counter->noise_prf, counter->noise_key);
		dp_random_prf_prepare_wide(&counter->noise_prf_wide, counter->noise_key);
		dp_random_derive_key(counter->noise_opening_key, counter->noise_key,
							 opening_label, sizeof(opening_label) - 1);
		memcpy(counter->noise_prf_key, counter->noise_key, DP_NOISE_KEY_BYTES);
		counter->noise_prf_ready = true;
	}
}

dp_int128
dp_counter_noise(dp_counter *counter, dp_random *rng, const dp_scale *scale, int node,
				 dp_noise_role role, dp_int128 content)
{
	unsigned char position[NOISE_POSITION_BYTES];
	dp_random	derived;
	dp_int128	draw;
	size_t		available;
	uint64_t	blocks;

#ifdef DP_TEST_HALVE_CLOSING_NOISE
	/*
	 * A deliberately broken build for the exact calibration check (make
	 * lp-broken), never shipped: the pan-private closing terms at half
	 * their scale (a Gaussian scale is sigma^2).
	 */
	dp_scale	halved;

	if (role == DP_NOISE_CLOSE && dp_counter_pan_private(counter))
	{
		halved = *scale;
		halved.denominator *= dp_counter_gaussian(counter) ? 4 : 2;
		scale = &halved;
	}
#endif
#ifdef DP_TEST_NOISE_HOOK
	if (dp_test_noise_hook != NULL)
		return dp_test_noise_hook(dp_test_noise_hook_context, counter, scale, node, role);
#endif
	if (!counter->has_noise_key)
		return family_draw(counter, rng, scale);

	noise_position(position, counter->steps, node, role, content);
	/*
	 * The same stream as dp_random_init_derived(&derived, noise_key,
	 * position), from the prepared key (test_random_derive checks it).  The
	 * derived key and keystream are erased before returning.
	 */
	prepare_noise_key(counter);
	if (counter->derivation != DP_DERIVATION_2)
		dp_random_init_derived_prf(&derived, &counter->noise_prf, position, sizeof(position));
	else if (rng->batch != NULL && dp_term_batch_take(rng->batch, counter, position, &derived))
	{
		/* derived ahead with the other channels' terms (dp_counter_plan) */
	}
	else if (opening_term(role, content))
		dp_random_init_opening(&derived, counter->noise_opening_key, (uint64_t) counter->steps,
							   (uint32_t) node);
	else
		dp_random_init_derived_wide(&derived, &counter->noise_prf_wide, position,
									sizeof(position));
	derived.table_sampler = counter->table_sampler;
	derived.samplers = rng->samplers;
	available = derived.available;
	blocks = derived.block_counter;
	draw = family_draw(counter, &derived, scale);
	/*
	 * Whether a wide term's draw read past the 32 bytes its derivation
	 * gives: the next plan derives the continuation ahead only for counters
	 * whose draws do (a count's reads 32).  A hint for speed; no value
	 * depends on it.
	 */
	if (counter->derivation == DP_DERIVATION_2 && !opening_term(role, content))
		counter->noise_wide_continues =
			available + 64 * (derived.block_counter - blocks) - derived.available >
			DP_RANDOM_PRF_WIDE_BYTES - DP_RANDOM_KEY_BYTES;
	dp_random_wipe_derived(&derived);
	return draw;
}

/*
 * Keyed derivation 2's terms at the given positions, added to the batch
 * for dp_term_batch_derive: each with the position dp_counter_noise will
 * build for it, so that the draw finds it; one that is never drawn costs
 * only its lanes.
 */
void
dp_counter_plan_terms(dp_counter *counter, const dp_noise_plan *plans, int count,
					  dp_term_batch *batch)
{
	if (!counter->has_noise_key || counter->derivation != DP_DERIVATION_2)
		return;
	prepare_noise_key(counter);
	for (int i = 0; i < count; i++)
	{
		dp_term    *term = dp_term_batch_add(batch);

		if (term == NULL)
			return;
		term->owner = counter;
		noise_position(term->position, plans[i].steps, plans[i].node, plans[i].role,
					   plans[i].content);
		if (opening_term(plans[i].role, plans[i].content))
		{
			term->kind = DP_TERM_OPENING;
			term->opening_key = counter->noise_opening_key;
			term->nonce = (uint64_t) plans[i].steps;
			term->block = (uint64_t) (uint32_t) plans[i].node << 32;
		}
		else
		{
			term->kind = DP_TERM_WIDE;
			term->wide = &counter->noise_prf_wide;
			term->continued = counter->noise_wide_continues;
		}
	}
}

/* whether the counter has taken every step its mechanism allows */
static inline bool
at_horizon(const dp_counter *counter)
{
	return counter->steps >= (counter->kind->bounded ? counter->mechanism.horizon : DP_HORIZON_MAX);
}

/*
 * A step's value in [0, max_per_step]: clamping bounds the sensitivity; it
 * is silent because a notice would leak.
 */
static inline int64_t
clamp_step_value(const dp_counter *counter, int64_t value)
{
	if (value < 0)
		return 0;
	if (value > counter->mechanism.max_per_step)
		return counter->mechanism.max_per_step;
	return value;
}

/* the terms of the counter's next push, as far as its kind's plan hook tells them */
void
dp_counter_plan(dp_counter *counter, int64_t value, dp_term_batch *batch)
{
	dp_noise_plan plans[DP_TERM_BATCH_MAX];
	int			count;

	if (!dp_counter_plans(counter) || at_horizon(counter))
		return;
	count = counter->kind->plan(counter, clamp_step_value(counter, value), plans,
								DP_TERM_BATCH_MAX);
	if (count > 0)
		dp_counter_plan_terms(counter, plans, count, batch);
}

dp_status
dp_counter_push(dp_counter *counter, int64_t value, dp_random *rng)
{
	if (at_horizon(counter))
		return DP_ERROR_HORIZON_EXCEEDED;
	counter->kind->push(counter, clamp_step_value(counter, value), rng);

	/*
	 * Consistent output (Budaeva et al. [BLD+], section 3.1.1) uses only the previous
	 * consistent release and the new release: post-processing, no privacy
	 * cost.  Releases are integers already, so no rounding is needed.
	 */
	if (counter->mechanism.flags & DP_FLAG_CONSISTENT)
	{
		dp_int128  *previous = &counter->nodes[counter->kind_nodes];
		dp_int128	increase = dp_counter_sub(counter, counter->release, *previous);

		if (increase > 0)
			*previous = dp_counter_add(counter, *previous,
									   increase < counter->mechanism.max_per_step ?
									   increase : counter->mechanism.max_per_step);
	}
	return counter->overflow ? DP_ERROR_OVERFLOW : DP_OK;
}

int64_t
dp_counter_value_from_double(const dp_counter *counter, double value)
{
	if (isnan(value) || value <= 0)
		return 0;
	if (value >= (double) counter->mechanism.max_per_step)
		return counter->mechanism.max_per_step;
	/* discrete noise protects only integer differences: round first */
	return (int64_t) nearbyint(value);
}

dp_int128
dp_counter_release_wide(const dp_counter *counter)
{
	if (counter->mechanism.flags & DP_FLAG_CONSISTENT)
		return counter->nodes[counter->kind_nodes];
	return counter->release;
}

int64_t
dp_counter_release(const dp_counter *counter)
{
	return dp_int128_to_int64_saturated(dp_counter_release_wide(counter));
}

int
dp_counter_noise_groups(const dp_counter *counter, dp_noise_group *groups)
{
	return dp_counter_noise_groups_at(counter, counter->steps, groups);
}

int
dp_counter_noise_groups_at(const dp_counter *counter, int64_t steps, dp_noise_group *groups)
{
	for (int i = 0; i < DP_NOISE_GROUPS_MAX; i++)
	{
		groups[i].weight = 1.0;
		groups[i].family = dp_counter_gaussian(counter) ? DP_FAMILY_GAUSSIAN : DP_FAMILY_LAPLACE;
	}
	return counter->kind->noise_groups(counter, steps, groups);
}

double
dp_counter_noise_variance(const dp_counter *counter)
{
	dp_noise_group groups[DP_NOISE_GROUPS_MAX];
	int			count = dp_counter_noise_groups(counter, groups);

	return dp_noise_sum_variance(groups, count);
}

/*
 * The interval is for the mechanism's own release.  A consistent release is
 * post-processed from it and can lag behind it (see docs/mechanisms.md).
 */
double
dp_counter_error_bound(const dp_counter *counter, double confidence)
{
	return dp_counter_error_bound_missing(counter, 1.0 - confidence);
}

double
dp_counter_error_bound_missing(const dp_counter *counter, double miss)
{
	dp_noise_group groups[DP_NOISE_GROUPS_MAX];
	int			count = dp_counter_noise_groups(counter, groups);
	double		slack = counter->kind->release_slack ?
		counter->kind->release_slack(counter, counter->steps) : 0.0;

	return dp_noise_sum_half_width_missing(groups, count, miss) + slack;
}

dp_status
dp_mechanism_error_bound(const dp_mechanism *mechanism, int64_t steps, double confidence,
						 double *bound, const char **field)
{
	dp_counter	header;			/* no nodes are needed to count noise terms */
	dp_mechanism per_unit = dp_mechanism_per_unit(mechanism);
	dp_status	status = dp_counter_prepare(&header, &per_unit, field);

	if (status != DP_OK)
		return status;
	if (steps < 0 || steps > (header.kind->bounded ? mechanism->horizon : DP_HORIZON_MAX))
	{
		*field = "steps";
		return DP_ERROR_HORIZON_EXCEEDED;
	}
	header.steps = steps;
	*bound = dp_counter_error_bound(&header, confidence);
	return DP_OK;
}

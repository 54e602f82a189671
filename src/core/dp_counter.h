/*
 * dp_counter.h
 *		The counter interface every continual-counting mechanism implements.
 *
 * A counter consumes one value per time step and keeps a release (the noisy
 * running count) current after every step.  Its state is a fixed array of
 * 128-bit nodes whose meaning belongs to the mechanism, plus a raw running
 * total that exists only in memory: a mechanism may keep an accumulator as
 * an offset against that total so that a step costs O(1), and folds the
 * total back in when the state is persisted.  A persisted state therefore
 * never contains a raw partial sum (docs/threat_model.md: one snapshot).
 *
 * Adding a mechanism means writing one dp_counter_kind (dp_counter_kind.h)
 * in its own file and listing it in dp_mechanism_list.h.  Citations in brackets ([CSS10], [BLD+], ...)
 * are keys of docs/references.md.
 */
#ifndef DP_COUNTER_H
#define DP_COUNTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dp_counter_kind.h"
#include "dp_int128.h"
#include "dp_mechanism.h"
#include "dp_noise.h"
#include "dp_noise_sum.h"
#include "dp_random.h"
#include "dp_registry.h"
#include "dp_status.h"
#include "dp_term_batch.h"

#define DP_COUNTER_MAX_NODES 1024
#define DP_NOISE_KEY_BYTES 32

/*
 * The derivations of keyed noise terms from a noise key (dp_counter_noise):
 * 1 (up to 0.16.0, and every key made then, forever), 2 (keys registered
 * since 0.17.0).
 */
#define DP_DERIVATION_1 1
#define DP_DERIVATION_2 2

struct dp_counter
{
	dp_mechanism mechanism;
	const dp_counter_kind *kind;
	dp_scale	scale;			/* noise scale of class 0 */
	dp_scale	second_scale;	/* class 1, or the class a mechanism uses now */
	int64_t		steps;			/* time steps consumed */
	dp_int128	running_total;	/* raw sum since start or resume; never persisted */
	dp_int128	release;		/* current noisy running count */
	int			kind_nodes;		/* nodes owned by the mechanism */
	int			node_count;		/* kind_nodes, plus one for consistent output */
	bool		overflow;		/* node arithmetic left DP_ARITHMETIC_MAX */
	/*
	 * With a noise key, every noise term is drawn from a stream derived from
	 * the key, the term's position (step, node, role) and, for terms drawn
	 * when data is complete, that data (dp_counter_noise); without one, from
	 * the caller's dp_random.  A stored state carries its own random key, so
	 * two continuations of one state pushed with the same values agree; a
	 * keyed mechanism's key comes from the database secret and the key name.
	 * The key is secret: it exists in memory and inside sealed states only.
	 */
	bool		has_noise_key;
	unsigned char noise_key[DP_NOISE_KEY_BYTES];
	/*
	 * A cache of noise_key prepared for dp_random_init_derived_prf (a term
	 * then costs about half as much): the key it was prepared from and the
	 * prepared form, refreshed by dp_counter_noise whenever noise_key
	 * differs, cleared with the key, never persisted; as secret as the key.
	 */
	bool		noise_prf_ready;
	unsigned char noise_prf_key[DP_NOISE_KEY_BYTES];
	dp_random_prf noise_prf;
	/*
	 * Which derivation the keyed terms use (DP_DERIVATION_1 or 2, see
	 * dp_counter_noise): part of the key, fixed when the key is made
	 * (a registered key's `derivation`), persisted with it (noise key
	 * flags 3 and 4), never changed: another derivation would draw the
	 * same data again with independent noise.  With derivation 2 the cache
	 * above also holds the key prepared for the wide derivation and the
	 * opening terms' ChaCha20 key.
	 */
	int			derivation;
	dp_random_prf noise_prf_wide;
	unsigned char noise_opening_key[DP_RANDOM_KEY_BYTES];
	/*
	 * Draw the keyed terms with the constant-time table sampler
	 * (dp_laplace_table.h) rather than the reference sampler: set for the
	 * random keys of states started by a stream that draws through tables,
	 * persisted with the key (noise key flag 2).  Keys of keyed mechanisms
	 * and of older states keep the reference sampler, whose values for a
	 * key never change, so re-executions keep releasing the same noise.
	 */
	bool		table_sampler;
	/*
	 * Values a mechanism derives from its parameters alone and keeps for its
	 * steps (set by its derive hook when the counter is prepared; never
	 * persisted).
	 */
	int64_t		derived[16];
	/*
	 * A kind's memo of its last step, valid while memo_step is that step
	 * (-1: none): the bounded balanced tree keeps the digits of t and t - 1
	 * there (dp_balanced.c), a pure function of t and the mechanism, so a
	 * copied counter's memo stays right.  Cleared by dp_counter_prepare,
	 * never persisted.
	 */
	int64_t		memo_step;
	/*
	 * Whether this counter's last wide keyed term (derivation 2) read past
	 * the 32 bytes its derivation gives, so that dp_counter_plan derives
	 * the next one's continuation ahead: a hint for speed, which no value
	 * depends on.  Set by dp_counter_prepare, never persisted.
	 */
	bool		noise_wide_continues;
	int64_t		memo[128];
	dp_int128	nodes[];
};

/*
 * A running 128-bit sum a kind keeps in its memo from one step to the next
 * (memo[0] its low and memo[1] its high 64 bits), valid while memo_step is
 * the step it was kept at: Honaker's accumulators, a one-level rolling
 * window's release, PPCum's level noises.  The kind checks memo_step before
 * it reads the sum.
 */
static inline void
dp_counter_memo_keep(dp_counter *counter, dp_int128 sum)
{
	counter->memo[0] = (int64_t) (uint64_t) (dp_uint128) sum;
	counter->memo[1] = (int64_t) (uint64_t) ((dp_uint128) sum >> 64);
	counter->memo_step = counter->steps;
}

static inline dp_int128
dp_counter_memo_sum(const dp_counter *counter)
{
	return (dp_int128) (((dp_uint128) (uint64_t) counter->memo[1] << 64) |
						(uint64_t) counter->memo[0]);
}

/*
 * Node arithmetic for the mechanisms: a + b and a - b, checked.  A result
 * out of range sets counter->overflow (dp_counter_push then refuses the
 * step) and leaves a unchanged, so no value ever wraps.  Only a forged or
 * corrupted state, or a stream far beyond any practical length at the most
 * extreme parameters, can get there (see dp_int128.h).
 */
/* the checked result, or a (with the counter flagged) when it is out of range */
static inline dp_int128
dp_counter_checked(dp_counter *counter, int in_range, dp_int128 result, dp_int128 a)
{
	if (in_range)
		return result;
	counter->overflow = true;
	return a;
}

static inline dp_int128
dp_counter_add(dp_counter *counter, dp_int128 a, dp_int128 b)
{
	dp_int128	sum;
	int			in_range = dp_int128_add_checked(a, b, &sum);

	return dp_counter_checked(counter, in_range, sum, a);
}

static inline dp_int128
dp_counter_sub(dp_counter *counter, dp_int128 a, dp_int128 b)
{
	dp_int128	difference;
	int			in_range = dp_int128_sub_checked(a, b, &difference);

	return dp_counter_checked(counter, in_range, difference, a);
}

/*
 * One discrete Laplace draw for node `node` at the counter's current step.
 * `content` is what the term protects (0 for DP_NOISE_OPEN): the node's
 * value with the data it covers, or the item.  With a noise key the draw is
 * a function of the key, the position and the content; otherwise rng's.
 */
extern dp_int128 dp_counter_noise(dp_counter *counter, dp_random *rng, const dp_scale *scale,
								  int node, dp_noise_role role, dp_int128 content);

/*
 * Add to the batch the keyed terms (derivation 2) the counter's next push
 * with `value` will draw, as far as its kind's plan hook tells them; the
 * counter's push then takes them from the batch once it is derived
 * (dp_term_batch.h).  Nothing for a counter without a noise key, of
 * derivation 1, or of a kind without the hook.
 */
extern void dp_counter_plan(dp_counter *counter, int64_t value, dp_term_batch *batch);
/* whether dp_counter_plan can plan any of the counter's terms */
static inline bool
dp_counter_plans(const dp_counter *counter)
{
	return counter->has_noise_key && counter->derivation == DP_DERIVATION_2 &&
		counter->kind->plan != NULL;
}

/* the same for terms at positions the caller gives (bench/floor.c) */
extern void dp_counter_plan_terms(dp_counter *counter, const dp_noise_plan *plans, int count,
								  dp_term_batch *batch);

#ifdef DP_TEST_NOISE_HOOK
/*
 * Test builds only (test/unit/test_calibration_lp.c; never in the
 * extension): while set, every noise term is the hook's value instead of a
 * draw, so that a test can read each mechanism's noise and data matrices
 * off the real code.  The scale is the one the term would be drawn at.
 */
typedef dp_int128 (*dp_test_noise_hook_function) (void *context, const dp_counter *counter,
												  const dp_scale *scale, int node,
												  dp_noise_role role);
extern dp_test_noise_hook_function dp_test_noise_hook;
extern void *dp_test_noise_hook_context;
#endif

/* The scale for sensitivity / epsilon (ranges already checked). */
extern dp_scale dp_counter_scale_for(uint64_t sensitivity, double epsilon);

/* The scale of noise class `index` of the counter's mechanism. */
extern dp_scale dp_counter_class_scale(const dp_counter *counter, int index);

/* A class in which each unit reaches `nodes` nodes once, with 1 / share_denominator of the budget. */
static inline bool
dp_noise_class_nodes(dp_noise_class *out, uint64_t nodes, uint64_t share_denominator)
{
	out->l1_units = nodes;
	out->l2_squared_units = nodes;
	out->share_denominator = share_denominator;
	out->l2_absolute = false;
	out->budget_weight = 1;
	return true;
}

/* floor(log2(x)) + 1 for x >= 1: the levels of a tree over x leaves */
static inline int
dp_level_count(int64_t x)
{
	return 64 - __builtin_clzll((uint64_t) x);
}

/* Whether the noise is discrete Gaussian (rho-zCDP) rather than Laplace. */
static inline bool
dp_counter_gaussian(const dp_counter *counter)
{
	return (counter->mechanism.flags & DP_FLAG_ZCDP) != 0;
}

static inline bool
dp_counter_pan_private(const dp_counter *counter)
{
	return (counter->mechanism.flags & DP_FLAG_PAN_PRIVATE) != 0;
}

/* The arity of dp_kary with the least mean variance for a horizon. */
extern int64_t dp_kary_default_arity(int64_t horizon);
/* The odd arity of dp_balanced with the least mean variance for a horizon. */
extern int64_t dp_balanced_default_arity(int64_t horizon);
/*
 * The rolling mechanism (dp_rolling.c) of `width` steps with a running
 * mechanism's budget, step bound, privacy unit, key and options; not
 * validated.
 */
extern void dp_mechanism_rolling_of(const dp_mechanism *running, int64_t width,
									dp_mechanism *rolling);
/* The same with levels 0 (its default not computed), for comparisons. */
extern void dp_mechanism_rolling_base(const dp_mechanism *running, int64_t width,
									  dp_mechanism *rolling);
/*
 * The number of levels of the rolling mechanism with the least exact mean
 * variance for its width, budget and arity (its levels when left out and
 * its arity given).
 */
extern double dp_rolling_default_levels(const dp_mechanism *mechanism);
/*
 * Fills a rolling mechanism's levels left out (shape 0), and its arity
 * with them when that is left out too (horizon 0): the pair of least exact
 * mean variance.
 */
extern void dp_rolling_fill_default(dp_mechanism *mechanism);

/*
 * Fills everything but the nodes (validation, noise scale, step 0); for the
 * state codec and for bounds computed without a state.
 */
extern dp_status dp_counter_prepare(dp_counter *counter, const dp_mechanism *mechanism,
									const char **field);

/* Bytes needed for a counter of this (validated) mechanism. */
extern size_t dp_counter_size(const dp_mechanism *mechanism);
/* Nodes in the persisted form (the mechanism's, plus the consistent release). */
extern int	dp_counter_persisted_node_count(const dp_mechanism *mechanism);
/* The nodes as stored, into room for DP_COUNTER_MAX_NODES. */
extern void dp_counter_persisted_nodes(const dp_counter *counter, dp_int128 *nodes);

/* Initialises storage of dp_counter_size() bytes; validates the mechanism. */
extern dp_status dp_counter_start(dp_counter *counter, const dp_mechanism *mechanism,
								  dp_random *rng, const char **field);
/*
 * Starts a counter that was started before (without a noise key) again at
 * step 0 with fresh noise from rng, keeping its scales: for a caller that
 * runs one mechanism many times (the privacy audit), where computing the
 * scales again would cost more than the run.
 */
extern void dp_counter_restart(dp_counter *counter, dp_random *rng);
/* The same with a noise key (DP_NOISE_KEY_BYTES; NULL: draws from rng). */
extern dp_status dp_counter_start_keyed(dp_counter *counter, const dp_mechanism *mechanism,
										const unsigned char *noise_key, dp_random *rng,
										const char **field);
/*
 * The default sampler of a key's terms: the table sampler for the random key
 * of a stream that draws with tables, never for a keyed mechanism (its
 * sampler follows the database's secret, chosen by the extension).
 */
static inline bool
dp_counter_default_table_sampler(const dp_random *rng, const dp_mechanism *mechanism)
{
	return rng->table_sampler && !(mechanism->flags & DP_FLAG_KEYED);
}

/*
 * The same with the sampler of the keyed terms chosen by the caller (the
 * extension: a keyed mechanism's database setting); dp_counter_start_keyed
 * takes the table sampler for random keys of a table-sampler stream only.
 */
extern dp_status dp_counter_start_with_sampler(dp_counter *counter, const dp_mechanism *mechanism,
											   const unsigned char *noise_key, bool table_sampler,
											   dp_random *rng, const char **field);

/*
 * The same with the derivation of the keyed terms (DP_DERIVATION_1 or
 * DP_DERIVATION_2; ignored without a noise key).
 */
extern dp_status dp_counter_start_derived(dp_counter *counter, const dp_mechanism *mechanism,
										  const unsigned char *noise_key, bool table_sampler,
										  int derivation, dp_random *rng, const char **field);

/* One time step.  The value is clamped into [0, max_per_step] silently. */
extern dp_status dp_counter_push(dp_counter *counter, int64_t value, dp_random *rng);

/* A non-integral value rounded half to even, NaN as 0, then clamped. */
extern int64_t dp_counter_value_from_double(const dp_counter *counter, double value);

extern int64_t dp_counter_release(const dp_counter *counter);
/* The same without saturation (the consistent release when that option is set). */
extern dp_int128 dp_counter_release_wide(const dp_counter *counter);
/* The noise of the release at the counter's current step. */
extern int	dp_counter_noise_groups(const dp_counter *counter, dp_noise_group *groups);
/* The same after `steps` steps (a counter prepared without nodes will do). */
extern int	dp_counter_noise_groups_at(const dp_counter *counter, int64_t steps,
									   dp_noise_group *groups);
extern double dp_counter_noise_variance(const dp_counter *counter);
extern double dp_counter_error_bound(const dp_counter *counter, double confidence);
/* The same for P[|noise| > bound] <= miss (see dp_noise_sum_half_width_missing). */
extern double dp_counter_error_bound_missing(const dp_counter *counter, double miss);

/*
 * Half-width of the interval for the release at `steps` of a mechanism,
 * without a state: the noise distribution depends only on public inputs.
 */
extern dp_status dp_mechanism_error_bound(const dp_mechanism *mechanism, int64_t steps,
										  double confidence, double *bound,
										  const char **field);

/* Binary serialization (little-endian, versioned); identical for send/recv. */
#define DP_COUNTER_FORMAT_VERSION 6	/* compact (varints); 1 to 5 are still read */
/* DP_ERROR_OVERFLOW when a stored node would be beyond what decoders accept. */
extern dp_status dp_counter_check_storable(const dp_counter *counter);
extern size_t dp_counter_serialized_size(const dp_counter *counter);
/* The length of its public prefix: mechanism, steps and node count (sealing keeps it in the clear). */
extern size_t dp_counter_public_size(const dp_counter *counter);
/*
 * The longest serialization of any counter with the same mechanism, steps
 * and node count (public fields only): what a sealed state is padded to.
 */
extern size_t dp_counter_padded_size(const dp_counter *counter);
/*
 * The fixed layout of versions 4 and 5 (0.7.0 to 0.9.0), for tests of old
 * states.  Those versions had no table sampler: a state with the flag is
 * written without its key, so it reads back as an old keyless state rather
 * than silently as a reference-sampler state under the same key.
 */
extern size_t dp_counter_fixed_size(const dp_counter *counter);
extern void dp_counter_serialize_fixed(const dp_counter *counter, unsigned char *out);
extern void dp_counter_serialize(const dp_counter *counter, unsigned char *out);
/* Reads the mechanism and node count so the caller can size the counter. */
extern dp_status dp_counter_peek(const unsigned char *data, size_t length,
								 dp_mechanism *mechanism, dp_parse_error *error);
/*
 * Decodes into a counter whose storage is counter_bytes long; refuses (and
 * writes nothing) unless every field, every node and the size the declared
 * mechanism needs have been checked first.
 */
extern dp_status dp_counter_deserialize(const unsigned char *data, size_t length,
										dp_counter *counter, size_t counter_bytes,
										dp_parse_error *error);

/* Text form: v2 binary(epsilon=...,horizon=...,max_per_step=...) steps=3 nodes=[...] */
extern size_t dp_counter_text_size(const dp_counter *counter);
extern void dp_counter_to_text(const dp_counter *counter, char *buffer);

/*
 * Parses the text form in two calls: the first (counter == NULL) fills
 * *mechanism so the caller can allocate dp_counter_size() bytes, the second
 * fills the counter, whose storage is counter_bytes long.
 */
extern dp_status dp_counter_parse(const char *text, dp_mechanism *mechanism,
								  dp_counter *counter, size_t counter_bytes,
								  dp_parse_error *error);
/* The same from *cursor, stopping after the nodes (for containing formats). */
extern dp_status dp_counter_parse_at(const char **cursor, dp_mechanism *mechanism,
									 dp_counter *counter, size_t counter_bytes,
									 dp_parse_error *error);

#endif							/* DP_COUNTER_H */

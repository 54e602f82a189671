/*
 * dp_mechanism.h
 *		The parameters that choose and configure a counting mechanism.
 *
 * A mechanism is a plain value: which algorithm, its privacy parameter and
 * the declared bounds of the stream.  It carries no randomness and no data.
 */
#ifndef DP_MECHANISM_H
#define DP_MECHANISM_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "dp_status.h"

typedef enum dp_mechanism_kind
{
#define DP_MECHANISM_ENTRY(name, id, kind_variable) DP_MECHANISM_##name = id,
#include "dp_mechanism_list.h"
#undef DP_MECHANISM_ENTRY
} dp_mechanism_kind;

/*
 * Options.  PAN_PRIVATE: every accumulator gets a second, fresh noise term
 * when it closes (Budaeva et al. [BLD+], section 2.4.4), so a stored state stays private
 * together with all later releases, not only the earlier ones.  CONSISTENT:
 * releases are post-processed into integers that never decrease and grow by
 * at most max_per_step per step (Budaeva et al. [BLD+], section 3.1.1).
 */
#define DP_FLAG_PAN_PRIVATE	0x1u
#define DP_FLAG_CONSISTENT	0x2u
/*
 * KEYED: every noise term is derived from a per-database secret, the key
 * name, the term's position and the data it covers (docs/keyed_noise.md), so
 * the same data always gets the same releases.  Implies PAN_PRIVATE: the
 * terms drawn when a node closes, which depend on its content, must carry
 * the whole privacy argument on their own.
 */
#define DP_FLAG_KEYED		0x4u
/*
 * PERSON: the privacy unit is a person who contributes at most
 * `contributions` units to the whole stream (a count's events, or a
 * statistic's observations), instead of one time step: neighbouring
 * streams differ by one person's contributions, spread over any steps.
 * PER_OBSERVATION, set on the counters of a statistic: a contribution is
 * one observation, worth up to max_per_step units of that counter.
 */
#define DP_FLAG_PERSON		0x8u
#define DP_FLAG_PER_OBSERVATION 0x10u
/*
 * ZCDP: the guarantee is rho-zero-concentrated DP (Bun and Steinke [BS16]),
 * an approximate-DP notion, and the noise is the discrete Gaussian
 * (Canonne, Kamath and Steinke [CKS20]); the field `epsilon` then holds
 * rho, and the text form says rho=.  Opt-in through the constructors that
 * take rho; dp_zcdp_epsilon converts rho to (epsilon, delta).
 */
#define DP_FLAG_ZCDP		0x20u
#define DP_FLAGS_ALL		(DP_FLAG_PAN_PRIVATE | DP_FLAG_CONSISTENT | DP_FLAG_KEYED | \
							 DP_FLAG_PERSON | DP_FLAG_PER_OBSERVATION | DP_FLAG_ZCDP)
/* Largest unit bound with Gaussian noise: keeps levels * unit^2 within 2^56. */
#define DP_ZCDP_UNIT_MAX (((uint64_t) 1) << 24)

/* A key name: 1 to 63 characters from [A-Za-z0-9_.:-]. */
#define DP_KEY_NAME_MAX 63

/*
 * A partition of a keyed publication (dp_keyed(mechanism, key, partition =>
 * value)): a digest of the value's text, so that any value fits and the
 * text form needs no quoting.  All zero when no partition is named.
 */
#define DP_PARTITION_BYTES 16

/* Largest horizon: 63 tree levels and a step count that fits int64. */
#define DP_HORIZON_MAX (((int64_t) 1) << 62)
/* Largest per-step bound: keeps levels * bound below the sensitivity limit. */
#define DP_MAX_PER_STEP_MAX (((int64_t) 1) << 50)
/*
 * max_per_step not stated (since 0.14.0; before, a constructor filled in 1
 * and a count silently clamped every step to it).  A count refuses such a
 * mechanism (dp_counter_prepare): its noise is calibrated to the bound, and
 * only the user knows it.  A statistic takes its bound from lower and upper
 * and needs none; planning answers per unit of the bound.  No earlier
 * version ever stored 0 (validation refused it), so every stored mechanism
 * keeps its meaning.
 */
#define DP_STEP_BOUND_UNSTATED 0

typedef struct dp_mechanism
{
	int32_t		kind;			/* dp_mechanism_kind */
	uint32_t	flags;			/* DP_FLAG_* */
	double		epsilon;		/* rho with DP_FLAG_ZCDP */
	int64_t		horizon;		/* T for bounded mechanisms, else 0 */
	int64_t		max_per_step;	/* values are clamped into [0, max_per_step];
								 * DP_STEP_BOUND_UNSTATED when not given */
	int64_t		block;			/* block size of two_level, else 0 */
	char		key[DP_KEY_NAME_MAX + 1];	/* with DP_FLAG_KEYED, else all zero */
	int64_t		contributions;	/* with DP_FLAG_PERSON, else 0 */
	/*
	 * A kind's real parameter, named in its text form (dp_counter_kind's
	 * shape_name: lambda of dp_expiring, past_ratio of its baseline); 0
	 * for the kinds without one.  Last, so the raw-struct datums of 0.1.0
	 * to 0.6.0 are prefixes of this struct.
	 */
	double		shape;
	/*
	 * With DP_FLAG_KEYED, the partition of the publication this stream
	 * belongs to: it enters the noise derivation, so that partitions under
	 * one key draw independent noise, but not the key's registration (one
	 * key is registered once for all its partitions).  Never stored in a
	 * state: the state's noise key binds it already.
	 */
	unsigned char partition[DP_PARTITION_BYTES];
} dp_mechanism;

/* Whether a partition digest names a partition (is not all zero). */
static inline bool
dp_mechanism_has_partition_digest(const unsigned char *partition)
{
	for (int i = 0; i < DP_PARTITION_BYTES; i++)
		if (partition[i] != 0)
			return true;
	return false;
}

/* Whether a partition is named (see dp_mechanism.partition). */
static inline bool
dp_mechanism_has_partition(const dp_mechanism *mechanism)
{
	return dp_mechanism_has_partition_digest(mechanism->partition);
}

/*
 * How much neighbouring streams can differ in total, in units of the step
 * values: one step's bound at event level, one person's contributions at
 * person level.  Every mechanism's sensitivity is this times the number of
 * nodes (or blocks) a unit reaches; validation keeps it at most
 * DP_MAX_PER_STEP_MAX, so the products stay within DP_SENSITIVITY_MAX.
 */
static inline uint64_t
dp_mechanism_unit_bound(const dp_mechanism *mechanism)
{
	if (!(mechanism->flags & DP_FLAG_PERSON))
		return (uint64_t) mechanism->max_per_step;
	return (uint64_t) mechanism->contributions *
		((mechanism->flags & DP_FLAG_PER_OBSERVATION) ? (uint64_t) mechanism->max_per_step : 1);
}

/* Whether the mechanism states a bound on one step's value. */
static inline bool
dp_mechanism_step_bound_stated(const dp_mechanism *mechanism)
{
	return mechanism->max_per_step != DP_STEP_BOUND_UNSTATED;
}

/*
 * The mechanism with an unstated step bound read as 1: what the planning
 * functions compute with, so that their figures are per unit of the bound
 * (a bound of B multiplies every error figure by B).  A stated bound is
 * kept.
 */
static inline dp_mechanism
dp_mechanism_per_unit(const dp_mechanism *mechanism)
{
	dp_mechanism	per_unit = *mechanism;

	if (!dp_mechanism_step_bound_stated(mechanism))
		per_unit.max_per_step = 1;
	return per_unit;
}

/* Whether `name` is a valid key name (see DP_KEY_NAME_MAX). */
extern bool dp_key_name_valid(const char *name, size_t length);

/*
 * Checks every field; on failure *field names the offending one
 * ("epsilon", "horizon", "max_per_step", "block", "pan_private", "keyed",
 * "key", "person_level", "contributions", "kind").
 */
extern dp_status dp_mechanism_validate(const dp_mechanism *mechanism, const char **field);

/*
 * Canonical text: binary(epsilon=0.5,horizon=365,max_per_step=1) (without
 * max_per_step when it is not stated), with
 * block=B for two_level, pan_private=true / consistent=true when set and
 * key=NAME for a keyed mechanism, partition=HEX (32 hexadecimal digits,
 * the digest) after it, contributions=K (person level) and
 * per_observation=true (a statistic's counters).  The longest text is
 * about 360 bytes.
 */
#define DP_MECHANISM_TEXT_BYTES 512
extern int	dp_mechanism_to_text(const dp_mechanism *mechanism, char *buffer, size_t size);

/*
 * Parses the text form at *cursor (leading and trailing blanks allowed
 * around every token), advancing *cursor past it.  An absent max_per_step
 * is not stated (before 0.14.0 it read as 1; every text 0.1.0 to 0.13.0
 * wrote names it), block defaults to ceil(sqrt(horizon)), options to false.  Does not validate
 * ranges; call dp_mechanism_validate afterwards.
 */
extern dp_status dp_mechanism_parse(const char **cursor, dp_mechanism *mechanism,
									dp_parse_error *error);

/*
 * The stored form (dp_mechanism_codec.c): explicit and versioned.  Decoding
 * checks lengths only; validate the result with dp_mechanism_validate.
 */
extern size_t dp_mechanism_encoded_size(const dp_mechanism *mechanism);
extern void dp_mechanism_encode(const dp_mechanism *mechanism, unsigned char *out);
extern dp_status dp_mechanism_decode(const unsigned char *data, size_t length,
									 dp_mechanism *mechanism, dp_parse_error *error);

/*
 * The longest horizon for which the kind's default block or arity is valid,
 * the mechanism's other fields as given (its horizon and block ignored);
 * 0 for a kind without a default block or when no horizon fits.  Balanced
 * digits stop near 2^56 steps: every arity needs more nodes than a state
 * holds beyond (3^36 - 1) / 2.
 */
extern int64_t dp_mechanism_default_block_horizon_max(const dp_mechanism *mechanism);

/* ceil(sqrt(horizon)): the block size that balances the two levels */
extern int64_t dp_default_block(int64_t horizon);

#endif							/* DP_MECHANISM_H */

/*
 * dp_counter_kind.h
 *		What a counting mechanism implements: one dp_counter_kind, a table of
 *		its facts and hooks, in its own file under mechanisms/.
 *
 * This header is the interface only; the counter (dp_counter.h) runs the
 * hooks and offers the services they call back (dp_counter_noise,
 * dp_counter_class_scale), and the registry (dp_registry.h) lists the kinds.
 * Citations in brackets are keys of docs/references.md.
 */
#ifndef DP_COUNTER_KIND_H
#define DP_COUNTER_KIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dp_int128.h"
#include "dp_mechanism.h"
#include "dp_noise.h"
#include "dp_random.h"
#include "dp_status.h"

/*
 * The role of a noise term in its node, part of its position: a term drawn
 * when a node opens (before any of its data), one drawn when it closes over
 * its complete content, and the noise of a single item.
 */
typedef enum dp_noise_role
{
	DP_NOISE_OPEN = 1,
	DP_NOISE_CLOSE = 2,
	DP_NOISE_ITEM = 3
} dp_noise_role;

typedef struct dp_counter dp_counter;

/* a noise term a push will draw: the counter's step then, node, role, content */
typedef struct dp_noise_plan
{
	int64_t		steps;
	int			node;
	dp_noise_role role;
	dp_int128	content;
} dp_noise_plan;

/*
 * One class of a mechanism's noise terms: the nodes that share a scale.
 * One privacy unit's data moves the nodes of the class by at most l1_units
 * units in total and by at most l2_squared_units squared units (a unit is
 * dp_mechanism_unit_bound: one step's bound, or one person's
 * contributions), and the class spends the share 1 / share_denominator of
 * the privacy budget.  The shares of the classes that one unit can reach
 * add up to at most 1; then the noise family's scale for each class
 * (dp_counter_class_scale) makes the mechanism epsilon-DP (discrete
 * Laplace, scale l1 U d / epsilon) or rho-zCDP (discrete Gaussian,
 * sigma^2 = l2 U^2 d / (2 rho)) by composition over the classes.  The
 * share is an integer ratio so that the budget itself is never divided:
 * the epsilon validation accepted is the one the scale is computed from.
 */
typedef struct dp_noise_class
{
	uint64_t	l1_units;
	uint64_t	l2_squared_units;
	uint64_t	share_denominator;
	/*
	 * The squared L2 sensitivity is l2_squared_units itself, in the
	 * mechanism's own lattice, the unit bound included (a factorization
	 * whose sensitivity is not a whole number of units: dp_blt.c).
	 */
	bool		l2_absolute;
	/*
	 * The class's budget is epsilon * budget_weight / share_denominator
	 * (Laplace only): a real weight for mechanisms whose classes spend
	 * unequal, non-integral parts (dp_expiring.c).  1 for every other
	 * class; a budget above DP_EPSILON_MAX is cut to it (more noise).
	 */
	double		budget_weight;
} dp_noise_class;

/*
 * A parameter a kind takes besides epsilon, horizon and max_per_step, as
 * users see it: its name in the text form and the SQL constructor, its
 * range, the value an absent one gets, and the texts of its refusal.  The
 * texts are templates: src/pg/dp_errors.c fills {name}, {kind}, {value}
 * (the refused value), {horizon}, {max} (the kind's block_max or shape_max
 * as 2^k), {max_plain} (the same as a plain number), {block} (the mechanism's block or width) and {horizon_limit}
 * (DP_HORIZON_MAX), so that no limit is restated as literal text.
 */
typedef struct dp_kind_parameter
{
	const char *name;			/* "arity"; NULL ends a kind's list */
	bool		real;			/* kept in dp_mechanism.shape, else in block */
	const char *range;			/* "between 1 and {max}" */
	const char *default_text;	/* "ceil(sqrt(horizon))"; NULL: required */
	const char *hint;			/* the hint of its refusal */
	const char *message;		/* NULL: "{name} must be {range}" */
	const char *detail;			/* NULL: "{name} was {value}." */
} dp_kind_parameter;

/*
 * A kind's own wording of a refusal that is not about one of its
 * parameters (a horizon narrower than the common one, an option it refuses
 * for a reason of its own, a budget its parameters make too small): the
 * status and field its validation reports, and templates as above, where
 * {epsilon}, {shape}, {past} (epsilon * shape), {epsilon_min},
 * {horizon_max} (the kind's), {horizon_max_levels} (its levels) and
 * {pan_private_kinds} (the kinds that accept dp_pan_private, from the
 * registry) are filled too.
 */
typedef struct dp_kind_refusal
{
	dp_status	status;			/* DP_OK ends a kind's list */
	const char *field;
	const char *message;
	const char *detail;			/* or NULL */
	const char *hint;			/* or NULL */
} dp_kind_refusal;

typedef struct dp_counter_kind
{
	const char *name;			/* as in the text form: "binary" */
	dp_mechanism_kind kind;
	bool		bounded;		/* needs a horizon; refuses step horizon + 1 */
	bool		has_block;		/* takes a block size (two_level) or an arity (kary) */
	const char *block_name;		/* its name in the text form: "block", "arity" */
	bool		block_may_be_zero;	/* a delay of 0 steps (dp_expiring) */
	const char *shape_name;		/* its real parameter's name (dp_mechanism.shape), or NULL */
	/*
	 * The value an absent real parameter gets, from the otherwise complete
	 * mechanism (dp_rolling's levels); NULL: the parameter is required.
	 */
	double		(*default_shape) (const dp_mechanism *mechanism);
	/*
	 * Or, when set, fills the real parameter (shape 0) together with the
	 * horizon-kept parameter below when that is left out too (rolling's
	 * levels and arity, chosen jointly).
	 */
	void		(*fill_default) (dp_mechanism *mechanism);
	/*
	 * An unbounded kind's third integer parameter, kept in
	 * dp_mechanism.horizon as its value minus horizon_offset (so that 0,
	 * what older states hold, is its smallest value): rolling's "arity".
	 * NULL for none.
	 */
	const char *horizon_name;
	int64_t		horizon_offset;
	/* the value an absent block gets, from a valid horizon */
	int64_t		(*default_block) (int64_t horizon);
	uint32_t	accepted_flags; /* DP_FLAG_* options it supports */

	/* Kind-specific checks beyond the common ones; *field names the culprit. */
	dp_status	(*validate) (const dp_mechanism *mechanism, const char **field);
	int			(*node_count) (const dp_mechanism *mechanism);
	/*
	 * The mechanism's decomposition, as the noise needs it: its noise terms
	 * fall into classes of one scale each (dp_noise_class); fills class
	 * `index` and returns true, or returns false past the last class.  The
	 * counter turns a class into a scale for the noise family.
	 */
	bool		(*noise_class) (const dp_mechanism *mechanism, int index, dp_noise_class *out);

	/* Fresh state at step 0 (may draw the noise of nodes that open at once). */
	void		(*start) (dp_counter *counter, dp_random *rng);
	/* One step with a value already clamped into [0, max_per_step]. */
	void		(*push) (dp_counter *counter, int64_t value, dp_random *rng);
	/*
	 * Optional: the noise terms push(counter, value) will draw, in the
	 * order it draws them, or those of them the kind can tell beforehand
	 * (at most max; returns how many).  Only a hint for deriving keyed
	 * terms ahead (dp_counter_plan): a term left out or guessed wrong is
	 * derived when it is drawn, the same value either way.
	 */
	int			(*plan) (const dp_counter *counter, int64_t value, dp_noise_plan *plans,
						 int max);
	/*
	 * Nodes as they are persisted (the in-memory running total folded in);
	 * NULL when the mechanism keeps no offsets and its nodes are stored as
	 * they are.
	 */
	void		(*persist) (const dp_counter *counter, dp_int128 *nodes);
	/* Rebuild caches after nodes were loaded in persisted form. */
	void		(*resume) (dp_counter *counter);
	/*
	 * The independent noise terms in the release after `steps` steps, as
	 * groups of equal scale; returns the number of groups (at most
	 * DP_NOISE_GROUPS_MAX).  Depends on public inputs only.
	 */
	int			(*noise_groups) (const dp_counter *counter, int64_t steps,
								 dp_noise_group *groups);
	/*
	 * Optional: how far the integer release may be from the sum of noise
	 * the groups describe (rounding of a weighted estimate, a decoder's
	 * fixed point); error bounds add it.  NULL: releases are exact sums.
	 */
	double		(*release_slack) (const dp_counter *counter, int64_t steps);
	/*
	 * Optional: fills counter->derived from the mechanism once, when the
	 * counter is prepared (before start, before a stored state resumes, and
	 * for a description without a state).
	 */
	void		(*derive) (dp_counter *counter);

	/*
	 * The kind's own limits where they are narrower than the common ones
	 * (0: the common limit, or none), for the messages that state them;
	 * its validate hook enforces them from the same constants.
	 */
	int64_t		horizon_max;	/* else DP_HORIZON_MAX */
	int64_t		block_max;		/* its block, arity, delay or window */
	double		shape_max;		/* its real parameter (lambda) */

	/* its parameters (block_name, shape_name), as users see them */
	const dp_kind_parameter *parameters;
	/* its own wording of refusals; NULL: none */
	const dp_kind_refusal *refusals;
	/*
	 * Its place in dp_auto's choice among the kinds that accept the options
	 * asked for: the lowest rank wins (0: never chosen by dp_auto).
	 */
	int			auto_rank;
	/*
	 * Whether a release weighs the steps by their place from the last (a
	 * rolling window, a decayed sum), not only by their sum: then a plain
	 * or state aggregate call needs an ORDER BY of its own, since "the last
	 * steps" exist only in an order (src/pg/dp_aggregate_shape.c).
	 */
	bool		order_dependent;
} dp_counter_kind;

#endif							/* DP_COUNTER_KIND_H */

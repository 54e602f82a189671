/*
 * dp_registry.c
 *		The registry of counting mechanisms (dp_mechanism_list.h) and the
 *		validation of a mechanism value against its kind.
 */
#include "dp_registry.h"

#include <math.h>
#include <string.h>

#include "dp_noise.h"

#define DP_MECHANISM_ENTRY(name, id, kind_variable) extern const dp_counter_kind kind_variable;
#include "dp_mechanism_list.h"
#undef DP_MECHANISM_ENTRY

static const dp_counter_kind *const all_kinds[] = {
#define DP_MECHANISM_ENTRY(name, id, kind_variable) &kind_variable,
#include "dp_mechanism_list.h"
#undef DP_MECHANISM_ENTRY
};

#define KIND_COUNT (sizeof(all_kinds) / sizeof(all_kinds[0]))

const dp_counter_kind *
dp_counter_kind_by_id(int32_t kind)
{
	for (size_t i = 0; i < KIND_COUNT; i++)
		if ((int32_t) all_kinds[i]->kind == kind)
			return all_kinds[i];
	return NULL;
}

/* The kinds in registry order, for listing them; NULL past the last. */
const dp_counter_kind *
dp_counter_kind_at(size_t index)
{
	return index < KIND_COUNT ? all_kinds[index] : NULL;
}

const dp_counter_kind *
dp_counter_kind_by_name(const char *name)
{
	for (size_t i = 0; i < KIND_COUNT; i++)
		if (strcmp(all_kinds[i]->name, name) == 0)
			return all_kinds[i];
	return NULL;
}

size_t
dp_counter_kinds_accepting(uint32_t flags, const char **names, size_t size)
{
	size_t		count = 0;

	for (size_t i = 0; i < KIND_COUNT; i++)
		if ((all_kinds[i]->accepted_flags & flags) == flags)
		{
			if (count < size)
				names[count] = all_kinds[i]->name;
			count++;
		}
	return count;
}

const dp_counter_kind *
dp_counter_kind_auto(bool bounded, uint32_t flags)
{
	const dp_counter_kind *best = NULL;

	for (size_t i = 0; i < KIND_COUNT; i++)
	{
		const dp_counter_kind *kind = all_kinds[i];

		if (kind->auto_rank > 0 && kind->bounded == bounded &&
			(kind->accepted_flags & flags) == flags &&
			(best == NULL || kind->auto_rank < best->auto_rank))
			best = kind;
	}
	return best;
}

/*
 * A keyed mechanism has a valid, NUL-terminated name and the pan-private
 * option; any other has an all-zero key field, so that two equal mechanisms
 * are equal byte for byte.
 */
static bool
key_valid(const dp_mechanism *mechanism)
{
	const char *key = mechanism->key;

	if (mechanism->flags & DP_FLAG_KEYED)
	{
		size_t		length = 0;

		/* strnlen is POSIX, not C11 */
		while (length < sizeof(mechanism->key) && key[length] != '\0')
			length++;

		if (length == sizeof(mechanism->key) || !dp_key_name_valid(key, length) ||
			!(mechanism->flags & DP_FLAG_PAN_PRIVATE))
			return false;
		for (size_t i = length; i < sizeof(mechanism->key); i++)
			if (key[i] != '\0')
				return false;
		return true;
	}
	for (size_t i = 0; i < sizeof(mechanism->key); i++)
		if (key[i] != '\0')
			return false;
	return true;
}

dp_status
dp_mechanism_validate(const dp_mechanism *mechanism, const char **field)
{
	const dp_counter_kind *kind = dp_counter_kind_by_id(mechanism->kind);

	if (kind == NULL)
	{
		*field = "kind";
		return DP_ERROR_KIND;
	}
	if (!(mechanism->epsilon >= DP_EPSILON_MIN && mechanism->epsilon <= DP_EPSILON_MAX))
	{
		*field = "epsilon";
		return DP_ERROR_EPSILON;
	}
	/*
	 * An unstated bound is checked as a bound of 1, the unit the planning
	 * functions answer in; a statistic's counters, which count
	 * observations, always carry the bound their range gives.
	 */
	if (!dp_mechanism_step_bound_stated(mechanism))
	{
		dp_mechanism per_unit = dp_mechanism_per_unit(mechanism);

		if (mechanism->flags & DP_FLAG_PER_OBSERVATION)
		{
			*field = "max_per_step";
			return DP_ERROR_MAX_PER_STEP;
		}
		return dp_mechanism_validate(&per_unit, field);
	}
	if (mechanism->max_per_step < 1 || mechanism->max_per_step > DP_MAX_PER_STEP_MAX)
	{
		*field = "max_per_step";
		return DP_ERROR_MAX_PER_STEP;
	}
	if (kind->bounded && (mechanism->horizon < 1 || mechanism->horizon > DP_HORIZON_MAX))
	{
		*field = "horizon";
		return DP_ERROR_HORIZON;
	}
	/* an unbounded kind keeps 0, or its own parameter there (kind's validate) */
	if (!kind->bounded && mechanism->horizon != 0 && !kind->horizon_name)
	{
		*field = "horizon";
		return DP_ERROR_HORIZON;
	}
	if (mechanism->flags & ~DP_FLAGS_ALL)
	{
		*field = "flags";
		return DP_ERROR_FORMAT;
	}
	if (mechanism->flags & ~kind->accepted_flags)
	{
		uint32_t	refused = mechanism->flags & ~kind->accepted_flags;

		*field = (refused & DP_FLAG_ZCDP) ? "rho" :
			(refused & DP_FLAG_KEYED) ? "keyed" :
			(refused & (DP_FLAG_PERSON | DP_FLAG_PER_OBSERVATION)) ? "person_level" :
			(refused & DP_FLAG_PAN_PRIVATE) ? "pan_private" : "consistent";
		return DP_ERROR_OPTION;
	}
	if (!key_valid(mechanism))
	{
		*field = "key";
		return DP_ERROR_KEY;
	}
	/* a partition only chooses among a key's noise streams */
	if (dp_mechanism_has_partition(mechanism) && !(mechanism->flags & DP_FLAG_KEYED))
	{
		*field = "partition";
		return DP_ERROR_KEY;
	}
	if ((mechanism->flags & DP_FLAG_PERSON) ?
		(mechanism->contributions < 1 || mechanism->contributions > DP_MAX_PER_STEP_MAX) :
		(mechanism->contributions != 0 || (mechanism->flags & DP_FLAG_PER_OBSERVATION)))
	{
		*field = "contributions";
		return DP_ERROR_CONTRIBUTIONS;
	}
	/* checked without overflow: contributions * max_per_step <= the limit */
	if ((mechanism->flags & DP_FLAG_PER_OBSERVATION) &&
		mechanism->contributions > DP_MAX_PER_STEP_MAX / mechanism->max_per_step)
	{
		*field = "contributions";
		return DP_ERROR_CONTRIBUTIONS;
	}
	/* keyed noise's argument (docs/keyed_noise.md) is made for Laplace terms */
	if ((mechanism->flags & DP_FLAG_ZCDP) && (mechanism->flags & DP_FLAG_KEYED))
	{
		*field = "keyed";
		return DP_ERROR_OPTION;
	}
	if ((mechanism->flags & DP_FLAG_ZCDP) && dp_mechanism_unit_bound(mechanism) > DP_ZCDP_UNIT_MAX)
	{
		*field = (mechanism->flags & DP_FLAG_PERSON) ? "contributions" : "max_per_step";
		return DP_ERROR_SENSITIVITY;
	}
	/* the kind checks the range of its block (dp_two_level.c, dp_kary.c) */
	if (kind->has_block ? mechanism->block < (kind->block_may_be_zero ? 0 : 1) :
		mechanism->block != 0)
	{
		*field = kind->has_block ? kind->block_name : "block";
		return DP_ERROR_BLOCK;
	}
	/* the kind checks the range of its real parameter; no other kind has one */
	if (!kind->shape_name && mechanism->shape != 0)
	{
		*field = "shape";
		return DP_ERROR_FORMAT;
	}
	return kind->validate ? kind->validate(mechanism, field) : DP_OK;
}

int64_t
dp_mechanism_default_block_horizon_max(const dp_mechanism *mechanism)
{
	const dp_counter_kind *kind = dp_counter_kind_by_id(mechanism->kind);
	dp_mechanism probe = *mechanism;
	int64_t		fits = 0;
	int64_t		fails = DP_HORIZON_MAX + 1;
	const char *field;

	if (kind == NULL || !kind->bounded || !kind->has_block || kind->default_block == NULL)
		return 0;
	/*
	 * Bisection: a longer horizon never needs fewer levels, so once no block
	 * fits a horizon none fits a longer one.  62 probes at most.
	 */
	while (fails - fits > 1)
	{
		int64_t		middle = fits + (fails - fits) / 2;

		probe.horizon = middle;
		probe.block = kind->default_block(middle);
		if (dp_mechanism_validate(&probe, &field) == DP_ERROR_BLOCK)
			fails = middle;
		else
			fits = middle;
	}
	return fits;
}

void
dp_mechanism_fill_default_shape(dp_mechanism *mechanism)
{
	const dp_counter_kind *kind = dp_counter_kind_by_id(mechanism->kind);

	if (kind != NULL && kind->fill_default != NULL && mechanism->shape == 0)
		kind->fill_default(mechanism);
	else if (kind != NULL && kind->default_shape != NULL && mechanism->shape == 0)
		mechanism->shape = kind->default_shape(mechanism);
}

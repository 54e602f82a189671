/*
 * test_registry.c
 *		What messages read from the registry of mechanisms (issue 25): the
 *		kinds that accept an option (dp_counter_kinds_accepting), which the
 *		hints of dp_keyed, dp_person_level and rho list, and a kind's own
 *		limits (horizon_max, block_max, shape_max), which its messages state:
 *		each limit is exactly where validation starts to refuse.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "dp_counter.h"
#include "tap.h"

/* stored ids are small and never reused (dp_mechanism_list.h) */
#define KIND_ID_MAX 255

static size_t
kinds_with_flags_by_id(uint32_t flags)
{
	size_t		count = 0;

	for (int32_t id = 0; id <= KIND_ID_MAX; id++)
	{
		const dp_counter_kind *kind = dp_counter_kind_by_id(id);

		if (kind && (kind->accepted_flags & flags) == flags)
			count++;
	}
	return count;
}

static void
check_list(uint32_t flags, const char *label)
{
	const char *names[64];
	const char *two[2];
	size_t		count = dp_counter_kinds_accepting(flags, names, 64);
	bool		all_accept = true;

	tap_ok(count == kinds_with_flags_by_id(flags) && count > 0,
		   "%s: %zu kinds listed, as many as accept it by id", label, count);
	for (size_t i = 0; i < count && i < 64; i++)
	{
		const dp_counter_kind *kind = dp_counter_kind_by_name(names[i]);

		if (kind == NULL || (kind->accepted_flags & flags) != flags)
			all_accept = false;
	}
	tap_ok(all_accept, "%s: every kind listed accepts it", label);
	tap_ok(dp_counter_kinds_accepting(flags, two, 2) == count &&
		   strcmp(two[0], names[0]) == 0 && strcmp(two[1], names[1]) == 0,
		   "%s: a short buffer gets the first names and the full count", label);
}

static dp_mechanism
mechanism_of(dp_mechanism_kind kind, uint32_t flags, int64_t horizon, int64_t block, double shape)
{
	dp_mechanism mechanism;

	memset(&mechanism, 0, sizeof(mechanism));
	mechanism.kind = kind;
	mechanism.flags = flags;
	mechanism.epsilon = (flags & DP_FLAG_ZCDP) ? 0.5 : 1;
	mechanism.horizon = horizon;
	mechanism.max_per_step = 1;
	mechanism.block = block;
	mechanism.shape = shape;
	return mechanism;
}

/* the status and field of validation */
static dp_status
validate(dp_mechanism mechanism, const char **field)
{
	*field = "";
	return dp_mechanism_validate(&mechanism, field);
}

/* the placeholders src/pg/dp_errors.c fills (fill_template) */
static const char *const placeholders[] = {
	"name", "kind", "value", "max", "max_plain", "block", "horizon", "horizon_limit", "horizon_max",
	"horizon_max_levels", "tree_levels", "epsilon", "shape", "past", "epsilon_min",
	"epsilon_max", "pan_private_kinds"
};

/* every {placeholder} of a registry text is one dp_errors.c knows */
static bool
template_known(const char *text)
{
	const char *p = text;

	while (p && (p = strchr(p, '{')) != NULL)
	{
		const char *end = strchr(p, '}');
		bool		known = false;

		if (end == NULL)
			return false;
		for (size_t i = 0; i < sizeof(placeholders) / sizeof(placeholders[0]); i++)
			if (strlen(placeholders[i]) == (size_t) (end - p - 1) &&
				strncmp(placeholders[i], p + 1, end - p - 1) == 0)
				known = true;
		if (!known)
			return false;
		p = end + 1;
	}
	return true;
}

/*
 * Each kind's parameters are the ones its text form names (block_name,
 * shape_name, horizon_name), each with a range and a hint, and its texts use only known
 * placeholders.
 */
static void
check_facts(const dp_counter_kind *kind)
{
	const dp_kind_parameter *parameter;
	const dp_kind_refusal *refusal;
	bool		block_declared = false,
				shape_declared = false,
				horizon_declared = false,
				texts_known = true,
				complete = true;

	for (parameter = kind->parameters; parameter && parameter->name; parameter++)
	{
		if (parameter->real ? (kind->shape_name && strcmp(parameter->name, kind->shape_name) == 0) :
			(kind->has_block && strcmp(parameter->name, kind->block_name) == 0))
			*(parameter->real ? &shape_declared : &block_declared) = true;
		else if (!parameter->real && kind->horizon_name && strcmp(parameter->name, kind->horizon_name) == 0)
			horizon_declared = true;
		else
			complete = false;
		if (parameter->range == NULL || parameter->hint == NULL)
			complete = false;
		texts_known &= template_known(parameter->range) && template_known(parameter->hint) &&
			template_known(parameter->message) && template_known(parameter->detail);
	}
	for (refusal = kind->refusals; refusal && refusal->status != DP_OK; refusal++)
		texts_known &= refusal->field != NULL && refusal->message != NULL &&
			template_known(refusal->message) && template_known(refusal->detail) &&
			template_known(refusal->hint);
	tap_ok(complete && block_declared == kind->has_block && shape_declared == (kind->shape_name != NULL) &&
		   horizon_declared == (kind->horizon_name != NULL),
		   "%s: its parameters are declared in the registry, each with a range and a hint", kind->name);
	tap_ok(texts_known, "%s: its texts use only the placeholders dp_errors.c fills", kind->name);
	tap_ok(kind->horizon_max == 0 || (kind->refusals && kind->refusals->status != DP_OK),
		   "%s: a horizon narrower than the common one has a refusal that states it", kind->name);
}

/*
 * dp_auto's choice (dp_counter_kind_auto): for each boundedness and set of
 * options, a ranked kind of that boundedness that accepts them all, with no
 * lower-ranked one that does; without options, balanced digits (dp_auto's
 * documented default).
 */
static void
check_auto(void)
{
	const uint32_t option_sets[] = {
		0, DP_FLAG_PAN_PRIVATE, DP_FLAG_KEYED | DP_FLAG_PAN_PRIVATE, DP_FLAG_PERSON,
		DP_FLAG_PERSON | DP_FLAG_KEYED | DP_FLAG_PAN_PRIVATE, DP_FLAG_CONSISTENT
	};

	for (int bounded = 0; bounded <= 1; bounded++)
		for (size_t s = 0; s < sizeof(option_sets) / sizeof(option_sets[0]); s++)
		{
			uint32_t	flags = option_sets[s];
			const dp_counter_kind *chosen = dp_counter_kind_auto(bounded, flags);
			bool		lowest = chosen != NULL;

			for (size_t i = 0; chosen && dp_counter_kind_at(i) != NULL; i++)
			{
				const dp_counter_kind *kind = dp_counter_kind_at(i);

				if (kind->auto_rank > 0 && kind->bounded == (bool) bounded &&
					(kind->accepted_flags & flags) == flags && kind->auto_rank < chosen->auto_rank)
					lowest = false;
			}
			tap_ok(lowest && chosen->bounded == (bool) bounded && chosen->auto_rank > 0 &&
				   (chosen->accepted_flags & flags) == flags,
				   "dp_auto's choice, %s, options 0x%x: %s, the lowest-ranked kind that accepts them",
				   bounded ? "bounded" : "unbounded", (unsigned) flags, chosen ? chosen->name : "none");
		}
	tap_ok(dp_counter_kind_auto(true, 0)->kind == DP_MECHANISM_BALANCED &&
		   dp_counter_kind_auto(false, 0)->kind == DP_MECHANISM_BALANCED_UNBOUNDED,
		   "without options dp_auto's choice is balanced digits (bounded and unbounded)");
	tap_ok(dp_counter_kind_auto(false, DP_FLAG_ZCDP | DP_FLAG_PAN_PRIVATE) == NULL,
		   "no kind is chosen for options no ranked kind accepts together (unbounded, rho, pan-private)");
}

int
main(void)
{
	const dp_counter_kind *blt = dp_counter_kind_by_id(DP_MECHANISM_BLT);
	const dp_counter_kind *baseline = dp_counter_kind_by_id(DP_MECHANISM_EXPIRING_BASELINE);
	const dp_counter_kind *expiring = dp_counter_kind_by_id(DP_MECHANISM_EXPIRING);
	const dp_counter_kind *rolling = dp_counter_kind_by_id(DP_MECHANISM_ROLLING);
	const dp_counter_kind *decayed = dp_counter_kind_by_id(DP_MECHANISM_DECAYED);
	const char *field;
	dp_status	at,
				beyond;

	for (size_t i = 0; dp_counter_kind_at(i) != NULL; i++)
		check_facts(dp_counter_kind_at(i));
	check_auto();
	check_list(DP_FLAG_KEYED, "keyed");
	check_list(DP_FLAG_PERSON, "person level");
	check_list(DP_FLAG_ZCDP, "rho");
	check_list(DP_FLAG_KEYED | DP_FLAG_PAN_PRIVATE, "keyed and pan-private");
	tap_ok(dp_counter_kinds_accepting(DP_FLAG_KEYED, NULL, 0) == kinds_with_flags_by_id(DP_FLAG_KEYED),
		   "a NULL buffer of size 0 is not written, and the count is still returned");

	/* a kind's limits are where its validation starts to refuse */
	at = validate(mechanism_of(DP_MECHANISM_BLT, DP_FLAG_ZCDP, blt->horizon_max, 0, 0), &field);
	beyond = validate(mechanism_of(DP_MECHANISM_BLT, DP_FLAG_ZCDP, blt->horizon_max + 1, 0, 0), &field);
	tap_ok(blt->horizon_max > 0 && at != DP_ERROR_HORIZON && beyond == DP_ERROR_HORIZON,
		   "blt: horizon_max %lld accepted, one more refused (%d, %d)",
		   (long long) blt->horizon_max, (int) at, (int) beyond);

	at = validate(mechanism_of(DP_MECHANISM_EXPIRING_BASELINE, 0, baseline->horizon_max, 4, 0.5), &field);
	beyond = validate(mechanism_of(DP_MECHANISM_EXPIRING_BASELINE, 0, baseline->horizon_max + 1, 4, 0.5),
					  &field);
	tap_ok(baseline->horizon_max > 0 && at != DP_ERROR_HORIZON && beyond == DP_ERROR_HORIZON,
		   "expiring_baseline: horizon_max %lld accepted, one more refused (%d, %d)",
		   (long long) baseline->horizon_max, (int) at, (int) beyond);
	at = validate(mechanism_of(DP_MECHANISM_EXPIRING_BASELINE, 0, 10, baseline->block_max, 0.5), &field);
	beyond = validate(mechanism_of(DP_MECHANISM_EXPIRING_BASELINE, 0, 10, baseline->block_max + 1, 0.5),
					  &field);
	tap_ok(baseline->block_max > 0 && at != DP_ERROR_BLOCK && beyond == DP_ERROR_BLOCK &&
		   strcmp(field, "window") == 0,
		   "expiring_baseline: a window of block_max accepted, one more refused as the window");

	at = validate(mechanism_of(DP_MECHANISM_EXPIRING, 0, 0, expiring->block_max, 2), &field);
	beyond = validate(mechanism_of(DP_MECHANISM_EXPIRING, 0, 0, expiring->block_max + 1, 2), &field);
	tap_ok(expiring->block_max > 0 && at == DP_OK && beyond == DP_ERROR_BLOCK &&
		   strcmp(field, "delay") == 0,
		   "expiring: a delay of block_max %lld accepted, one more refused as the delay",
		   (long long) expiring->block_max);
	at = validate(mechanism_of(DP_MECHANISM_EXPIRING, 0, 0, 0, expiring->shape_max), &field);
	beyond = validate(mechanism_of(DP_MECHANISM_EXPIRING, 0, 0, 0, nextafter(expiring->shape_max, INFINITY)),
					  &field);
	tap_ok(expiring->shape_max > 0 && at == DP_OK && beyond == DP_ERROR_BLOCK &&
		   strcmp(field, "lambda") == 0,
		   "expiring: lambda of shape_max %g accepted, the next double refused as lambda",
		   expiring->shape_max);

	at = validate(mechanism_of(DP_MECHANISM_ROLLING, 0, 0, rolling->block_max, 1), &field);
	beyond = validate(mechanism_of(DP_MECHANISM_ROLLING, 0, 0, rolling->block_max + 1, 1), &field);
	tap_ok(rolling->block_max > 0 && at == DP_OK && beyond == DP_ERROR_BLOCK &&
		   strcmp(field, "width") == 0,
		   "rolling: a width of block_max %lld accepted, one more refused as the width",
		   (long long) rolling->block_max);
	{
		dp_mechanism widest = mechanism_of(DP_MECHANISM_ROLLING, DP_FLAG_PAN_PRIVATE, 0,
										   rolling->block_max, rolling->shape_max);

		tap_ok(validate(widest, &field) == DP_OK &&
			   dp_counter_persisted_node_count(&widest) + 1 <= DP_COUNTER_MAX_NODES,
			   "rolling: the widest window's full tree (%g levels) and a consistent node fit a state (%d)",
			   rolling->shape_max, dp_counter_persisted_node_count(&widest));
	}
	/* levels: a whole number from 1 to floor(log2 W) + 1, shape_max the widest's */
	{
		dp_status	zero = validate(mechanism_of(DP_MECHANISM_ROLLING, 0, 0, 7, 0), &field);
		dp_status	full = validate(mechanism_of(DP_MECHANISM_ROLLING, 0, 0, 7, 3), &field);
		dp_status	over = validate(mechanism_of(DP_MECHANISM_ROLLING, 0, 0, 7, 4), &field);
		dp_status	half = validate(mechanism_of(DP_MECHANISM_ROLLING, 0, 0, 7, 1.5), &field);
		dp_status	widest_over = validate(mechanism_of(DP_MECHANISM_ROLLING, 0, 0, rolling->block_max,
														rolling->shape_max + 1), &field);

		tap_ok(zero == DP_ERROR_BLOCK && full == DP_OK && over == DP_ERROR_BLOCK &&
			   half == DP_ERROR_BLOCK && widest_over == DP_ERROR_BLOCK && strcmp(field, "levels") == 0,
			   "rolling: levels 1 .. floor(log2 W) + 1 (3 for W = 7) accepted; 0, 4, 1.5 and "
			   "shape_max + 1 at the widest refused as levels");
	}
	at = validate(mechanism_of(DP_MECHANISM_DECAYED, 0, 0, 0, decayed->shape_max), &field);
	beyond = validate(mechanism_of(DP_MECHANISM_DECAYED, 0, 0, 0, nextafter(decayed->shape_max, INFINITY)),
					  &field);
	tap_ok(decayed->shape_max > 0 && at == DP_OK && beyond == DP_ERROR_BLOCK &&
		   strcmp(field, "gamma") == 0,
		   "decayed: gamma of shape_max %g accepted, the next double refused as gamma",
		   decayed->shape_max);

	/* the kinds without limits of their own leave them 0 */
	for (int32_t id = 0; id <= KIND_ID_MAX; id++)
	{
		const dp_counter_kind *kind = dp_counter_kind_by_id(id);

		if (kind && kind != blt && kind != baseline && kind != expiring && kind != decayed &&
			kind != rolling &&
			(kind->horizon_max != 0 || kind->block_max != 0 || kind->shape_max != 0))
			tap_ok(0, "%s has limits of its own that no message states", kind->name);
	}
	tap_ok(1, "only blt, expiring, expiring_baseline, decayed and rolling have limits of their own");
	return tap_done();
}

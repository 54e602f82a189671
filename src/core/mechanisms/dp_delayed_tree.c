/*
 * dp_delayed_tree.c
 *		The engine of the delayed dyadic-interval counter (see
 *		dp_delayed_tree.h for the construction and its privacy argument).
 *
 * A step t does, in this order:
 *   1. close the intervals ending at t (levels l with 2^l | t): their
 *      accumulators take the running total, and with the pan-private
 *      option a second, fresh noise term;
 *   2. let the intervals that become usable at t join the release, lowest
 *      level first: the leaf t, then per group the run of levels whose
 *      interval ends at t - D_l; a joining interval replaces its two
 *      children, which left the cover of the level below;
 *   3. open the next interval of each level closed in 1.
 * Joining before opening lets a slot be reused in the step its previous
 * interval leaves the cover, which is what the ring sizes assume.
 */
#include "dp_delayed_tree.h"

#include <math.h>
#include <stdlib.h>

/* D_l = doubling (2^l - 1) + constant for the group holding l; 0 for level 0 */
static int64_t
group_delay(const dp_delay_group *group, int level)
{
	return group->doubling * ((((int64_t) 1) << level) - 1) + group->constant;
}

static const dp_delay_group *
group_of(const dp_delayed_tree *tree, int level)
{
	for (int g = 0; g < tree->group_count; g++)
		if (level >= tree->groups[g].first && level <= tree->groups[g].last)
			return &tree->groups[g];
	return NULL;
}

int64_t
dp_delayed_tree_delay(const dp_delayed_tree *tree, int level)
{
	const dp_delay_group *group = group_of(tree, level);

	return group ? group_delay(group, level) : 0;
}

int
dp_delayed_tree_class(const dp_delayed_tree *tree, int level)
{
	if (tree->split < 0)
		return level;
	return level <= tree->split ? 0 : 1;
}

/*
 * An interval k of level l opens at step (k - 1) 2^l and is needed until
 * its parent joins, at ceil(k / 2) 2^(l+1) + D_(l+1) <= (k + 1) 2^l +
 * D_(l+1); the interval R slots later opens at (k + R - 1) 2^l, which is
 * no earlier when R >= 2 + D_(l+1) / 2^l.  The top level has no parent,
 * and its group's formula continued one level up is an upper bound there
 * (a stream of at most 2^62 steps opens at most three of its intervals).
 */
int
dp_delayed_tree_ring(const dp_delayed_tree *tree, int level)
{
	const dp_delay_group *group = group_of(tree, level + 1 < tree->levels ? level + 1 : level);
	dp_int128	next_delay = 0;

	if (group)
		next_delay = (dp_int128) group->doubling * ((((dp_int128) 1) << (level + 1)) - 1) +
			group->constant;
	return 2 + (int) ((next_delay + (((dp_int128) 1) << level) - 1) >> level);
}

int
dp_delayed_tree_node_count(const dp_delayed_tree *tree)
{
	int			count = 0;

	for (int level = 0; level < tree->levels; level++)
		count += dp_delayed_tree_ring(tree, level);
	return count;
}

/* the slot of interval k of a level whose ring starts at `offset` */
static inline int
slot_of(int offset, int ring, int64_t k)
{
	return offset + (int) (k % ring);
}

int64_t
dp_delayed_tree_usable_through(const dp_delayed_tree *tree, int level, int64_t t)
{
	int64_t		reach = t - dp_delayed_tree_delay(tree, level);

	return reach <= 0 ? 0 : reach >> level;
}

void
dp_delayed_tree_segment(const dp_delayed_tree *tree, int level, int64_t t,
						int64_t *first, int64_t *last)
{
	*last = dp_delayed_tree_usable_through(tree, level, t);
	*first = level + 1 < tree->levels ? 2 * dp_delayed_tree_usable_through(tree, level + 1, t) : 0;
}

static dp_scale
level_scale(const dp_counter *counter, const dp_delayed_tree *tree, int level)
{
	int			class = dp_delayed_tree_class(tree, level);

	if (class == 0)
		return counter->scale;
	if (class == 1 || !tree->level_scale)
		return counter->second_scale;
	return tree->level_scale(counter, level);
}

static void
open_interval(dp_counter *counter, int slot, const dp_scale *scale, dp_random *rng)
{
	counter->nodes[slot] =
		dp_counter_sub(counter, dp_counter_noise(counter, rng, scale, slot, DP_NOISE_OPEN, 0),
					   counter->running_total);
}

void
dp_delayed_tree_start(dp_counter *counter, const dp_delayed_tree *tree, dp_random *rng)
{
	int			offset = 0;

	for (int level = 0; level < tree->levels; level++)
	{
		dp_scale	scale = level_scale(counter, tree, level);

		open_interval(counter, slot_of(offset, dp_delayed_tree_ring(tree, level), 1), &scale, rng);
		offset += dp_delayed_tree_ring(tree, level);
	}
}

/*
 * Where each level's ring starts, computed as far up as a step needs it:
 * a step touches levels up to about log2 of its trailing zeros, so this
 * keeps a step O(1) amortized instead of a pass over all 62 levels.
 */
typedef struct ring_layout
{
	int			known;			/* levels 0 .. known - 1 are filled */
	int			offsets[DP_DELAYED_TREE_LEVELS_MAX + 1];
	int			rings[DP_DELAYED_TREE_LEVELS_MAX];
} ring_layout;

static void
layout_through(const dp_delayed_tree *tree, ring_layout *layout, int level)
{
	for (; layout->known <= level && layout->known < tree->levels; layout->known++)
	{
		layout->rings[layout->known] = dp_delayed_tree_ring(tree, layout->known);
		layout->offsets[layout->known + 1] =
			layout->offsets[layout->known] + layout->rings[layout->known];
	}
}

/* every level's ring (for the passes over all levels: persist, resume) */
static void
ring_offsets(const dp_delayed_tree *tree, int *offsets, int *rings)
{
	ring_layout layout = {.known = 0};

	layout_through(tree, &layout, tree->levels - 1);
	for (int level = 0; level < tree->levels; level++)
	{
		offsets[level] = layout.offsets[level];
		rings[level] = layout.rings[level];
	}
}

static void
join(dp_counter *counter, const ring_layout *layout, int level, int64_t k)
{
	const int  *offsets = layout->offsets;
	const int  *rings = layout->rings;
	dp_int128	change = counter->nodes[slot_of(offsets[level], rings[level], k)];

	if (level > 0)
	{
		change = dp_counter_sub(counter, change,
								counter->nodes[slot_of(offsets[level - 1], rings[level - 1], 2 * k - 1)]);
		change = dp_counter_sub(counter, change,
								counter->nodes[slot_of(offsets[level - 1], rings[level - 1], 2 * k)]);
	}
	counter->release = dp_counter_add(counter, counter->release, change);
}

void
dp_delayed_tree_push(dp_counter *counter, const dp_delayed_tree *tree, int64_t value,
					 dp_random *rng)
{
	ring_layout layout = {.known = 0};
	const int  *offsets = layout.offsets;
	const int  *rings = layout.rings;
	int64_t		t;
	int			closing;

	counter->running_total += value;	/* at most 2^62 steps of 2^50: no overflow */
	t = ++counter->steps;
	closing = __builtin_ctzll((uint64_t) t);
	if (closing > tree->levels - 1)
		closing = tree->levels - 1;
	layout_through(tree, &layout, closing);

	/* 1. close */
	for (int level = 0; level <= closing; level++)
	{
		int			slot = slot_of(offsets[level], rings[level], t >> level);

		counter->nodes[slot] = dp_counter_add(counter, counter->nodes[slot], counter->running_total);
		if (dp_counter_pan_private(counter))
		{
			dp_scale	scale = level_scale(counter, tree, level);

			counter->nodes[slot] =
				dp_counter_add(counter, counter->nodes[slot],
							   dp_counter_noise(counter, rng, &scale, slot, DP_NOISE_CLOSE,
												counter->nodes[slot]));
		}
	}

	/* 2. join: the leaf, then each group's run of levels */
	join(counter, &layout, 0, t);
	for (int g = 0; g < tree->group_count; g++)
	{
		const dp_delay_group *group = &tree->groups[g];

		for (int level = group->first; level <= group->last; level++)
		{
			int64_t		delay = group_delay(group, level);
			int64_t		reach;

#ifdef DP_TEST_EXPIRING_ONE_STEP_EARLY
			/*
			 * A deliberately broken build for the exact calibration check
			 * (make lp-broken), never shipped: every delayed interval joins
			 * the releases one step before its delay has passed.
			 */
			if (delay > 0)
				delay--;
#endif
			reach = t - delay;

			/* within a group, one level failing means every higher one does */
			if (reach < (((int64_t) 1) << level) || (reach & ((((int64_t) 1) << level) - 1)) != 0)
				break;
			layout_through(tree, &layout, level);
			join(counter, &layout, level, reach >> level);
		}
	}

	/* 3. open */
	for (int level = 0; level <= closing; level++)
	{
		dp_scale	scale = level_scale(counter, tree, level);

		open_interval(counter, slot_of(offsets[level], rings[level], (t >> level) + 1), &scale, rng);
	}
}

void
dp_delayed_tree_persist(const dp_counter *counter, const dp_delayed_tree *tree,
						dp_int128 *nodes)
{
	int			offsets[DP_DELAYED_TREE_LEVELS_MAX];
	int			rings[DP_DELAYED_TREE_LEVELS_MAX];

	ring_offsets(tree, offsets, rings);
	for (int i = 0; i < counter->kind_nodes; i++)
		nodes[i] = counter->nodes[i];
	/*
	 * Each level's open interval takes the running total; nodes and total
	 * are within DP_ARITHMETIC_MAX and 2^112, so the sum cannot overflow
	 * (a forged state past DP_NODE_VALUE_MAX is refused when read back).
	 */
	for (int level = 0; level < tree->levels; level++)
		nodes[slot_of(offsets[level], rings[level], (counter->steps >> level) + 1)] +=
			counter->running_total;
}

void
dp_delayed_tree_resume(dp_counter *counter, const dp_delayed_tree *tree)
{
	int			offsets[DP_DELAYED_TREE_LEVELS_MAX];
	int			rings[DP_DELAYED_TREE_LEVELS_MAX];
	dp_int128	release = 0;

	ring_offsets(tree, offsets, rings);
	counter->running_total = 0;
	for (int level = 0; level < tree->levels; level++)
	{
		int64_t		first;
		int64_t		last;

		dp_delayed_tree_segment(tree, level, counter->steps, &first, &last);
		/* at most two intervals per level for these delays; bounded by the ring */
		for (int64_t k = first + 1; k <= last && k - first <= rings[level]; k++)
			release = dp_counter_add(counter, release,
									 counter->nodes[slot_of(offsets[level], rings[level], k)]);
	}
	counter->release = release;
}

int
dp_delayed_tree_noise_groups(const dp_counter *counter, const dp_delayed_tree *tree,
							 int64_t steps, dp_noise_group *groups)
{
	int64_t		terms_per_interval = dp_counter_pan_private(counter) ? 2 : 1;
	int			count = 0;

	for (int level = 0; level < tree->levels; level++)
	{
		int64_t		first;
		int64_t		last;

		dp_delayed_tree_segment(tree, level, steps, &first, &last);
		if (last <= first)
			continue;
		groups[count].scale = level_scale(counter, tree, level);
		groups[count].terms = (last - first) * terms_per_interval;
		count++;
	}
	return count;
}

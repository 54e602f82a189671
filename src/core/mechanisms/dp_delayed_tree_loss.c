/*
 * dp_delayed_tree_loss.c
 *		The privacy loss of the delayed-tree kinds (dp_expiring,
 *		dp_expiring_baseline) by the age of a unit's data: the tree each kind
 *		builds, the loss per level from the kind's noise classes, and the
 *		exact loss of the noise-shifting argument (dp_delayed_tree.h).
 *
 * This file sits above the engine (dp_delayed_tree.c) and the two kinds
 * that use it: the engine knows no kind, the kinds know the engine.
 */
#include "dp_delayed_tree.h"

#include <math.h>
#include <stdlib.h>

#include "dp_registry.h"

bool
dp_delayed_tree_of(const dp_mechanism *mechanism, dp_delayed_tree *tree)
{
	bool		found = false;

	if (mechanism->kind == DP_MECHANISM_EXPIRING)
		found = dp_expiring_tree(mechanism, tree);
	else if (mechanism->kind == DP_MECHANISM_EXPIRING_BASELINE)
		found = dp_expiring_baseline_tree(mechanism, tree);
	/* the fixed arrays of a step are sized for 62 levels; validation keeps to them */
	return found && tree->levels >= 1 && tree->levels <= DP_DELAYED_TREE_LEVELS_MAX;
}

/* ---- privacy loss ---- */

/*
 * The loss of `count` intervals of one level each, all of class `index`.
 * `as_drawn`: the budget the scale was computed from, cut at
 * DP_EPSILON_MAX (the loss a count's intervals really cost); otherwise the
 * nominal epsilon * budget_weight, which is never less and also bounds a
 * statistic, whose counters split epsilon and each cut its own budget.
 */
static double
class_loss(const dp_mechanism *mechanism, int index, int count, bool as_drawn)
{
	dp_noise_class class;
	const dp_counter_kind *kind = dp_counter_kind_by_id(mechanism->kind);
	double		budget;

	if (count == 0 || !kind->noise_class(mechanism, index, &class))
		return 0;
	budget = mechanism->epsilon * class.budget_weight;
	if (as_drawn && budget > DP_EPSILON_MAX)
		budget = DP_EPSILON_MAX;
	/* a whole class is its budget exactly */
	if ((uint64_t) count == class.l1_units && class.share_denominator == 1)
		return budget;
	return budget * count / ((double) class.l1_units * (double) class.share_denominator);
}

double
dp_delayed_tree_level_loss(const dp_mechanism *mechanism, const dp_delayed_tree *tree, int level)
{
	return class_loss(mechanism, dp_delayed_tree_class(tree, level), 1, true);
}

double
dp_delayed_tree_privacy_loss(const dp_mechanism *mechanism, int64_t age)
{
	dp_delayed_tree tree;
	double		loss = 0;
	int			count = 0;

	if (!dp_delayed_tree_of(mechanism, &tree))
		return mechanism->epsilon;
	/* levels of one class are consecutive: add each class's released levels at once */
	for (int level = 0; level < tree.levels; level++)
	{
		int			class = dp_delayed_tree_class(&tree, level);

		if (dp_delayed_tree_delay(&tree, level) <= age)
			count++;
		if (level + 1 == tree.levels || dp_delayed_tree_class(&tree, level + 1) != class)
		{
			loss += class_loss(mechanism, class, count, false);
			count = 0;
		}
	}
	return loss;
}

typedef struct loss_edge
{
	int64_t		to;
	double		weight;
	int64_t		next;
} loss_edge;

typedef struct heap_entry
{
	double		distance;
	int64_t		vertex;
} heap_entry;

static void
heap_push(heap_entry *heap, int64_t *size, heap_entry entry)
{
	int64_t		i = (*size)++;

	while (i > 0 && heap[(i - 1) / 2].distance > entry.distance)
	{
		heap[i] = heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	heap[i] = entry;
}

static heap_entry
heap_pop(heap_entry *heap, int64_t *size)
{
	heap_entry	top = heap[0];
	heap_entry	last = heap[--(*size)];
	int64_t		i = 0;

	for (;;)
	{
		int64_t		child = 2 * i + 1;

		if (child >= *size)
			break;
		if (child + 1 < *size && heap[child + 1].distance < heap[child].distance)
			child++;
		if (heap[child].distance >= last.distance)
			break;
		heap[i] = heap[child];
		i = child;
	}
	if (*size > 0)
		heap[i] = last;
	return top;
}

dp_status
dp_delayed_tree_exact_loss(const dp_mechanism *mechanism, const double *level_losses,
						   int64_t position, int64_t age, double *loss)
{
	dp_delayed_tree tree;
	double		losses[DP_DELAYED_TREE_LEVELS_MAX];
	int64_t		t;
	int64_t		edge_count = 0;
	int64_t		edge_room;
	int64_t    *first_edge;
	loss_edge  *edges;
	double	   *distance;
	heap_entry *heap;
	int64_t		heap_size = 0;
	dp_status	status = DP_OK;

	if (!dp_delayed_tree_of(mechanism, &tree))
		return DP_ERROR_KIND;
	if (position < 1 || age < 0 || age > DP_EXACT_LOSS_STEPS_MAX ||
		position > DP_EXACT_LOSS_STEPS_MAX - age ||
		(mechanism->horizon > 0 && position + age > mechanism->horizon))
		return DP_ERROR_HORIZON;
	t = position + age;
	for (int level = 0; level < tree.levels; level++)
		losses[level] = level_losses ? level_losses[level] :
			dp_delayed_tree_level_loss(mechanism, &tree, level);

	/* each interval usable by t is one edge; there are fewer than 2 t */
	edge_room = 2 * (2 * t + 2);
	first_edge = malloc(sizeof(int64_t) * (size_t) (t + 1));
	edges = malloc(sizeof(loss_edge) * (size_t) edge_room);
	distance = malloc(sizeof(double) * (size_t) (t + 1));
	heap = malloc(sizeof(heap_entry) * (size_t) edge_room);
	if (!first_edge || !edges || !distance || !heap)
	{
		status = DP_ERROR_OVERFLOW;
		goto done;
	}
	for (int64_t v = 0; v <= t; v++)
	{
		first_edge[v] = -1;
		distance[v] = INFINITY;
	}

	/* the lifetime of interval k of level l in the cover: [join, parent's join - 1] */
	for (int level = 0; level < tree.levels; level++)
	{
		int64_t		delay = dp_delayed_tree_delay(&tree, level);
		int64_t		last = dp_delayed_tree_usable_through(&tree, level, t);

		for (int64_t k = 1; k <= last; k++)
		{
			int64_t		joined = (k << level) + delay;
			int64_t		left = t;
			int64_t		ends[2];

			if (level + 1 < tree.levels)
			{
				int64_t		parent_joined = (((k + 1) / 2) << (level + 1)) +
					dp_delayed_tree_delay(&tree, level + 1);

				if (parent_joined - 1 < left)
					left = parent_joined - 1;
			}
			if (left < joined || edge_count + 2 > edge_room)
				continue;		/* never in a release (its parent joins at once) */
			ends[0] = joined - 1;
			ends[1] = left;
			for (int side = 0; side < 2; side++)
			{
				edges[edge_count].to = ends[1 - side];
				edges[edge_count].weight = losses[level];
				edges[edge_count].next = first_edge[ends[side]];
				first_edge[ends[side]] = edge_count++;
			}
		}
	}

	distance[position - 1] = 0;
	heap_push(heap, &heap_size, (heap_entry) {0, position - 1});
	while (heap_size > 0)
	{
		heap_entry	entry = heap_pop(heap, &heap_size);

		if (entry.distance > distance[entry.vertex])
			continue;
		if (entry.vertex == t)
			break;
		for (int64_t e = first_edge[entry.vertex]; e >= 0; e = edges[e].next)
		{
			double		through = entry.distance + edges[e].weight;

			if (through < distance[edges[e].to] && heap_size < edge_room)
			{
				distance[edges[e].to] = through;
				heap_push(heap, &heap_size, (heap_entry) {through, edges[e].to});
			}
		}
	}
	*loss = distance[t];

done:
	free(first_edge);
	free(edges);
	free(distance);
	free(heap);
	return status;
}

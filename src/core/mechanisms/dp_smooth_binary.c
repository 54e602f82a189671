/*
 * dp_smooth_binary.c
 *		The Smooth Binary mechanism (Andersson and Pagh, "A Smooth Binary
 *		Mechanism for Efficient Private Continual Observation", NeurIPS 2023),
 *		rho-zCDP with discrete Gaussian noise only.
 *
 * ## Construction
 *
 * A complete binary tree over the leaves 0 .. 2^h - 1; a node at level j is
 * a dyadic interval [a 2^j, (a + 1) 2^j).  Only the leaves whose index has
 * exactly k ones in binary are used: x_1 < x_2 < ... are those indices in
 * increasing order (x_1 = 2^k - 1), and the value of step t is put on leaf
 * x_t.  The other leaves hold nothing.  The release after t >= 1 steps is
 * the sum of [0, x_{t+1}): it holds the leaves x_1 .. x_t and no other
 * item, and its dyadic decomposition has one node per set bit of x_{t+1},
 * the node at level j starting at x_{t+1} with bits 0..j cleared.  Every
 * x has k set bits, so every release sums exactly k noisy nodes: the same
 * noise distribution at every t, k discrete Gaussian terms.  (The release
 * after 0 steps is 0, with no noise.)
 *
 * ## Sensitivity
 *
 * Every node of a decomposition is a left child: the level-j node of a
 * boundary e starts at e with bits 0..j cleared, so bit j of its start is
 * 0.  An item on leaf x lies in the level-j node that x's bits above j
 * select; that node is a left child only if bit j of x is 0, and it
 * appears in some decomposition only if a boundary e with popcount k
 * agrees with x above j and has bit j set, which needs popcount(x >> (j+1))
 * <= k - 1: x has a set bit below j.  So the nodes that are ever released
 * and hold a given item are among the zero bits of x above its lowest set
 * bit: at most h - k of them.  The vector of released nodes therefore has
 * squared L2 sensitivity (h - k) U^2 for a unit of U (a step's bound, or a
 * person's K units spread over any steps: each node moves by at most K and
 * all of them by (h - k) K in total), and one noise class of h - k units
 * with the whole budget gives sigma^2 = (h - k) U^2 / (2 rho) per node and
 * rho-zCDP (dp_counter_class_scale).  The release variance is
 * k (h - k) U^2 / (2 rho) at every t, which is (1 + o(1)) log2(T)^2 /
 * (8 rho) for k near h / 2, the paper's figure.  A stored state alone is
 * rho-zCDP as well: its slots (below) are releasable nodes, complete or
 * partial, each with its one noise term, and an item is in at most h - k
 * of them; a state together with the releases made after it is not (the
 * mechanism has no pan-private form).
 *
 * This is tighter than counting one node per level (h units), which would
 * lose to the Gaussian Binary mechanism: the smoothness costs height, and
 * the gain comes from an item never being in more than h - k released
 * nodes, half of the height when k = h / 2.
 *
 * ## Choice of h and k
 *
 * The stream needs x_{T+1} to exist: C(h, k) >= T + 1.  Among those pairs
 * the one with the least k (h - k) is taken (ties: least h, then least k);
 * for a given h the best k is the least valid one up to h / 2, since the
 * valid k form an interval around h / 2 and k (h - k) grows towards it.
 * At T = 2^16 this is h = 19, k = 8: 88 U^2 / (2 rho), against a mean of
 * about 8.5 x 17 for the Gaussian Binary mechanism.  h is at most 62, so
 * the horizon is at most C(62, 31) - 1 (about 2^58.7): every leaf index
 * and boundary is below 2^62 and fits an int64, Pascal's rule stays within
 * uint64 (C(62, 31) < 2^59), the tree has at most 62 nodes and the squared
 * sensitivity (h - k) U^2 <= 61 x 2^48 is within the Gaussian's 2^56.
 *
 * ## Streaming in O(h) nodes
 *
 * With e = x_{t+1} (the next item's leaf and the current boundary), node
 * slot j holds, by the kind of level j:
 *
 *   bit j of e set (closed):  the noisy node of the decomposition at level
 *                             j, complete (its leaves are all below e);
 *   bit j clear, j > ctz(e) (open): the level-j node that contains e and
 *                             can still be released later; its noisy
 *                             accumulator is nodes[j] + running_total, an
 *                             offset as in dp_binary.c, so a stored state
 *                             holds noise + content and no raw partial sum;
 *   bit j clear, j < ctz(e):  a node that can never be released (its items'
 *                             boundaries would need more than k bits); 0,
 *                             no noise.
 *
 * The next boundary e' follows from e (Gosper's hack): with the lowest run
 * of ones of e at bits c .. c + r - 1, e' sets bit c + r, clears the run
 * and sets bits 0 .. r - 2.  Bits above c + r do not change, and neither do
 * their slots.  Level c + r was open and contains e: it closes over its
 * complete content.  Every level below c + r gets a new node whose leaves
 * all lie beyond e, so it holds no item yet: a closed one (it covers only
 * skipped leaves) is its noise alone, drawn now that it is first needed;
 * an open one opens with fresh noise; an unreleasable one is 0.  Every
 * node's noise is drawn once and never changes, so releases at different
 * steps are consistent with one set of node noises.  A step costs O(h):
 * c + r + 1 slots change and the release is re-summed from its k closed
 * slots.
 * At step 0, e = x_1 = 2^k - 1 and levels 0 .. k - 1 are closed nodes that
 * only the (never released) sum at step 0 would use: they stay 0 and are
 * replaced at the first step.
 */
#include "dp_counter.h"
#include "dp_gaussian.h"

#define SMOOTH_HEIGHT_MAX 62

/* derived[]: the design and the next leaf, set by start and resume */
#define DERIVED_HEIGHT 0
#define DERIVED_ONES 1
#define DERIVED_NEXT 2

typedef struct smooth_design
{
	int			height;			/* h: levels 0 .. h - 1 */
	int			ones;			/* k: the popcount of every used leaf */
} smooth_design;

/*
 * The pair (h, k) with C(h, k) >= horizon + 1 and the least k (h - k), or
 * false when no h <= 62 will do.  Pascal's rule row by row, additions only:
 * about 2000 of them.
 */
static bool
smooth_design_for(int64_t horizon, smooth_design *design)
{
	uint64_t	row[SMOOTH_HEIGHT_MAX + 1] = {1};	/* C(h, 0 .. h) */
	uint64_t	needed;
	int64_t		best = -1;

	if (horizon < 1 || horizon > DP_HORIZON_MAX)
		return false;
	needed = (uint64_t) horizon + 1;
	for (int h = 1; h <= SMOOTH_HEIGHT_MAX; h++)
	{
		for (int k = h; k >= 1; k--)
			row[k] += row[k - 1];
		/* for k <= h / 2, C(h, k) and k (h - k) both grow with k */
		for (int k = 1; k <= h / 2; k++)
			if (row[k] >= needed)
			{
				int64_t		cost = (int64_t) k * (h - k);

				if (best < 0 || cost < best)
				{
					best = cost;
					design->height = h;
					design->ones = k;
				}
				break;
			}
		/* every later h costs at least 1 x (h - 1) */
		if (best >= 0 && h >= best)
			break;
	}
	return best >= 0;
}

/* the design of a validated mechanism (a harmless one otherwise) */
static smooth_design
design_of(const dp_mechanism *mechanism)
{
	smooth_design design = {2, 1};

	(void) smooth_design_for(mechanism->horizon, &design);
	return design;
}

/*
 * The leaf of step rank + 1: the (rank + 1)-th h-bit index with k ones, in
 * increasing order, read off the combinatorial number system from the top
 * bit down (C(i, m) indices leave bit i clear with m ones still to place).
 */
static uint64_t
smooth_unrank(int height, int ones, int64_t rank)
{
	uint64_t	row[SMOOTH_HEIGHT_MAX + 1] = {1};	/* C(n, 0 .. n) */
	uint64_t	remaining = (uint64_t) rank;
	uint64_t	leaf = 0;
	int			m = ones;

	/* row n = height - 1 ... */
	for (int n = 1; n < height; n++)
		for (int k = n; k >= 1; k--)
			row[k] += row[k - 1];
	for (int i = height - 1; i >= 0 && m > 0; i--)
	{
		/* ... here row holds C(i, .) */
		uint64_t	below = m <= i ? row[m] : 0;

		if (remaining >= below)
		{
			remaining -= below;
			leaf |= ((uint64_t) 1) << i;
			m--;
		}
		/* C(i - 1, k) = C(i, k) - C(i - 1, k - 1), upwards from k = 1 */
		for (int k = 1; k < i; k++)
			row[k] -= row[k - 1];
		row[i] = 0;
	}
	return leaf;
}

static bool
slot_open(uint64_t boundary, int level)
{
	return !((boundary >> level) & 1) && level > __builtin_ctzll(boundary);
}

static dp_status
smooth_validate(const dp_mechanism *mechanism, const char **field)
{
	smooth_design design;

	if (!(mechanism->flags & DP_FLAG_ZCDP))
	{
		*field = "rho_required";
		return DP_ERROR_OPTION;
	}
	if (!smooth_design_for(mechanism->horizon, &design))
	{
		*field = "horizon";
		return DP_ERROR_HORIZON;
	}
	/* (h - k) U^2 <= 61 x 2^48; checked for a future change of either limit */
	if (dp_mechanism_unit_bound(mechanism) > DP_ZCDP_UNIT_MAX ||
		(uint64_t) (design.height - design.ones) * dp_mechanism_unit_bound(mechanism) *
		dp_mechanism_unit_bound(mechanism) > DP_GAUSSIAN_SENSITIVITY_SQUARED_MAX)
	{
		*field = (mechanism->flags & DP_FLAG_PERSON) ? "contributions" : "max_per_step";
		return DP_ERROR_SENSITIVITY;
	}
	return DP_OK;
}

static int
smooth_node_count(const dp_mechanism *mechanism)
{
	return design_of(mechanism).height;
}

/* one class: an item is in at most h - k released nodes */
static bool
smooth_noise_class(const dp_mechanism *mechanism, int index, dp_noise_class *out)
{
	smooth_design design = design_of(mechanism);

	return index == 0 &&
		dp_noise_class_nodes(out, (uint64_t) (design.height - design.ones), 1);
}

static void
smooth_derive(dp_counter *counter, uint64_t next)
{
	smooth_design design = design_of(&counter->mechanism);

	counter->derived[DERIVED_HEIGHT] = design.height;
	counter->derived[DERIVED_ONES] = design.ones;
	counter->derived[DERIVED_NEXT] = (int64_t) next;
}

static dp_int128
closed_sum(dp_counter *counter, uint64_t boundary)
{
	dp_int128	sum = 0;

	for (int level = 0; level < counter->kind_nodes; level++)
		if ((boundary >> level) & 1)
			sum = dp_counter_add(counter, sum, counter->nodes[level]);
	return sum;
}

static void
smooth_start(dp_counter *counter, dp_random *rng)
{
	smooth_design design = design_of(&counter->mechanism);
	uint64_t	first = (((uint64_t) 1) << design.ones) - 1;

	smooth_derive(counter, first);
	for (int level = 0; level < counter->kind_nodes; level++)
		counter->nodes[level] = slot_open(first, level) ?
			dp_counter_sub(counter,
						   dp_counter_noise(counter, rng, &counter->scale, level, DP_NOISE_OPEN, 0),
						   counter->running_total) : 0;
	counter->release = 0;
}

static void
smooth_push(dp_counter *counter, int64_t value, dp_random *rng)
{
	uint64_t	leaf = (uint64_t) counter->derived[DERIVED_NEXT];
	uint64_t	lowest = leaf & -leaf;
	uint64_t	ripple = leaf + lowest;
	/* Gosper's hack: the next index with as many ones */
	uint64_t	next = ripple | (((ripple ^ leaf) >> 2) / lowest);
	int			closing = __builtin_ctzll(ripple);

	dp_int128	leaving = 0;

	/* the nodes of leaf's run of ones, before they are replaced */
	for (int level = __builtin_ctzll(leaf); level < closing; level++)
		leaving = dp_counter_add(counter, leaving, counter->nodes[level]);

	counter->running_total += value;	/* at most 2^59 steps of 2^50: no overflow */
	counter->steps++;

	/* the open node at level c + r holds its last item, on `leaf`: it closes */
	counter->nodes[closing] = dp_counter_add(counter, counter->nodes[closing],
											 counter->running_total);

	/* the levels below get nodes whose leaves all lie beyond `leaf` */
	for (int level = 0; level < closing; level++)
	{
		if ((next >> level) & 1)
			counter->nodes[level] = dp_counter_noise(counter, rng, &counter->scale, level,
													 DP_NOISE_OPEN, 0);
		else if (slot_open(next, level))
			counter->nodes[level] =
				dp_counter_sub(counter,
							   dp_counter_noise(counter, rng, &counter->scale, level,
												DP_NOISE_OPEN, 0),
							   counter->running_total);
		else
			counter->nodes[level] = 0;
	}
	counter->derived[DERIVED_NEXT] = (int64_t) next;

	/*
	 * The release from the one before: next agrees with leaf above
	 * `closing` and those nodes did not move, so the nodes of leaf's run of
	 * ones (levels lowest .. closing - 1, as they were) leave and those of
	 * next's bits up to `closing` (as they are now) come in: O(1) amortised
	 * rather than every level.  Step 1 (the release before it is 0, not
	 * leaf's nodes) and a counter past an overflow (the release before is
	 * not their sum) sum every level.
	 */
	if (counter->steps == 1 || counter->overflow)
		counter->release = closed_sum(counter, next);
	else
	{
		dp_int128	release = dp_counter_sub(counter, counter->release, leaving);

		for (int level = 0; level <= closing; level++)
			if ((next >> level) & 1)
				release = dp_counter_add(counter, release, counter->nodes[level]);
		counter->release = release;
	}
}

static void
smooth_persist(const dp_counter *counter, dp_int128 *nodes)
{
	uint64_t	boundary = (uint64_t) counter->derived[DERIVED_NEXT];

	for (int level = 0; level < counter->kind_nodes; level++)
		nodes[level] = counter->nodes[level] +
			(slot_open(boundary, level) ? counter->running_total : 0);
}

static void
smooth_resume(dp_counter *counter)
{
	smooth_design design = design_of(&counter->mechanism);
	/* steps <= horizon <= C(h, k) - 1: the rank exists */
	uint64_t	boundary = smooth_unrank(design.height, design.ones, counter->steps);

	smooth_derive(counter, boundary);
	counter->running_total = 0;
	counter->release = counter->steps == 0 ? 0 : closed_sum(counter, boundary);
}

/* k terms at every step but the first */
static int
smooth_noise_groups(const dp_counter *counter, int64_t steps, dp_noise_group *groups)
{
	groups[0].scale = counter->scale;
	groups[0].terms = steps > 0 ? design_of(&counter->mechanism).ones : 0;
	return 1;
}

const dp_counter_kind dp_smooth_binary_kind = {
	.name = "smooth_binary",
	.kind = DP_MECHANISM_SMOOTH_BINARY,
	.bounded = true,
	.accepted_flags = DP_FLAG_ZCDP | DP_FLAG_CONSISTENT | DP_FLAG_PERSON | DP_FLAG_PER_OBSERVATION,
	.validate = smooth_validate,
	.node_count = smooth_node_count,
	.noise_class = smooth_noise_class,
	.start = smooth_start,
	.push = smooth_push,
	.persist = smooth_persist,
	.resume = smooth_resume,
	.noise_groups = smooth_noise_groups,
};

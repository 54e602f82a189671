/*
 * dp_balanced.c
 *		The k-ary tree with balanced (negative) digits of Andersson, Pagh,
 *		Steiner and Torkamani, "Count on Your Elders: Laplace vs Gaussian
 *		Noise" (FORC 2025) [APST25].
 *
 * For odd k, write t with digits d_j in [-h, h], h = (k - 1) / 2.  Level j
 * holds the intervals ((m - 1) k^j, m k^j].  Going down from the top level,
 * with p_L = 0 and p_j = p_{j+1} + d_j k^j (so p_0 = t), a positive digit
 * adds the d_j intervals just after p_{j+1}, a negative one subtracts the
 * |d_j| intervals just before it.  Intervals may end after t: the items
 * after t are not there yet, so the signed contents telescope to the true
 * prefix sum and the release is S(t) plus the signed sum of the noise of
 * at most sum |d_j| intervals.  Each item lies in one interval per level:
 * L1 sensitivity L N, scale L N / epsilon, with L the balanced digits the
 * horizon needs ((k^L - 1) / 2 >= T).
 *
 * Storage: level j keeps a window of W = 2k + 1 intervals around
 * f = floor(t / k^j), m in [f - k, f + k], in slots m mod W.  Every interval
 * a release at any later step can use is in the window from before its
 * first item on (|p_{j+1} / k^j - t / k^j| < k / 2), and leaves it only
 * once no release can use it.  An interval's noise is drawn when it enters
 * the window, before its data (the adaptivity assumption of
 * docs/mechanisms.md).  Its slot holds the noise alone before its first
 * item, the noise minus the running total at its start while it is open
 * (the offset form of dp_binary.c: a stored state holds the noise plus the
 * partial content), and the noise plus its content once closed.
 */
#include "dp_balanced_tree.h"

#include <math.h>
#include <string.h>

/* the nodes of dp_balanced before states could hold more (kept: defaults stay) */
#define BALANCED_NODES_MAX 255

/*
 * base^exponent, saturating at INT64_MAX: the top level of the last block a
 * stream of 2^62 steps can reach (dp_balanced_blocks.c) may have k^j beyond
 * int64; no step reaches its intervals, and a saturated power keeps every
 * division by it well defined (its digit is 0).
 */
static int64_t
saturating_times(int64_t power, int64_t base)
{
	return power > INT64_MAX / base ? INT64_MAX : power * base;
}

/* balanced digits needed: the least L with (k^L - 1) / 2 >= horizon */
int
dp_balanced_levels(int64_t horizon, int64_t arity)
{
	int			levels = 1;
	int64_t		power = arity;	/* arity^levels */

	while ((power - 1) / 2 < horizon && levels < 40)
	{
		if (power > INT64_MAX / arity)
			return levels + 1;
		power *= arity;
		levels++;
	}
	return levels;
}

static dp_status
balanced_validate(const dp_mechanism *mechanism, const char **field)
{
	int64_t		k = mechanism->block;

	if (!dp_balanced_arity_valid(k) ||
		(int64_t) dp_balanced_levels(mechanism->horizon, k) * (2 * k + 1) > BALANCED_NODES_MAX ||
		/* k^L must fit int64 for the digit arithmetic */
		(double) dp_balanced_levels(mechanism->horizon, k) * log2((double) k) > 62)
	{
		*field = "arity";
		return DP_ERROR_BLOCK;
	}
	return DP_OK;
}

/*
 * The odd arity with the least mean variance, from the mean of |d| over
 * uniform balanced digits, (k^2 - 1) / (4k), times the levels cubed (L
 * digits, each term of variance proportional to L^2): exact enough to
 * choose, and a public function of the horizon.
 */
int64_t
dp_balanced_default_arity(int64_t horizon)
{
	int64_t		best = DP_BALANCED_ARITY_MIN;
	double		best_cost = INFINITY;

	for (int64_t k = DP_BALANCED_ARITY_MIN; k <= DP_BALANCED_ARITY_MAX; k += 2)
	{
		int			levels = dp_balanced_levels(horizon < 1 ? 1 : horizon, k);
		double		cost = (double) levels * levels * levels * ((double) k * k - 1) / (4.0 * k);

		if ((int64_t) levels * (2 * k + 1) > BALANCED_NODES_MAX ||
			(double) levels * log2((double) k) > 62)
			continue;
		if (cost < best_cost)
		{
			best_cost = cost;
			best = k;
		}
	}
	return best;
}

static int
balanced_node_count(const dp_mechanism *mechanism)
{
	return dp_balanced_tree_nodes(mechanism->block, dp_balanced_levels(mechanism->horizon, mechanism->block));
}

/* each item lies in one interval per level */
static bool
balanced_noise_class(const dp_mechanism *mechanism, int index, dp_noise_class *out)
{
	return index == 0 &&
		dp_noise_class_nodes(out, (uint64_t) dp_balanced_levels(mechanism->horizon, mechanism->block), 1);
}

/* the levels, from the parameters alone: once per counter, not per step */
static void
balanced_derive(dp_counter *counter)
{
	counter->derived[0] = dp_balanced_levels(counter->mechanism.horizon, counter->mechanism.block);
}

static dp_balanced_tree
whole_tree(const dp_counter *counter)
{
	dp_balanced_tree tree = {
		.first = 0,
		.arity = counter->mechanism.block,
		.levels = counter->derived[0] > 0 ? (int) counter->derived[0] :
		dp_balanced_levels(counter->mechanism.horizon, counter->mechanism.block),
		.scale = counter->scale,
	};

	return tree;
}

static void balanced_tree_push_digits(dp_counter *counter, const dp_balanced_tree *tree,
									  int64_t t, int64_t value, dp_random *rng);
static dp_int128 balanced_release_next(dp_counter *counter, const dp_balanced_tree *tree,
									   int64_t t, dp_int128 before);

static void
balanced_start(dp_counter *counter, dp_random *rng)
{
	dp_balanced_tree tree = whole_tree(counter);

	dp_balanced_tree_open(counter, &tree, rng);
}

static void
balanced_push(dp_counter *counter, int64_t value, dp_random *rng)
{
	dp_balanced_tree tree = whole_tree(counter);

	counter->steps++;
	balanced_tree_push_digits(counter, &tree, counter->steps, value, rng);
	/* from the release before: only the levels whose digit changed */
	counter->release = balanced_release_next(counter, &tree, counter->steps, counter->release);
}

static void
balanced_persist(const dp_counter *counter, dp_int128 *nodes)
{
	dp_balanced_tree tree = whole_tree(counter);

	for (int i = 0; i < counter->kind_nodes; i++)
		nodes[i] = counter->nodes[i];
	dp_balanced_tree_persist(counter, &tree, counter->steps, nodes);
}

static void
balanced_resume(dp_counter *counter)
{
	dp_balanced_tree tree = whole_tree(counter);

	counter->running_total = 0;
	counter->release = dp_balanced_tree_release(counter, &tree, counter->steps);
}

static int
balanced_noise_groups(const dp_counter *counter, int64_t steps, dp_noise_group *groups)
{
	dp_balanced_tree tree = whole_tree(counter);

	groups[0].scale = counter->scale;
	groups[0].terms = dp_balanced_tree_noise_terms(&tree, steps);
	return 1;
}

/*
 * One balanced-digit tree inside a counter's nodes (dp_balanced_tree.h),
 * used whole here and once per block by dp_balanced_blocks.c.
 */
static int
window(const dp_balanced_tree *tree)
{
	return 2 * (int) tree->arity + 1;
}

int
dp_balanced_tree_nodes(int64_t arity, int levels)
{
	return levels * (2 * (int) arity + 1);
}

bool
dp_balanced_arity_valid(int64_t arity)
{
	return arity >= DP_BALANCED_ARITY_MIN && arity <= DP_BALANCED_ARITY_MAX && arity % 2 == 1;
}

static int
slot_of(const dp_balanced_tree *tree, int level, int64_t m)
{
	int64_t		w = window(tree);
	int64_t		rest = m % w;

	/* one division per slot: this runs for every interval of every release */
	if (rest < 0)
		rest += w;
	return tree->first + level * (int) w + (int) rest;
}

/* the noise of interval m entering the window (nothing for m < 1: no items) */
static void
enter(dp_counter *counter, const dp_balanced_tree *tree, int level, int64_t m, dp_random *rng)
{
	int			slot = slot_of(tree, level, m);

	counter->nodes[slot] = m < 1 ? 0 :
		dp_counter_noise(counter, rng, &tree->scale, slot, DP_NOISE_OPEN, 0);
}

void
dp_balanced_tree_open(dp_counter *counter, const dp_balanced_tree *tree, dp_random *rng)
{
	int64_t		k = tree->arity;

	for (int level = 0; level < tree->levels; level++)
		for (int64_t m = -k; m <= k; m++)
			enter(counter, tree, level, m, rng);
}

void
dp_balanced_tree_push(dp_counter *counter, const dp_balanced_tree *tree, int64_t t,
					  int64_t value, dp_random *rng)
{
	int64_t		k = tree->arity;
	int64_t		power = 1;

	/*
	 * intervals whose first item is t open: offset by the total before it
	 * (power stops at k^(levels - 1): in the last block of an unbounded
	 * stream k^levels need not fit int64).  k^j divides k^(j + 1), so no
	 * level above the first that does not open (or close, below) does: the
	 * loops stop there, one division a step on average rather than two per
	 * level.
	 */
	for (int level = 0; level < tree->levels; level++, power = saturating_times(power, k))
	{
		int64_t		q = (t - 1) / power;
		int			slot;

		if (q * power != t - 1)
			break;
		slot = slot_of(tree, level, q + 1);
		counter->nodes[slot] = dp_counter_sub(counter, counter->nodes[slot],
											  counter->running_total);
	}
	counter->running_total += value;	/* at most 2^62 steps of 2^50: no overflow */

	/* intervals whose last item is t close; the window moves on */
	power = 1;
	for (int level = 0; level < tree->levels; level++, power = saturating_times(power, k))
	{
		int64_t		f = t / power;
		int			slot;

		if (f * power != t)
			break;
		slot = slot_of(tree, level, f);
		counter->nodes[slot] = dp_counter_add(counter, counter->nodes[slot],
											  counter->running_total);
		enter(counter, tree, level, f + k, rng);
	}
}

/* interval (level, m) at local step t, noise and content so far */
static dp_int128
interval(dp_counter *counter, const dp_balanced_tree *tree, int64_t t, int level,
		 int64_t power, int64_t m)
{
	dp_int128	value = counter->nodes[slot_of(tree, level, m)];
	bool		open = (dp_int128) (m - 1) * power < t && (dp_int128) m * power > t;

	return open ? dp_counter_add(counter, value, counter->running_total) : value;
}

static void
balanced_digits(int64_t t, int64_t k, int levels, int64_t *digits)
{
	int64_t		h = (k - 1) / 2;

	for (int j = 0; j < levels; j++)
	{
		int64_t		d = t % k;

		if (d > h)
			d -= k;
		digits[j] = d;
		t = (t - d) / k;
	}
}

/*
 * The balanced digits of t and of t - 1 for the counter's arity and number
 * of levels, kept in the counter's memo (now: memo[0..63], before:
 * memo[64..127]; levels never pass 40, so memo[MEMO_CHANGED] and
 * memo[MEMO_SLOT] are free): the next step needs only a carry.
 * memo[MEMO_CHANGED] is the highest level whose digit differs between t - 1
 * and t (so the next step copies only the levels up to it), memo[MEMO_SLOT]
 * is t mod (2k + 1), level 0's slot of interval t (so a step needs no
 * division for it).  All are pure functions of t and the tree, so a stale
 * or copied memo cannot change a value.
 */
#define MEMO_CHANGED 62
#define MEMO_SLOT 63
_Static_assert(MEMO_CHANGED >= 40, "the memo's extra words lie above the deepest digits");

typedef struct digit_pair
{
	const int64_t *now;			/* digits of t */
	const int64_t *before;		/* digits of t - 1 */
	int64_t		slot;			/* t mod (2k + 1) */
	int			changed;		/* the highest level whose digit changed */
} digit_pair;

static digit_pair
digits_of_step(dp_counter *counter, int64_t t, int64_t k, int levels)
{
	int64_t    *now = counter->memo;
	int64_t    *before = counter->memo + 64;
	int64_t		h = (k - 1) / 2;
	int64_t		w = 2 * k + 1;
	digit_pair	pair = {now, before, 0, 0};

	if (counter->memo_step == t)
	{
		pair.slot = counter->memo[MEMO_SLOT];
		pair.changed = (int) counter->memo[MEMO_CHANGED];
		return pair;
	}
	if (counter->memo_step >= 0 && counter->memo_step == t - 1)
	{
		int			j = 0;

		/* before == now above the levels the last step changed */
		for (int i = 0; i <= counter->memo[MEMO_CHANGED]; i++)
			before[i] = now[i];
		now[0]++;
		while (now[j] > h && j + 1 < levels)
		{
			now[j] -= k;
			now[++j]++;
		}
		if (now[j] <= h)
		{
			int64_t		slot = counter->memo[MEMO_SLOT] + 1;

			counter->memo[MEMO_SLOT] = slot == w ? 0 : slot;
			counter->memo[MEMO_CHANGED] = j;
			counter->memo_step = t;
			pair.slot = counter->memo[MEMO_SLOT];
			pair.changed = j;
			return pair;
		}
		/* beyond the top digit: as balanced_digits writes it */
	}
	balanced_digits(t, k, levels, now);
	balanced_digits(t - 1, k, levels, before);
	counter->memo[MEMO_SLOT] = t % w;
	counter->memo[MEMO_CHANGED] = levels - 1;
	counter->memo_step = t;
	pair.slot = counter->memo[MEMO_SLOT];
	pair.changed = levels - 1;
	return pair;
}

/*
 * The release after local step t of a bounded tree, from the release before
 * it.  Every interval's value is its noise plus its items up to now, and
 * the signed contents of the intervals a release uses telescope to the
 * prefix sum, so
 *
 *   release(t) = release(t - 1)
 *                + sum over the levels whose digit changed of the new
 *                  intervals' values minus the old intervals' values, now:
 *
 * the intervals of the levels that did not change are the same, and item t
 * is in none of the old release's intervals net (level j's signed intervals
 * cover (p_{j+1}, p_j] or subtract (p_j, p_{j+1}]; summed over the levels
 * they cover every position up to p_0 = t - 1 once and none after it), so
 * the values they add did not move with it.  The levels that change are
 * those of the carry: the highest one's digit went up by one and its
 * intervals keep their start, so one interval comes in; the levels below
 * it wrapped from h to -h and are replaced whole (k - 1 intervals, at level
 * j once every k^(j + 1) steps).  About two intervals a step on average,
 * rather than sum |d_j| (about 26 at the default arity for 2 million
 * steps).  Integer arithmetic, so the value is the one
 * dp_balanced_tree_release gives (test_balanced checks it step by step).
 * One division a step (the slot of the first interval of a range): the
 * powers, the interval of t and the open interval come from the digits.
 * k^levels fits int64 for the bounded kind (balanced_validate); the
 * unbounded kind's trees use it too (dp_balanced_tree_step).
 */
/*
 * dp_balanced_tree_push for the whole tree of the bounded kind, in the same
 * order (the opening intervals, the step's value, the closing intervals
 * with the noise of those entering the window), from the digits of t and
 * t - 1 (which the release needs next anyway): k^j divides t - 1 exactly
 * when its j lowest digits are 0, so the levels that open or close are read
 * off the digits, level 0's interval is t itself, and its slots need one
 * division for the step; a level above 0 divides only when it opens or
 * closes.
 */
static void
balanced_tree_push_digits(dp_counter *counter, const dp_balanced_tree *tree, int64_t t,
						  int64_t value, dp_random *rng)
{
	int64_t		k = tree->arity;
	int			w = window(tree);
	digit_pair	pair = digits_of_step(counter, t, k, tree->levels);
	int64_t		rest = pair.slot;
	int			slot_t = tree->first + (int) rest;	/* level 0, interval t */
	int			slot_enter = tree->first + (int) (rest + k >= w ? rest + k - w : rest + k);
	int64_t		power = k;

	/* level 0: interval t opens with item t */
	counter->nodes[slot_t] = dp_counter_sub(counter, counter->nodes[slot_t], counter->running_total);
	for (int level = 1; level < tree->levels && pair.before[level - 1] == 0;
		 level++, power = saturating_times(power, k))
	{
		int			slot = slot_of(tree, level, (t - 1) / power + 1);

		counter->nodes[slot] = dp_counter_sub(counter, counter->nodes[slot],
											  counter->running_total);
	}
	counter->running_total += value;	/* at most 2^62 steps of 2^50: no overflow */

	/* level 0: interval t closes; t + k enters the window */
	counter->nodes[slot_t] = dp_counter_add(counter, counter->nodes[slot_t], counter->running_total);
	counter->nodes[slot_enter] = t + k < 1 ? 0 :
		dp_counter_noise(counter, rng, &tree->scale, slot_enter, DP_NOISE_OPEN, 0);
	power = k;
	for (int level = 1; level < tree->levels && pair.now[level - 1] == 0;
		 level++, power = saturating_times(power, k))
	{
		int64_t		f = t / power;
		int			slot = slot_of(tree, level, f);

		counter->nodes[slot] = dp_counter_add(counter, counter->nodes[slot],
											  counter->running_total);
		enter(counter, tree, level, f + k, rng);
	}
}

/*
 * release plus (n > 0) or minus (n < 0) the values now of the |n|
 * consecutive intervals of a level from interval first on; the open one,
 * m_t when t_open, with the running total it holds.
 */
static dp_int128
signed_range(dp_counter *counter, const dp_balanced_tree *tree, dp_int128 release, int level,
			 int64_t first, int64_t n, bool t_open, int64_t m_t)
{
	int			w = window(tree);
	int64_t		count = n < 0 ? -n : n;
	int64_t		rest = first % w;
	int			base = tree->first + level * w;
	int			slot;

	if (rest < 0)
		rest += w;
	slot = base + (int) rest;
	for (int64_t i = 0; i < count; i++)
	{
		dp_int128	v = counter->nodes[slot];

		if (t_open && first + i == m_t)
			v = dp_counter_add(counter, v, counter->running_total);
		release = n > 0 ? dp_counter_add(counter, release, v) : dp_counter_sub(counter, release, v);
		if (++slot == base + w)
			slot = base;
	}
	return release;
}

static dp_int128
balanced_release_next(dp_counter *counter, const dp_balanced_tree *tree, int64_t t,
					  dp_int128 before)
{
	int64_t		k = tree->arity;
	int			levels = tree->levels;
	digit_pair	pair = digits_of_step(counter, t, k, levels);
	int64_t		powers[64];
	int64_t		c_new = 0;		/* p_{j+1} / k^j after step t */
	int64_t		c_old = 0;		/* the same for t - 1 */
	int			top = levels - 1;
	dp_int128	release = before;

	/*
	 * Only level 0's digit changed (k - 1 steps in k): it went up by one
	 * with the same start, so the one interval (c + d_old, c + d_new] comes
	 * in, which is interval t itself, closed now.  The general loop below
	 * gives the same sum (signed_range at level 0 with first = t, n = 1,
	 * t not open) without the powers and the slot's division.
	 */
	if (pair.changed == 0)
		return dp_counter_add(counter, release,
							  counter->nodes[tree->first + (int) pair.slot]);

	/*
	 * saturating: in the last blocks of the unbounded kind k^(levels - 1)
	 * can pass int64, at levels whose digits stay 0 (their power is not
	 * read)
	 */
	powers[0] = 1;
	for (int j = 1; j < levels; j++)
		powers[j] = saturating_times(powers[j - 1], k);
	while (top >= 0 && pair.now[top] == pair.before[top])
		top--;

	for (int j = levels - 1; j >= 0; j--)
	{
		int64_t		d_new = pair.now[j];
		int64_t		d_old = pair.before[j];

		if (j <= top)
		{
			int64_t		power = powers[j];

			/*
			 * the interval of item t at this level, from t - 1's digits; open
			 * after t unless t is its last item
			 */
			int64_t		above = c_old + d_old;	/* p_j(t - 1) / k^j */
			int64_t		rest = (t - 1) - above * power;
			int64_t		m_t = above + (rest < 0 ? -1 : 0) + 1;
			bool		t_open = (dp_int128) m_t * power > t;

			if (c_old == c_new)
			{
				/*
				 * the same start (the top level that changed: its digit
				 * went up by one): the signed intervals differ by +1 on
				 * (c + d_old, c + d_new] whatever the digits' signs
				 */
				release = signed_range(counter, tree, release, j,
									   c_new + (d_old < d_new ? d_old : d_new) + 1,
									   d_new - d_old, t_open, m_t);
			}
			else
			{
				/* a carry went through: the old intervals out, the new ones in */
				release = signed_range(counter, tree, release, j,
									   d_old > 0 ? c_old + 1 : c_old + d_old + 1,
									   -d_old, t_open, m_t);
				release = signed_range(counter, tree, release, j,
									   d_new > 0 ? c_new + 1 : c_new + d_new + 1,
									   d_new, t_open, m_t);
			}
		}
		if (j > 0)
		{
			c_new = (c_new + d_new) * k;
			c_old = (c_old + d_old) * k;
		}
	}
	return release;
}

/*
 * Local step t of a tree whose release after t - 1 was `before` (0 at
 * t = 1): the push from the digits and the release from the one before,
 * as the bounded kind steps.  The digits' memo is the counter's, a function
 * of t and the tree's arity and levels: a caller whose tree changes under
 * the same counter (the unbounded kind's next block) clears it first
 * (memo_step = -1).
 */
dp_int128
dp_balanced_tree_step(dp_counter *counter, const dp_balanced_tree *tree, int64_t t,
					  int64_t value, dp_random *rng, dp_int128 before)
{
	balanced_tree_push_digits(counter, tree, t, value, rng);
	return balanced_release_next(counter, tree, t, before);
}

dp_int128
dp_balanced_tree_release(dp_counter *counter, const dp_balanced_tree *tree, int64_t t)
{
	int64_t		k = tree->arity;
	int64_t		digits[64];
	int64_t		powers[64];
	int64_t		p = 0;
	dp_int128	release = 0;

	balanced_digits(t, k, tree->levels, digits);
	/* k^j for every level, once per release rather than once per level */
	powers[0] = 1;
	for (int j = 1; j < tree->levels; j++)
		powers[j] = saturating_times(powers[j - 1], k);
	for (int j = tree->levels - 1; j >= 0; j--)
	{
		int64_t		power = powers[j];
		int64_t		c = p / power;

		for (int64_t i = 1; i <= digits[j]; i++)
			release = dp_counter_add(counter, release, interval(counter, tree, t, j, power, c + i));
		for (int64_t i = 0; i < -digits[j]; i++)
			release = dp_counter_sub(counter, release, interval(counter, tree, t, j, power, c - i));
		p += digits[j] * power;
	}
	return release;
}

void
dp_balanced_tree_persist(const dp_counter *counter, const dp_balanced_tree *tree, int64_t t,
						 dp_int128 *nodes)
{
	int64_t		k = tree->arity;
	int64_t		power = 1;

	/* the one open interval of each level: the one that will hold item t + 1 */
	for (int level = 0; level < tree->levels; level++, power = saturating_times(power, k))
	{
		int64_t		m = t / power + 1;

		if ((m - 1) * power < t)
			nodes[slot_of(tree, level, m)] += counter->running_total;
	}
}

int64_t
dp_balanced_tree_noise_terms(const dp_balanced_tree *tree, int64_t t)
{
	int64_t		digits[64];
	int64_t		terms = 0;

	balanced_digits(t, tree->arity, tree->levels, digits);
	for (int j = 0; j < tree->levels; j++)
		terms += digits[j] < 0 ? -digits[j] : digits[j];
	return terms;
}

static const dp_kind_parameter balanced_parameters[] = {
	{.name = "arity", .range = "odd, at least 3, with a bounded number of nodes for the horizon",
		.default_text = "the arity with the least mean variance for the horizon",
		.message = "arity out of range for this mechanism and horizon",
		.detail = "arity was {value}, horizon {horizon}.",
	.hint = "Leave arity out to get the one with the least mean variance for the horizon."},
	{.name = NULL}
};

const dp_counter_kind dp_balanced_kind = {
	.name = "balanced",
	.kind = DP_MECHANISM_BALANCED,
	.bounded = true,
	.has_block = true,
	.block_name = "arity",
	.default_block = dp_balanced_default_arity,
	.accepted_flags = DP_FLAG_CONSISTENT | DP_FLAG_PERSON | DP_FLAG_PER_OBSERVATION | DP_FLAG_ZCDP,
	.validate = balanced_validate,
	.derive = balanced_derive,
	.node_count = balanced_node_count,
	.noise_class = balanced_noise_class,
	.start = balanced_start,
	.push = balanced_push,
	.persist = balanced_persist,
	.resume = balanced_resume,
	.noise_groups = balanced_noise_groups,
	.parameters = balanced_parameters,
	.auto_rank = 1,
};

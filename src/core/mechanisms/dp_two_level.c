/*
 * dp_two_level.c
 *		The Two-level mechanism (Chan, Shi and Song, ICALP 2010 [CSS10];
 *		compared by Maddi [Mad]): blocks of B steps, each step counted once in its block and
 *		once on its own.
 *
 * Every step is in one block p-sum and one singleton p-sum, so the vector of
 * all p-sums has L1 sensitivity 2N and each gets noise of scale 2N / epsilon.
 * The release at t sums the floor(t / B) closed blocks and the t mod B
 * singletons of the open block: with B = ceil(sqrt(T)) at most about
 * 2 sqrt(T) noise terms, so the error grows like T^(1/4) / epsilon.
 *
 * The open block's accumulator starts from its noise, so a stored state
 * holds no raw partial sum (pan-private for the past, as Binary).  With the
 * pan_private option a closing block also gets a second noise term; the
 * singletons are released as they close and need none.
 *
 * Nodes: [0] sum of the closed noisy blocks; [1] the open block's
 * accumulator (noise + values so far); [2] sum of the noisy singletons of
 * the open block.  The release is [0] + [2].
 */
#include "dp_counter.h"

static int
two_level_node_count(const dp_mechanism *mechanism)
{
	return 3;
}

/* a block of 1 to T steps */
static dp_status
two_level_validate(const dp_mechanism *mechanism, const char **field)
{
	if (mechanism->block > mechanism->horizon)
	{
		*field = "block";
		return DP_ERROR_BLOCK;
	}
	return DP_OK;
}

/* each item lies in its block's p-sum and in one item term (or the open block's) */
static bool
two_level_noise_class(const dp_mechanism *mechanism, int index, dp_noise_class *out)
{
	return index == 0 && dp_noise_class_nodes(out, 2, 1);
}

static void
two_level_start(dp_counter *counter, dp_random *rng)
{
	counter->nodes[1] = dp_counter_noise(counter, rng, &counter->scale, 1, DP_NOISE_OPEN, 0);
}

static void
two_level_push(dp_counter *counter, int64_t value, dp_random *rng)
{
	counter->steps++;
	counter->nodes[1] = dp_counter_add(counter, counter->nodes[1], value);
	counter->nodes[2] = dp_counter_add(counter, counter->nodes[2],
									   value + dp_counter_noise(counter, rng, &counter->scale, 2,
																DP_NOISE_ITEM, value));

	if (counter->steps % counter->mechanism.block == 0)
	{
		/* the block closes: its p-sum replaces its singletons in the release */
		counter->nodes[0] = dp_counter_add(counter, counter->nodes[0], counter->nodes[1]);
		if (dp_counter_pan_private(counter))
			counter->nodes[0] = dp_counter_add(counter, counter->nodes[0],
											   dp_counter_noise(counter, rng, &counter->scale, 0,
																DP_NOISE_CLOSE, counter->nodes[1]));
		counter->nodes[1] = dp_counter_noise(counter, rng, &counter->scale, 1, DP_NOISE_OPEN, 0);
		counter->nodes[2] = 0;
	}
	counter->release = dp_counter_add(counter, counter->nodes[0], counter->nodes[2]);
}

static void
two_level_resume(dp_counter *counter)
{
	counter->release = dp_counter_add(counter, counter->nodes[0], counter->nodes[2]);
}

static int
two_level_noise_groups(const dp_counter *counter, int64_t steps, dp_noise_group *groups)
{
	int64_t		block = counter->mechanism.block;

	uint64_t	closed = (uint64_t) (steps / block) * (dp_counter_pan_private(counter) ? 2 : 1);
	uint64_t	terms = closed + (uint64_t) (steps % block);

	/*
	 * Up to 2^63 terms (pan-private, block 1, 2^62 steps) do not fit int64:
	 * saturate.  One term less than the truth changes the half-width by a
	 * relative 2^-64, far below the rounding of the result to an integer.
	 */
	groups[0].scale = counter->scale;
	groups[0].terms = terms > (uint64_t) INT64_MAX ? INT64_MAX : (int64_t) terms;
	return 1;
}

static const dp_kind_parameter two_level_parameters[] = {
	{.name = "block", .range = "between 1 and the horizon",
		.default_text = "ceil(sqrt(horizon))",
		.detail = "block was {value}, horizon {horizon}.",
	.hint = "Leave block out to get ceil(sqrt(horizon)), the size that balances the two levels."},
	{.name = NULL}
};

const dp_counter_kind dp_two_level_kind = {
	.name = "two_level",
	.kind = DP_MECHANISM_TWO_LEVEL,
	.bounded = true,
	.has_block = true,
	.block_name = "block",
	.default_block = dp_default_block,
	.accepted_flags = DP_FLAG_PAN_PRIVATE | DP_FLAG_CONSISTENT | DP_FLAG_KEYED |
	DP_FLAG_PERSON | DP_FLAG_PER_OBSERVATION,
	.validate = two_level_validate,
	.node_count = two_level_node_count,
	.noise_class = two_level_noise_class,
	.start = two_level_start,
	.push = two_level_push,
	.persist = NULL,
	.resume = two_level_resume,
	.noise_groups = two_level_noise_groups,
	.parameters = two_level_parameters,
	.auto_rank = 6,
};

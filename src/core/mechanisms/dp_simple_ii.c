/*
 * dp_simple_ii.c
 *		Simple Counting Mechanism II (Chan, Shi and Song [CSS10]):
 *		noise on every step's value, release the running sum of noisy values.
 *
 * A step's value is in exactly one noisy term, so noise of scale N / epsilon
 * per step gives epsilon-DP for any number of steps: the mechanism needs no
 * horizon.  The error at t is a sum of t noise terms, standard deviation
 * about sqrt(2 t) N / epsilon.  The only state is the running noisy sum,
 * which is the last release itself, so a stored state reveals nothing the
 * releases did not (pan-private against any number of intrusions; the
 * pan_private option is accepted and changes nothing).
 *
 * Nodes: [0] the running noisy sum.
 */
#include "dp_counter.h"

static int
simple_ii_node_count(const dp_mechanism *mechanism)
{
	return 1;
}

/* each item is in exactly one noisy term */
static bool
simple_ii_noise_class(const dp_mechanism *mechanism, int index, dp_noise_class *out)
{
	return index == 0 && dp_noise_class_nodes(out, 1, 1);
}

static void
simple_ii_start(dp_counter *counter, dp_random *rng)
{
}

static void
simple_ii_push(dp_counter *counter, int64_t value, dp_random *rng)
{
	counter->nodes[0] = dp_counter_add(counter, counter->nodes[0],
									   value + dp_counter_noise(counter, rng, &counter->scale, 0,
																DP_NOISE_ITEM, value));
	counter->release = counter->nodes[0];
	counter->steps++;
}

static void
simple_ii_resume(dp_counter *counter)
{
	counter->release = counter->nodes[0];
}

static int
simple_ii_noise_groups(const dp_counter *counter, int64_t steps, dp_noise_group *groups)
{
	groups[0].scale = counter->scale;
	groups[0].terms = steps;
	return 1;
}

const dp_counter_kind dp_simple_ii_kind = {
	.name = "simple_ii",
	.kind = DP_MECHANISM_SIMPLE_II,
	.bounded = false,
	.accepted_flags = DP_FLAG_PAN_PRIVATE | DP_FLAG_CONSISTENT | DP_FLAG_KEYED |
	DP_FLAG_PERSON | DP_FLAG_PER_OBSERVATION,
	.validate = NULL,
	.node_count = simple_ii_node_count,
	.noise_class = simple_ii_noise_class,
	.start = simple_ii_start,
	.push = simple_ii_push,
	.persist = NULL,
	.resume = simple_ii_resume,
	.noise_groups = simple_ii_noise_groups,
};

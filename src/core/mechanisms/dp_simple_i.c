/*
 * dp_simple_i.c
 *		Simple Counting Mechanism I (Chan, Shi and Song [CSS10]):
 *		every step releases the running count with fresh noise.
 *
 * A step's value enters the releases of all later steps, up to T of them, so
 * fresh noise of scale about T N / epsilon per release is needed.  The seed
 * keeps the exact running count in memory; a stored state must not hold it
 * (docs/threat_model.md), so the accumulator starts from a noise term
 * eta of its own, and the release at t is  accumulator + gamma_t.
 *
 * Privacy.  Let neighbouring streams differ by delta <= N at step j, and
 * let an observer see every release and the state after some step s.  If
 * j <= s, shifting eta by -delta and gamma_t by +delta for the j - 1 steps
 * t < j maps one view onto the other; if j > s, shifting gamma_t by -delta
 * for the T - j + 1 <= T - 1 steps t >= j does.  Both cost at most
 *     (T - 1) N / b_gamma + N / b_eta  <=  epsilon,
 * so the mechanism is epsilon-DP and pan-private against one intrusion,
 * with or without the pan_private option.  Minimising the variance
 * b_gamma^2 + b_eta^2 under that constraint puts b_eta about T^(1/3) times
 * below b_gamma; with c = 2^round(2/3 log2(T - 1)),
 *     b_eta   = N (1 + c) / epsilon,
 *     b_gamma = N ((T - 1) + ceil((T - 1) / c)) / epsilon,
 * which meet the constraint exactly up to the ceiling (always on the side of
 * more noise), and the release's variance exceeds the single
 * Lap(T N / epsilon) of [CSS10] by a factor of only about 1 + 3 T^(-2/3).  For T = 1
 * there is no later step: the release is the accumulator, b_eta = N / epsilon.
 *
 * Nodes: [0] the accumulator eta + c(t); [1] the last release (public).
 */
#include "dp_counter.h"

#include <math.h>

static int64_t
split_power(int64_t horizon)
{
	if (horizon <= 1)
		return 0;
	return ((int64_t) 1) << (int) lround(2.0 / 3.0 * log2((double) (horizon - 1)));
}

static uint64_t
gamma_sensitivity_units(int64_t horizon)
{
	int64_t		c = split_power(horizon);

	return (uint64_t) (horizon - 1) + (uint64_t) ((horizon - 1 + c - 1) / c);
}

static dp_status
simple_i_validate(const dp_mechanism *mechanism, const char **field)
{
	uint64_t	units = mechanism->horizon > 1 ? gamma_sensitivity_units(mechanism->horizon) : 1;

	if (units > DP_SENSITIVITY_MAX / (uint64_t) mechanism->max_per_step)
	{
		*field = "horizon";
		return DP_ERROR_SENSITIVITY;
	}
	return DP_OK;
}

static int
simple_i_node_count(const dp_mechanism *mechanism)
{
	return 2;
}

/*
 * Class 0: the gamma terms; class 1: eta.  Their sensitivities are not
 * separate budgets but the two sides of the joint argument above (each
 * spends the whole epsilon there), so the shares are 1 and the mechanism
 * accepts no other noise family.
 */
static bool
simple_i_noise_class(const dp_mechanism *mechanism, int index, dp_noise_class *out)
{
	uint64_t	eta_units = (uint64_t) (1 + split_power(mechanism->horizon));

	if (index == 1 || (index == 0 && mechanism->horizon <= 1))
		return dp_noise_class_nodes(out, eta_units, 1);
	return index == 0 && dp_noise_class_nodes(out, gamma_sensitivity_units(mechanism->horizon), 1);
}

static void
simple_i_start(dp_counter *counter, dp_random *rng)
{
	counter->nodes[0] = dp_counter_noise(counter, rng, &counter->second_scale, 0, DP_NOISE_OPEN, 0);
}

static void
simple_i_push(dp_counter *counter, int64_t value, dp_random *rng)
{
	counter->nodes[0] = dp_counter_add(counter, counter->nodes[0], value);
	counter->release = counter->nodes[0];
	if (counter->mechanism.horizon > 1)
		counter->release = dp_counter_add(counter, counter->release,
										  dp_counter_noise(counter, rng, &counter->scale, 1,
														   DP_NOISE_CLOSE, counter->nodes[0]));
	counter->nodes[1] = counter->release;
	counter->steps++;
}

static void
simple_i_resume(dp_counter *counter)
{
	counter->release = counter->nodes[1];
}

static int
simple_i_noise_groups(const dp_counter *counter, int64_t steps, dp_noise_group *groups)
{
	groups[0].scale = counter->second_scale;	/* eta */
	groups[0].terms = steps > 0 ? 1 : 0;
	groups[1].scale = counter->scale;	/* gamma_t */
	groups[1].terms = steps > 0 && counter->mechanism.horizon > 1 ? 1 : 0;
	return 2;
}

const dp_counter_kind dp_simple_i_kind = {
	.name = "simple_i",
	.kind = DP_MECHANISM_SIMPLE_I,
	.bounded = true,
	.accepted_flags = DP_FLAG_PAN_PRIVATE | DP_FLAG_CONSISTENT,
	.validate = simple_i_validate,
	.node_count = simple_i_node_count,
	.noise_class = simple_i_noise_class,
	.start = simple_i_start,
	.push = simple_i_push,
	.persist = NULL,
	.resume = simple_i_resume,
	.noise_groups = simple_i_noise_groups,
};

/*
 * dp_counter.c
 *		The registry of mechanisms and the operations common to all of them.
 */
#include "dp_counter.h"

#include <math.h>
#include <string.h>

extern const dp_counter_kind dp_binary_kind;

static const dp_counter_kind *const all_kinds[] = {
	&dp_binary_kind,
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

const dp_counter_kind *
dp_counter_kind_by_name(const char *name)
{
	for (size_t i = 0; i < KIND_COUNT; i++)
		if (strcmp(all_kinds[i]->name, name) == 0)
			return all_kinds[i];
	return NULL;
}

size_t
dp_counter_size(const dp_mechanism *mechanism)
{
	const dp_counter_kind *kind = dp_counter_kind_by_id(mechanism->kind);

	return sizeof(dp_counter) + sizeof(dp_int128) * (size_t) kind->node_count(mechanism);
}

dp_status
dp_counter_prepare(dp_counter *counter, const dp_mechanism *mechanism, const char **field)
{
	dp_status	status = dp_mechanism_validate(mechanism, field);
	const dp_counter_kind *kind;

	if (status != DP_OK)
		return status;
	kind = dp_counter_kind_by_id(mechanism->kind);

	counter->mechanism = *mechanism;
	counter->kind = kind;
	counter->steps = 0;
	counter->running_total = 0;
	counter->release = 0;
	counter->node_count = kind->node_count(mechanism);
	if (dp_scale_for(kind->sensitivity(mechanism), mechanism->epsilon, &counter->scale) != DP_SCALE_OK)
	{
		*field = "epsilon";
		return DP_ERROR_EPSILON;
	}
	return DP_OK;
}

dp_status
dp_counter_start(dp_counter *counter, const dp_mechanism *mechanism, dp_random *rng,
				 const char **field)
{
	dp_status	status = dp_counter_prepare(counter, mechanism, field);

	if (status != DP_OK)
		return status;
	memset(counter->nodes, 0, sizeof(dp_int128) * (size_t) counter->node_count);
	counter->kind->start(counter, rng);
	return DP_OK;
}

dp_status
dp_counter_push(dp_counter *counter, int64_t value, dp_random *rng)
{
	if (counter->kind->bounded && counter->steps >= counter->mechanism.horizon)
		return DP_ERROR_HORIZON_EXCEEDED;

	/* clamping bounds the sensitivity; it is silent because a notice would leak */
	if (value < 0)
		value = 0;
	else if (value > counter->mechanism.max_per_step)
		value = counter->mechanism.max_per_step;

	counter->kind->push(counter, value, rng);
	return DP_OK;
}

int64_t
dp_counter_value_from_double(const dp_counter *counter, double value)
{
	if (isnan(value) || value <= 0)
		return 0;
	if (value >= (double) counter->mechanism.max_per_step)
		return counter->mechanism.max_per_step;
	/* discrete noise protects only integer differences: round first */
	return (int64_t) nearbyint(value);
}

int64_t
dp_counter_release(const dp_counter *counter)
{
	return dp_int128_to_int64_saturated(counter->release);
}

int
dp_counter_noise_terms(const dp_counter *counter)
{
	return counter->kind->noise_terms(counter);
}

double
dp_counter_noise_variance(const dp_counter *counter)
{
	return dp_counter_noise_terms(counter) * dp_discrete_laplace_variance(&counter->scale);
}

double
dp_counter_error_bound(const dp_counter *counter, double confidence)
{
	return dp_discrete_laplace_sum_half_width(&counter->scale,
											  dp_counter_noise_terms(counter),
											  confidence);
}

dp_status
dp_mechanism_error_bound(const dp_mechanism *mechanism, int64_t steps, double confidence,
						 double *bound, const char **field)
{
	dp_counter	header;			/* no nodes are needed to count noise terms */
	dp_status	status = dp_counter_prepare(&header, mechanism, field);

	if (status != DP_OK)
		return status;
	if (steps < 0 || (header.kind->bounded && steps > mechanism->horizon))
	{
		*field = "steps";
		return DP_ERROR_HORIZON_EXCEEDED;
	}
	header.steps = steps;
	*bound = dp_counter_error_bound(&header, confidence);
	return DP_OK;
}

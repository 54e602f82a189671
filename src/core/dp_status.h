/*
 * dp_status.h
 *		Outcomes of core operations.  The PostgreSQL glue maps each to an
 *		SQLSTATE and a message; the core never prints or aborts.
 */
#ifndef DP_STATUS_H
#define DP_STATUS_H

typedef enum dp_status
{
	DP_OK = 0,
	DP_ERROR_EPSILON,			/* NaN, infinite, <= 0 or outside the range */
	DP_ERROR_HORIZON,			/* horizon out of range */
	DP_ERROR_MAX_PER_STEP,		/* max_per_step out of range */
	DP_ERROR_KIND,				/* unknown mechanism kind */
	DP_ERROR_HORIZON_EXCEEDED,	/* a push past the horizon of a bounded mechanism */
	DP_ERROR_FORMAT,			/* malformed serialized or text state */
	DP_ERROR_BLOCK,				/* block size out of range */
	DP_ERROR_OPTION,			/* an option the mechanism does not support */
	DP_ERROR_SENSITIVITY,		/* horizon and max_per_step too large together */
	DP_ERROR_BOUNDS,			/* lower/upper not finite, too large or not ordered */
	DP_ERROR_OVERFLOW,			/* a node value left the range of genuine states */
	DP_ERROR_KEY,				/* keyed noise: key name invalid, or keyed without pan_private */
	DP_ERROR_CONTRIBUTIONS,		/* person level: contributions out of range */
	DP_ERROR_STEP_BOUND_UNSTATED	/* a count's mechanism states no max_per_step */
} dp_status;

/*
 * Where a parse failed: the name of the field being read and what was wrong.
 * Both point to static strings.
 */
typedef struct dp_parse_error
{
	const char *field;
	const char *problem;
} dp_parse_error;

#endif							/* DP_STATUS_H */

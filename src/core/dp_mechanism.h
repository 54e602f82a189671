/*
 * dp_mechanism.h
 *		The parameters that choose and configure a counting mechanism.
 *
 * A mechanism is a plain value: which algorithm, its privacy parameter and
 * the declared bounds of the stream.  It carries no randomness and no data.
 */
#ifndef DP_MECHANISM_H
#define DP_MECHANISM_H

#include <stddef.h>
#include <stdint.h>

#include "dp_status.h"

typedef enum dp_mechanism_kind
{
	DP_MECHANISM_BINARY = 1
} dp_mechanism_kind;

/* Largest horizon: 63 tree levels and a step count that fits int64. */
#define DP_HORIZON_MAX (((int64_t) 1) << 62)
/* Largest per-step bound: keeps levels * bound below the sensitivity limit. */
#define DP_MAX_PER_STEP_MAX (((int64_t) 1) << 50)

typedef struct dp_mechanism
{
	int32_t		kind;			/* dp_mechanism_kind */
	uint32_t	flags;			/* reserved for options; 0 today */
	double		epsilon;
	int64_t		horizon;		/* T for bounded mechanisms */
	int64_t		max_per_step;	/* values are clamped into [0, max_per_step] */
} dp_mechanism;

/*
 * Checks every field; on failure *field names the offending one
 * ("epsilon", "horizon", "max_per_step", "kind").
 */
extern dp_status dp_mechanism_validate(const dp_mechanism *mechanism, const char **field);

/* Canonical text: binary(epsilon=0.5,horizon=365,max_per_step=1) */
#define DP_MECHANISM_TEXT_BYTES 160
extern int	dp_mechanism_to_text(const dp_mechanism *mechanism, char *buffer, size_t size);

/*
 * Parses the text form at *cursor (leading and trailing blanks allowed
 * around every token), advancing *cursor past it.  max_per_step defaults to
 * 1.  Does not validate ranges; call dp_mechanism_validate afterwards.
 */
extern dp_status dp_mechanism_parse(const char **cursor, dp_mechanism *mechanism,
									dp_parse_error *error);

#endif							/* DP_MECHANISM_H */

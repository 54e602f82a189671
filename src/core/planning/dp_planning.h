/*
 * dp_planning.h
 *		Answers to the questions users ask before spending epsilon: how large
 *		is a mechanism's error at step t, what epsilon gives a wanted error,
 *		and what is the widest error bound up to t.  Public inputs only: no
 *		noise is drawn and no data is read.
 */
#ifndef DP_PLANNING_H
#define DP_PLANNING_H

#include "dp_counter.h"

/* Standard deviation of the release error at `steps` (sqrt of the variance). */
extern dp_status dp_planning_error_sd(const dp_mechanism *mechanism, int64_t steps,
									  double *sd, const char **field);

/*
 * The smallest epsilon (within a relative 1e-9 of the true threshold, and
 * never below it) whose error bound at `steps` with `confidence` is at most
 * half_width, for the mechanism with its epsilon replaced.  DP_ERROR_EPSILON
 * when no epsilon up to DP_EPSILON_MAX reaches it.
 */
extern dp_status dp_planning_epsilon_for(const dp_mechanism *mechanism, int64_t steps,
										 double confidence, double half_width,
										 double *epsilon, const char **field);

/*
 * Distinct noise scales one release may have for dp_planning_max_error_bound
 * (it keeps a frontier of such configurations on the stack).
 */
#define DP_PLANNING_NOISE_SCALES_MAX 16

/* Steps up to which dp_planning_max_error_bound scans every step. */
#define DP_PLANNING_SCAN_MAX 10000000

/*
 * The largest error bound over steps 1..steps: a band that never narrows as
 * t grows.  Exact: every step's noise terms are scanned, and the bound is
 * computed for each configuration that no other one dominates (adding
 * independent symmetric log-concave terms only widens the tails).  `check`
 * is called every 2^16 steps (for interrupts); DP_ERROR_HORIZON_EXCEEDED
 * beyond DP_PLANNING_SCAN_MAX steps.
 */
extern dp_status dp_planning_max_error_bound(const dp_mechanism *mechanism, int64_t steps,
											 double confidence, void (*check) (void),
											 double *bound, const char **field);

#endif							/* DP_PLANNING_H */

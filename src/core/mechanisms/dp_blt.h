/*
 * dp_blt.h
 *		Buffered-linear-Toeplitz (BLT) matrix-factorization continual counting
 *		with an exact integer encoder, for noise that is an integer discrete
 *		Gaussian.  The privacy argument, the fixed-point format and the bounds
 *		are at the top of dp_blt.c.
 *
 * The workload A (lower-triangular ones) is factored A = B C with C lower
 * triangular Toeplitz, c_0 = 1 and c_n = sum_j omega_j theta_j^(n-1) for
 * n >= 1.  The encoder streams e = C x in fixed point with d buffers, the
 * mechanism adds integer noise to e, and the decoder streams y = A C^-1 w
 * from the noisy w alone, with d buffers again.
 *
 * theta_j and omega_j are dyadic: int64 numerators over 2^DP_BLT_PARAM_BITS.
 * They define C exactly; every bound below is about that C.
 *
 * No PostgreSQL headers: shared by the extension, the unit tests and the
 * benchmarks.
 */
#ifndef DP_BLT_H
#define DP_BLT_H

#include <stdint.h>

#include "dp_int128.h"
#include "dp_status.h"

#define DP_BLT_MAX_BUFFERS 5
/*
 * theta_j = theta_num[j] / 2^62 and omega_j = omega_num[j] / 2^62: 62 bits
 * rather than 40, so that 1 - theta_j can resolve the decay of about 1/T of
 * the slowest buffer at horizons up to 2^62.
 */
#define DP_BLT_PARAM_BITS 62
/* 2^F * max_per_step stays at or below 2^DP_BLT_INPUT_BITS */
#define DP_BLT_INPUT_BITS 40
#define DP_BLT_MAX_PER_STEP_LIMIT (((int64_t) 1) << 24)
#define DP_BLT_HORIZON_LIMIT (((int64_t) 1) << 62)
/* decoder buffers keep this many fewer guard bits, as headroom for noise */
#define DP_BLT_DECODER_HEADROOM_BITS 16

typedef struct dp_blt_params
{
	int			buffers;		/* d, 1 .. DP_BLT_MAX_BUFFERS */
	int			guard_bits;		/* G: encoder buffers in units of 2^-(F + G) */
	int64_t		design_horizon; /* the power of two the parameters are tuned for */
	int64_t		theta_num[DP_BLT_MAX_BUFFERS];	/* 0 < theta_j < 1, distinct */
	int64_t		omega_num[DP_BLT_MAX_BUFFERS];	/* 0 < omega_j < 2 */
} dp_blt_params;

/*
 * The published parameters for the least power of two >= horizon (from the
 * table in dp_blt.c, tuned by bench/blt_design.c).  Public and deterministic:
 * they depend on the horizon only.  DP_ERROR_HORIZON outside 1 .. 2^62.
 */
extern dp_status dp_blt_design(int64_t horizon, dp_blt_params *params);

/* Checks a parameter set (from a table or a stored state) for the bounds. */
extern dp_status dp_blt_params_valid(const dp_blt_params *params, int64_t horizon);

/* F = 40 - ceil(log2 max_per_step), so that 2^F * max_per_step <= 2^40. */
extern int	dp_blt_fraction_bits(int64_t max_per_step);

/*
 * State layout (dp_int128 words, all zero at the start):
 *	 [0, d)			encoder buffers, units 2^-(F + G): RAW DATA, seal them
 *	 [d, 2d)		decoder buffers, units 2^-(F + G - headroom)
 *	 [2d]			decoder running release, same units
 */
extern int	dp_blt_state_words(const dp_blt_params *params);

/*
 * Encoder step: value in [-2^40, 2^40] / 2^F (the caller clamps into
 * [0, max_per_step] with 2^F * max_per_step <= 2^40).  Sets *encoded to e_t
 * in units of 2^-F, to which the caller adds integer noise.  Deterministic
 * integer arithmetic only.  DP_ERROR_OVERFLOW if value is out of range.
 */
extern dp_status dp_blt_encode_step(const dp_blt_params *params, dp_int128 *encoder,
									int64_t value, int fraction_bits,
									dp_int128 *encoded);

/*
 * Decoder step: consumes w_t = e_t + z_t (units 2^-F) and advances the
 * running release.  Post-processing of w only.  DP_ERROR_OVERFLOW if an
 * absurd noise draw would leave the buffers' range (the state is unchanged).
 */
extern dp_status dp_blt_decode_step(const dp_blt_params *params, dp_int128 *decoder,
									dp_int128 noisy_encoded);
/* The running release in units of the data (y_t), rounded to nearest. */
extern dp_int128 dp_blt_release_rounded(const dp_blt_params *params, const dp_int128 *decoder,
										int fraction_bits);
extern long double dp_blt_release_value(const dp_blt_params *params, const dp_int128 *decoder,
										int fraction_bits);

/*
 * Upper bound on max_t |e_t - 2^F (C x)_t| over the first `horizon` steps, in
 * units of 2^-F (the encoder's rounding, r), for inputs within range.
 */
extern double dp_blt_encoder_rounding_bound(const dp_blt_params *params, int64_t horizon);

/*
 * Upper bound on |s_j| of every encoder buffer over `horizon` steps, in
 * units of 2^-(F + G), for |value| * 2^F <= 2^40.  dp_blt_params_valid
 * keeps it below 2^124.
 */
extern long double dp_blt_encoder_buffer_bound(const dp_blt_params *params, int64_t horizon);

/*
 * Upper bound on the L2 sensitivity of the encoder over `horizon` steps, in
 * units of 2^-F: ||E(x) - E(x')||_2 for streams that differ at one step by
 * at most max_per_step, including the rounding of both runs:
 *	 2^F max_per_step sqrt(sum_{n<horizon} c_n^2) + 2 r sqrt(horizon),
 * every term evaluated upward.  The integer noise's variance parameter is
 * bound^2 / (2 rho) (units 2^-F) for rho-zCDP.  Valid for streams of at most
 * `horizon` steps, with the encoder run at this fraction_bits; max_per_step
 * is an argument (not a factor applied afterwards) because the rounding
 * term does not scale with it.
 */
extern double dp_blt_sensitivity_bound(const dp_blt_params *params, int64_t horizon,
									   int fraction_bits, int64_t max_per_step);
/* sum_{n<horizon} c_n^2, rounded upward (closed form) */
extern long double dp_blt_column_norm_squared(const dp_blt_params *params, int64_t horizon);

/*
 * Variance of the release y_t per unit variance of each w_u, in units of
 * the data: sum_{n<t} H_n^2 with H_n = sum_{i<=n} (C^-1)_i.  Closed form.
 */
extern double dp_blt_variance_at(const dp_blt_params *params, int64_t t);
/* the mean of dp_blt_variance_at over t = 1 .. horizon */
extern double dp_blt_mean_variance(const dp_blt_params *params, int64_t horizon);
/* sum_{n<t} |H_n|, upper bound (for the decoder's bias) */
extern double dp_blt_abs_release_weight(const dp_blt_params *params, int64_t t);

/*
 * Upper bound on |y_t - (A C^-1 w)_t| of the decoder after t steps, in units
 * of the data: its fixed-point rounding only, whatever the noise.
 */
extern double dp_blt_decoder_bias_bound(const dp_blt_params *params, int64_t t,
										int fraction_bits);

#endif							/* DP_BLT_H */

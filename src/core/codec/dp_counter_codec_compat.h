/*
 * dp_counter_codec_compat.h
 *		The readers of a counter state's fixed layouts, versions 1 to 5
 *		(dp_counter_codec_compat.c), for the codec of dp_counter_codec.c.
 *		The writer of versions 4 and 5 is declared in dp_counter.h.
 */
#ifndef DP_COUNTER_CODEC_COMPAT_H
#define DP_COUNTER_CODEC_COMPAT_H

#include "dp_counter.h"

/* Version 1 (0.1.0) holds the plain Binary mechanism only. */
extern dp_status dp_counter_check_version(int version, const dp_mechanism *mechanism,
										  dp_parse_error *error);

/* The mechanism of a state of versions 1 to 5, checked against its length. */
extern dp_status dp_counter_fixed_peek(const unsigned char *data, size_t length,
									   dp_mechanism *mechanism, dp_parse_error *error);

/*
 * The same, and its steps, its nodes (room for DP_COUNTER_MAX_NODES) and
 * its noise key (inside data, or NULL), not yet checked against the
 * mechanism.
 */
extern dp_status dp_counter_fixed_read(const unsigned char *data, size_t length,
									   dp_mechanism *mechanism, int64_t *steps,
									   dp_int128 *nodes, int *node_count,
									   const unsigned char **noise_key,
									   dp_parse_error *error);

#endif							/* DP_COUNTER_CODEC_COMPAT_H */

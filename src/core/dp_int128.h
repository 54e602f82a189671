/*
 * dp_int128.h
 *		128-bit integers for node sums and noise.
 *
 * A node sum is at most horizon * max_per_step (< 2^112 within our limits) and
 * a noise draw at the smallest epsilon we accept is of order 2^96, so 64 bits
 * cannot hold them; 128 bits always can.  gcc and clang provide __int128 on
 * every 64-bit target PostgreSQL supports.
 */
#ifndef DP_INT128_H
#define DP_INT128_H

#include <stddef.h>
#include <stdint.h>

/*
 * Alignment is lowered to 8 bytes, as PostgreSQL does for its own int128:
 * palloc and malloc'd structs in a varlena guarantee only 8-byte alignment,
 * and code generated for a 16-byte-aligned type may fault on such memory.
 */
typedef __int128 dp_int128 __attribute__((aligned(8)));
typedef unsigned __int128 dp_uint128 __attribute__((aligned(8)));

#define DP_INT128_MAX ((dp_int128) (((dp_uint128) 1 << 127) - 1))
#define DP_INT128_MIN (-DP_INT128_MAX - 1)

/*
 * Ranges of node values.  A genuine state's node is a raw sum (at most
 * 2^62 steps of at most 2^50 each, so below 2^112) plus noise draws (each
 * below 2^112, see dp_discrete_laplace), a handful of them for every node
 * but the running sums of Simple II and Two-level, whose noise grows like
 * the square root of the number of draws.  Decoders refuse nodes beyond
 * DP_NODE_VALUE_MAX: no genuine state gets near it.  Node arithmetic is
 * checked against DP_ARITHMETIC_MAX, which leaves room to add a raw running
 * total (below 2^112) to any checked value without overflowing 128 bits.
 */
#define DP_NODE_VALUE_MAX (((dp_int128) 1) << 120)
#define DP_ARITHMETIC_MAX (((dp_int128) 1) << 126)

/*
 * a + b into *sum (a - b into *difference); false when it overflows 128 bits
 * or leaves +-DP_ARITHMETIC_MAX.
 */
static inline int
dp_int128_in_arithmetic_range(int overflowed, dp_int128 result)
{
	return !overflowed && result <= DP_ARITHMETIC_MAX && result >= -DP_ARITHMETIC_MAX;
}

static inline int
dp_int128_add_checked(dp_int128 a, dp_int128 b, dp_int128 *sum)
{
	int			overflowed = __builtin_add_overflow(a, b, sum);

	return dp_int128_in_arithmetic_range(overflowed, *sum);
}

static inline int
dp_int128_sub_checked(dp_int128 a, dp_int128 b, dp_int128 *difference)
{
	int			overflowed = __builtin_sub_overflow(a, b, difference);

	return dp_int128_in_arithmetic_range(overflowed, *difference);
}

/* Decimal text; buffer must hold DP_INT128_TEXT_BYTES. Returns length. */
#define DP_INT128_TEXT_BYTES 48
extern int	dp_int128_to_text(dp_int128 value, char *buffer);

/*
 * Parses an optionally signed decimal integer at *cursor and advances it.
 * Returns 0 on success, -1 when no digits are found or the value overflows.
 */
extern int	dp_int128_parse(const char **cursor, dp_int128 *value);

/* Saturating conversion, for releases returned as SQL bigint. */
extern int64_t dp_int128_to_int64_saturated(dp_int128 value);

/* Number of significant bits (0 for 0). */
extern int	dp_uint128_bit_length(dp_uint128 value);

#endif							/* DP_INT128_H */

/*
 * dp_bytes.h
 *		Explicit little-endian reads and writes for the stored formats, so a
 *		state written on one machine reads the same on any other.
 */
#ifndef DP_BYTES_H
#define DP_BYTES_H

#include <stdint.h>
#include <string.h>

static inline void
dp_put_u64(unsigned char *out, uint64_t value)
{
	for (int i = 0; i < 8; i++)
		out[i] = (unsigned char) (value >> (8 * i));
}

static inline uint64_t
dp_get_u64(const unsigned char *in)
{
	uint64_t	value = 0;

	for (int i = 0; i < 8; i++)
		value |= (uint64_t) in[i] << (8 * i);
	return value;
}

static inline void
dp_put_u32(unsigned char *out, uint32_t value)
{
	for (int i = 0; i < 4; i++)
		out[i] = (unsigned char) (value >> (8 * i));
}

static inline uint32_t
dp_get_u32(const unsigned char *in)
{
	return (uint32_t) in[0] | (uint32_t) in[1] << 8 |
		(uint32_t) in[2] << 16 | (uint32_t) in[3] << 24;
}

/* a double by its IEEE 754 bits */
static inline void
dp_put_f64(unsigned char *out, double value)
{
	uint64_t	bits;

	memcpy(&bits, &value, sizeof(bits));
	dp_put_u64(out, bits);
}

static inline double
dp_get_f64(const unsigned char *in)
{
	uint64_t	bits = dp_get_u64(in);
	double		value;

	memcpy(&value, &bits, sizeof(value));
	return value;
}

#endif							/* DP_BYTES_H */

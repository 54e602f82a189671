/*
 * dp_bytes.h
 *		Explicit little-endian reads and writes for the stored formats, so a
 *		state written on one machine reads the same on any other.
 */
#ifndef DP_BYTES_H
#define DP_BYTES_H

#include <stdint.h>
#include <string.h>

/*
 * Written out byte by byte rather than as a loop, which the compiler
 * merges into one store (a loop stayed a loop in the PostgreSQL build, and
 * keyed noise writes a position per term).
 */
static inline void
dp_put_u64(unsigned char *out, uint64_t value)
{
	out[0] = (unsigned char) value;
	out[1] = (unsigned char) (value >> 8);
	out[2] = (unsigned char) (value >> 16);
	out[3] = (unsigned char) (value >> 24);
	out[4] = (unsigned char) (value >> 32);
	out[5] = (unsigned char) (value >> 40);
	out[6] = (unsigned char) (value >> 48);
	out[7] = (unsigned char) (value >> 56);
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

/*
 * Unsigned LEB128 varints for the compact formats: seven bits per byte,
 * low first, the high bit set on every byte but the last.  A reader
 * refuses a varint that runs past its buffer, past 128 bits, or that is
 * not the shortest form of its value (one value, one encoding).
 */
static inline size_t
dp_put_varint(unsigned char *out, unsigned __int128 value)
{
	size_t		length = 0;

	do
	{
		unsigned char byte = (unsigned char) (value & 0x7F);

		value >>= 7;
		if (value != 0)
			byte |= 0x80;
		if (out)
			out[length] = byte;
		length++;
	} while (value != 0);
	return length;
}

/* bytes read (> 0), or 0 for a varint that is truncated, too long or not the shortest */
static inline size_t
dp_get_varint(const unsigned char *in, size_t available, unsigned __int128 *value)
{
	unsigned __int128 result = 0;

	for (size_t i = 0; i < available && i < 19; i++)
	{
		unsigned __int128 bits = in[i] & 0x7F;

		/* the 19th byte holds bits 126 and 127 only */
		if (i == 18 && bits > 3)
			return 0;
		result |= bits << (7 * i);
		if (!(in[i] & 0x80))
		{
			if (i > 0 && in[i] == 0)
				return 0;		/* a longer form of a shorter varint */
			*value = result;
			return i + 1;
		}
	}
	return 0;
}

#endif							/* DP_BYTES_H */

/*
 * fuzz_common.h
 *		Helpers shared by the libFuzzer harnesses of src/core.
 *
 * A harness must never abort on input the core refuses: any status other
 * than DP_OK is a normal refusal.  FUZZ_CHECK aborts (a crash libFuzzer
 * records) only when a property that holds for every accepted input fails,
 * such as a round trip that does not reproduce its bytes.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dp_random.h"

#define FUZZ_CHECK(condition) \
	do { \
		if (!(condition)) \
		{ \
			fprintf(stderr, "%s:%d: FUZZ_CHECK failed: %s\n", __FILE__, __LINE__, #condition); \
			abort(); \
		} \
	} while (0)

/* A ChaCha20 stream with a fixed key: every run of an input is identical. */
static inline void
fuzz_rng(dp_random *rng)
{
	static bool initialised;
	static const char key[] = "dp_stream fuzzing: fixed key";

	if (!initialised)
	{
		if (!dp_random_library_init())
			abort();
		initialised = true;
	}
	dp_random_init_keyed(rng, key, sizeof(key) - 1);
}

/* A copy of the input with a terminating NUL (the harness frees it). */
static inline char *
fuzz_text(const uint8_t *data, size_t size)
{
	char	   *text = malloc(size + 1);

	if (text == NULL)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	return text;
}

/* The i-th of a few bytes spread over the input (0 for an empty input). */
static inline uint8_t
fuzz_byte(const uint8_t *data, size_t size, unsigned i)
{
	return size == 0 ? 0 : data[((size_t) i * 131u + 17u) % size];
}

/*
 * A counter value from one input byte: negative, zero, in range and above
 * max_per_step all occur, so clamping is exercised.
 */
static inline int64_t
fuzz_counter_value(uint8_t byte, int64_t max_per_step)
{
	int64_t		unit = max_per_step / 64 + 1;

	return (int64_t) (int8_t) byte * unit;
}

/* A value for a statistic with bounds [lower, upper]: specials and a grid. */
static inline double
fuzz_statistic_value(uint8_t byte, double lower, double upper)
{
	switch (byte)
	{
		case 0:
			return NAN;
		case 1:
			return INFINITY;
		case 2:
			return -INFINITY;
		case 3:
			return lower;
		case 4:
			return upper;
		case 5:
			return -0.0;
		case 6:
			return 1e308;
		case 7:
			return -1e308;
	}
	/* -1.5 .. +1.5 widths around the range */
	return lower + (upper - lower) * ((double) byte - 128.0) / 42.0;
}

/* A confidence level: usual ones, the edges and invalid ones. */
static inline double
fuzz_confidence(uint8_t byte)
{
	static const double table[] = {
		0.9, 0.95, 0.99, 0.5, 0.999999, 0.0, 1.0, NAN, -1.0, 2.0,
		1e-300, 0x1.fffffffffffffp-1, 4.9406564584124654e-324, INFINITY,
	};

	if (byte < sizeof(table) / sizeof(table[0]))
		return table[byte];
	return (double) byte / 256.0;
}

/*
 * The hostile variant of the binary harnesses: an input of at least 3 bytes
 * ends with a little-endian u16 split offset; the bytes before it are split
 * there (modulo their length + 1) into a first part, whose peek sizes the
 * allocation, and a second part decoded into that allocation.
 */
static inline bool
fuzz_split_binary(const uint8_t *data, size_t size, size_t *first_length,
				  const uint8_t **second, size_t *second_length)
{
	size_t		body;
	size_t		split;

	if (size < 3)
		return false;
	body = size - 2;
	split = ((size_t) data[size - 2] | (size_t) data[size - 1] << 8) % (body + 1);
	*first_length = split;
	*second = data + split;
	*second_length = body - split;
	return true;
}

/* A private copy of a byte range, so ASan sees reads past its end. */
static inline uint8_t *
fuzz_copy(const uint8_t *data, size_t size)
{
	uint8_t    *copy = malloc(size == 0 ? 1 : size);

	if (copy == NULL)
		abort();
	if (size > 0)
		memcpy(copy, data, size);
	return copy;
}

/* Heap storage of exactly `bytes` bytes (never 0), so ASan sees overruns. */
static inline void *
fuzz_alloc(size_t bytes)
{
	void	   *p = malloc(bytes == 0 ? 1 : bytes);

	if (p == NULL)
		abort();
	return p;
}

/* count (1 to 8) bytes little-endian from offset, zeros past the end of the input */
static inline uint64_t
fuzz_read_le(const uint8_t *data, size_t size, size_t offset, int count)
{
	uint64_t	value = 0;

	for (int i = 0; i < count; i++)
		if (offset + i < size)
			value |= (uint64_t) data[offset + i] << (8 * i);
	return value;
}

/*
 * A state in both stored forms, as the extension stores it and as the text
 * and binary harnesses read it (fuzz_<kind>_forms_of makes one).
 */
typedef struct fuzz_forms
{
	char	   *text;
	uint8_t    *binary;
	size_t		length;			/* of binary */
} fuzz_forms;

static inline void
fuzz_free_forms(fuzz_forms *forms)
{
	free(forms->binary);
	free(forms->text);
}

/*
 * A copy read back from either form must store again to the very same text
 * and bytes as the original.  Frees the copy's forms.
 */
static inline void
fuzz_check_same_forms(const fuzz_forms *original, fuzz_forms copy)
{
	FUZZ_CHECK(strcmp(original->text, copy.text) == 0);
	FUZZ_CHECK(copy.length == original->length &&
			   memcmp(original->binary, copy.binary, copy.length) == 0);
	fuzz_free_forms(&copy);
}

#endif							/* FUZZ_COMMON_H */

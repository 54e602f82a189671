/*
 * dp_mechanism_codec.c
 *		The stored form of a mechanism: explicit, little-endian, versioned,
 *		so that a new field is a new codec version and never a change of a
 *		C struct's layout on disk.
 *
 * Layout, codec version 1 (since dp_stream 0.7.0):
 *   0  u8   codec version (1)       24 i64 max_per_step
 *   1  u8   kind                    32 i64 block (two_level), else 0
 *   2  u16  reserved (0)            40 i64 contributions (person level), else 0
 *   4  u32  flags                   48 u8  key length (keyed), else 0
 *   8  f64  epsilon                 49 the key's characters, no terminator
 *   16 i64  horizon (bounded), else 0
 *
 * Codec version 2 (0.10.0), written only for the kinds with a real
 * parameter (dp_mechanism.shape), puts it at 49 as an f64 and the key's
 * characters at 57; every other mechanism keeps version 1, byte for byte.
 *
 * Codec version 3 (0.12.0), written only for a keyed mechanism that names a
 * partition (dp_mechanism.partition), has the f64 at 49 whatever the kind
 * (0 without a real parameter), the partition's 16 bytes at 57 and the
 * key's characters at 73.  Versions 1 and 2 are still read and written as
 * before, so no mechanism without a partition changes its stored form.
 *
 * max_per_step 0 (0.14.0, every version) is "not stated"
 * (DP_STEP_BOUND_UNSTATED).  No earlier version wrote 0 (validation refused
 * it), so every stored value keeps its meaning; negative values are still
 * refused by validation.
 */
#include "dp_mechanism.h"

#include <string.h>

#include "dp_bytes.h"

#define CODEC_VERSION 1
#define CODEC_VERSION_SHAPE 2
#define CODEC_VERSION_PARTITION 3
#define FIXED_BYTES 49
#define SHAPE_BYTES 8

static dp_status
fail(dp_parse_error *error, const char *field, const char *problem)
{
	error->field = field;
	error->problem = problem;
	return DP_ERROR_FORMAT;
}

static size_t
key_length(const dp_mechanism *mechanism)
{
	size_t		length = 0;

	if (!(mechanism->flags & DP_FLAG_KEYED))
		return 0;
	while (length < DP_KEY_NAME_MAX && mechanism->key[length] != '\0')
		length++;
	return length;
}

/* version 2 exactly when the mechanism has a real parameter */
static bool
has_shape(const dp_mechanism *mechanism)
{
	return mechanism->shape != 0;
}

static int
version_of(const dp_mechanism *mechanism)
{
	if (dp_mechanism_has_partition(mechanism))
		return CODEC_VERSION_PARTITION;
	return has_shape(mechanism) ? CODEC_VERSION_SHAPE : CODEC_VERSION;
}

/* where the key's characters start in a version's layout */
static size_t
key_offset_of(int version)
{
	switch (version)
	{
		case CODEC_VERSION_SHAPE:
			return FIXED_BYTES + SHAPE_BYTES;
		case CODEC_VERSION_PARTITION:
			return FIXED_BYTES + SHAPE_BYTES + DP_PARTITION_BYTES;
		default:
			return FIXED_BYTES;
	}
}

size_t
dp_mechanism_encoded_size(const dp_mechanism *mechanism)
{
	return key_offset_of(version_of(mechanism)) + key_length(mechanism);
}

void
dp_mechanism_encode(const dp_mechanism *mechanism, unsigned char *out)
{
	size_t		length = key_length(mechanism);
	int			version = version_of(mechanism);
	size_t		key_offset = key_offset_of(version);

	memset(out, 0, key_offset);
	out[0] = (unsigned char) version;
	out[1] = (unsigned char) mechanism->kind;
	dp_put_u32(out + 4, mechanism->flags);
	dp_put_f64(out + 8, mechanism->epsilon);
	dp_put_u64(out + 16, (uint64_t) mechanism->horizon);
	dp_put_u64(out + 24, (uint64_t) mechanism->max_per_step);
	dp_put_u64(out + 32, (uint64_t) mechanism->block);
	dp_put_u64(out + 40, (uint64_t) mechanism->contributions);
	out[48] = (unsigned char) length;
	if (version != CODEC_VERSION)
		dp_put_f64(out + FIXED_BYTES, mechanism->shape);
	if (version == CODEC_VERSION_PARTITION)
		memcpy(out + FIXED_BYTES + SHAPE_BYTES, mechanism->partition, DP_PARTITION_BYTES);
	memcpy(out + key_offset, mechanism->key, length);
}

/*
 * Every length is checked against the buffer before anything is read from
 * it; the values are not validated here (dp_mechanism_validate does that,
 * for every source alike).
 */
dp_status
dp_mechanism_decode(const unsigned char *data, size_t length, dp_mechanism *mechanism,
					dp_parse_error *error)
{
	size_t		key;
	size_t		key_offset;

	if (length < 1 || (data[0] != CODEC_VERSION && data[0] != CODEC_VERSION_SHAPE &&
					   data[0] != CODEC_VERSION_PARTITION))
		return fail(error, "version", "unsupported mechanism codec version");
	key_offset = key_offset_of(data[0]);
	if (length < key_offset)
		return fail(error, "length", "shorter than a mechanism");
	if (data[2] != 0 || data[3] != 0)
		return fail(error, "reserved", "reserved bytes are not zero");
	key = data[48];
	if (key > DP_KEY_NAME_MAX)
		return fail(error, "key", "key name longer than 63 characters");
	if (length != key_offset + key)
		return fail(error, "length", "length does not match the key name");
	/* one mechanism, one stored form: no padding inside the name */
	if (memchr(data + key_offset, '\0', key) != NULL)
		return fail(error, "key", "key name with a NUL character");

	memset(mechanism, 0, sizeof(*mechanism));
	mechanism->kind = data[1];
	mechanism->flags = dp_get_u32(data + 4);
	mechanism->epsilon = dp_get_f64(data + 8);
	mechanism->horizon = (int64_t) dp_get_u64(data + 16);
	mechanism->max_per_step = (int64_t) dp_get_u64(data + 24);
	mechanism->block = (int64_t) dp_get_u64(data + 32);
	mechanism->contributions = (int64_t) dp_get_u64(data + 40);
	if (data[0] == CODEC_VERSION_SHAPE)
	{
		mechanism->shape = dp_get_f64(data + FIXED_BYTES);
		/* one mechanism, one stored form: version 2 only with a parameter */
		if (mechanism->shape == 0)
			return fail(error, "version", "version 2 without a real parameter");
	}
	if (data[0] == CODEC_VERSION_PARTITION)
	{
		static const unsigned char zero[SHAPE_BYTES];

		mechanism->shape = dp_get_f64(data + FIXED_BYTES);
		/* no parameter is +0.0 exactly (a -0.0 would compare equal and differ in bytes) */
		if (mechanism->shape == 0 && memcmp(data + FIXED_BYTES, zero, SHAPE_BYTES) != 0)
			return fail(error, "shape", "no real parameter is stored as +0");
		memcpy(mechanism->partition, data + FIXED_BYTES + SHAPE_BYTES, DP_PARTITION_BYTES);
		/* one mechanism, one stored form: version 3 only with a partition */
		if (!dp_mechanism_has_partition(mechanism))
			return fail(error, "version", "version 3 without a partition");
	}
	memcpy(mechanism->key, data + key_offset, key);
	return DP_OK;
}

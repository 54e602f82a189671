/*
 * dp_counter_codec_compat.c
 *		The fixed layouts of a counter state, versions 1 to 5 (dp_stream 0.1.0
 *		to the development builds of 0.10.0; dp_counter_codec.c describes
 *		them): still read, and written by the tests of old states and by
 *		tools that want fixed offsets, never by the extension, which writes
 *		the compact version 6.
 */
#include "dp_counter_codec_compat.h"

#include <string.h>

#include "dp_bytes.h"

#define HEADER_BYTES_V1 48
#define HEADER_BYTES_V2 56
#define KEY_SECTION 56
#define NOISE_KEY_OFFSET 64
#define KEY_NAME_OFFSET 96
#define HEADER_BYTES_V3 160
#define CONTRIBUTIONS_OFFSET 160
#define HEADER_BYTES_V4 168
#define SHAPE_OFFSET 168
#define HEADER_BYTES_V5 176

static size_t
header_bytes(int version)
{
	return version == 1 ? HEADER_BYTES_V1 : version == 2 ? HEADER_BYTES_V2 :
		version == 3 ? HEADER_BYTES_V3 : version == 4 ? HEADER_BYTES_V4 : HEADER_BYTES_V5;
}

static dp_status
fail(dp_parse_error *error, const char *field, const char *problem)
{
	error->field = field;
	error->problem = problem;
	return DP_ERROR_FORMAT;
}

/* Version 1 (0.1.0) exists for the plain Binary mechanism only. */
dp_status
dp_counter_check_version(int version, const dp_mechanism *mechanism, dp_parse_error *error)
{
	if (version == 1 && (mechanism->kind != DP_MECHANISM_BINARY || mechanism->flags != 0))
		return fail(error, "version", "version 1 states hold the plain Binary mechanism only");
	return DP_OK;
}

/*
 * The fixed layout of versions 4 and 5 (0.7.0 to 0.9.0), which every
 * reader still accepts: written by the tests of old states and by tools
 * that want fixed offsets, never by the extension.
 */
static int
fixed_version(const dp_mechanism *mechanism)
{
	return mechanism->shape != 0 ? 5 : 4;
}

size_t
dp_counter_fixed_size(const dp_counter *counter)
{
	return header_bytes(fixed_version(&counter->mechanism)) + 16 * (size_t) counter->node_count;
}

void
dp_counter_serialize_fixed(const dp_counter *counter, unsigned char *out)
{
	dp_int128	nodes[DP_COUNTER_MAX_NODES];
	int			version = fixed_version(&counter->mechanism);
	size_t		header = header_bytes(version);

	memset(out, 0, header);
	out[0] = (unsigned char) version;
	dp_put_u32(out + 4, (uint32_t) counter->mechanism.kind);
	dp_put_u32(out + 8, counter->mechanism.flags);
	dp_put_u32(out + 12, (uint32_t) counter->node_count);
	dp_put_f64(out + 16, counter->mechanism.epsilon);
	dp_put_u64(out + 24, (uint64_t) counter->mechanism.horizon);
	dp_put_u64(out + 32, (uint64_t) counter->mechanism.max_per_step);
	dp_put_u64(out + 40, (uint64_t) counter->steps);
	dp_put_u64(out + 48, (uint64_t) counter->mechanism.block);
	/*
	 * These layouts know neither the table sampler nor keyed derivation 2:
	 * such a key is left out (the state comes back keyless), never written
	 * to be read back as a derivation 1 key, which would draw the same
	 * positions again with other noise.
	 */
	out[KEY_SECTION] = counter->has_noise_key && !counter->table_sampler &&
		counter->derivation != DP_DERIVATION_2 ? 1 : 0;
	if (out[KEY_SECTION])
		memcpy(out + NOISE_KEY_OFFSET, counter->noise_key, DP_NOISE_KEY_BYTES);
	memcpy(out + KEY_NAME_OFFSET, counter->mechanism.key, sizeof(counter->mechanism.key));
	dp_put_u64(out + CONTRIBUTIONS_OFFSET, (uint64_t) counter->mechanism.contributions);
	if (version >= 5)
		dp_put_f64(out + SHAPE_OFFSET, counter->mechanism.shape);

	dp_counter_persisted_nodes(counter, nodes);
	for (int i = 0; i < counter->node_count; i++)
	{
		dp_uint128	bits = (dp_uint128) nodes[i];

		dp_put_u64(out + header + 16 * i, (uint64_t) bits);
		dp_put_u64(out + header + 16 * i + 8, (uint64_t) (bits >> 64));
	}
}

dp_status
dp_counter_fixed_peek(const unsigned char *data, size_t length, dp_mechanism *mechanism,
					  dp_parse_error *error)
{
	uint64_t	epsilon_bits;
	const char *field;
	size_t		node_count;

	if (length < 1 || data[0] < 1 || data[0] > 5)
		return fail(error, "version", "unsupported state format version");
	if (length < header_bytes(data[0]))
		return fail(error, "length", "shorter than the state header");
	if (data[1] != 0 || data[2] != 0 || data[3] != 0)
		return fail(error, "reserved", "reserved header bytes are not zero");

	memset(mechanism, 0, sizeof(*mechanism));
	mechanism->kind = (int32_t) dp_get_u32(data + 4);
	mechanism->flags = dp_get_u32(data + 8);
	epsilon_bits = dp_get_u64(data + 16);
	memcpy(&mechanism->epsilon, &epsilon_bits, sizeof(epsilon_bits));
	mechanism->horizon = (int64_t) dp_get_u64(data + 24);
	mechanism->max_per_step = (int64_t) dp_get_u64(data + 32);
	if (dp_counter_check_version(data[0], mechanism, error) != DP_OK)
		return DP_ERROR_FORMAT;
	if (data[0] != 1)
		mechanism->block = (int64_t) dp_get_u64(data + 48);
	if (data[0] >= 3)
	{
		if (data[KEY_SECTION] > 1)
			return fail(error, "noise_key", "the noise key flag is neither 0 nor 1");
		for (int i = KEY_SECTION + 1; i < NOISE_KEY_OFFSET; i++)
			if (data[i] != 0)
				return fail(error, "reserved", "reserved header bytes are not zero");
		if (data[KEY_SECTION] == 0)
			for (int i = NOISE_KEY_OFFSET; i < KEY_NAME_OFFSET; i++)
				if (data[i] != 0)
					return fail(error, "noise_key", "a noise key without its flag");
		/* validation below refuses a name that is not NUL-terminated or not zero-padded */
		memcpy(mechanism->key, data + KEY_NAME_OFFSET, sizeof(mechanism->key));
	}
	if (data[0] >= 4)
		mechanism->contributions = (int64_t) dp_get_u64(data + CONTRIBUTIONS_OFFSET);
	if (data[0] >= 5)
	{
		mechanism->shape = dp_get_f64(data + SHAPE_OFFSET);
		if (mechanism->shape == 0)
			return fail(error, "version", "version 5 without a real parameter");
	}
	else if (dp_counter_kind_by_id(mechanism->kind) &&
			 dp_counter_kind_by_id(mechanism->kind)->shape_name)
		return fail(error, "version", "a mechanism with a real parameter needs version 5");

	if (dp_mechanism_validate(mechanism, &field) != DP_OK)
		return fail(error, field, "out of range or invalid");

	node_count = dp_get_u32(data + 12);
	if (node_count != (size_t) dp_counter_persisted_node_count(mechanism))
		return fail(error, "nodes", "node count does not match the mechanism");
	if (length != header_bytes(data[0]) + 16 * node_count)
		return fail(error, "length", "length does not match the node count");
	return DP_OK;
}

dp_status
dp_counter_fixed_read(const unsigned char *data, size_t length, dp_mechanism *mechanism,
					  int64_t *steps, dp_int128 *nodes, int *node_count,
					  const unsigned char **noise_key, dp_parse_error *error)
{
	dp_status	status = dp_counter_fixed_peek(data, length, mechanism, error);
	size_t		count;

	if (status != DP_OK)
		return status;
	/* peek checked the count against the mechanism and the length */
	*steps = (int64_t) dp_get_u64(data + 40);
	count = dp_get_u32(data + 12);
	if (count > DP_COUNTER_MAX_NODES)
		return fail(error, "nodes", "too many nodes");
	*noise_key = (data[0] >= 3 && data[KEY_SECTION] == 1) ? data + NOISE_KEY_OFFSET : NULL;
	data += header_bytes(data[0]);
	for (size_t i = 0; i < count; i++)
	{
		uint64_t	low = dp_get_u64(data + 16 * i);
		uint64_t	high = dp_get_u64(data + 16 * i + 8);

		nodes[i] = (dp_int128) (((dp_uint128) high << 64) | low);
	}
	*node_count = (int) count;
	return DP_OK;
}

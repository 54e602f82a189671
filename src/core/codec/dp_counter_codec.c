/*
 * dp_counter_codec.c
 *		Binary and text forms of a counter state.
 *
 * Both forms hold the persisted nodes only (see dp_counter.h), so whoever
 * reads a stored state sees noisy quantities.  The binary form is explicit
 * little-endian so that a state written on one machine is read on any other
 * and send/recv can use it unchanged.
 *
 * Binary layout, version 2:
 *   0  u8   format version       16 f64 epsilon
 *   1  u8   reserved (0)         24 i64 horizon
 *   2  u16  reserved (0)         32 i64 max_per_step
 *   4  i32  mechanism kind       40 i64 steps
 *   8  u32  flags                48 i64 block
 *   12 u32  node count           56 nodes, 16 bytes each, low half first
 *
 * Version 3 (dp_stream 0.6.0) adds, between the header and the nodes:
 *   56 u8   1 when a noise key follows, else 0      64  32 bytes noise key
 *   57 7 bytes reserved (0)                         96  64 bytes key name
 * and its nodes start at 160.  The noise key is secret: versions 3 and 4
 * are only ever stored inside a sealed value (dp_seal.h).  The key name is
 * the mechanism's (zero unless keyed).  Version 4 (0.7.0) adds
 *   160 i64 contributions (person level, else 0)
 * and its nodes start at 168.
 *
 * Version 5 (0.10.0), written only for a mechanism with a real parameter
 * (dp_mechanism.shape; the others keep version 4), adds
 *   168 f64 the parameter
 * and its nodes start at 176.
 *
 * Versions 1 (dp_stream 0.1.0, Binary only: no block field, nodes at 48) and
 * 2 (nodes at 56) are still read, without a noise key.  The consistent
 * release, when that option is set, is the last node.  The text form is
 * version 2's; it carries no noise key.
 */
#include "dp_counter.h"

#include <stdio.h>
#include <string.h>

#include "dp_bytes.h"
#include "dp_text.h"

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
#define TEXT_VERSION 2

static size_t
header_bytes(int version)
{
	return version == 1 ? HEADER_BYTES_V1 : version == 2 ? HEADER_BYTES_V2 :
		version == 3 ? HEADER_BYTES_V3 : version == 4 ? HEADER_BYTES_V4 : HEADER_BYTES_V5;
}

/* the version written: 5 exactly when the mechanism has a real parameter */
static int
written_version(const dp_mechanism *mechanism)
{
	return mechanism->shape != 0 ? 5 : 4;
}

static dp_status
fail(dp_parse_error *error, const char *field, const char *problem)
{
	error->field = field;
	error->problem = problem;
	return DP_ERROR_FORMAT;
}

void
dp_counter_persisted_nodes(const dp_counter *counter, dp_int128 *nodes)
{
	int			first = 0;

	if (counter->kind->persist)
	{
		counter->kind->persist(counter, nodes);
		first = counter->kind_nodes;
	}
	for (int i = first; i < counter->node_count; i++)
		nodes[i] = counter->nodes[i];
}

/*
 * Whether the counter can be stored so that it reads back: a forged state
 * whose nodes sit just below DP_NODE_VALUE_MAX can be pushed past it (its
 * open accumulators grow by the values), and such a state is refused
 * before it is written rather than when it is read.
 */
dp_status
dp_counter_check_storable(const dp_counter *counter)
{
	dp_int128	nodes[DP_COUNTER_MAX_NODES];

	dp_counter_persisted_nodes(counter, nodes);
	for (int i = 0; i < counter->node_count; i++)
		if (nodes[i] > DP_NODE_VALUE_MAX || nodes[i] < -DP_NODE_VALUE_MAX)
			return DP_ERROR_OVERFLOW;
	return DP_OK;
}

size_t
dp_counter_serialized_size(const dp_counter *counter)
{
	return header_bytes(written_version(&counter->mechanism)) + 16 * (size_t) counter->node_count;
}

void
dp_counter_serialize(const dp_counter *counter, unsigned char *out)
{
	dp_int128	nodes[DP_COUNTER_MAX_NODES];
	uint64_t	epsilon_bits;
	int			version = written_version(&counter->mechanism);
	size_t		header = header_bytes(version);

	memcpy(&epsilon_bits, &counter->mechanism.epsilon, sizeof(epsilon_bits));
	memset(out, 0, header);
	out[0] = (unsigned char) version;
	dp_put_u32(out + 4, (uint32_t) counter->mechanism.kind);
	dp_put_u32(out + 8, counter->mechanism.flags);
	dp_put_u32(out + 12, (uint32_t) counter->node_count);
	dp_put_u64(out + 16, epsilon_bits);
	dp_put_u64(out + 24, (uint64_t) counter->mechanism.horizon);
	dp_put_u64(out + 32, (uint64_t) counter->mechanism.max_per_step);
	dp_put_u64(out + 40, (uint64_t) counter->steps);
	dp_put_u64(out + 48, (uint64_t) counter->mechanism.block);
	out[KEY_SECTION] = counter->has_noise_key ? 1 : 0;
	if (counter->has_noise_key)
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

static dp_status
check_steps(const dp_mechanism *mechanism, int64_t steps, dp_parse_error *error)
{
	const dp_counter_kind *kind = dp_counter_kind_by_id(mechanism->kind);

	if (steps < 0 || steps > (kind->bounded ? mechanism->horizon : DP_HORIZON_MAX))
		return fail(error, "steps", "negative or beyond the horizon");
	return DP_OK;
}

/* Version 1 (0.1.0) exists for the plain Binary mechanism only. */
static dp_status
check_version(int version, const dp_mechanism *mechanism, dp_parse_error *error)
{
	if (version == 1 && (mechanism->kind != DP_MECHANISM_BINARY || mechanism->flags != 0))
		return fail(error, "version", "version 1 states hold the plain Binary mechanism only");
	return DP_OK;
}

/* No genuine state holds a node beyond DP_NODE_VALUE_MAX (dp_int128.h). */
static dp_status
check_nodes(const dp_int128 *nodes, int count, dp_parse_error *error)
{
	for (int i = 0; i < count; i++)
		if (nodes[i] > DP_NODE_VALUE_MAX || nodes[i] < -DP_NODE_VALUE_MAX)
			return fail(error, "nodes", "node value beyond what a genuine state can hold");
	return DP_OK;
}

dp_status
dp_counter_peek(const unsigned char *data, size_t length, dp_mechanism *mechanism,
				dp_parse_error *error)
{
	uint64_t	epsilon_bits;
	const char *field;
	size_t		node_count;

	if (length < 1 || data[0] < 1 || data[0] > DP_COUNTER_FORMAT_VERSION)
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
	if (check_version(data[0], mechanism, error) != DP_OK)
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

/*
 * Shared tail of both parsers: everything is checked against the declared
 * mechanism and the caller's storage before a byte of the counter is
 * written, then the nodes go in and the caches are rebuilt.
 */
static dp_status
load(dp_counter *counter, size_t counter_bytes, const dp_mechanism *mechanism, int64_t steps,
	 const dp_int128 *nodes, int node_count, const unsigned char *noise_key,
	 dp_parse_error *error)
{
	const char *field;
	dp_counter	header;

	if (dp_counter_prepare(&header, mechanism, &field) != DP_OK)
		return fail(error, field, "out of range or invalid");
	if (check_steps(mechanism, steps, error) != DP_OK)
		return DP_ERROR_FORMAT;
	if (node_count != header.node_count)
		return fail(error, "nodes", "node count does not match the mechanism");
	if (check_nodes(nodes, node_count, error) != DP_OK)
		return DP_ERROR_FORMAT;
	if (dp_counter_size(mechanism) > counter_bytes)
		return fail(error, "nodes", "more nodes than the storage for this state holds");

	memcpy(counter, &header, sizeof(header));
	if (noise_key)
	{
		memcpy(counter->noise_key, noise_key, DP_NOISE_KEY_BYTES);
		counter->has_noise_key = true;
	}
	counter->steps = steps;
	memcpy(counter->nodes, nodes, sizeof(dp_int128) * (size_t) node_count);
	counter->kind->resume(counter);
	if (counter->overflow)
		return fail(error, "nodes", "node values beyond what a genuine state can hold");
	return DP_OK;
}

dp_status
dp_counter_deserialize(const unsigned char *data, size_t length, dp_counter *counter,
					   size_t counter_bytes, dp_parse_error *error)
{
	dp_mechanism mechanism;
	dp_int128	nodes[DP_COUNTER_MAX_NODES];
	dp_status	status = dp_counter_peek(data, length, &mechanism, error);
	size_t		node_count;
	int64_t		steps;
	const unsigned char *noise_key;

	if (status != DP_OK)
		return status;
	/* peek checked the count against the mechanism and the length */
	steps = (int64_t) dp_get_u64(data + 40);
	node_count = dp_get_u32(data + 12);
	if (node_count > DP_COUNTER_MAX_NODES)
		return fail(error, "nodes", "too many nodes");
	noise_key = (data[0] >= 3 && data[KEY_SECTION] == 1) ? data + NOISE_KEY_OFFSET : NULL;
	data += header_bytes(data[0]);
	for (size_t i = 0; i < node_count; i++)
	{
		uint64_t	low = dp_get_u64(data + 16 * i);
		uint64_t	high = dp_get_u64(data + 16 * i + 8);

		nodes[i] = (dp_int128) (((dp_uint128) high << 64) | low);
	}
	return load(counter, counter_bytes, &mechanism, steps, nodes, (int) node_count, noise_key,
				error);
}

size_t
dp_counter_text_size(const dp_counter *counter)
{
	return 64 + DP_MECHANISM_TEXT_BYTES + (size_t) counter->node_count * (DP_INT128_TEXT_BYTES + 1);
}

void
dp_counter_to_text(const dp_counter *counter, char *buffer)
{
	dp_int128	nodes[DP_COUNTER_MAX_NODES];
	char	   *p = buffer;

	dp_counter_persisted_nodes(counter, nodes);
	p += sprintf(p, "v%d ", TEXT_VERSION);
	p += dp_mechanism_to_text(&counter->mechanism, p, DP_MECHANISM_TEXT_BYTES);
	p += sprintf(p, " steps=%lld nodes=[", (long long) counter->steps);
	for (int i = 0; i < counter->node_count; i++)
	{
		if (i > 0)
			*p++ = ',';
		p += dp_int128_to_text(nodes[i], p);
	}
	*p++ = ']';
	*p = '\0';
}

dp_status
dp_counter_parse(const char *text, dp_mechanism *mechanism, dp_counter *counter,
				 size_t counter_bytes, dp_parse_error *error)
{
	const char *cursor = text;
	dp_status	status = dp_counter_parse_at(&cursor, mechanism, counter, counter_bytes, error);

	if (status != DP_OK)
		return status;
	dp_text_skip_blanks(&cursor);
	if (*cursor != '\0')
		return fail(error, "end", "unexpected text after the nodes");
	return DP_OK;
}

dp_status
dp_counter_parse_at(const char **position, dp_mechanism *mechanism, dp_counter *counter,
					size_t counter_bytes, dp_parse_error *error)
{
	const char *cursor = *position;
	int64_t		version;
	int64_t		steps;
	dp_int128	nodes[DP_COUNTER_MAX_NODES];
	int			count = 0;
	const char *field;
	dp_status	status;

	if (!dp_text_accept(&cursor, "v") || !dp_text_int64(&cursor, &version))
		return fail(error, "version", "expected \"v2\" at the start");
	if (version != 1 && version != TEXT_VERSION)
		return fail(error, "version", "unsupported state format version");

	status = dp_mechanism_parse(&cursor, mechanism, error);
	if (status != DP_OK)
		return status;
	if (dp_mechanism_validate(mechanism, &field) != DP_OK)
		return fail(error, field, "out of range or invalid");
	if (check_version((int) version, mechanism, error) != DP_OK)
		return DP_ERROR_FORMAT;

	if (!dp_text_accept(&cursor, "steps") || !dp_text_accept(&cursor, "="))
		return fail(error, "steps", "expected \"steps=\"");
	if (!dp_text_int64(&cursor, &steps))
		return fail(error, "steps", "expected an integer");
	if (check_steps(mechanism, steps, error) != DP_OK)
		return DP_ERROR_FORMAT;

	if (!dp_text_accept(&cursor, "nodes") || !dp_text_accept(&cursor, "=") ||
		!dp_text_accept(&cursor, "["))
		return fail(error, "nodes", "expected \"nodes=[\"");
	if (!dp_text_accept(&cursor, "]"))
	{
		do
		{
			if (count == DP_COUNTER_MAX_NODES)
				return fail(error, "nodes", "too many nodes");
			dp_text_skip_blanks(&cursor);
			if (dp_int128_parse(&cursor, &nodes[count]) != 0)
				return fail(error, "nodes", "expected a 128-bit integer");
			count++;
		} while (dp_text_accept(&cursor, ","));
		if (!dp_text_accept(&cursor, "]"))
			return fail(error, "nodes", "expected \",\" or \"]\"");
	}
	if (count != dp_counter_persisted_node_count(mechanism))
		return fail(error, "nodes", "node count does not match the mechanism");
	if (check_nodes(nodes, count, error) != DP_OK)
		return DP_ERROR_FORMAT;

	*position = cursor;
	if (counter == NULL)
		return DP_OK;
	return load(counter, counter_bytes, mechanism, steps, nodes, count, NULL, error);
}

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
 * Version 5 (development builds of 0.10.0 only: the fixed layout for a
 * mechanism with a real parameter, dp_mechanism.shape) adds
 *   168 f64 the parameter
 * and its nodes start at 176; it is still read, and dp_counter_serialize_fixed
 * writes it for such mechanisms.
 *
 * Version 6 (0.10.0), the one written, is compact: only what the state
 * holds, in varints (dp_bytes.h), so a Binary state over 2^20 steps is
 * about 50 bytes instead of 504:
 *   u8 6, u8 kind, varint flags, f64 epsilon, varint horizon,
 *   varint max_per_step, varint block, varint contributions,
 *   f64 the real parameter (only for the kinds with one),
 *   u8 key name length and its characters, varint steps, varint nodes
 *     -- the public fields end here (sealing keeps them in the clear) --
 *   u8 1 when a 32-byte noise key follows, else 0 (2: its terms are drawn
 *     by the table sampler; 3 and 4, since 0.17.0: 1 and 2 with keyed
 *     derivation 2, dp_counter_noise); the key;
 *   the nodes: each a varint of its zigzag value (never 0), or 0x00 and a
 *   varint n >= 1 for a run of n zero nodes (as long as the run goes).
 * Levels a stream has not reached are zero nodes, so they cost a few bytes
 * in all.  Every field is read against the remaining length, and a state
 * has one encoding only: shortest varints, maximal zero runs, no bytes
 * after the last node.
 *
 * Versions 1 (dp_stream 0.1.0, Binary only: no block field, nodes at 48) and
 * 2 (nodes at 56) are still read, without a noise key.  Versions 1 to 5,
 * the fixed layouts, are read and written by dp_counter_codec_compat.c.  The consistent
 * release, when that option is set, is the last node.  The text form is
 * version 2's; it carries no noise key.
 */
#include "dp_counter.h"

#include <stdio.h>
#include <string.h>

#include "dp_bytes.h"
#include "dp_counter_codec_compat.h"
#include "dp_text.h"

#define TEXT_VERSION 2

#define COMPACT_VERSION 6

static dp_status
fail(dp_parse_error *error, const char *field, const char *problem)
{
	error->field = field;
	error->problem = problem;
	return DP_ERROR_FORMAT;
}

/* An output that only counts bytes when out is NULL. */
typedef struct byte_writer
{
	unsigned char *out;
	size_t		length;
} byte_writer;

static void
put_bytes(byte_writer *w, const void *bytes, size_t length)
{
	if (w->out)
		memcpy(w->out + w->length, bytes, length);
	w->length += length;
}

static void
put_u8(byte_writer *w, unsigned value)
{
	unsigned char byte = (unsigned char) value;

	put_bytes(w, &byte, 1);
}

static void
put_varint(byte_writer *w, unsigned __int128 value)
{
	w->length += dp_put_varint(w->out ? w->out + w->length : NULL, value);
}

static void
put_f64(byte_writer *w, double value)
{
	unsigned char bytes[8];

	dp_put_f64(bytes, value);
	put_bytes(w, bytes, 8);
}

static size_t
key_name_length(const dp_mechanism *mechanism)
{
	size_t		length = 0;

	while (length < DP_KEY_NAME_MAX && mechanism->key[length] != '\0')
		length++;
	return length;
}

/* zigzag: small magnitudes of either sign give small varints */
static unsigned __int128
zigzag(dp_int128 value)
{
	return ((unsigned __int128) value << 1) ^ (unsigned __int128) (value >> 127);
}

static dp_int128
unzigzag(unsigned __int128 value)
{
	return (dp_int128) (value >> 1) ^ -(dp_int128) (value & 1);
}

/* The compact form (version 6) into out, or only its length; *public_length: its public fields. */
static size_t
compact_encode(const dp_counter *counter, unsigned char *out, size_t *public_length)
{
	const dp_mechanism *m = &counter->mechanism;
	byte_writer w = {out, 0};
	dp_int128	nodes[DP_COUNTER_MAX_NODES];
	size_t		key_length = key_name_length(m);

	put_u8(&w, COMPACT_VERSION);
	put_u8(&w, (unsigned) m->kind);
	put_varint(&w, m->flags);
	put_f64(&w, m->epsilon);
	/* a valid mechanism has no negative field */
	put_varint(&w, (uint64_t) m->horizon);
	put_varint(&w, (uint64_t) m->max_per_step);
	put_varint(&w, (uint64_t) m->block);
	put_varint(&w, (uint64_t) m->contributions);
	if (counter->kind->shape_name)
		put_f64(&w, m->shape);
	put_u8(&w, (unsigned) key_length);
	put_bytes(&w, m->key, key_length);
	put_varint(&w, (uint64_t) counter->steps);
	put_varint(&w, (uint64_t) counter->node_count);
	if (public_length)
		*public_length = w.length;
	/*
	 * 2: the key's terms are drawn by the table sampler; 3 and 4 (0.17.0):
	 * 1 and 2 with keyed derivation 2
	 */
	put_u8(&w, counter->has_noise_key ?
		   (counter->table_sampler ? 2 : 1) + (counter->derivation == DP_DERIVATION_2 ? 2 : 0) :
		   0);
	if (counter->has_noise_key)
		put_bytes(&w, counter->noise_key, DP_NOISE_KEY_BYTES);

	dp_counter_persisted_nodes(counter, nodes);
	for (int i = 0; i < counter->node_count;)
	{
		if (nodes[i] == 0)
		{
			int			run = 0;

			while (i + run < counter->node_count && nodes[i + run] == 0)
				run++;
			put_u8(&w, 0);
			put_varint(&w, (unsigned) run);
			i += run;
		}
		else
			put_varint(&w, zigzag(nodes[i++]));
	}
	return w.length;
}

size_t
dp_counter_serialized_size(const dp_counter *counter)
{
	return compact_encode(counter, NULL, NULL);
}

size_t
dp_counter_public_size(const dp_counter *counter)
{
	size_t		public_length = 0;

	(void) compact_encode(counter, NULL, &public_length);
	return public_length;
}

/*
 * What sealing pads a counter to, so that the length of a stored state
 * tells nothing about its data: the public fields, the noise-key section,
 * and every node at a magnitude computed from public fields only -- all the
 * data the steps can hold (steps * max_per_step) plus 256 noise scales,
 * which a node's few noise terms exceed with probability below 10^-26 --
 * or the actual length if it is ever longer (a length that then tells only
 * that event).  A run of zero nodes is never longer than its nodes at that
 * width.
 */
size_t
dp_counter_padded_size(const dp_counter *counter)
{
	double		scale = dp_scale_as_double(&counter->scale);
	double		second = dp_scale_as_double(&counter->second_scale);
	double		bound = ((double) counter->steps + 1) * (double) counter->mechanism.max_per_step +
		256.0 * (scale > second ? scale : second) + 1.0;
	size_t		width;
	size_t		padded;
	size_t		actual = dp_counter_serialized_size(counter);

	if (!(bound < 0x1p120))
		width = dp_put_varint(NULL, zigzag(-DP_NODE_VALUE_MAX));
	else
		width = dp_put_varint(NULL, zigzag(-(dp_int128) bound));
	padded = dp_counter_public_size(counter) + 1 + DP_NOISE_KEY_BYTES +
		(size_t) counter->node_count * width;
	return padded > actual ? padded : actual;
}

void
dp_counter_serialize(const dp_counter *counter, unsigned char *out)
{
	(void) compact_encode(counter, out, NULL);
}

/* Reads fields of the compact form in order, each against what is left. */
typedef struct byte_reader
{
	const unsigned char *data;
	size_t		length;
	size_t		position;
	bool		failed;
} byte_reader;

static unsigned
get_u8(byte_reader *r)
{
	if (r->failed || r->position >= r->length)
	{
		r->failed = true;
		return 0;
	}
	return r->data[r->position++];
}

static unsigned __int128
get_varint(byte_reader *r, unsigned __int128 limit)
{
	unsigned __int128 value = 0;
	size_t		used;

	if (r->failed)
		return 0;
	used = dp_get_varint(r->data + r->position, r->length - r->position, &value);
	if (used == 0 || value > limit)
	{
		r->failed = true;
		return 0;
	}
	r->position += used;
	return value;
}

static double
get_f64(byte_reader *r)
{
	if (r->failed || r->length - r->position < 8)
	{
		r->failed = true;
		return 0;
	}
	r->position += 8;
	return dp_get_f64(r->data + r->position - 8);
}

static const unsigned char *
get_bytes(byte_reader *r, size_t length)
{
	if (r->failed || r->length - r->position < length)
	{
		r->failed = true;
		return NULL;
	}
	r->position += length;
	return r->data + r->position - length;
}

typedef struct compact_header
{
	int64_t		steps;
	size_t		node_count;
	const unsigned char *noise_key;
	bool		table_sampler;
	int			derivation;
	size_t		nodes_offset;
} compact_header;

/*
 * The fields of a compact state up to its nodes, each checked against the
 * remaining length; the mechanism is validated and the node count checked
 * against it before anything else is read.
 */
static dp_status
compact_header_read(const unsigned char *data, size_t length, dp_mechanism *mechanism,
					compact_header *header, dp_parse_error *error)
{
	byte_reader r = {data, length, 1, false};
	const dp_counter_kind *kind;
	const unsigned char *key;
	size_t		key_length;
	const char *field;
	unsigned	noise_key_flag;

	memset(mechanism, 0, sizeof(*mechanism));
	memset(header, 0, sizeof(*header));
	mechanism->kind = (int32_t) get_u8(&r);
	mechanism->flags = (uint32_t) get_varint(&r, UINT32_MAX);
	mechanism->epsilon = get_f64(&r);
	mechanism->horizon = (int64_t) get_varint(&r, INT64_MAX);
	mechanism->max_per_step = (int64_t) get_varint(&r, INT64_MAX);
	mechanism->block = (int64_t) get_varint(&r, INT64_MAX);
	mechanism->contributions = (int64_t) get_varint(&r, INT64_MAX);
	if (r.failed)
		return fail(error, "length", "shorter than the state header, or a field out of range");
	kind = dp_counter_kind_by_id(mechanism->kind);
	if (kind == NULL)
		return fail(error, "kind", "unknown mechanism kind");
	if (kind->shape_name)
		mechanism->shape = get_f64(&r);
	key_length = get_u8(&r);
	if (key_length > DP_KEY_NAME_MAX)
		return fail(error, "key", "key name longer than 63 characters");
	key = get_bytes(&r, key_length);
	header->steps = (int64_t) get_varint(&r, INT64_MAX);
	header->node_count = (size_t) get_varint(&r, DP_COUNTER_MAX_NODES);
	if (r.failed)
		return fail(error, "length", "shorter than the state header, or a field out of range");
	/* one state, one form: no padding inside the name */
	if (memchr(key, '\0', key_length) != NULL)
		return fail(error, "key", "key name with a NUL character");
	memcpy(mechanism->key, key, key_length);
	if (dp_mechanism_validate(mechanism, &field) != DP_OK)
		return fail(error, field, "out of range or invalid");
	if (header->node_count != (size_t) dp_counter_persisted_node_count(mechanism))
		return fail(error, "nodes", "node count does not match the mechanism");

	noise_key_flag = get_u8(&r);
	if (noise_key_flag > 4)
		return fail(error, "noise_key", "the noise key flag is not 0 to 4");
	header->noise_key = noise_key_flag ? get_bytes(&r, DP_NOISE_KEY_BYTES) : NULL;
	header->table_sampler = noise_key_flag == 2 || noise_key_flag == 4;
	header->derivation = noise_key_flag >= 3 ? DP_DERIVATION_2 : DP_DERIVATION_1;
	if (r.failed)
		return fail(error, "length", "shorter than the state header");
	header->nodes_offset = r.position;
	return DP_OK;
}

/* The nodes of a compact state: exactly node_count of them, then the end. */
static dp_status
compact_nodes_read(const unsigned char *data, size_t length, const compact_header *header,
				   dp_int128 *nodes, dp_parse_error *error)
{
	byte_reader r = {data, length, header->nodes_offset, false};
	size_t		filled = 0;
	bool		after_run = false;

	while (filled < header->node_count)
	{
		if (r.position < r.length && r.data[r.position] == 0)
		{
			size_t		run;

			r.position++;
			run = (size_t) get_varint(&r, header->node_count - filled);
			if (r.failed || run == 0 || after_run)
				return fail(error, "nodes", "a zero run that is empty, too long or not maximal");
			memset(nodes + filled, 0, sizeof(dp_int128) * run);
			filled += run;
			after_run = true;
		}
		else
		{
			unsigned __int128 value = get_varint(&r, ~(unsigned __int128) 0);

			if (r.failed)
				return fail(error, "nodes", "a node value past the end or not in its shortest form");
			nodes[filled++] = unzigzag(value);
			after_run = false;
		}
	}
	if (r.position != r.length)
		return fail(error, "length", "bytes after the last node");
	return DP_OK;
}

static dp_status
check_steps(const dp_mechanism *mechanism, int64_t steps, dp_parse_error *error)
{
	const dp_counter_kind *kind = dp_counter_kind_by_id(mechanism->kind);

	if (steps < 0 || steps > (kind->bounded ? mechanism->horizon : DP_HORIZON_MAX))
		return fail(error, "steps", "negative or beyond the horizon");
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
	if (length >= 1 && data[0] == COMPACT_VERSION)
	{
		compact_header header;

		return compact_header_read(data, length, mechanism, &header, error);
	}
	return dp_counter_fixed_peek(data, length, mechanism, error);
}

/*
 * Shared tail of both parsers: everything is checked against the declared
 * mechanism and the caller's storage before a byte of the counter is
 * written, then the nodes go in and the caches are rebuilt.
 */
static dp_status
load(dp_counter *counter, size_t counter_bytes, const dp_mechanism *mechanism, int64_t steps,
	 const dp_int128 *nodes, int node_count, const unsigned char *noise_key,
	 bool table_sampler, int derivation, dp_parse_error *error)
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
		counter->table_sampler = table_sampler;
		counter->derivation = derivation;
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
	dp_status	status;
	int			node_count;
	int64_t		steps;
	const unsigned char *noise_key;

	if (length >= 1 && data[0] == COMPACT_VERSION)
	{
		compact_header header;

		status = compact_header_read(data, length, &mechanism, &header, error);
		if (status == DP_OK)
			status = compact_nodes_read(data, length, &header, nodes, error);
		if (status != DP_OK)
			return status;
		return load(counter, counter_bytes, &mechanism, header.steps, nodes,
					(int) header.node_count, header.noise_key, header.table_sampler,
					header.derivation, error);
	}
	status = dp_counter_fixed_read(data, length, &mechanism, &steps, nodes, &node_count,
								   &noise_key, error);
	if (status != DP_OK)
		return status;
	return load(counter, counter_bytes, &mechanism, steps, nodes, node_count, noise_key,
				false, DP_DERIVATION_1, error);
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
	if (dp_counter_check_version((int) version, mechanism, error) != DP_OK)
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
	return load(counter, counter_bytes, mechanism, steps, nodes, count, NULL, false,
				DP_DERIVATION_1, error);
}

/*
 * dp_statistic_codec.c
 *		Binary and text forms of a sum, average or variance state.
 *
 * A statistic is stored as its spec and its counters, each in the counter's
 * own persisted form, so a stored statistic is exactly as pan-private as its
 * counters.  On reading, the channels are derived again from the spec and
 * every stored counter must carry the mechanism derived for it: a state
 * cannot claim one set of bounds while its counters were calibrated for
 * another.
 *
 * Binary layout, version 1 (little-endian):
 *   0  u8   format version       8  f64 lower
 *   1  u8   statistic kind       16 f64 upper
 *   2  u8   value domain         24 f64 epsilon (the total)
 *   3  u8   estimator            32 then per channel: u32 length, counter bytes
 *   4  u32  channel count
 */
#include "dp_statistic.h"

#include <stdio.h>
#include <string.h>

#include "dp_bytes.h"
#include "dp_text.h"

#define HEADER_BYTES 32

static dp_status
fail(dp_parse_error *error, const char *field, const char *problem)
{
	error->field = field;
	error->problem = problem;
	return DP_ERROR_FORMAT;
}

static const char *const channel_labels[] = {"count", "sum", "squares"};

/*
 * The user's mechanism is a channel's with the total epsilon and no step
 * bound (dp_statistic_layout; before 0.14.0 it was stated as 1, which
 * meant the same).
 */
static dp_mechanism
user_mechanism(const dp_mechanism *channel, double epsilon)
{
	dp_mechanism mechanism = *channel;

	mechanism.epsilon = epsilon;
	mechanism.max_per_step = DP_STEP_BOUND_UNSTATED;
	mechanism.flags &= ~DP_FLAG_PER_OBSERVATION;
	return mechanism;
}

static bool
same_mechanism(const dp_mechanism *a, const dp_mechanism *b)
{
	return a->kind == b->kind && a->flags == b->flags && a->epsilon == b->epsilon &&
		a->horizon == b->horizon && a->max_per_step == b->max_per_step &&
		a->block == b->block && memcmp(a->key, b->key, sizeof(a->key)) == 0 &&
		a->contributions == b->contributions && a->shape == b->shape;
}

static dp_status
layout_or_fail(dp_statistic *layout, const dp_statistic_spec *spec, dp_parse_error *error)
{
	const char *field;

	if (dp_statistic_layout(layout, spec, &field) != DP_OK)
		return fail(error, field ? field : "statistic", "out of range or invalid");
	return DP_OK;
}

dp_status
dp_statistic_check_storable(const dp_statistic *statistic)
{
	for (int i = 0; i < statistic->channel_count; i++)
		if (dp_counter_check_storable(dp_statistic_counter_const(statistic, i)) != DP_OK)
			return DP_ERROR_OVERFLOW;
	return DP_OK;
}

/*
 * The header only (since 0.12.0): the length of the first channel, which
 * follows it, depends on the data, and public fields are in the clear.
 */
size_t
dp_statistic_public_size(const dp_statistic *statistic)
{
	(void) statistic;
	return HEADER_BYTES;
}

/* As dp_counter_padded_size, channel by channel. */
size_t
dp_statistic_padded_size(const dp_statistic *statistic)
{
	size_t		size = HEADER_BYTES;

	for (int i = 0; i < statistic->channel_count; i++)
		size += 4 + dp_counter_padded_size(dp_statistic_counter_const(statistic, i));
	return size;
}

size_t
dp_statistic_serialized_size(const dp_statistic *statistic)
{
	size_t		size = HEADER_BYTES;

	for (int i = 0; i < statistic->channel_count; i++)
		size += 4 + dp_counter_serialized_size(dp_statistic_counter_const(statistic, i));
	return size;
}

void
dp_statistic_serialize(const dp_statistic *statistic, unsigned char *out)
{
	const dp_statistic_spec *spec = &statistic->spec;

	memset(out, 0, HEADER_BYTES);
	out[0] = DP_STATISTIC_FORMAT_VERSION;
	out[1] = (unsigned char) spec->kind;
	out[2] = (unsigned char) spec->domain;
	out[3] = (unsigned char) spec->estimator;
	dp_put_u32(out + 4, (uint32_t) statistic->channel_count);
	dp_put_f64(out + 8, spec->lower);
	dp_put_f64(out + 16, spec->upper);
	dp_put_f64(out + 24, spec->mechanism.epsilon);
	out += HEADER_BYTES;
	for (int i = 0; i < statistic->channel_count; i++)
	{
		const dp_counter *counter = dp_statistic_counter_const(statistic, i);
		size_t		length = dp_counter_serialized_size(counter);

		dp_put_u32(out, (uint32_t) length);
		dp_counter_serialize(counter, out + 4);
		out += 4 + length;
	}
}

dp_status
dp_statistic_peek(const unsigned char *data, size_t length, dp_statistic *layout,
				  dp_parse_error *error)
{
	dp_statistic_spec spec;
	dp_mechanism first;
	size_t		first_length;
	dp_status	status;

	if (length < HEADER_BYTES + 4)
		return fail(error, "length", "shorter than the header");
	if (data[0] != DP_STATISTIC_FORMAT_VERSION)
		return fail(error, "version", "unsupported statistic format version");
	memset(&spec, 0, sizeof(spec));
	spec.kind = data[1];
	spec.domain = data[2];
	spec.estimator = data[3];
	spec.lower = dp_get_f64(data + 8);
	spec.upper = dp_get_f64(data + 16);
	first_length = dp_get_u32(data + HEADER_BYTES);
	if (first_length > length - HEADER_BYTES - 4)
		return fail(error, "channels", "truncated");
	status = dp_counter_peek(data + HEADER_BYTES + 4, first_length, &first, error);
	if (status != DP_OK)
		return status;
	spec.mechanism = user_mechanism(&first, dp_get_f64(data + 24));
	status = layout_or_fail(layout, &spec, error);
	if (status != DP_OK)
		return status;
	if (dp_get_u32(data + 4) != (uint32_t) layout->channel_count)
		return fail(error, "channels", "channel count does not match the statistic");
	return DP_OK;
}

/* Bytes reserved for channel i's counter in a statistic of this layout. */
static size_t
channel_capacity(const dp_statistic *layout, int i)
{
	size_t		end = i + 1 < layout->channel_count ?
		layout->channels[i + 1].counter_offset : dp_statistic_size(layout);

	return end - layout->channels[i].counter_offset;
}

/*
 * A channel must declare exactly the mechanism derived from the bounds and
 * epsilon; this is checked before its counter is decoded into the slot the
 * layout reserved for that mechanism.
 */
static dp_status
check_channel_mechanism(const dp_statistic *layout, int i, const dp_mechanism *declared,
						dp_parse_error *error)
{
	if (!same_mechanism(declared, &layout->channels[i].mechanism))
		return fail(error, channel_labels[layout->channels[i].role],
					"mechanism does not match the bounds and epsilon");
	return DP_OK;
}

static dp_status
check_channel_steps(const dp_statistic *statistic, int i, dp_parse_error *error)
{
	if (dp_statistic_counter_const(statistic, i)->steps !=
		dp_statistic_counter_const(statistic, 0)->steps)
		return fail(error, channel_labels[statistic->channels[i].role],
					"steps differ between channels");
	return DP_OK;
}

/* The layout goes into the caller's storage only once it is known to fit. */
static dp_status
install_layout(dp_statistic *statistic, size_t statistic_bytes, const dp_statistic *layout,
			   dp_parse_error *error)
{
	if (statistic_bytes < sizeof(dp_statistic) || dp_statistic_size(layout) > statistic_bytes)
		return fail(error, "statistic", "larger than the storage for this state");
	if (statistic != layout)
		memcpy(statistic, layout, sizeof(dp_statistic));
	return DP_OK;
}

dp_status
dp_statistic_deserialize(const unsigned char *data, size_t length, dp_statistic *statistic,
						 size_t statistic_bytes, dp_parse_error *error)
{
	dp_statistic layout;
	dp_status	status = dp_statistic_peek(data, length, &layout, error);
	size_t		offset = HEADER_BYTES;

	if (status != DP_OK)
		return status;
	status = install_layout(statistic, statistic_bytes, &layout, error);
	if (status != DP_OK)
		return status;
	for (int i = 0; i < layout.channel_count; i++)
	{
		size_t		channel_length;
		dp_mechanism declared;

		if (length - offset < 4)
			return fail(error, "channels", "truncated");
		channel_length = dp_get_u32(data + offset);
		offset += 4;
		if (channel_length > length - offset)
			return fail(error, "channels", "truncated");
		status = dp_counter_peek(data + offset, channel_length, &declared, error);
		if (status != DP_OK)
			return status;
		status = check_channel_mechanism(&layout, i, &declared, error);
		if (status != DP_OK)
			return status;
		status = dp_counter_deserialize(data + offset, channel_length,
										dp_statistic_counter(statistic, i),
										channel_capacity(&layout, i), error);
		if (status != DP_OK)
			return status;
		status = check_channel_steps(statistic, i, error);
		if (status != DP_OK)
			return status;
		offset += channel_length;
	}
	if (offset != length)
		return fail(error, "length", "unexpected bytes after the channels");
	return DP_OK;
}

size_t
dp_statistic_text_size(const dp_statistic *statistic)
{
	size_t		size = 160 + DP_MECHANISM_TEXT_BYTES;

	for (int i = 0; i < statistic->channel_count; i++)
		size += 16 + dp_counter_text_size(dp_statistic_counter_const(statistic, i));
	return size;
}

void
dp_statistic_to_text(const dp_statistic *statistic, char *buffer)
{
	const dp_statistic_spec *spec = &statistic->spec;
	char	   *p = buffer;

	p += sprintf(p, "v%d %s(lower=%.17g,upper=%.17g,values=%s",
				 DP_STATISTIC_FORMAT_VERSION, dp_statistic_kind_name(spec->kind),
				 spec->lower, spec->upper,
				 spec->domain == DP_VALUES_INTEGER ? "integer" : "real");
	if (spec->kind == DP_STATISTIC_AVERAGE)
		p += sprintf(p, ",estimator=%s",
					 spec->estimator == DP_ESTIMATOR_PLAIN ? "plain" : "midpoint");
	p += sprintf(p, ") ");
	p += dp_mechanism_to_text(&spec->mechanism, p, DP_MECHANISM_TEXT_BYTES);
	for (int i = 0; i < statistic->channel_count; i++)
	{
		p += sprintf(p, " %s: ", channel_labels[statistic->channels[i].role]);
		dp_counter_to_text(dp_statistic_counter_const(statistic, i), p);
		p += strlen(p);
	}
}

static bool
accept_parameter(const char **cursor, const char *name)
{
	return dp_text_accept(cursor, name) && dp_text_accept(cursor, "=");
}

/* The header: version, kind and its parameters, and the user's mechanism. */
static dp_status
parse_spec(const char **cursor, dp_statistic_spec *spec, dp_parse_error *error)
{
	char		word[16];
	int64_t		version;
	const char *field;
	dp_status	status;

	memset(spec, 0, sizeof(*spec));
	if (!dp_text_accept(cursor, "v") || !dp_text_int64(cursor, &version))
		return fail(error, "version", "expected \"v1\" at the start");
	if (version != DP_STATISTIC_FORMAT_VERSION)
		return fail(error, "version", "unsupported statistic format version");

	if (!dp_text_identifier(cursor, word, sizeof(word)))
		return fail(error, "statistic", "expected sum, average or variance");
	for (int32_t kind = DP_STATISTIC_SUM; kind <= DP_STATISTIC_VARIANCE; kind++)
		if (strcmp(word, dp_statistic_kind_name(kind)) == 0)
			spec->kind = kind;
	if (spec->kind == 0)
		return fail(error, "statistic", "expected sum, average or variance");

	if (!dp_text_accept(cursor, "(") || !accept_parameter(cursor, "lower") ||
		!dp_text_double(cursor, &spec->lower))
		return fail(error, "lower", "expected \"(lower=\" and a number");
	if (!dp_text_accept(cursor, ",") || !accept_parameter(cursor, "upper") ||
		!dp_text_double(cursor, &spec->upper))
		return fail(error, "upper", "expected \",upper=\" and a number");
	if (!dp_text_accept(cursor, ",") || !accept_parameter(cursor, "values") ||
		!dp_text_identifier(cursor, word, sizeof(word)) ||
		(strcmp(word, "real") != 0 && strcmp(word, "integer") != 0))
		return fail(error, "values", "expected \",values=real\" or \",values=integer\"");
	spec->domain = strcmp(word, "integer") == 0 ? DP_VALUES_INTEGER : DP_VALUES_REAL;
	spec->estimator = DP_ESTIMATOR_MIDPOINT;
	if (spec->kind == DP_STATISTIC_AVERAGE)
	{
		if (!dp_text_accept(cursor, ",") || !accept_parameter(cursor, "estimator") ||
			!dp_text_identifier(cursor, word, sizeof(word)) ||
			(strcmp(word, "midpoint") != 0 && strcmp(word, "plain") != 0))
			return fail(error, "estimator", "expected \",estimator=midpoint\" or \",estimator=plain\"");
		spec->estimator = strcmp(word, "plain") == 0 ? DP_ESTIMATOR_PLAIN : DP_ESTIMATOR_MIDPOINT;
	}
	if (!dp_text_accept(cursor, ")"))
		return fail(error, "statistic", "expected \")\"");

	status = dp_mechanism_parse(cursor, &spec->mechanism, error);
	if (status != DP_OK)
		return status;
	if (dp_mechanism_validate(&spec->mechanism, &field) != DP_OK)
		return fail(error, field, "out of range or invalid");
	return DP_OK;
}

dp_status
dp_statistic_parse(const char *text, dp_statistic *layout, dp_statistic *statistic,
				   size_t statistic_bytes, dp_parse_error *error)
{
	const char *cursor = text;
	dp_statistic_spec spec;
	dp_status	status = parse_spec(&cursor, &spec, error);

	if (status != DP_OK)
		return status;
	status = layout_or_fail(layout, &spec, error);
	if (status != DP_OK || statistic == NULL)
		return status;
	status = install_layout(statistic, statistic_bytes, layout, error);
	if (status != DP_OK)
		return status;

	for (int i = 0; i < statistic->channel_count; i++)
	{
		const char *label = channel_labels[statistic->channels[i].role];
		const char *probe;
		dp_mechanism declared;

		if (!dp_text_accept(&cursor, label) || !dp_text_accept(&cursor, ":"))
			return fail(error, label, "expected the channel's label and \":\"");
		/* first the declared mechanism alone, then the counter into its slot */
		probe = cursor;
		status = dp_counter_parse_at(&probe, &declared, NULL, 0, error);
		if (status != DP_OK)
			return status;
		status = check_channel_mechanism(statistic, i, &declared, error);
		if (status != DP_OK)
			return status;
		status = dp_counter_parse_at(&cursor, &declared, dp_statistic_counter(statistic, i),
									 channel_capacity(statistic, i), error);
		if (status != DP_OK)
			return status;
		status = check_channel_steps(statistic, i, error);
		if (status != DP_OK)
			return status;
	}
	dp_text_skip_blanks(&cursor);
	if (*cursor != '\0')
		return fail(error, "end", "unexpected text after the channels");
	return DP_OK;
}

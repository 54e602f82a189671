/*
 * fuzz_text_scanners.c
 *		The token scanners under every text parser (dp_text_int64,
 *		dp_text_double, dp_text_identifier, dp_text_accept, dp_int128_parse)
 *		on arbitrary NUL-terminated text, each from every position the
 *		others stop at.  A scanner that succeeds must stay inside the text
 *		and consume a well-formed token: decimal integers re-read to the same
 *		value after dp_int128_to_text, identifiers are [a-z_]+ that fit the
 *		buffer, and a double is a plain decimal number of at most 400
 *		characters (no hexadecimal, inf, nan or blanks only strtod skips).
 */
#include "fuzz_common.h"

#include <ctype.h>

#include "dp_int128.h"
#include "dp_text.h"

#define MAX_ROUNDS 256

static bool
is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* [+-]?[0-9]+ exactly */
static bool
decimal_token(const char *start, const char *end)
{
	const char *p = start;

	if (p < end && (*p == '+' || *p == '-'))
		p++;
	if (p == end)
		return false;
	for (; p < end; p++)
		if (!isdigit((unsigned char) *p))
			return false;
	return true;
}

static void
check_int128(dp_int128 value)
{
	char		buffer[DP_INT128_TEXT_BYTES];
	const char *cursor = buffer;
	dp_int128	again;
	int			length = dp_int128_to_text(value, buffer);

	FUZZ_CHECK(length > 0 && length < DP_INT128_TEXT_BYTES && (size_t) length == strlen(buffer));
	FUZZ_CHECK(dp_int128_parse(&cursor, &again) == 0);
	FUZZ_CHECK(again == value && *cursor == '\0');
}

/* Skips the blanks a scanner may skip; returns the start of the token. */
static const char *
token_start(const char *cursor)
{
	while (is_blank(*cursor))
		cursor++;
	return cursor;
}

/*
 * [+-]?(digits(.digits?)?|.digits)([eE][+-]?digits)? exactly, not followed
 * by a letter, '_' or '.' (then it would not be a number followed by
 * something else)
 */
static bool
plain_decimal(const char *start, const char *end)
{
	const char *p = start;
	int			digits = 0;

	if (p < end && (*p == '+' || *p == '-'))
		p++;
	while (p < end && isdigit((unsigned char) *p))
		p++, digits++;
	if (p < end && *p == '.')
	{
		p++;
		while (p < end && isdigit((unsigned char) *p))
			p++, digits++;
	}
	if (digits == 0)
		return false;
	if (p < end && (*p == 'e' || *p == 'E'))
	{
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		if (!(p < end && isdigit((unsigned char) *p)))
			return false;
		while (p < end && isdigit((unsigned char) *p))
			p++;
	}
	if (p != end)
		return false;
	return !(isalpha((unsigned char) *end) || *end == '_' || *end == '.');
}

/* the nearest end of a successful scan, to move on from */
static void
note_end(const char **next, const char *start, const char *end)
{
	if (end > start && (*next == NULL || end < *next))
		*next = end;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	   *text = fuzz_text(data, size);
	const char *end = text + strlen(text);
	const char *cursor = text;
	/* identifier buffers of every small size, allocated exactly */
	int			identifier_size = size > 0 ? data[0] % 40 + 1 : 1;
	char	   *identifier = fuzz_alloc((size_t) identifier_size);
	static const char *const literals[] = {
		"v", "(", ")", ",", "=", "[", "]", ":", "steps", "nodes", "epsilon", "",
	};

	/* every scanner from the same position, then on to the nearest end */
	for (int round = 0; round < MAX_ROUNDS && cursor < end; round++)
	{
		const char *start = cursor;
		const char *token = token_start(start);
		const char *next = NULL;
		const char *c;
		dp_int128	wide;
		int64_t		narrow;
		double		real;

		/* dp_int128_parse does not skip blanks */
		c = start;
		if (dp_int128_parse(&c, &wide) == 0)
		{
			FUZZ_CHECK(c > start && c <= end);
			FUZZ_CHECK(decimal_token(start, c));
			check_int128(wide);
			note_end(&next, start, c);
		}
		else
			FUZZ_CHECK(c == start);

		/* dp_text_int64 skips blanks, then reads what dp_int128_parse reads */
		c = start;
		if (dp_text_int64(&c, &narrow))
		{
			const char *again = token;

			FUZZ_CHECK(c > token && c <= end);
			FUZZ_CHECK(decimal_token(token, c));
			FUZZ_CHECK(dp_int128_parse(&again, &wide) == 0 && wide == narrow && again == c);
			note_end(&next, start, c);
		}

		c = start;
		if (dp_text_double(&c, &real))
		{
			FUZZ_CHECK(c > token && c <= end);
			/* dp_text.h: a plain decimal number, no hex, inf, nan or blanks of strtod's */
			FUZZ_CHECK(plain_decimal(token, c));
			FUZZ_CHECK(c - token <= 400);
			note_end(&next, start, c);
		}

		c = start;
		if (dp_text_identifier(&c, identifier, identifier_size))
		{
			size_t		length = strlen(identifier);

			FUZZ_CHECK(length > 0 && (int) length < identifier_size);
			for (size_t i = 0; i < length; i++)
				FUZZ_CHECK((identifier[i] >= 'a' && identifier[i] <= 'z') || identifier[i] == '_');
			FUZZ_CHECK(c == token + length && c <= end);
			FUZZ_CHECK(memcmp(token, identifier, length) == 0);
			note_end(&next, start, c);
		}

		for (size_t i = 0; i < sizeof(literals) / sizeof(literals[0]); i++)
		{
			const char *literal = literals[i];

			c = start;
			if (dp_text_accept(&c, literal))
			{
				FUZZ_CHECK(c == token + strlen(literal) && c <= end);
				FUZZ_CHECK(strncmp(token, literal, strlen(literal)) == 0);
				note_end(&next, start, c);
			}
			else
				FUZZ_CHECK(c >= start && c <= end);
		}

		/* a literal taken from the text itself is accepted there */
		{
			size_t		length = (size_t) (end - token) < 4 ? (size_t) (end - token) : 4;
			char		literal[5];

			memcpy(literal, token, length);
			literal[length] = '\0';
			c = start;
			FUZZ_CHECK(dp_text_accept(&c, literal));
			FUZZ_CHECK(c == token + length);
		}

		cursor = next != NULL ? next : start + 1;
	}
	free(identifier);
	free(text);
	return 0;
}

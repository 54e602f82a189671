/*
 * dp_text.c
 *		Scanning helpers for the text forms.
 */
#include "dp_text.h"

#include <stdlib.h>
#include <string.h>

#include "dp_int128.h"

void
dp_text_skip_blanks(const char **cursor)
{
	while (**cursor == ' ' || **cursor == '\t' || **cursor == '\n' || **cursor == '\r')
		(*cursor)++;
}

bool
dp_text_accept(const char **cursor, const char *literal)
{
	size_t		length = strlen(literal);

	dp_text_skip_blanks(cursor);
	if (strncmp(*cursor, literal, length) != 0)
		return false;
	*cursor += length;
	return true;
}

bool
dp_text_identifier(const char **cursor, char *buffer, int size)
{
	int			length = 0;

	dp_text_skip_blanks(cursor);
	while ((**cursor >= 'a' && **cursor <= 'z') || **cursor == '_')
	{
		if (length + 1 >= size)
			return false;
		buffer[length++] = **cursor;
		(*cursor)++;
	}
	buffer[length] = '\0';
	return length > 0;
}

bool
dp_text_int64(const char **cursor, int64_t *value)
{
	dp_int128	wide;

	dp_text_skip_blanks(cursor);
	if (dp_int128_parse(cursor, &wide) != 0 || wide > INT64_MAX || wide < INT64_MIN)
		return false;
	*value = (int64_t) wide;
	return true;
}

/*
 * Only plain decimal numbers: [+-]digits[.digits][(e|E)[+-]digits], or the
 * same starting with the point.  strtod alone would also take hexadecimal
 * floats, "inf", "nan" and leading blanks of its own; none of them is ever
 * written by our output functions, so none is accepted.  The number is
 * copied into a bounded buffer first, so strtod never reads past it.
 */
#define DP_TEXT_NUMBER_MAX 400

bool
dp_text_double(const char **cursor, double *value)
{
	const char *p;
	char		number[DP_TEXT_NUMBER_MAX + 1];
	char	   *end;
	size_t		length;
	int			digits = 0;

	dp_text_skip_blanks(cursor);
	p = *cursor;
	if (*p == '+' || *p == '-')
		p++;
	while (*p >= '0' && *p <= '9')
	{
		p++;
		digits++;
	}
	if (*p == '.')
	{
		p++;
		while (*p >= '0' && *p <= '9')
		{
			p++;
			digits++;
		}
	}
	if (digits == 0)
		return false;
	if (*p == 'e' || *p == 'E')
	{
		const char *exponent = p + 1;

		if (*exponent == '+' || *exponent == '-')
			exponent++;
		if (!(*exponent >= '0' && *exponent <= '9'))
			return false;
		while (*exponent >= '0' && *exponent <= '9')
			exponent++;
		p = exponent;
	}
	/* "0x1p-3" or "1.5abc" is not a number followed by something else */
	if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_' || *p == '.')
		return false;
	length = (size_t) (p - *cursor);
	if (length > DP_TEXT_NUMBER_MAX)
		return false;
	memcpy(number, *cursor, length);
	number[length] = '\0';
	*value = strtod(number, &end);
	if (end != number + length)
		return false;
	*cursor = p;
	return true;
}

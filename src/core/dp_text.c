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

bool
dp_text_double(const char **cursor, double *value)
{
	char	   *end;

	dp_text_skip_blanks(cursor);
	/* strtod would skip leading blanks and accept hex; we want neither surprise */
	if (**cursor == '\0')
		return false;
	*value = strtod(*cursor, &end);
	if (end == *cursor)
		return false;
	*cursor = end;
	return true;
}

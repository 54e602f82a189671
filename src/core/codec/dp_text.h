/*
 * dp_text.h
 *		Small scanning helpers shared by the text parsers of mechanisms and
 *		states.
 */
#ifndef DP_TEXT_H
#define DP_TEXT_H

#include <stdbool.h>
#include <stdint.h>

extern void dp_text_skip_blanks(const char **cursor);
/* Consumes the literal (after blanks) and returns true, or returns false. */
extern bool dp_text_accept(const char **cursor, const char *literal);
/* Reads [a-z_]+ into buffer (after blanks); false when none or too long. */
extern bool dp_text_identifier(const char **cursor, char *buffer, int size);
/* Reads a signed decimal int64; false on no digits or overflow. */
extern bool dp_text_int64(const char **cursor, int64_t *value);
/*
 * Reads a plain decimal number (sign, digits, point, exponent; no hex, no
 * inf or nan, at most 400 characters); false when there is none.
 */
extern bool dp_text_double(const char **cursor, double *value);

#endif							/* DP_TEXT_H */

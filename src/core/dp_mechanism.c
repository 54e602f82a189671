/*
 * dp_mechanism.c
 *		A mechanism as a plain value: the checks that need no kind.  Its
 *		validation against its kind is the registry's (dp_registry.c), its text
 *		form in codec/dp_mechanism_text.c, its binary form in
 *		codec/dp_mechanism_codec.c.
 */
#include "dp_mechanism.h"

#include <math.h>
#include <stdio.h>
#include <stdbool.h>
#include <string.h>

#include "dp_int128.h"

bool
dp_key_name_valid(const char *name, size_t length)
{
	if (length < 1 || length > DP_KEY_NAME_MAX)
		return false;
	for (size_t i = 0; i < length; i++)
	{
		char		c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			  c == '_' || c == '.' || c == ':' || c == '-'))
			return false;
	}
	return true;
}

/*
 * Computed in 128-bit arithmetic so that no product overflows for any int64
 * input; the floating-point root is within one of the exact one for inputs
 * below 2^63, so each correcting loop runs at most twice.
 */
int64_t
dp_default_block(int64_t horizon)
{
	int64_t		block;

	if (horizon <= 1)
		return 1;
	block = (int64_t) sqrt((double) horizon);
	while (block > 1 && (dp_int128) (block - 1) * (block - 1) >= horizon)
		block--;
	while ((dp_int128) block * block < horizon)
		block++;
	return block;
}

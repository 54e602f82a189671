/*
 * dp_mechanism_compat.c
 *		Readers of the dp_mechanism formats stored before the codec
 *		(versions 1 to 4: the C struct of their day, dp_stream 0.1.0 to
 *		0.6.0).  The current format is read in dp_mechanism_type.c.
 */
#include "dp_stream.h"

/*
 * Version 1 values (dp_stream 0.1.0) end before the block field; they are
 * Binary mechanisms and read with block 0.  Version 2 values (0.2.0 to
 * 0.5.0) end before the key name; they are read as unkeyed.
 */
#define DP_MECHANISM_DATUM_V1_SIZE (offsetof(DpMechanismDatum, mechanism) + \
									offsetof(dp_mechanism, block))
#define DP_MECHANISM_DATUM_V2_SIZE (offsetof(DpMechanismDatum, mechanism) + \
									offsetof(dp_mechanism, key))
#define DP_MECHANISM_DATUM_V3_SIZE (offsetof(DpMechanismDatum, mechanism) + \
									offsetof(dp_mechanism, contributions))
#define DP_MECHANISM_DATUM_V4_SIZE (offsetof(DpMechanismDatum, mechanism) + \
									offsetof(dp_mechanism, shape))
/*
 * A value of versions 1 to 4, copied into a zeroed mechanism (the fields
 * each version lacks read as zero); false for any other version or size.
 * Not validated.
 */
bool
dp_mechanism_read_struct(const DpMechanismDatum *value, size_t size, dp_mechanism *mechanism)
{
	if ((size == DP_MECHANISM_DATUM_V1_SIZE && value->version == 1) ||
		(size == DP_MECHANISM_DATUM_V2_SIZE && value->version == 2) ||
		(size == DP_MECHANISM_DATUM_V3_SIZE && value->version == 3) ||
		(size == DP_MECHANISM_DATUM_V4_SIZE && value->version == 4))
	{
		memset(mechanism, 0, sizeof(*mechanism));
		memcpy(mechanism, &value->mechanism, size - offsetof(DpMechanismDatum, mechanism));
		return true;
	}
	return false;
}

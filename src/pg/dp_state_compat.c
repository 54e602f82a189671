/*
 * dp_state_compat.c
 *		The stored form of dp_counter and dp_statistic values in a database
 *		whose extension is older than 0.6.0 (no secrets yet): unsealed.
 *		Reading such values, and sealing them once 0.6.0 is installed, is
 *		dp_state_read's (dp_sealed.c, through dp_state_open).
 */
#include "dp_stream.h"

/*
 * Before ALTER EXTENSION UPDATE to 0.6.0: unsealed, and without a noise key,
 * which must never be stored in the clear.
 */
Datum
dp_unsealed_datum(const dp_counter *counter, const dp_statistic *statistic)
{
	size_t		length = counter ? dp_counter_serialized_size(counter) :
		dp_statistic_serialized_size(statistic);
	bytea	   *value = palloc(VARHDRSZ + length);

	if ((counter && counter->has_noise_key) ||
		(statistic && dp_statistic_counter_const(statistic, 0)->has_noise_key))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("a keyed or sealed state cannot be stored before dp_stream 0.6.0 is installed"),
				 errhint("Update the extension: ALTER EXTENSION dp_stream UPDATE.")));
	SET_VARSIZE(value, VARHDRSZ + length);
	if (counter)
		dp_counter_serialize(counter, (unsigned char *) VARDATA(value));
	else
		dp_statistic_serialize(statistic, (unsigned char *) VARDATA(value));
	return PointerGetDatum(value);
}

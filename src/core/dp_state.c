/*
 * dp_state.c
 *		Reading a stored state in one call (dp_state.h).
 */
#include "dp_state.h"

#include <string.h>
#include <sodium.h>

#include "dp_counter.h"
#include "dp_statistic.h"

/* The state inside (plain bytes) into memory of its own. */
static dp_status
deserialize(dp_sealed_kind kind, const unsigned char *plain, size_t length,
			const dp_state_access *access, void **state, dp_parse_error *error)
{
	dp_status	status;
	size_t		size;

	if (kind == DP_SEALED_COUNTER)
	{
		dp_mechanism mechanism;

		status = dp_counter_peek(plain, length, &mechanism, error);
		if (status != DP_OK)
			return status;
		size = dp_counter_size(&mechanism);
		*state = access->allocate(access->context, size);
		return dp_counter_deserialize(plain, length, *state, size, error);
	}
	else
	{
		dp_statistic layout;

		status = dp_statistic_peek(plain, length, &layout, error);
		if (status != DP_OK)
			return status;
		size = dp_statistic_size(&layout);
		*state = access->allocate(access->context, size);
		return dp_statistic_deserialize(plain, length, *state, size, error);
	}
}

dp_status
dp_state_open(dp_sealed_kind kind, const unsigned char *data, size_t length,
			  const dp_state_access *access, dp_state_opened *opened, dp_parse_error *error)
{
	unsigned char *decrypted = NULL;
	size_t		decrypted_room = 0;
	const unsigned char *plain = data;
	size_t		plain_length = length;
	dp_status	status;

	memset(opened, 0, sizeof(*opened));
	if (!dp_seal_claims(data, length))
	{
		/* a plain state from before sealing: the caller says whether it may be read */
		if (access->plain_state)
			access->plain_state(access->context);
		access->unbound(access->context, false, &opened->binding);
	}
	else
	{
		dp_seal_info info;
		unsigned char key[DP_SEAL_KEY_BYTES];

		opened->sealed = true;
		status = dp_seal_peek(data, length, kind, &info, error);
		if (status != DP_OK)
		{
			opened->stage = DP_STATE_SEAL;
			return status;
		}
		opened->key_id = info.key_id;
		opened->seal_version = info.version;
		if (!access->secret(access->context, info.key_id, key))
		{
			sodium_memzero(key, sizeof(key));
			opened->stage = DP_STATE_NO_SECRET;
			return DP_ERROR_FORMAT;
		}
		decrypted_room = info.plain_length > 0 ? info.plain_length : 1;
		decrypted = access->allocate(access->context, decrypted_room);
		status = dp_seal_open_bound(data, length, &info, key, decrypted, &opened->binding,
									&plain_length, error);
		sodium_memzero(key, sizeof(key));
		if (status != DP_OK)
		{
			sodium_memzero(decrypted, decrypted_room);
			access->release(access->context, decrypted);
			opened->stage = DP_STATE_SEAL;
			return status;
		}
		if (opened->binding.version == 1)
			access->unbound(access->context, true, &opened->binding);
		plain = decrypted;
	}

	if (access->check_binding)
		access->check_binding(access->context, &opened->binding);
	status = deserialize(kind, plain, plain_length, access, &opened->state, error);
	if (decrypted)
	{
		sodium_memzero(decrypted, decrypted_room);
		access->release(access->context, decrypted);
	}
	if (status != DP_OK)
	{
		opened->stage = DP_STATE_CONTENT;
		return status;
	}
	opened->stage = DP_STATE_OPENED;
	return DP_OK;
}

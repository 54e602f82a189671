/*
 * dp_state.h
 *		Reading a stored state in one call: check the seal, find its secret,
 *		decrypt and authenticate, check whom it belongs to, deserialize.
 *
 * A stored dp_counter or dp_statistic is sealed (dp_seal.h) or, from
 * before 0.6.0, plain.  dp_state_open does every step in the core; what
 * only the caller knows it asks through dp_state_access: whether plain
 * states may be read at all, the secret of a key id, whether the binding
 * allows the current user, and memory.  A callback may end the call by
 * not returning (the extension raises an error there); the secret is
 * wiped before any callback after the one that gave it.
 *
 * No PostgreSQL headers.
 */
#ifndef DP_STATE_H
#define DP_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dp_seal.h"
#include "dp_status.h"

typedef struct dp_state_access
{
	void	   *context;
	/* a plain (unsealed) state was found; NULL: plain states are read */
	void		(*plain_state) (void *context);
	/* the secret of key_id into key; false when there is none */
	bool		(*secret) (void *context, uint64_t key_id,
						   unsigned char key[DP_SEAL_KEY_BYTES]);
	/*
	 * Fills in whom a state belongs to when its seal binds nothing: a plain
	 * state (sealed false) or a version 1 seal (sealed true).
	 */
	void		(*unbound) (void *context, bool sealed, dp_seal_binding *binding);
	/* the state is bound to binding: may the caller use it? NULL: no check */
	void		(*check_binding) (void *context, const dp_seal_binding *binding);
	/* memory for the plain bytes and for the state; never NULL */
	void	   *(*allocate) (void *context, size_t size);
	/* memory the call allocated and no longer needs (wiped already) */
	void		(*release) (void *context, void *memory);
} dp_state_access;

/* Where dp_state_open stopped. */
typedef enum dp_state_stage
{
	DP_STATE_OPENED = 0,
	DP_STATE_SEAL,				/* the seal is malformed or does not authenticate */
	DP_STATE_NO_SECRET,			/* no secret for the seal's key id */
	DP_STATE_CONTENT			/* the state inside is malformed */
} dp_state_stage;

typedef struct dp_state_opened
{
	void	   *state;			/* a dp_counter or a dp_statistic, from allocate */
	bool		sealed;			/* false: a plain state from before 0.6.0 */
	int			seal_version;	/* 1 or 2 when sealed */
	uint64_t	key_id;			/* when sealed */
	/* whom it belongs to: as sealed (version 2), else as unbound said */
	dp_seal_binding binding;
	dp_state_stage stage;
} dp_state_opened;

/*
 * Opens the stored bytes of a state of the given kind (DP_SEALED_COUNTER:
 * a dp_counter, DP_SEALED_STATISTIC: a dp_statistic), in this order: a
 * plain state is reported to plain_state; a sealed one is checked, its
 * secret asked for, decrypted and authenticated; unbound fills in the
 * binding if the seal has none; check_binding sees it; the state inside
 * is checked and deserialized into memory from allocate.  Returns DP_OK
 * with opened->state set, or an error with opened->stage and error
 * saying where and why (error is not set for DP_STATE_NO_SECRET).
 */
extern dp_status dp_state_open(dp_sealed_kind kind, const unsigned char *data, size_t length,
							   const dp_state_access *access, dp_state_opened *opened,
							   dp_parse_error *error);

#endif							/* DP_STATE_H */

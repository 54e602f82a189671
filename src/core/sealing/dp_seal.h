/*
 * dp_seal.h
 *		Sealed values: a state encrypted and authenticated under a database
 *		secret, with its public fields in the clear.
 *
 * Every dp_counter and dp_statistic value that leaves the extension is
 * sealed (docs/threat_model.md, "Sealed states").  Whoever reads a sealed
 * value without the secret learns its public fields (the mechanism and the
 * step count, which every release shows anyway) and nothing else; whoever
 * edits a byte of it, or builds one, gets a value that does not open.
 *
 * Layout, version 1 (little-endian):
 *   0  u8   DP_SEAL_MAGIC          8  u64  id of the secret
 *   1  u8   seal version (1)       16 P bytes: public fields, in the clear
 *   2  u8   what is sealed         16 + P: 24-byte nonce
 *   3  u8   reserved (0)           40 + P: ciphertext of the state, then a
 *   4  u32  P                              16-byte tag
 *
 * XChaCha20-Poly1305 (libsodium) with a random nonce; the additional data
 * is bytes 0 .. 16 + P, so the header and the public fields cannot be
 * changed either.  The public fields are a prefix of the state itself, and
 * an opened value is checked to begin with them.
 *
 * Version 2 (dp_stream 0.12.0), the one written, has the same header (with
 * version 2) and encrypts, instead of the bare state, its binding and the
 * state padded to a length the caller derives from public fields only:
 *   0  u8   length of the role name (1 .. 63)
 *   1  63 bytes: the role name, then zero bytes
 *   64 u64  stream id (0: not the state of a managed stream)
 *   72 u32  L, the length of the state
 *   76 L bytes: the state (beginning with the public fields); then zero
 *      bytes up to the end (padding: the sealed length tells nothing about
 *      the data, docs/threat_model.md)
 * The role is the one that may use the state (open it); the stream id ties
 * a managed stream's state to its catalog row.  Both are authenticated and
 * hidden.  A version 1 value has no binding: dp_seal_open_bound reports it
 * as version 1 and the caller decides whom it belongs to.
 *
 * No PostgreSQL headers: the caller finds the secret and checks the role.
 */
#ifndef DP_SEAL_H
#define DP_SEAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dp_status.h"

#define DP_SEAL_MAGIC 0xD5		/* no unsealed state format begins with it */
#define DP_SEAL_VERSION 2		/* written; version 1 is still read */
#define DP_SEAL_KEY_BYTES 32
#define DP_SEAL_HEADER_BYTES 16
#define DP_SEAL_NONCE_BYTES 24
#define DP_SEAL_TAG_BYTES 16
/* Bounds that no genuine state comes near; checked before any length is used. */
#define DP_SEAL_PUBLIC_MAX 1024
#define DP_SEAL_PLAIN_MAX (1024 * 1024)
/* Version 2: the binding that precedes the state inside the ciphertext. */
#define DP_SEAL_ROLE_MAX 63		/* PostgreSQL's NAMEDATALEN - 1 */
#define DP_SEAL_BINDING_BYTES 76

typedef enum dp_sealed_kind
{
	DP_SEALED_COUNTER = 1,
	DP_SEALED_STATISTIC = 2
} dp_sealed_kind;

/* A sealed value's header, as dp_seal_peek read and checked it. */
typedef struct dp_seal_info
{
	dp_sealed_kind kind;
	uint64_t	key_id;
	const unsigned char *public_fields;
	size_t		public_length;
	size_t		plain_length;	/* bytes dp_seal_open(_bound) decrypts */
	int			version;		/* 1 or 2 */
} dp_seal_info;

/* Whom a sealed state belongs to (version 2), as sealed or opened. */
typedef struct dp_seal_binding
{
	int			version;		/* opened: the seal version; 1 has no binding */
	char		role[DP_SEAL_ROLE_MAX + 1]; /* NUL-terminated; empty in version 1 */
	uint64_t	stream_id;		/* 0: none */
} dp_seal_binding;

/* Whether the bytes claim to be a sealed value (everything else is legacy). */
static inline bool
dp_seal_claims(const unsigned char *data, size_t length)
{
	return length >= 1 && data[0] == DP_SEAL_MAGIC;
}

/* Bytes of the version 1 sealed form of a state of plain_length bytes. */
extern size_t dp_seal_size(size_t public_length, size_t plain_length);

/*
 * Seals plain (its first public_length bytes are the public fields) into
 * out, which has dp_seal_size() bytes, in version 1 (no binding, no
 * padding).  The extension no longer writes it; tests and tools use it to
 * build the states of 0.6.0 to 0.11.0.
 */
extern void dp_seal(unsigned char *out, dp_sealed_kind kind, uint64_t key_id,
					const unsigned char *key, const unsigned char *plain,
					size_t plain_length, size_t public_length);

/* Bytes of the version 2 sealed form of a state padded to padded_length. */
extern size_t dp_seal_bound_size(size_t public_length, size_t padded_length);

/*
 * Seals plain (plain_length bytes, its first public_length the public
 * fields) with its binding, padded with zeros to padded_length >=
 * plain_length bytes, into out, which has dp_seal_bound_size() bytes
 * (version 2).  The role name has 1 to DP_SEAL_ROLE_MAX characters.
 */
extern void dp_seal_bound(unsigned char *out, dp_sealed_kind kind, uint64_t key_id,
						  const unsigned char *key, const dp_seal_binding *binding,
						  const unsigned char *plain, size_t plain_length,
						  size_t public_length, size_t padded_length);

/*
 * Checks the header and every length against the buffer and the bounds;
 * does not decrypt.  `kind` is what the caller expects.
 */
extern dp_status dp_seal_peek(const unsigned char *data, size_t length, dp_sealed_kind kind,
							  dp_seal_info *info, dp_parse_error *error);

/*
 * Decrypts a version 1 value dp_seal_peek accepted into plain (room for
 * info->plain_length bytes); refuses a value that does not authenticate
 * under key, or whose state does not begin with its public fields, and a
 * version 2 value (use dp_seal_open_bound).
 */
extern dp_status dp_seal_open(const unsigned char *data, size_t length,
							  const dp_seal_info *info, const unsigned char *key,
							  unsigned char *plain, dp_parse_error *error);

/*
 * Decrypts a value of either version that dp_seal_peek accepted: plain has
 * room for info->plain_length bytes and receives the state at its start
 * (*state_length bytes), binding what it is bound to.  Refuses what
 * dp_seal_open refuses, and a version 2 binding or padding that is not in
 * its one valid form.
 */
extern dp_status dp_seal_open_bound(const unsigned char *data, size_t length,
									const dp_seal_info *info, const unsigned char *key,
									unsigned char *plain, dp_seal_binding *binding,
									size_t *state_length, dp_parse_error *error);

#endif							/* DP_SEAL_H */

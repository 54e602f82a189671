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
 * No PostgreSQL headers: the caller finds the secret.
 */
#ifndef DP_SEAL_H
#define DP_SEAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dp_status.h"

#define DP_SEAL_MAGIC 0xD5		/* no unsealed state format begins with it */
#define DP_SEAL_VERSION 1
#define DP_SEAL_KEY_BYTES 32
#define DP_SEAL_HEADER_BYTES 16
#define DP_SEAL_NONCE_BYTES 24
#define DP_SEAL_TAG_BYTES 16
/* Bounds that no genuine state comes near; checked before any length is used. */
#define DP_SEAL_PUBLIC_MAX 1024
#define DP_SEAL_PLAIN_MAX (1024 * 1024)

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
	size_t		plain_length;
} dp_seal_info;

/* Whether the bytes claim to be a sealed value (everything else is legacy). */
static inline bool
dp_seal_claims(const unsigned char *data, size_t length)
{
	return length >= 1 && data[0] == DP_SEAL_MAGIC;
}

/* Bytes of the sealed form of a state of plain_length bytes. */
extern size_t dp_seal_size(size_t public_length, size_t plain_length);

/*
 * Seals plain (its first public_length bytes are the public fields) into
 * out, which has dp_seal_size() bytes.
 */
extern void dp_seal(unsigned char *out, dp_sealed_kind kind, uint64_t key_id,
					const unsigned char *key, const unsigned char *plain,
					size_t plain_length, size_t public_length);

/*
 * Checks the header and every length against the buffer and the bounds;
 * does not decrypt.  `kind` is what the caller expects.
 */
extern dp_status dp_seal_peek(const unsigned char *data, size_t length, dp_sealed_kind kind,
							  dp_seal_info *info, dp_parse_error *error);

/*
 * Decrypts a value dp_seal_peek accepted into plain (room for
 * info->plain_length bytes); refuses a value that does not authenticate
 * under key, or whose state does not begin with its public fields.
 */
extern dp_status dp_seal_open(const unsigned char *data, size_t length,
							  const dp_seal_info *info, const unsigned char *key,
							  unsigned char *plain, dp_parse_error *error);

#endif							/* DP_SEAL_H */

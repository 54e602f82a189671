/*
 * test_seal.c
 *		Sealed values (dp_seal.c) and keyed noise (dp_counter_noise): a sealed
 *		value opens only unchanged and under its key; a counter with a noise
 *		key draws the same noise for the same position and content, other
 *		noise for other content, and noise of the right distribution.
 */
#include <string.h>

#include "tap.h"
#include "dp_counter.h"
#include "dp_seal.h"

static dp_random rng;

static dp_counter *
keyed_counter(const dp_mechanism *mechanism, const unsigned char *key)
{
	dp_counter *counter = malloc(dp_counter_size(mechanism));
	const char *field = NULL;

	if (dp_counter_start_keyed(counter, mechanism, key, &rng, &field) != DP_OK)
		abort();
	return counter;
}

static int
contains(const unsigned char *haystack, size_t length, const unsigned char *needle, size_t size)
{
	for (size_t i = 0; i + size <= length; i++)
		if (memcmp(haystack + i, needle, size) == 0)
			return 1;
	return 0;
}

static void
test_seal_round_trip(void)
{
	unsigned char key[DP_SEAL_KEY_BYTES] = "a key of thirty-two bytes.......";
	unsigned char other[DP_SEAL_KEY_BYTES] = "another key of 32 bytes........";
	unsigned char plain[300];
	unsigned char opened[300];
	size_t		size = dp_seal_size(56, sizeof(plain));
	unsigned char *sealed = malloc(size);
	dp_seal_info info;
	dp_parse_error error;
	int			refused = 0;

	for (size_t i = 0; i < sizeof(plain); i++)
		plain[i] = (unsigned char) (i * 7);
	dp_seal(sealed, DP_SEALED_COUNTER, 42, key, plain, sizeof(plain), 56);
	tap_ok(dp_seal_peek(sealed, size, DP_SEALED_COUNTER, &info, &error) == DP_OK &&
		   info.key_id == 42 && info.public_length == 56 && info.plain_length == sizeof(plain),
		   "a sealed value's header reads back");
	tap_ok(memcmp(sealed + DP_SEAL_HEADER_BYTES, plain, 56) == 0,
		   "its public fields are in the clear");
	tap_ok(!contains(sealed + DP_SEAL_HEADER_BYTES + 56, size - DP_SEAL_HEADER_BYTES - 56,
					 plain + 56, 16), "the rest is not");
	tap_ok(dp_seal_open(sealed, size, &info, key, opened, &error) == DP_OK &&
		   memcmp(opened, plain, sizeof(plain)) == 0, "it opens to the state under its key");
	tap_ok(dp_seal_open(sealed, size, &info, other, opened, &error) != DP_OK,
		   "and not under another key");
	tap_ok(dp_seal_peek(sealed, size, DP_SEALED_STATISTIC, &info, &error) != DP_OK,
		   "a sealed counter is not a sealed statistic");

	for (size_t i = 0; i < size; i++)
		for (int bit = 0; bit < 8; bit++)
		{
			sealed[i] ^= (unsigned char) (1 << bit);
			if (dp_seal_peek(sealed, size, DP_SEALED_COUNTER, &info, &error) != DP_OK)
				refused++;
			else
			{
				unsigned char *buffer = malloc(info.plain_length + 1);

				refused += dp_seal_open(sealed, size, &info, key, buffer, &error) != DP_OK;
				free(buffer);
			}
			sealed[i] ^= (unsigned char) (1 << bit);
		}
	tap_ok(refused == (int) size * 8, "every one of the %d one-bit edits is refused (%d)",
		   (int) size * 8, refused);
	for (size_t length = 0; length < size; length++)
		refused += dp_seal_peek(sealed, length, DP_SEALED_COUNTER, &info, &error) != DP_OK ||
			dp_seal_open(sealed, length, &info, key, opened, &error) != DP_OK;
	tap_ok(refused == (int) size * 9, "every truncation is refused");
	free(sealed);
}

/*
 * Version 2: the binding (role, stream) and the padding are sealed with the
 * state; they read back, every edit is refused, a version 1 value still
 * opens (with no binding), and the sealed length is the padded one whatever
 * the state's own length.
 */
static void
test_seal_bound(void)
{
	unsigned char key[DP_SEAL_KEY_BYTES] = "a key of thirty-two bytes.......";
	unsigned char plain[120];
	unsigned char opened[400];
	dp_seal_binding binding = {.version = DP_SEAL_VERSION, .role = "publisher",
	.stream_id = UINT64_C(0x0123456789abcdef)};
	dp_seal_binding read;
	size_t		size = dp_seal_bound_size(20, 200);
	unsigned char *sealed = malloc(size);
	unsigned char *v1 = malloc(dp_seal_size(20, sizeof(plain)));
	size_t		state_length = 0;
	dp_seal_info info;
	dp_parse_error error;
	int			refused = 0;
	int			same_size = 1;

	for (size_t i = 0; i < sizeof(plain); i++)
		plain[i] = (unsigned char) (i * 13 + 1);
	dp_seal_bound(sealed, DP_SEALED_COUNTER, 42, key, &binding, plain, sizeof(plain), 20, 200);
	tap_ok(dp_seal_peek(sealed, size, DP_SEALED_COUNTER, &info, &error) == DP_OK &&
		   info.version == 2 && info.public_length == 20 &&
		   info.plain_length == DP_SEAL_BINDING_BYTES + 200,
		   "a version 2 value's header reads back");
	tap_ok(!contains(sealed, size, (const unsigned char *) "publisher", 9),
		   "its role is not in the clear");
	tap_ok(dp_seal_open_bound(sealed, size, &info, key, opened, &read, &state_length,
							  &error) == DP_OK &&
		   state_length == sizeof(plain) && memcmp(opened, plain, sizeof(plain)) == 0 &&
		   read.version == 2 && strcmp(read.role, "publisher") == 0 &&
		   read.stream_id == binding.stream_id,
		   "it opens to the state, its role and its stream");
	tap_ok(dp_seal_open(sealed, size, &info, key, opened, &error) != DP_OK,
		   "the version 1 opener refuses it");

	for (size_t i = 0; i < size; i++)
		for (int bit = 0; bit < 8; bit++)
		{
			sealed[i] ^= (unsigned char) (1 << bit);
			if (dp_seal_peek(sealed, size, DP_SEALED_COUNTER, &info, &error) != DP_OK)
				refused++;
			else
			{
				unsigned char *buffer = malloc(info.plain_length + 1);

				refused += dp_seal_open_bound(sealed, size, &info, key, buffer, &read,
											  &state_length, &error) != DP_OK;
				free(buffer);
			}
			sealed[i] ^= (unsigned char) (1 << bit);
		}
	tap_ok(refused == (int) size * 8, "every one of the %d one-bit edits is refused (%d)",
		   (int) size * 8, refused);

	/* states of 20 to 200 bytes, padded to 200, seal to one length */
	for (size_t length = 20; length <= 200; length += 30)
	{
		unsigned char *other = malloc(dp_seal_bound_size(20, 200));
		unsigned char state[200];

		memset(state, 0x5a, sizeof(state));
		memcpy(state, plain, 20);
		dp_seal_bound(other, DP_SEALED_COUNTER, 42, key, &binding, state, length, 20, 200);
		same_size &= dp_seal_peek(other, dp_seal_bound_size(20, 200), DP_SEALED_COUNTER, &info,
								  &error) == DP_OK &&
			dp_seal_open_bound(other, dp_seal_bound_size(20, 200), &info, key, opened, &read,
							   &state_length, &error) == DP_OK && state_length == length;
		free(other);
	}
	tap_ok(same_size, "states of different lengths, padded alike, seal to one length and "
		   "open to their own");

	dp_seal(v1, DP_SEALED_COUNTER, 42, key, plain, sizeof(plain), 20);
	tap_ok(dp_seal_peek(v1, dp_seal_size(20, sizeof(plain)), DP_SEALED_COUNTER, &info,
						&error) == DP_OK &&
		   dp_seal_open_bound(v1, dp_seal_size(20, sizeof(plain)), &info, key, opened, &read,
							  &state_length, &error) == DP_OK &&
		   read.version == 1 && read.role[0] == '\0' && read.stream_id == 0 &&
		   state_length == sizeof(plain) && memcmp(opened, plain, sizeof(plain)) == 0,
		   "a version 1 value opens, with no binding");
	free(sealed);
	free(v1);
}

static void
test_keyed_counters(void)
{
	dp_mechanism mechanism = {.kind = DP_MECHANISM_BINARY, .flags = DP_FLAG_PAN_PRIVATE,
	.epsilon = 1.0, .horizon = 64, .max_per_step = 1};
	unsigned char key[DP_NOISE_KEY_BYTES] = "noise key for the unit tests....";
	dp_counter *a = keyed_counter(&mechanism, key);
	dp_counter *b = keyed_counter(&mechanism, key);
	int			same = 1;
	int			later_differ = 0;
	int64_t		before[41];

	for (int t = 1; t <= 40; t++)
	{
		dp_counter_push(a, t % 3 == 0, &rng);
		dp_counter_push(b, t % 3 == 0, &rng);
		same &= dp_counter_release(a) == dp_counter_release(b);
		before[t] = dp_counter_release(a);
	}
	tap_ok(same, "two counters under one key, pushed with the same values, release the same");

	/* the same stream with step 35 changed: releases before it are unchanged */
	free(b);
	b = keyed_counter(&mechanism, key);
	same = 1;
	for (int t = 1; t <= 40; t++)
	{
		dp_counter_push(b, t == 35 ? !(t % 3 == 0) : (t % 3 == 0), &rng);
		if (t < 35)
			same &= dp_counter_release(b) == before[t];
		else
			later_differ += dp_counter_release(b) != before[t] + (t >= 35 ? 1 : 0);
	}
	tap_ok(same, "a change at step 35 leaves every earlier release as it was");
	tap_ok(later_differ > 0, "and the releases that cover it get fresh noise (%d of 6 differ by "
		   "more than the change)", later_differ);
	free(a);
	free(b);
}

/*
 * Keyed draws are discrete Laplace of the counter's scale: the release
 * noise of Binary at step 1 (one closed node with two terms, pan-private)
 * over many keys has variance 2 * Var(one term).  With n = 20000 keys the
 * sample variance's standard error is sqrt((mu4 - s^4) / n); for a sum of
 * two discrete Laplace terms the kurtosis is below 6 (that of a single
 * Laplace), so 5 standard errors are sqrt(5 / n) * 5 relative.
 */
static void
test_keyed_distribution(void)
{
	dp_mechanism mechanism = {.kind = DP_MECHANISM_BINARY, .flags = DP_FLAG_PAN_PRIVATE,
	.epsilon = 0.5, .horizon = 1, .max_per_step = 1};
	const int	n = 20000;
	double		sum = 0,
				squares = 0,
				expected;
	dp_counter *counter = NULL;

	for (int i = 0; i < n; i++)
	{
		unsigned char key[DP_NOISE_KEY_BYTES];
		double		noise;

		dp_random_bytes(&rng, key, sizeof(key));
		free(counter);
		counter = keyed_counter(&mechanism, key);
		dp_counter_push(counter, 1, &rng);
		noise = (double) (dp_counter_release(counter) - 1);
		sum += noise;
		squares += noise * noise;
	}
	expected = dp_counter_noise_variance(counter);
	{
		double		mean = sum / n;
		double		variance = squares / n - mean * mean;
		double		tolerance = 5.0 * sqrt(5.0 / n);

		tap_ok(fabs(variance / expected - 1) < tolerance,
			   "keyed noise has the variance of its scale: %.3f against %.3f (tolerance %.1f%%)",
			   variance, expected, 100 * tolerance);
		tap_ok(fabs(mean) < 5.0 * sqrt(expected / n), "and mean 0: %.3f", mean);
	}
	free(counter);
}

int
main(void)
{
	static const char seed[] = "test_seal";

	if (!dp_random_library_init())
		return 1;
	dp_random_init_keyed(&rng, seed, sizeof(seed) - 1);
	test_seal_round_trip();
	test_seal_bound();
	test_keyed_counters();
	test_keyed_distribution();
	return tap_done();
}

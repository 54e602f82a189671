/*
 * make_corpus.c
 *		Writes the seed corpus of the fuzz targets: valid states produced by
 *		the code itself (text and binary forms of counters of every mechanism
 *		and option, and of sums, averages and variances), raw parameter
 *		records and scanner tokens, plus edge cases.  Each file is named by
 *		the SHA-1 of its content, as libFuzzer names corpus entries, so
 *		running it again adds nothing new.
 *
 *		make fuzz-corpus  (or: make_corpus DIRECTORY)
 *
 * Some edge cases crash the code of dp_stream 0.3.0 on purpose (huge
 * horizons, nodes near 2^127, a statistic's channel declaring more nodes
 * than its bounds imply); see test/fuzz/README.md.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dp_bytes.h"
#include "dp_counter.h"
#include "dp_statistic.h"

/* the stored forms exactly as the harnesses make and read them */
#include "fuzz_counter_common.h"
#include "fuzz_statistic_common.h"

/* as PostgreSQL's c.h has it */
#define lengthof(array) (sizeof(array) / sizeof((array)[0]))

static const char *root;
static int	written;
static dp_random rng;

/* ---- SHA-1 (FIPS 180-4), for libFuzzer-style file names ---- */

static uint32_t
rotl(uint32_t x, int n)
{
	return (x << n) | (x >> (32 - n));
}

static void
sha1_block(uint32_t h[5], const unsigned char *block)
{
	uint32_t	w[80];
	uint32_t	a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];

	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t) block[4 * i] << 24 | (uint32_t) block[4 * i + 1] << 16 |
			(uint32_t) block[4 * i + 2] << 8 | (uint32_t) block[4 * i + 3];
	for (int i = 16; i < 80; i++)
		w[i] = rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
	for (int i = 0; i < 80; i++)
	{
		uint32_t	f,
					k,
					t;

		if (i < 20)
			f = (b & c) | (~b & d), k = 0x5A827999;
		else if (i < 40)
			f = b ^ c ^ d, k = 0x6ED9EBA1;
		else if (i < 60)
			f = (b & c) | (b & d) | (c & d), k = 0x8F1BBCDC;
		else
			f = b ^ c ^ d, k = 0xCA62C1D6;
		t = rotl(a, 5) + f + e + k + w[i];
		e = d;
		d = c;
		c = rotl(b, 30);
		b = a;
		a = t;
	}
	h[0] += a;
	h[1] += b;
	h[2] += c;
	h[3] += d;
	h[4] += e;
}

static void
sha1_hex(const unsigned char *data, size_t length, char hex[41])
{
	uint32_t	h[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
	unsigned char block[64];
	size_t		done = 0;
	uint64_t	bits = (uint64_t) length * 8;

	for (; length - done >= 64; done += 64)
		sha1_block(h, data + done);
	memset(block, 0, sizeof(block));
	memcpy(block, data + done, length - done);
	block[length - done] = 0x80;
	if (length - done >= 56)
	{
		sha1_block(h, block);
		memset(block, 0, sizeof(block));
	}
	for (int i = 0; i < 8; i++)
		block[63 - i] = (unsigned char) (bits >> (8 * i));
	sha1_block(h, block);
	for (int i = 0; i < 5; i++)
		sprintf(hex + 8 * i, "%08x", h[i]);
}

/* ---- output ---- */

static void
write_seed(const char *target, const void *data, size_t length)
{
	char		path[4096];
	char		hex[41];
	FILE	   *file;

	snprintf(path, sizeof(path), "%s/%s", root, target);
	if (mkdir(path, 0777) != 0 && errno != EEXIST)
	{
		perror(path);
		exit(1);
	}
	sha1_hex(data, length, hex);
	snprintf(path, sizeof(path), "%s/%s/%s", root, target, hex);
	file = fopen(path, "wb");
	if (file == NULL || fwrite(data, 1, length, file) != length || fclose(file) != 0)
	{
		perror(path);
		exit(1);
	}
	written++;
}

static void
write_text(const char *target, const char *text)
{
	write_seed(target, text, strlen(text));
}

static void
write_textf(const char *target, const char *format,...)
{
	char		buffer[16384];
	va_list		arguments;

	va_start(arguments, format);
	vsnprintf(buffer, sizeof(buffer), format, arguments);
	va_end(arguments);
	write_text(target, buffer);
}

static void
write_texts(const char *target, const char *const *texts, size_t count)
{
	for (size_t i = 0; i < count; i++)
		write_text(target, texts[i]);
}

/* The text and binary harnesses of one kind of state. */
typedef struct harnesses
{
	const char *text;
	const char *binary;
} harnesses;

static const harnesses counter_harnesses = {"fuzz_counter_text", "fuzz_counter_binary"};
static const harnesses statistic_harnesses = {"fuzz_statistic_text", "fuzz_statistic_binary"};

/* A state in both forms, each to the harness that reads it. */
static void
write_forms(const harnesses *to, const fuzz_forms *forms)
{
	write_text(to->text, forms->text);
	write_seed(to->binary, forms->binary, forms->length);
}

/* Text A, a NUL, text B: the hostile variant of the text harnesses. */
static void
write_text_pair(const char *target, const char *first, const char *second)
{
	size_t		a = strlen(first);
	size_t		b = strlen(second);
	char	   *buffer = malloc(a + 1 + b);

	memcpy(buffer, first, a);
	buffer[a] = '\0';
	memcpy(buffer + a + 1, second, b);
	write_seed(target, buffer, a + 1 + b);
	free(buffer);
}

/* Bytes A, bytes B, u16 length of A: the hostile variant of the binary harnesses. */
static void
write_binary_pair(const char *target, const unsigned char *first, size_t a,
				  const unsigned char *second, size_t b)
{
	unsigned char *buffer = malloc(a + b + 2);

	memcpy(buffer, first, a);
	memcpy(buffer + a, second, b);
	buffer[a + b] = (unsigned char) (a & 0xff);
	buffer[a + b + 1] = (unsigned char) (a >> 8);
	write_seed(target, buffer, a + b + 2);
	free(buffer);
}

/* Both hostile variants of two states: the first sizes the storage, the second fills it. */
static void
write_pair(const harnesses *to, const fuzz_forms *first, const fuzz_forms *second)
{
	write_text_pair(to->text, first->text, second->text);
	write_binary_pair(to->binary, first->binary, first->length, second->binary, second->length);
}

/* ---- counters ---- */

static dp_mechanism
mechanism(int32_t kind, uint32_t flags, double epsilon, int64_t horizon, int64_t max_per_step,
		  int64_t block)
{
	dp_mechanism m;

	memset(&m, 0, sizeof(m));
	m.kind = kind;
	m.flags = flags;
	m.epsilon = epsilon;
	m.horizon = horizon;
	m.max_per_step = max_per_step;
	m.block = block;
	return m;
}

/* the same with a kind's real parameter (dp_expiring's lambda, the baseline's ratio) */
static dp_mechanism
shaped(dp_mechanism m, double shape)
{
	m.shape = shape;
	return m;
}

static dp_counter *
counter_after(const dp_mechanism *m, int steps)
{
	dp_counter *counter = malloc(dp_counter_size(m));
	const char *field;
	/* keyed mechanisms draw under a noise key, stored in format 3 */
	static const unsigned char noise_key[DP_NOISE_KEY_BYTES] = "make_corpus noise key..........";

	if (dp_counter_start_keyed(counter, m, (m->flags & DP_FLAG_KEYED) ? noise_key : NULL,
							   &rng, &field) != DP_OK)
	{
		fprintf(stderr, "make_corpus: invalid mechanism (%s)\n", field);
		exit(1);
	}
	for (int i = 0; i < steps; i++)
		if (dp_counter_push(counter, (i * 7 + 3) % (m->max_per_step + 2) - 1, &rng) != DP_OK)
			break;
	return counter;
}

/* The stored forms of counter_after(m, steps), for seeds made of bytes. */
static fuzz_forms
counter_forms_after(const dp_mechanism *m, int steps)
{
	dp_counter *counter = counter_after(m, steps);
	fuzz_forms	forms = fuzz_counter_forms_of(counter);

	free(counter);
	return forms;
}

static void
write_counter(const dp_counter *counter)
{
	fuzz_forms	forms = fuzz_counter_forms_of(counter);
	char		mechanism_text[DP_MECHANISM_TEXT_BYTES];

	write_forms(&counter_harnesses, &forms);
	dp_mechanism_to_text(&counter->mechanism, mechanism_text, sizeof(mechanism_text));
	write_text("fuzz_mechanism_text", mechanism_text);
	fuzz_free_forms(&forms);
}

/*
 * A state with a random noise key drawn by the table sampler (noise key
 * flag 2), as an unseeded session starts it.
 */
static void
table_sampler_state(const dp_mechanism *m, int steps)
{
	dp_counter *counter = malloc(dp_counter_size(m));
	const char *field;
	static const unsigned char noise_key[DP_NOISE_KEY_BYTES] = "make_corpus table key..........";

	/* keyed mechanisms too: a database with a table_noise secret starts them so */
	if (dp_counter_start_with_sampler(counter, m, noise_key, true, &rng, &field) != DP_OK)
		exit(1);
	for (int i = 0; i < steps; i++)
		if (dp_counter_push(counter, i % 2, &rng) != DP_OK)
			break;
	write_counter(counter);
	free(counter);
}

/*
 * Every valid mechanism counters() writes, for the harnesses that take a
 * mechanism's text form and run it (fuzz_stream, fuzz_planning).
 */
#define REMEMBERED_MAX 1024
static dp_mechanism remembered[REMEMBERED_MAX];
static int	remembered_count;

static void
remember_mechanism(const dp_mechanism *m)
{
	if (remembered_count < REMEMBERED_MAX)
		remembered[remembered_count++] = *m;
}

/* Every mechanism, option and a few step counts. */
static void
counters(void)
{
	const dp_mechanism bases[] = {
		mechanism(DP_MECHANISM_BINARY, 0, 1.0, 16, 1, 0),
		mechanism(DP_MECHANISM_BINARY, 0, 0.5, 1000, 1000, 0),
		mechanism(DP_MECHANISM_SIMPLE_I, 0, 1.0, 100, 1, 0),
		mechanism(DP_MECHANISM_SIMPLE_I, 0, 2.0, 1, 3, 0),
		mechanism(DP_MECHANISM_SIMPLE_II, 0, 1.0, 0, 1, 0),
		mechanism(DP_MECHANISM_TWO_LEVEL, 0, 1.0, 100, 1, 10),
		mechanism(DP_MECHANISM_TWO_LEVEL, 0, 0.25, 50, 5, 3),
		mechanism(DP_MECHANISM_HYBRID, 0, 1.0, 0, 1, 0),
		mechanism(DP_MECHANISM_HYBRID, 0, 0.1, 0, 100, 0),
		mechanism(DP_MECHANISM_KARY, 0, 1.0, 100, 1, 5),
		mechanism(DP_MECHANISM_KARY, 0, 0.5, 5000, 3, 17),
		mechanism(DP_MECHANISM_BALANCED, 0, 1.0, 100, 1, 5),
		mechanism(DP_MECHANISM_BALANCED, 0, 0.5, 5000, 2, 13),
		mechanism(DP_MECHANISM_PPCUM, 0, 1.0, 64, 1, 0),
		mechanism(DP_MECHANISM_PPCUM, 0, 1.5, 33, 2, 0),
		mechanism(DP_MECHANISM_BALANCED_UNBOUNDED, 0, 1.0, 0, 1, 5),
		mechanism(DP_MECHANISM_BALANCED_UNBOUNDED, 0, 0.5, 0, 2, 21),
		mechanism(DP_MECHANISM_HONAKER, 0, 1.0, 100, 1, 2),
		mechanism(DP_MECHANISM_HONAKER, 0, 0.5, 5000, 3, 5),
		mechanism(DP_MECHANISM_BLT, DP_FLAG_ZCDP, 0.5, 100, 1, 0),
		mechanism(DP_MECHANISM_BLT, DP_FLAG_ZCDP, 2.0, 5000, 3, 0),
		mechanism(DP_MECHANISM_SMOOTH_BINARY, DP_FLAG_ZCDP, 0.5, 100, 1, 0),
		mechanism(DP_MECHANISM_BINARY, DP_FLAG_ZCDP, 0.5, 1000, 2, 0),
		shaped(mechanism(DP_MECHANISM_EXPIRING, 0, 1.0, 0, 1, 0), 2),
		shaped(mechanism(DP_MECHANISM_EXPIRING, 0, 0.5, 0, 3, 5), 0.5),
		shaped(mechanism(DP_MECHANISM_EXPIRING_BASELINE, 0, 1.0, 100, 1, 7), 0.25),
		shaped(mechanism(DP_MECHANISM_EXPIRING_BASELINE, 0, 0.5, 5000, 2, 127), 2),
		shaped(mechanism(DP_MECHANISM_ROLLING, 0, 1.0, 0, 1, 7), 1),
		shaped(mechanism(DP_MECHANISM_ROLLING, 0, 1.0, 0, 1, 28), 3),
		shaped(mechanism(DP_MECHANISM_ROLLING, 0, 0.5, 0, 3, 511), 9),
		/* k-ary: arity 19 and 3 (kept in the horizon as k - 2) */
		shaped(mechanism(DP_MECHANISM_ROLLING, 0, 1.0, 17, 1, 365), 2),
		shaped(mechanism(DP_MECHANISM_ROLLING, 0, 0.5, 1, 2, 9), 2),
		shaped(mechanism(DP_MECHANISM_DECAYED, 0, 1.0, 0, 1, 0), 0.9),
		shaped(mechanism(DP_MECHANISM_DECAYED, 0, 0.5, 0, 3, 0), 0.999),
	};
	const int	steps[] = {0, 5, 16};

	for (size_t i = 0; i < lengthof(bases); i++)
		for (uint32_t flags = 0; flags <= DP_FLAGS_ALL; flags++)
		{
			dp_mechanism m = bases[i];

			/* only the options the kind accepts */
			if (flags & ~dp_counter_kind_by_id(m.kind)->accepted_flags)
				continue;
			/* keyed: pan-private, a key name, and not Simple I or PPCum */
			if ((flags & DP_FLAG_KEYED) &&
				(!(flags & DP_FLAG_PAN_PRIVATE) || m.kind == DP_MECHANISM_SIMPLE_I ||
				 m.kind == DP_MECHANISM_PPCUM))
				continue;
			if (flags & DP_FLAG_KEYED)
				strcpy(m.key, "corpus_key");
			/* person level: contributions, and not Simple I or PPCum */
			if ((flags & DP_FLAG_PER_OBSERVATION) && !(flags & DP_FLAG_PERSON))
				continue;
			if ((flags & DP_FLAG_PERSON) &&
				(m.kind == DP_MECHANISM_SIMPLE_I || m.kind == DP_MECHANISM_PPCUM))
				continue;
			m.contributions = (flags & DP_FLAG_PERSON) ? 3 : 0;
			m.flags = flags | bases[i].flags;
			{
				const char *field;

				/* BLT is zCDP only; zCDP refuses keyed noise */
				if (dp_mechanism_validate(&m, &field) != DP_OK)
					continue;
			}
			remember_mechanism(&m);
			for (size_t s = 0; s < lengthof(steps); s++)
			{
				dp_counter *counter;

				if (flags != 0 && s == 0)
					continue;	/* options matter once there are steps */
				if ((i % 2 == 1 || flags != 0) && s == 2)
					continue;
				counter = counter_after(&m, steps[s]);
				write_counter(counter);
				free(counter);
			}
		}
	for (size_t i = 0; i < lengthof(bases); i += 3)
	{
		dp_mechanism keyed = bases[i];

		table_sampler_state(&bases[i], 9);
		/* the same under a key name (keyed implies pan-private) */
		keyed.flags |= DP_FLAG_KEYED | DP_FLAG_PAN_PRIVATE;
		memcpy(keyed.key, "corpus_key", sizeof("corpus_key"));
		if (dp_mechanism_validate(&keyed, &(const char *) {NULL}) == DP_OK)
			table_sampler_state(&keyed, 9);
	}

	/* the largest horizon, max_per_step and smallest epsilon accepted */
	{
		const dp_mechanism large[] = {
			mechanism(DP_MECHANISM_BINARY, 0, 0x1p-40, DP_HORIZON_MAX, 1, 0),
			mechanism(DP_MECHANISM_BINARY, 0, 100, 1024, DP_MAX_PER_STEP_MAX, 0),
			mechanism(DP_MECHANISM_TWO_LEVEL, DP_FLAG_PAN_PRIVATE, 1, DP_HORIZON_MAX, 1,
					  dp_default_block(DP_HORIZON_MAX)),
			mechanism(DP_MECHANISM_TWO_LEVEL, 0, 1, DP_HORIZON_MAX, 1, 1),
			mechanism(DP_MECHANISM_PPCUM, DP_FLAG_CONSISTENT, 1, DP_HORIZON_MAX, 1, 0),
			mechanism(DP_MECHANISM_SIMPLE_II, 0, 0x1p-40, 0, DP_MAX_PER_STEP_MAX, 0),
		};

		for (size_t i = 0; i < lengthof(large); i++)
		{
			dp_counter *counter = counter_after(&large[i], 3);

			remember_mechanism(&large[i]);

			write_counter(counter);
			free(counter);
		}
	}
}

/* Hand-written counter texts: edge cases of the grammar and of ranges. */
static void
counter_edge_texts(void)
{
	static const char *const texts[] = {
		"v2 binary(epsilon=1,horizon=4,max_per_step=1) steps=0 nodes=[1,2,3]",
		"  v2   binary ( epsilon = 1 , horizon = 4 ) steps = 2 nodes = [ +1 , -2 , 003 ]  ",
		"v2\tbinary(epsilon=1,horizon=4)\nsteps=4\r\nnodes=[0,0,0]",
		"v1 binary(epsilon=1,horizon=4,max_per_step=1) steps=1 nodes=[5,-5,0]",
		/* v1 header on mechanisms that 0.1.0 did not have */
		"v1 hybrid(epsilon=1,max_per_step=1) steps=0 nodes=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]",
		"v1 simple_ii(epsilon=1,max_per_step=1) steps=3 nodes=[7]",
		"v1 two_level(epsilon=1,horizon=9,block=3,pan_private=true,max_per_step=1) steps=2 nodes=[0,1,2]",
		"v3 binary(epsilon=1,horizon=4,max_per_step=1) steps=0 nodes=[0,0,0]",
		"v2 binary(epsilon=1,horizon=4,max_per_step=1) steps=5 nodes=[0,0,0]",
		"v2 binary(epsilon=1,horizon=4,max_per_step=1) steps=-1 nodes=[0,0,0]",
		"v2 binary(epsilon=1,horizon=4,max_per_step=1) steps=0 nodes=[0,0]",
		"v2 binary(epsilon=1,horizon=4,max_per_step=1) steps=0 nodes=[0,0,0,0]",
		"v2 binary(epsilon=1,horizon=4,max_per_step=1) steps=0 nodes=[]",
		"v2 binary(epsilon=1,horizon=4,max_per_step=1) steps=0 nodes=[0,0,0] trailing",
		"v2 binary(epsilon=1,horizon=4,max_per_step=1) steps=0 nodes=[0,0,0",
		"v2 binary(epsilon=1,horizon=4,max_per_step=1) steps=0 nodes=",
		"v2 binary(epsilon=1,horizon=4,max_per_step=1) steps=",
		"v2 binary(epsilon=1,horizon=4",
		"v2",
		"",
		/* hex floats, duplicates, block=0 */
		"v2 binary(epsilon=0x1p-3,horizon=4,max_per_step=1) steps=1 nodes=[9,0,0]",
		"v2 binary(epsilon=0X1.8P+1,horizon=4,max_per_step=1) steps=0 nodes=[0,0,0]",
		"v2 binary(epsilon=1,epsilon=2,horizon=8,horizon=4,max_per_step=3,max_per_step=1) steps=0 nodes=[0,0,0]",
		"v2 two_level(epsilon=1,horizon=100,block=0,max_per_step=1) steps=0 nodes=[0,0,0]",
		"v2 two_level(epsilon=1,horizon=100,block=101,max_per_step=1) steps=0 nodes=[0,0,0]",
		"v2 two_level(epsilon=1,horizon=100,block=-1,max_per_step=1) steps=0 nodes=[0,0,0]",
		"v2 binary(epsilon=inf,horizon=4,max_per_step=1) steps=0 nodes=[0,0,0]",
		"v2 binary(epsilon=nan,horizon=4,max_per_step=1) steps=0 nodes=[0,0,0]",
		"v2 binary(epsilon=1e-300,horizon=4,max_per_step=1) steps=0 nodes=[0,0,0]",
		"v2 binary(epsilon=1,horizon=4,pan_private=true,pan_private=false,consistent=true,max_per_step=1) steps=0 nodes=[0,0,0,0]",
		"v2 ppcum(epsilon=1,horizon=4,pan_private=true,max_per_step=1) steps=0 nodes=[0,0,0,0]",
		/* huge horizons: above DP_HORIZON_MAX and at int64's limit */
		"v2 binary(epsilon=1,horizon=4611686018427387905,max_per_step=1) steps=0 nodes=[0]",
		"v2 two_level(epsilon=1,horizon=9223372036854775807,max_per_step=1) steps=0 nodes=[0,0,0]",
		"v2 two_level(epsilon=1,horizon=9223372036854775808,max_per_step=1) steps=0 nodes=[0,0,0]",
		"v2 two_level(epsilon=1,horizon=4611686018427387904,block=1,max_per_step=1) steps=4611686018427387904 nodes=[0,0,0]",
		"v2 hybrid(epsilon=1,max_per_step=1) steps=4611686018427387903 nodes=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]",
		"v2 simple_ii(epsilon=1,max_per_step=1) steps=4611686018427387904 nodes=[0]",
		"v2 simple_ii(epsilon=1,max_per_step=1) steps=9223372036854775807 nodes=[0]",
		/* node values at and near the ends of 128 bits */
		"v2 binary(epsilon=1,horizon=4,max_per_step=1) steps=3 nodes=[170141183460469231731687303715884105727,170141183460469231731687303715884105727,0]",
		"v2 binary(epsilon=1,horizon=4,max_per_step=1) steps=3 nodes=[-170141183460469231731687303715884105728,-1,0]",
		"v2 binary(epsilon=1,horizon=4,max_per_step=1) steps=0 nodes=[170141183460469231731687303715884105728,0,0]",
		"v2 simple_ii(epsilon=1,max_per_step=1) steps=1 nodes=[170141183460469231731687303715884105727]",
		"v2 two_level(epsilon=1,horizon=16,block=4,max_per_step=1) steps=1 nodes=[170141183460469231731687303715884105727,170141183460469231731687303715884105727,1]",
		"v2 simple_ii(epsilon=1,consistent=true,max_per_step=1) steps=1 nodes=[-170141183460469231731687303715884105728,170141183460469231731687303715884105727]",
	};

	write_texts("fuzz_counter_text", texts, lengthof(texts));
}

/* Hand-made binary counters: v1, truncations, oversize, extreme nodes. */
static void
counter_edge_bytes(void)
{
	dp_mechanism m = mechanism(DP_MECHANISM_BINARY, 0, 1.0, 8, 1, 0);
	dp_counter *counter = counter_after(&m, 3);
	fuzz_forms	forms = fuzz_counter_forms_of(counter);
	/* the edits below are at the fixed offsets of versions 1 to 5 */
	size_t		length = dp_counter_fixed_size(counter);
	unsigned char *binary = malloc(length);
	unsigned char buffer[2048];

	dp_counter_serialize_fixed(counter, binary);
	write_seed("fuzz_counter_binary", binary, length);

	/* the compact form (version 6): truncated, one byte more, a zero run split, a longer varint */
	memcpy(buffer, forms.binary, forms.length);
	for (size_t cut = 1; cut < forms.length; cut += 3)
		write_seed("fuzz_counter_binary", buffer, cut);
	buffer[forms.length] = 0;
	write_seed("fuzz_counter_binary", buffer, forms.length + 1);
	buffer[forms.length - 1] |= 0x80;
	buffer[forms.length] = 0;
	write_seed("fuzz_counter_binary", buffer, forms.length + 1);

	/* version 1: no block field, nodes at 48 */
	memcpy(buffer, binary, 48);
	buffer[0] = 1;
	memcpy(buffer + 48, binary + 56, length - 56);
	write_seed("fuzz_counter_binary", buffer, length - 8);
	/* version 1 claiming another mechanism, or an option */
	dp_put_u32(buffer + 4, DP_MECHANISM_SIMPLE_II);
	write_seed("fuzz_counter_binary", buffer, length - 8);
	dp_put_u32(buffer + 4, DP_MECHANISM_BINARY);
	dp_put_u32(buffer + 8, DP_FLAG_PAN_PRIVATE);
	write_seed("fuzz_counter_binary", buffer, length - 8);

	/* truncated at a few places, and one byte too long */
	write_seed("fuzz_counter_binary", binary, 0);
	write_seed("fuzz_counter_binary", binary, 1);
	write_seed("fuzz_counter_binary", binary, 47);
	write_seed("fuzz_counter_binary", binary, 56);
	write_seed("fuzz_counter_binary", binary, length - 1);
	memcpy(buffer, binary, length);
	buffer[length] = 0;
	write_seed("fuzz_counter_binary", buffer, length + 1);

	/* reserved bytes, a bad version, a wrong node count */
	memcpy(buffer, binary, length);
	buffer[2] = 1;
	write_seed("fuzz_counter_binary", buffer, length);
	memcpy(buffer, binary, length);
	buffer[0] = 3;
	write_seed("fuzz_counter_binary", buffer, length);
	memcpy(buffer, binary, length);
	dp_put_u32(buffer + 12, 64);
	write_seed("fuzz_counter_binary", buffer, length);

	/* steps beyond the horizon, negative steps */
	memcpy(buffer, binary, length);
	dp_put_u64(buffer + 40, 9);
	write_seed("fuzz_counter_binary", buffer, length);
	dp_put_u64(buffer + 40, UINT64_MAX);
	write_seed("fuzz_counter_binary", buffer, length);

	/* every node at 2^127 - 1, then every node at -2^127 */
	for (int sign = 0; sign < 2; sign++)
	{
		memcpy(buffer, binary, length);
		for (int i = 0; i < counter->node_count; i++)
		{
			dp_put_u64(buffer + 56 + 16 * i, sign ? 0 : UINT64_MAX);
			dp_put_u64(buffer + 56 + 16 * i + 8, sign ? (uint64_t) 1 << 63 : UINT64_MAX >> 1);
		}
		write_seed("fuzz_counter_binary", buffer, length);
		dp_put_u64(buffer + 40, 7);
		write_seed("fuzz_counter_binary", buffer, length);
	}

	/* a huge horizon in binary form: above the maximum, and int64's limit */
	memcpy(buffer, binary, length);
	dp_put_u64(buffer + 24, (uint64_t) INT64_MAX);
	write_seed("fuzz_counter_binary", buffer, length);

	/* epsilon as NaN bits, and zero */
	memcpy(buffer, binary, length);
	dp_put_u64(buffer + 16, 0x7ff8000000000001u);
	write_seed("fuzz_counter_binary", buffer, length);
	dp_put_u64(buffer + 16, 0);
	write_seed("fuzz_counter_binary", buffer, length);

	free(binary);
	fuzz_free_forms(&forms);
	free(counter);
}

/* The hostile variant: a small state sizes the storage, a large one fills it. */
static void
counter_pairs(void)
{
	dp_mechanism small = mechanism(DP_MECHANISM_SIMPLE_II, 0, 1.0, 0, 1, 0);
	dp_mechanism large = mechanism(DP_MECHANISM_HYBRID, DP_FLAG_CONSISTENT, 1.0, 0, 1, 0);
	dp_mechanism tree = mechanism(DP_MECHANISM_BINARY, 0, 1.0, 1000, 1, 0);
	fuzz_forms	a = counter_forms_after(&small, 2);
	fuzz_forms	b = counter_forms_after(&large, 9);
	fuzz_forms	c = counter_forms_after(&tree, 9);

	write_pair(&counter_harnesses, &a, &b);
	write_pair(&counter_harnesses, &b, &a);
	write_pair(&counter_harnesses, &a, &c);
	write_pair(&counter_harnesses, &c, &c);

	fuzz_free_forms(&a);
	fuzz_free_forms(&b);
	fuzz_free_forms(&c);
}

/* ---- mechanisms ---- */

static void
mechanism_texts(void)
{
	static const char *const texts[] = {
		"binary(epsilon=1,horizon=365)",
		"binary(epsilon=0.5,horizon=365,max_per_step=1)",
		"expiring(epsilon=1,lambda=2)",
		"expiring(epsilon=1,delay=256,lambda=0.001,pan_private=true)",
		"expiring(epsilon=1,delay=0,lambda=16,key=k,pan_private=true)",
		"expiring(epsilon=1,lambda=2,lambda=3)",
		"expiring(epsilon=1,lambda=nan)",
		"expiring(epsilon=1,arity=3,lambda=2)",
		"expiring_baseline(epsilon=1,horizon=1000,window=127,past_ratio=0.1)",
		"expiring_baseline(epsilon=1,horizon=4,window=4611686018427387904,past_ratio=1e-300)",
		"rolling(epsilon=1,width=7,max_per_step=1)",
		"rolling(epsilon=1,width=365,levels=4,max_per_step=1)",
		"rolling(epsilon=1,width=365,max_per_step=2,pan_private=true,key=k,contributions=3)",
		"rolling(rho=0.5,width=28)",
		"rolling(epsilon=1,width=365,levels=2,arity=19,max_per_step=1)",
		"rolling(epsilon=1,width=8,arity=4,max_per_step=2,pan_private=true)",
		"decayed(epsilon=1,gamma=0.9,max_per_step=3)",
		"decayed(epsilon=1,gamma=0.999999,max_per_step=1125899906842624,pan_private=true)",
		"decayed(epsilon=1,gamma=0.9999,key=k,pan_private=true,contributions=7)",
		"decayed(epsilon=1,gamma=1)",
		"decayed(epsilon=1,gamma=5e-324)",
		"decayed(epsilon=1,horizon=10,gamma=0.5)",
		"binary(epsilon=1,horizon=8,lambda=2)",
		" binary ( epsilon = 1 , horizon = 8 , pan_private = true , consistent = false ) ",
		"simple_i(epsilon=1,horizon=1)",
		"simple_ii(epsilon=1)",
		"simple_ii(epsilon=1,horizon=10)",
		"two_level(epsilon=1,horizon=100)",
		"two_level(epsilon=1,horizon=100,block=0)",
		"two_level(epsilon=1,horizon=100,block=100)",
		"two_level(epsilon=1,horizon=2,block=3)",
		"hybrid(epsilon=1,max_per_step=4)",
		"hybrid(epsilon=1,max_per_step=1125899906842624)",
		"ppcum(epsilon=1,horizon=4,consistent=true)",
		"ppcum(epsilon=1,horizon=4,pan_private=true)",
		"binary(epsilon=0x1p-3,horizon=8)",
		"binary(epsilon=0x1.fffffffffffffp+6,horizon=8)",
		"binary(epsilon=1,epsilon=2,horizon=8,horizon=16)",
		"binary(epsilon=1,horizon=0)",
		"binary(epsilon=1,horizon=-5)",
		"binary(epsilon=1)",
		"binary(horizon=1)",
		"binary()",
		"binary",
		"binary(epsilon=1,horizon=4,unknown=1)",
		"binary(epsilon=1,horizon=4,block=2)",
		"binary(epsilon=1e-12,horizon=4)",
		"binary(epsilon=9.094947017729282e-13,horizon=4)",
		"binary(epsilon=100.00000000000001,horizon=4)",
		"binary(epsilon=1,horizon=4611686018427387904)",
		"binary(epsilon=1,horizon=4611686018427387905)",
		"two_level(epsilon=1,horizon=4611686018427387904)",
		"two_level(epsilon=1,horizon=9223372036854775807)",
		"two_level(epsilon=1,horizon=9223372036854775806,block=5)",
		"simple_i(epsilon=1,horizon=4611686018427387904,max_per_step=1125899906842624)",
		"simple_i(epsilon=1,horizon=1000000,max_per_step=1125899906842624)",
		"binary(epsilon=1,horizon=4,max_per_step=1125899906842625)",
		"binary(epsilon=1,horizon=4,max_per_step=-1)",
		"binary(epsilon=1,horizon=4,consistent=maybe)",
		"binary(epsilon=1,horizon=4,pan_private=truex)",
		"binary(epsilon=1,horizon=4,)",
		"binary(epsilon=1,,horizon=4)",
		"unknown(epsilon=1)",
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa(epsilon=1)",
		"binary(aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa=1)",
	};

	write_texts("fuzz_mechanism_text", texts, lengthof(texts));
}

/* ---- statistics ---- */

static dp_statistic *
statistic_after(int32_t kind, int32_t domain, int32_t estimator, double lower, double upper,
				const dp_mechanism *m, int steps)
{
	dp_statistic_spec spec;
	dp_statistic layout;
	dp_statistic *statistic;
	const char *field;

	memset(&spec, 0, sizeof(spec));
	spec.kind = kind;
	spec.domain = domain;
	spec.estimator = estimator;
	spec.lower = lower;
	spec.upper = upper;
	spec.mechanism = *m;
	if (dp_statistic_layout(&layout, &spec, &field) != DP_OK)
	{
		fprintf(stderr, "make_corpus: statistic %d [%g, %g] refused (%s)\n", kind, lower, upper,
				field ? field : "-");
		exit(1);
	}
	statistic = malloc(dp_statistic_size(&layout));
	dp_statistic_start(statistic, &layout, &rng);
	for (int i = 0; i < steps; i++)
	{
		double		value = lower + (upper - lower) * ((i * 37) % 11) / 10.0;

		if (dp_statistic_push(statistic, i % 4 != 3, value, &rng) != DP_OK)
			break;
	}
	return statistic;
}

static void
write_statistic(const dp_statistic *statistic)
{
	fuzz_forms	forms = fuzz_statistic_forms_of(statistic);

	write_forms(&statistic_harnesses, &forms);
	fuzz_free_forms(&forms);
}

static void
statistics(void)
{
	const dp_mechanism mechanisms[] = {
		mechanism(DP_MECHANISM_BINARY, 0, 1.0, 16, 1, 0),
		mechanism(DP_MECHANISM_SIMPLE_I, 0, 1.0, 100, 1, 0),
		mechanism(DP_MECHANISM_SIMPLE_II, 0, 1.0, 0, 1, 0),
		mechanism(DP_MECHANISM_TWO_LEVEL, 0, 1.0, 100, 1, 10),
		mechanism(DP_MECHANISM_HYBRID, 0, 1.0, 0, 1, 0),
		mechanism(DP_MECHANISM_PPCUM, 0, 1.0, 64, 1, 0),
		mechanism(DP_MECHANISM_BINARY, DP_FLAG_PAN_PRIVATE | DP_FLAG_CONSISTENT, 0.5, 1000, 1, 0),
		mechanism(DP_MECHANISM_HYBRID, DP_FLAG_PAN_PRIVATE, 2.0, 0, 1, 0),
		mechanism(DP_MECHANISM_PPCUM, DP_FLAG_CONSISTENT, 1.0, 64, 1, 0),
	};
	const struct
	{
		int32_t		kind,
					domain,
					estimator;
		double		lower,
					upper;
	}			specs[] = {
		{DP_STATISTIC_SUM, DP_VALUES_REAL, DP_ESTIMATOR_MIDPOINT, 0, 20},
		{DP_STATISTIC_SUM, DP_VALUES_INTEGER, DP_ESTIMATOR_MIDPOINT, -5, 100},
		{DP_STATISTIC_AVERAGE, DP_VALUES_REAL, DP_ESTIMATOR_MIDPOINT, 0, 20},
		{DP_STATISTIC_AVERAGE, DP_VALUES_REAL, DP_ESTIMATOR_PLAIN, -3.5, 1e6},
		{DP_STATISTIC_VARIANCE, DP_VALUES_REAL, DP_ESTIMATOR_MIDPOINT, -1, 1},
	};

	for (size_t m = 0; m < lengthof(mechanisms); m++)
		for (size_t s = 0; s < lengthof(specs); s++)
		{
			dp_statistic *statistic;

			if (m >= 6 && s % 2 == 1)
				continue;
			statistic = statistic_after(specs[s].kind, specs[s].domain, specs[s].estimator,
										specs[s].lower, specs[s].upper, &mechanisms[m],
										(int) (m + s) % 3 * 4);
			write_statistic(statistic);
			free(statistic);
		}

	/* extreme bounds: 2^53, tiny ranges, integer bounds beyond 2^40 */
	{
		dp_mechanism m = mechanisms[4];
		dp_statistic *list[] = {
			statistic_after(DP_STATISTIC_SUM, DP_VALUES_REAL, 0, -0x1p53, 0x1p53, &m, 3),
			statistic_after(DP_STATISTIC_SUM, DP_VALUES_INTEGER, 0, -0x1p53, 0x1p53, &m, 3),
			statistic_after(DP_STATISTIC_SUM, DP_VALUES_INTEGER, 0, 0, 1, &m, 3),
			statistic_after(DP_STATISTIC_AVERAGE, DP_VALUES_REAL, 0, 1e-70, 2e-70, &m, 3),
			statistic_after(DP_STATISTIC_VARIANCE, DP_VALUES_REAL, 0, -0x1p53, 0x1p53, &m, 3),
			statistic_after(DP_STATISTIC_VARIANCE, DP_VALUES_REAL, 0, 0, 1e-60, &m, 3),
		};

		for (size_t i = 0; i < lengthof(list); i++)
		{
			write_statistic(list[i]);
			free(list[i]);
		}
	}
}

/* A counter of mechanism m but for a horizon of 2^62: 63 nodes for Binary. */
static fuzz_forms
widened_counter(dp_mechanism m)
{
	m.horizon = DP_HORIZON_MAX;
	return counter_forms_after(&m, 0);
}

/*
 * The first prefix bytes of a statistic's binary form, then the counter as
 * one more channel: its u32 length and its binary form.
 */
static void
write_channel_splice(const unsigned char *statistic, size_t prefix, const fuzz_forms *counter)
{
	unsigned char *buffer = malloc(prefix + 4 + counter->length);

	memcpy(buffer, statistic, prefix);
	dp_put_u32(buffer + prefix, (uint32_t) counter->length);
	memcpy(buffer + prefix + 4, counter->binary, counter->length);
	write_seed("fuzz_statistic_binary", buffer, prefix + 4 + counter->length);
	free(buffer);
}

/*
 * A channel whose counter declares a mechanism with more nodes than the
 * bounds imply: a binary horizon of 2^62 (63 nodes) where the layout has
 * room for 5.  The binary form derives the layout from the first channel,
 * so there the second channel of an average carries the large counter.
 */
static void
statistic_node_overflow_binary(void)
{
	dp_mechanism m = mechanism(DP_MECHANISM_BINARY, 0, 1.0, 16, 1, 0);
	dp_statistic *statistic = statistic_after(DP_STATISTIC_AVERAGE, DP_VALUES_REAL, 0, 0, 1, &m, 0);
	fuzz_forms	forms = fuzz_statistic_forms_of(statistic);
	fuzz_forms	big = widened_counter(statistic->channels[1].mechanism);

	/* the header and the first channel (its u32 length, then its bytes) */
	write_channel_splice(forms.binary, 32 + 4 + dp_get_u32(forms.binary + 32), &big);

	fuzz_free_forms(&big);
	fuzz_free_forms(&forms);
	free(statistic);
}

static void
statistic_node_overflow(void)
{
	dp_mechanism m = mechanism(DP_MECHANISM_BINARY, 0, 1.0, 16, 1, 0);
	dp_statistic *statistic = statistic_after(DP_STATISTIC_SUM, DP_VALUES_REAL, 0, 0, 1, &m, 0);
	fuzz_forms	forms = fuzz_statistic_forms_of(statistic);
	fuzz_forms	big = widened_counter(dp_statistic_counter_const(statistic, 0)->mechanism);
	char	   *text = forms.text;
	char	   *channel_start = strstr(text, " sum: ");
	char	   *spliced = malloc(strlen(text) + strlen(big.text) + 16);

	/* text: the header of the small statistic, the large counter as its channel */
	memcpy(spliced, text, (size_t) (channel_start - text));
	sprintf(spliced + (channel_start - text), " sum: %s", big.text);
	write_text("fuzz_statistic_text", spliced);

	/* binary: the same splice, which changes the layout rather than overflowing */
	write_channel_splice(forms.binary, 32, &big);
	statistic_node_overflow_binary();

	free(spliced);
	fuzz_free_forms(&big);
	fuzz_free_forms(&forms);
	free(statistic);
}

static void
statistic_edges(void)
{
	static const char *const texts[] = {
		"v1 sum(lower=0,upper=1,values=real) binary(epsilon=1,horizon=4)",
		"v1 sum(lower=0,upper=1,values=real) binary(epsilon=1,horizon=4) sum:",
		"v1 sum(lower=0x1p-3,upper=0x1p3,values=real) simple_ii(epsilon=1) sum: v2 simple_ii(epsilon=1,max_per_step=1099511627776) steps=0 nodes=[0]",
		"v1 sum(lower=1,upper=0,values=real) simple_ii(epsilon=1)",
		"v1 sum(lower=-inf,upper=inf,values=real) simple_ii(epsilon=1)",
		"v1 sum(lower=nan,upper=1,values=real) simple_ii(epsilon=1)",
		"v1 sum(lower=0,upper=9007199254740993,values=integer) simple_ii(epsilon=1)",
		"v1 sum(lower=0.5,upper=2,values=integer) simple_ii(epsilon=1)",
		"v1 average(lower=0,upper=1,values=integer,estimator=plain) simple_ii(epsilon=1)",
		"v1 average(lower=0,upper=1,values=real) simple_ii(epsilon=1)",
		"v1 average(lower=0,upper=1,values=real,estimator=other) simple_ii(epsilon=1)",
		"v1 variance(lower=0,upper=1,values=real) simple_ii(epsilon=1,max_per_step=2)",
		"v1 median(lower=0,upper=1,values=real) simple_ii(epsilon=1)",
		"v1 variance(lower=0,upper=1e-100,values=real) simple_ii(epsilon=1)",
		"v1 average(lower=1e-300,upper=2e-300,values=real,estimator=plain) simple_ii(epsilon=1)",
		"v2 sum(lower=0,upper=1,values=real) simple_ii(epsilon=1)",
		"v1 sum(lower=0,upper=1,values=real) simple_ii(epsilon=1) count: v2 simple_ii(epsilon=1) steps=0 nodes=[0]",
		"v1 sum(lower=0,upper=1,values=real) two_level(epsilon=1,horizon=9223372036854775807)",
		"v1 sum(lower=0,upper=1,values=real) simple_ii(epsilon=1) sum: v2 simple_ii(epsilon=1,max_per_step=1099511627776) steps=1 nodes=[170141183460469231731687303715884105727]",
		"",
	};

	write_texts("fuzz_statistic_text", texts, lengthof(texts));

	{
		/* average: channels with differing steps; truncated and padded forms */
		dp_mechanism m = mechanism(DP_MECHANISM_SIMPLE_II, 0, 1.0, 0, 1, 0);
		dp_statistic *a = statistic_after(DP_STATISTIC_AVERAGE, DP_VALUES_REAL, 0, 0, 10, &m, 3);
		dp_statistic *b = statistic_after(DP_STATISTIC_AVERAGE, DP_VALUES_REAL, 0, 0, 10, &m, 5);
		dp_mechanism tree = mechanism(DP_MECHANISM_BINARY, DP_FLAG_CONSISTENT, 1.0, 1024, 1, 0);
		dp_statistic *c = statistic_after(DP_STATISTIC_VARIANCE, DP_VALUES_REAL, 0, -1, 1, &tree, 5);
		fuzz_forms	fa = fuzz_statistic_forms_of(a);
		fuzz_forms	fb = fuzz_statistic_forms_of(b);
		fuzz_forms	fc = fuzz_statistic_forms_of(c);
		const unsigned char *ba = fa.binary;
		const unsigned char *bb = fb.binary;
		size_t		la = fa.length;
		size_t		lb = fb.length;
		unsigned char *mixed = malloc(la + 1);

		/* the states themselves are not needed past their forms */
		free(a);
		free(b);
		free(c);

		/* second channel from b: its steps differ */
		memcpy(mixed, ba, la);
		memcpy(mixed + la - (lb - 32) / 2, bb + lb - (lb - 32) / 2, (lb - 32) / 2);
		write_seed("fuzz_statistic_binary", mixed, la);
		write_seed("fuzz_statistic_binary", ba, la - 1);
		write_seed("fuzz_statistic_binary", ba, 35);
		write_seed("fuzz_statistic_binary", ba, 36);
		memcpy(mixed, ba, la);
		mixed[la] = 0;
		write_seed("fuzz_statistic_binary", mixed, la + 1);
		/* a channel count that does not match */
		memcpy(mixed, ba, la);
		dp_put_u32(mixed + 4, 3);
		write_seed("fuzz_statistic_binary", mixed, la);
		/* a channel length beyond the end */
		memcpy(mixed, ba, la);
		dp_put_u32(mixed + 32, UINT32_MAX);
		write_seed("fuzz_statistic_binary", mixed, la);

		/* hostile pairs: small sizes the storage, large fills it */
		write_pair(&statistic_harnesses, &fa, &fc);
		write_pair(&statistic_harnesses, &fc, &fa);

		free(mixed);
		fuzz_free_forms(&fa);
		fuzz_free_forms(&fb);
		fuzz_free_forms(&fc);
	}
}

/* ---- raw parameter records (layout in fuzz_parameters.c) ---- */

typedef struct parameters
{
	int8_t		kind;
	uint8_t		flags;
	double		epsilon;
	int64_t		horizon;
	int64_t		max_per_step;
	int64_t		block;
	uint16_t	pushes;
	int64_t		steps;
	double		confidence;
	double		lower;
	double		upper;
	int8_t		statistic_kind;
	int8_t		domain;
	int8_t		estimator;
	int8_t		group_count;
	int64_t		terms[2];
	uint64_t	sensitivity[2];
} parameters;

static void
write_parameters(const parameters *p)
{
	unsigned char buffer[104 + 2 * 64];
	size_t		length = 104;

	buffer[0] = (unsigned char) p->kind;
	buffer[1] = p->flags;
	dp_put_f64(buffer + 2, p->epsilon);
	dp_put_u64(buffer + 10, (uint64_t) p->horizon);
	dp_put_u64(buffer + 18, (uint64_t) p->max_per_step);
	dp_put_u64(buffer + 26, (uint64_t) p->block);
	buffer[34] = (unsigned char) (p->pushes & 0xff);
	buffer[35] = (unsigned char) (p->pushes >> 8);
	dp_put_u64(buffer + 36, (uint64_t) p->steps);
	dp_put_f64(buffer + 44, p->confidence);
	dp_put_f64(buffer + 52, p->lower);
	dp_put_f64(buffer + 60, p->upper);
	buffer[68] = (unsigned char) p->statistic_kind;
	buffer[69] = (unsigned char) p->domain;
	buffer[70] = (unsigned char) p->estimator;
	buffer[71] = (unsigned char) p->group_count;
	dp_put_u64(buffer + 72, (uint64_t) p->terms[0]);
	dp_put_u64(buffer + 80, (uint64_t) p->terms[1]);
	dp_put_u64(buffer + 88, p->sensitivity[0]);
	dp_put_u64(buffer + 96, p->sensitivity[1]);
	for (int i = 0; i < p->pushes && i < 64; i++)
	{
		int16_t		value = (int16_t) ((i * 2654435761u) >> 16);

		if (i % 9 == 8)
			value = INT16_MIN + (i / 9) % 3;	/* NaN, -inf, +inf in turn */
		buffer[length++] = (unsigned char) ((uint16_t) value & 0xff);
		buffer[length++] = (unsigned char) ((uint16_t) value >> 8);
	}
	write_seed("fuzz_parameters", buffer, length);
}

static void
parameter_records(void)
{
	const parameters base = {
		.kind = DP_MECHANISM_BINARY, .flags = 0, .epsilon = 1.0, .horizon = 64,
		.max_per_step = 1, .block = 0, .pushes = 20, .steps = 10, .confidence = 0.95,
		.lower = 0, .upper = 10, .statistic_kind = DP_STATISTIC_AVERAGE,
		.domain = DP_VALUES_REAL, .estimator = DP_ESTIMATOR_MIDPOINT, .group_count = 2,
		.terms = {3, 5}, .sensitivity = {1, 4},
	};
	const struct
	{
		int8_t		kind;
		int64_t		horizon;
		int64_t		block;
	}			kinds[] = {
		{DP_MECHANISM_BINARY, 64, 0}, {DP_MECHANISM_SIMPLE_I, 64, 0},
		{DP_MECHANISM_SIMPLE_II, 0, 0}, {DP_MECHANISM_TWO_LEVEL, 64, 8},
		{DP_MECHANISM_HYBRID, 0, 0}, {DP_MECHANISM_PPCUM, 64, 0}, {DP_MECHANISM_KARY, 64, 4}, {DP_MECHANISM_BALANCED, 64, 5},
	};

	for (size_t k = 0; k < lengthof(kinds); k++)
		for (uint8_t flags = 0; flags <= DP_FLAGS_ALL; flags++)
		{
			parameters p = base;

			p.kind = kinds[k].kind;
			p.horizon = kinds[k].horizon;
			p.block = kinds[k].block;
			p.flags = flags;
			p.statistic_kind = (int8_t) (1 + (k + flags) % 3);
			p.estimator = (int8_t) (flags & 1);
			p.pushes = (uint16_t) (8 + 8 * flags + k);
			p.group_count = (int8_t) (k % 3);
			p.terms[0] = (int64_t) (k * 25);
			p.terms[1] = (int64_t) (flags * 40);
			p.confidence = flags == 3 ? 0.5 : 0.95;
			write_parameters(&p);
		}

	{
		parameters p = base;

		/* statistics: integer sums, wide and tiny bounds */
		p.statistic_kind = DP_STATISTIC_SUM;
		p.domain = DP_VALUES_INTEGER;
		p.lower = -1000;
		p.upper = 0x1p52;
		write_parameters(&p);
		p.domain = DP_VALUES_REAL;
		p.statistic_kind = DP_STATISTIC_VARIANCE;
		p.lower = -0x1p53;
		p.upper = 0x1p53;
		write_parameters(&p);
		p.lower = 0;
		p.upper = 1e-300;
		write_parameters(&p);

		/* extreme but valid mechanisms, with all 64 pushes */
		p = base;
		p.pushes = 64;
		p.epsilon = 0x1p-40;
		p.horizon = DP_HORIZON_MAX;
		p.steps = DP_HORIZON_MAX;
		write_parameters(&p);
		p.epsilon = 100;
		p.max_per_step = DP_MAX_PER_STEP_MAX;
		p.horizon = 1;
		p.steps = 1;
		write_parameters(&p);
		p.kind = DP_MECHANISM_TWO_LEVEL;
		p.max_per_step = 1;
		p.horizon = DP_HORIZON_MAX;
		p.block = 1;
		p.steps = DP_HORIZON_MAX;
		write_parameters(&p);
		p.kind = DP_MECHANISM_HYBRID;
		p.horizon = 0;
		p.block = 0;
		p.flags = DP_FLAG_PAN_PRIVATE;
		p.max_per_step = (int64_t) (DP_SENSITIVITY_MAX / 126);
		p.steps = DP_HORIZON_MAX;
		write_parameters(&p);

		/* noise helpers: many terms, the largest sensitivity, bad confidences */
		p = base;
		p.group_count = 1;
		p.terms[0] = 1000000;
		p.sensitivity[0] = DP_SENSITIVITY_MAX;
		write_parameters(&p);
		p.group_count = 2;
		p.terms[0] = 128;
		p.terms[1] = 128;
		p.epsilon = 0x1p-40;
		write_parameters(&p);
		p.confidence = 0x1.fffffffffffffp-1;
		write_parameters(&p);
		p.confidence = 4.9406564584124654e-324;
		write_parameters(&p);
		p.group_count = 3;
		write_parameters(&p);

		/* dp_default_block on huge and negative horizons */
		p = base;
		p.kind = DP_MECHANISM_TWO_LEVEL;
		p.horizon = INT64_MAX;
		p.block = 0;
		write_parameters(&p);
		p.horizon = (int64_t) 9223372030926249001;	/* 3037000499^2 */
		write_parameters(&p);
		p.horizon = -1;
		write_parameters(&p);
	}
}

/* ---- whole streams and planning: a mechanism's text, a NUL, control bytes ---- */

static void
write_mechanism_and(const char *target, const dp_mechanism *m, const unsigned char *controls,
					size_t count)
{
	char		text[DP_MECHANISM_TEXT_BYTES];
	unsigned char buffer[DP_MECHANISM_TEXT_BYTES + 64];
	size_t		length;

	dp_mechanism_to_text(m, text, sizeof(text));
	length = strlen(text);
	memcpy(buffer, text, length);
	buffer[length] = '\0';
	memcpy(buffer + length + 1, controls, count);
	write_seed(target, buffer, length + 1 + count);
}

/*
 * fuzz_stream: each mechanism counters() wrote, run for up to 510 steps and
 * stored every few steps, with the options (noise key, table sampler, cache,
 * constant-time Gaussian, the other stored forms, a restart) varied over
 * the list; every fourth also as a sum, average or variance.
 */
static void
stream_seeds(void)
{
	for (int i = 0; i < remembered_count; i++)
	{
		const dp_mechanism *m = &remembered[i];
		unsigned char controls[7 + 16];
		uint8_t		options = (uint8_t) (i % 16);

		if (i % 3 == 0)
			options |= 0x20;	/* text form at the checkpoints */
		if (i % 5 == 0)
			options |= 0x40;	/* fixed layout of versions 4 and 5 */
		if (i % 7 == 0)
			options |= 0x80;	/* restart at the end */
		controls[0] = options;
		/* one in eight runs 510 steps; the others 40 to 98 (quick to replay) */
		controls[1] = (unsigned char) (i % 8 == 0 ? 255 : 20 + i % 30);
		controls[2] = (unsigned char) (1 + i % 37);
		controls[3] = (unsigned char) (i / 4);
		controls[4] = (unsigned char) i;
		controls[5] = (unsigned char) (i / 3);
		controls[6] = (unsigned char) (i % 5);
		for (int v = 0; v < 16; v++)
			controls[7 + v] = (unsigned char) ((v * 37 + i * 11) % 80 + (v % 5 == 4 ? 120 : 0));
		write_mechanism_and("fuzz_stream", m, controls, sizeof(controls));
		if (i % 4 == 0)
		{
			controls[0] = (unsigned char) (options | 0x10);
			write_mechanism_and("fuzz_stream", m, controls, sizeof(controls));
		}
	}
}

/*
 * fuzz_planning: each mechanism at a step inside its horizon, at a usual
 * confidence and a wanted error of about the bound, with positions and
 * ages for the delayed trees' losses and a delta for zCDP.
 */
static void
planning_seeds(void)
{
	for (int i = 0; i < remembered_count; i++)
	{
		const dp_mechanism *m = &remembered[i];
		unsigned char controls[22];
		int64_t		steps = m->horizon > 0 ? 1 + (m->horizon * (i % 7)) / 7 : 100 + i * 37;

		/* one in eight scans up to 2048 steps; the others 300 at most */
		if (i % 8 != 0)
			steps %= 300;
		dp_put_u64(controls, (uint64_t) steps);
		controls[8] = (unsigned char) (i % 4);
		controls[9] = (unsigned char) (3 + i % 40);
		controls[10] = (unsigned char) (i * 13);
		controls[11] = (unsigned char) (i % 3);
		controls[12] = (unsigned char) (i * 7);
		controls[13] = (unsigned char) (i % 2);
		dp_put_f64(controls + 14, i % 2 ? 1e-9 : 1e-6);
		write_mechanism_and("fuzz_planning", m, controls, sizeof(controls));
	}
}

/*
 * fuzz_samplers: Laplace scales from tiny to the largest, with 64-bit cells
 * and with few (the exact path), Gaussian scales with both acceptances,
 * proposals on the threshold, and randomized response at small and large
 * epsilon.
 */
static void
sampler_seeds(void)
{
	static const struct
	{
		uint8_t		flags;
		uint64_t	sensitivity;
		double		epsilon;
		uint8_t		cell_byte;
	}			seeds[] = {
		{0, 0, 1.0, 64}, {0, 2, 0.5, 64}, {0, 0, 100.0, 64}, {0, 0, 0x1p-40, 64},
		{0, (uint64_t) 1 << 55, 0x1p-40, 64}, {0, 9, 0.1, 7}, {0, 0, 1.0, 3},
		{0, 999, 0.01, 11}, {0, 0, 30.0, 0}, {1, 4, 1.0, 64}, {2, 0, 0.5, 64},
		{6, 0, 0.5, 64}, {6, 15, 0.01, 64}, {6, (uint64_t) 1 << 50, 0x1p-40, 64},
		{2, 3, 100.0, 64}, {6, 0, 100.0, 64}, {7, 0, 2.0, 64},
	};

	for (size_t i = 0; i < lengthof(seeds); i++)
	{
		unsigned char buffer[62 + 3 * 17];

		memset(buffer, 0, sizeof(buffer));
		buffer[0] = seeds[i].flags | (uint8_t) (i % 2 ? 0x80 : 0);
		dp_put_u64(buffer + 1, seeds[i].sensitivity);
		dp_put_f64(buffer + 9, seeds[i].epsilon);
		buffer[17] = seeds[i].cell_byte;
		buffer[18] = (unsigned char) (8 + i);
		dp_put_u64(buffer + 19, (uint64_t) (i * 3));
		buffer[27] = (unsigned char) (int8_t) (i % 3 == 0 ? 0 : i % 3 == 1 ? -16 : 16);
		dp_put_u64(buffer + 28, (uint64_t) 1 << (40 + i % 20));
		dp_put_u64(buffer + 36, (uint64_t) i * 1000);
		dp_put_u64(buffer + 44, 1 + (uint64_t) i * 700);
		dp_put_f64(buffer + 52, i % 2 ? 5.0 : 0.25 * (double) (i + 1));
		/* weighted sums of up to three groups, of both families, any weight */
		buffer[60] = (unsigned char) (i % 5);
		buffer[61] = (unsigned char) (i % 4);
		for (int g = 0; g < 3; g++)
		{
			unsigned char *group = buffer + 62 + 17 * g;

			group[0] = (unsigned char) (1 + (i + g) % 2);
			dp_put_f64(group + 1, g == 0 ? 1.0 : g == 1 ? -0.37 : 1e6);
			dp_put_u64(group + 9, (uint64_t) (g == 2 ? ((int64_t) 1 << (i % 63)) : 3 + (int64_t) i));
		}
		write_seed("fuzz_samplers", buffer, sizeof(buffer));
	}
}

/*
 * Defaults and refusals of every kind's own validation: the arities chosen
 * for a horizon, BLT without rho or beyond its limits, Honaker's arity and
 * magnitude, the shapes of the expiring trees, person level and keys where
 * a kind refuses them.  To fuzz_mechanism_text, and with planning controls
 * to fuzz_planning.
 */
static const char *const validation_texts[] = {
	"blt(epsilon=1,horizon=100)",
	"blt(rho=1,horizon=4611686018427387904)",
	"blt(rho=1,horizon=4611686018427387903)",
	"blt(rho=1,horizon=100,max_per_step=16777217)",
	"blt(rho=1,horizon=100,max_per_step=16777216)",
	"blt(rho=1,horizon=1000000,max_per_step=1000000,contributions=1000)",
	"blt(rho=1,horizon=1)",
	"blt(rho=100,horizon=3,max_per_step=7)",
	"blt(rho=0.01,horizon=65537,max_per_step=100,consistent=true)",
	"honaker(epsilon=1,horizon=100)",
	"honaker(epsilon=1,horizon=1)",
	"honaker(epsilon=1,horizon=4611686018427387904)",
	"honaker(epsilon=1,horizon=4611686018427387904,pan_private=true)",
	"honaker(epsilon=1,horizon=100,arity=1)",
	"honaker(epsilon=1,horizon=100,arity=1000000)",
	"honaker(epsilon=1,horizon=1000,max_per_step=1125899906842624)",
	"honaker(epsilon=1,horizon=1000,max_per_step=1000,contributions=1000000000)",
	"kary(epsilon=1,horizon=100)",
	"kary(epsilon=1,horizon=4611686018427387904)",
	"balanced(epsilon=1,horizon=100)",
	"balanced(epsilon=1,horizon=4611686018427387904)",
	"balanced_unbounded(epsilon=1)",
	"balanced_unbounded(epsilon=1,arity=4)",
	"expiring(epsilon=1,lambda=0)",
	"expiring(epsilon=1,lambda=-1)",
	"expiring(epsilon=1,lambda=1e300)",
	"expiring(epsilon=100,lambda=1e-300)",
	"expiring(epsilon=1,delay=4611686018427387904,lambda=2)",
	"expiring(epsilon=1,delay=3,lambda=2,consistent=true)",
	"expiring(rho=1,lambda=2)",
	"expiring(epsilon=1,lambda=2,contributions=5)",
	"expiring(epsilon=100,lambda=64,max_per_step=1125899906842624)",
	"expiring_baseline(epsilon=1,horizon=100,window=0,past_ratio=1)",
	"expiring_baseline(epsilon=1,horizon=100,window=1000,past_ratio=1)",
	"expiring_baseline(epsilon=1,horizon=100,window=7,past_ratio=0)",
	"expiring_baseline(epsilon=1,horizon=100,window=7,past_ratio=inf)",
	"expiring_baseline(epsilon=100,horizon=4611686018427387904,window=1,past_ratio=1e300)",
	"expiring_baseline(epsilon=1,horizon=100,window=7,past_ratio=1,pan_private=true,key=k)",
	"rolling(epsilon=1,width=0)",
	"rolling(epsilon=1,width=512)",
	"rolling(epsilon=1,width=7,levels=4)",
	"rolling(epsilon=1,width=7,arity=1)",
	"rolling(epsilon=1,width=8,levels=3,arity=3)",
	"rolling(epsilon=1,width=7,levels=0)",
	"rolling(epsilon=1,width=7,levels=1.5)",
	"rolling(epsilon=1)",
	"rolling(epsilon=1,horizon=100,width=7)",
	"rolling(epsilon=1,width=7,consistent=true)",
	"rolling(epsilon=1,width=9223372036854775807)",
	"smooth_binary(rho=1,horizon=4611686018427387904)",
	"smooth_binary(epsilon=1,horizon=100)",
	"smooth_binary(rho=1,horizon=1000,max_per_step=16777216)",
	"hybrid(rho=1)",
	"simple_ii(rho=1,max_per_step=16777216)",
	"two_level(rho=1,horizon=100)",
	"ppcum(rho=1,horizon=10)",
	"binary(rho=1e-12,horizon=10)",
	"binary(rho=1,epsilon=1,horizon=10)",
	"binary(rho=1,horizon=10,max_per_step=16777217)",
	"binary(epsilon=1,horizon=10,contributions=0)",
	"binary(epsilon=1,horizon=10,contributions=-1)",
	"binary(epsilon=1,horizon=10,contributions=9223372036854775807)",
	"binary(epsilon=1,horizon=10,max_per_step=1125899906842624,contributions=2,per_observation=true)",
	"binary(epsilon=1,horizon=10,per_observation=true)",
	"binary(epsilon=1,horizon=10,key=k)",
	"binary(epsilon=1,horizon=10,key=k,pan_private=true,contributions=3)",
	"simple_i(epsilon=1,horizon=10,key=k,pan_private=true)",
	"ppcum(epsilon=1,horizon=10,contributions=2)",
	"binary(epsilon=1,horizon=10,key=,pan_private=true)",
	"binary(epsilon=1,horizon=10,key=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa,pan_private=true)",
	"binary(epsilon=1,horizon=10,key=a$b,pan_private=true)",
	"two_level(epsilon=1,horizon=100,block=101)",
	"two_level(epsilon=1,horizon=100,block=-1)",
	"kary(epsilon=1,horizon=100,arity=1)",
	"balanced(epsilon=1,horizon=100,arity=2)",
	"hybrid(epsilon=1,max_per_step=0)",
	"binary(epsilon=nan,horizon=10)",
	"binary(epsilon=-1,horizon=10)",
	"binary(epsilon=inf,horizon=10)",
};

static void
validation_seeds(void)
{
	write_texts("fuzz_mechanism_text", validation_texts, lengthof(validation_texts));
	for (size_t i = 0; i < lengthof(validation_texts); i++)
	{
		unsigned char buffer[512];
		size_t		length = strlen(validation_texts[i]);

		memset(buffer, 0, sizeof(buffer));
		memcpy(buffer, validation_texts[i], length);
		/* steps 5 + i, confidence 0.95, the bound itself, position 3, age i */
		dp_put_u64(buffer + length + 1, 5 + i);
		buffer[length + 1 + 8] = 1;
		buffer[length + 1 + 9] = 3;
		buffer[length + 1 + 10] = 3;
		buffer[length + 1 + 12] = (unsigned char) i;
		dp_put_f64(buffer + length + 1 + 14, 1e-7);
		write_seed("fuzz_planning", buffer, length + 1 + 22);
	}
}

/* ---- scanner tokens ---- */

static void
scanner_tokens(void)
{
	static const char *const texts[] = {
		"0", "-0", "+7", "007", "123456789012345678901234567890",
		"170141183460469231731687303715884105727",
		"170141183460469231731687303715884105728",
		"-170141183460469231731687303715884105728",
		"-170141183460469231731687303715884105729",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808",
		"-9223372036854775809", "1.5", "-2.5e-3", ".5", "1e400", "-1e-400",
		"inf", "-Infinity", "nan", "NaN(123)", "0x1p-3", "-0X1.8p1", "0x", " \t\r\n12",
		"\v12", "\f1.0", "abc_def", "a_b_c_d_e_f_g_h_i_j_k_l_m_n_o_p_q_r_s_t_u_v_w_x_y_z",
		"ABC", "v2 binary(epsilon=1,horizon=4) steps=0 nodes=[0,0,0]",
		"steps=nodes=[,]:", "+", "-", "--1", "+-1", "1-", "", " ",
	};

	write_texts("fuzz_text_scanners", texts, lengthof(texts));
	write_textf("fuzz_text_scanners", "%s %s", "1,2,3", "epsilon=0.25");
}

int
main(int argc, char **argv)
{
	static const char key[] = "dp_stream make_corpus";

	if (argc != 2)
	{
		fprintf(stderr, "usage: %s DIRECTORY\n", argv[0]);
		return 2;
	}
	root = argv[1];
	if (mkdir(root, 0777) != 0 && errno != EEXIST)
	{
		perror(root);
		return 1;
	}
	if (!dp_random_library_init())
		return 1;
	dp_random_init_keyed(&rng, key, sizeof(key) - 1);

	counters();
	counter_edge_texts();
	counter_edge_bytes();
	counter_pairs();
	mechanism_texts();
	statistics();
	statistic_node_overflow();
	statistic_edges();
	parameter_records();
	scanner_tokens();
	stream_seeds();
	planning_seeds();
	sampler_seeds();
	validation_seeds();
	printf("make_corpus: %d files written under %s\n", written, root);
	return 0;
}

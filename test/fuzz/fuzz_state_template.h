/*
 * fuzz_state_template.h
 *		What the harnesses of stored states do, written once for counters and
 *		for sum, average and variance states: the two-call decoders, both
 *		stored forms and their round trip, pushes that must continue
 *		identically after a store, and the plain and hostile inputs of the
 *		text and binary harnesses.
 *
 * The core gives counters and statistics the same calls under two prefixes
 * (dp_counter_parse and dp_statistic_parse, dp_counter_peek and
 * dp_statistic_peek, and so on), so, as with PostgreSQL's lib/simplehash.h,
 * a kind's header defines a few macros and includes this file, which then
 * defines static functions named fuzz_<prefix>_<name>.  A template rather
 * than a table of callbacks keeps the states typed and needs no wrapper
 * around each call of the core.  The macros:
 *
 *	FUZZ_STATE_PREFIX	counter or statistic: the state is a dp_<prefix> and
 *						the core's calls are dp_<prefix>_parse, _peek, ...
 *	FUZZ_STATE_LAYOUT	what the first call of a decoder fills, so that the
 *						caller can size the storage
 *	FUZZ_STATE_CONFIDENCE(data, size), FUZZ_STATE_COPY_CONFIDENCE(data, size)
 *						the confidence of the readings of the decoded state,
 *						and of its stored copy at the end
 *	FUZZ_STATE_READ_REFUSED
 *						whether a state whose push was refused is still read
 *
 * The kind's header also defines, before the include:
 *
 *	fuzz_<prefix>_check_fits(state, bytes)
 *						FUZZ_CHECKs that a decoded state lies inside its
 *						storage of bytes
 *	fuzz_<prefix>_check_same(copy, state)
 *						FUZZ_CHECKs that copy has the steps and releases of state
 *	fuzz_<prefix>_push_byte(state, byte, rng)
 *						one push of a value taken from an input byte
 *	fuzz_<prefix>_read(state, confidence)
 *						every reading, with the properties it must have
 *
 * This file defines fuzz_<prefix>_from_text, _from_bytes, _forms_of,
 * _round_trip, _exercise, _decoded, _text_input and _binary_input, and
 * undefines the macros above.  It has no include guard:
 * fuzz_parameters.c includes it once for each kind.
 */

#define FS_JOIN_(a, b, c)	a##b##c
#define FS_JOIN(a, b, c)	FS_JOIN_(a, b, c)
#define FS_TYPE				FS_JOIN(dp_, FUZZ_STATE_PREFIX, )
#define FS_API(name)		FS_JOIN(dp_, FUZZ_STATE_PREFIX, _##name)
#define FS_NAME(name)		FS_JOIN(fuzz_, FUZZ_STATE_PREFIX, _##name)

/* pushes before the store, from input bytes 0 to 3 (5 to 7 serve later) */
#define FS_PUSHES 4

/*
 * The two-call pattern, as the extension calls it: the first call, on
 * sizing, gives the layout, and the second decodes text into exactly the
 * bytes that layout needs.  sizing and text differ only in the hostile
 * variant, where the decoder must refuse or fit.  NULL when refused;
 * *bytes gets the size.
 */
static FS_TYPE *
FS_NAME(from_text) (const char *sizing, const char *text, size_t *bytes)
{
	FUZZ_STATE_LAYOUT layout;
	dp_parse_error error;
	FS_TYPE    *state;

	if (FS_API(parse) (sizing, &layout, NULL, 0, &error) != DP_OK)
		return NULL;
	*bytes = FS_API(size) (&layout);
	state = fuzz_alloc(*bytes);
	if (FS_API(parse) (text, &layout, state, *bytes, &error) != DP_OK)
	{
		free(state);
		return NULL;
	}
	return state;
}

/* The same on the binary form: a peek of sizing, then the decoding of data. */
static FS_TYPE *
FS_NAME(from_bytes) (const uint8_t *sizing, size_t sizing_length,
					 const uint8_t *data, size_t length, size_t *bytes)
{
	FUZZ_STATE_LAYOUT layout;
	dp_parse_error error;
	FS_TYPE    *state;

	if (FS_API(peek) (sizing, sizing_length, &layout, &error) != DP_OK)
		return NULL;
	*bytes = FS_API(size) (&layout);
	state = fuzz_alloc(*bytes);
	if (FS_API(deserialize) (data, length, state, *bytes, &error) != DP_OK)
	{
		free(state);
		return NULL;
	}
	return state;
}

/* Both stored forms of a state, as the extension writes them. */
static fuzz_forms
FS_NAME(forms_of) (const FS_TYPE *state)
{
	size_t		text_size = FS_API(text_size) (state);
	fuzz_forms	forms;

	forms.text = fuzz_alloc(text_size);
	FS_API(to_text) (state, forms.text);
	FUZZ_CHECK(strlen(forms.text) < text_size);
	forms.length = FS_API(serialized_size) (state);
	forms.binary = fuzz_alloc(forms.length);
	FS_API(serialize) (state, forms.binary);
	return forms;
}

/*
 * Both forms of the state decode again, to the same text and bytes, the
 * same steps and the same releases; returns the copy decoded from text.
 */
static FS_TYPE *
FS_NAME(round_trip) (const FS_TYPE *state)
{
	fuzz_forms	forms = FS_NAME(forms_of) (state);
	size_t		bytes;
	FS_TYPE    *from_text = FS_NAME(from_text) (forms.text, forms.text, &bytes);
	FS_TYPE    *from_binary;

	FUZZ_CHECK(from_text != NULL);
	FS_NAME(check_fits) (from_text, bytes);
	FS_NAME(adopt_noise_key) (from_text, state);
	from_binary = FS_NAME(from_bytes) (forms.binary, forms.length,
									   forms.binary, forms.length, &bytes);
	FUZZ_CHECK(from_binary != NULL);
	FS_NAME(check_fits) (from_binary, bytes);

	fuzz_check_same_forms(&forms, FS_NAME(forms_of) (from_text));
	fuzz_check_same_forms(&forms, FS_NAME(forms_of) (from_binary));
	FS_NAME(check_same) (from_text, state);
	FS_NAME(check_same) (from_binary, state);

	free(from_binary);
	fuzz_free_forms(&forms);
	return from_text;
}

/*
 * Round trips, a few pushes with values from the input, the readings, then a
 * store: the stored copy and the original continue identically.
 */
static void
FS_NAME(exercise) (FS_TYPE *state, const uint8_t *data, size_t size)
{
	double		confidence = FUZZ_STATE_CONFIDENCE(data, size);
	dp_random	rng;
	dp_random	rng_copy;
	FS_TYPE    *copy;

	/* a decoded state is within the decoders' node bounds */
	FUZZ_CHECK(FS_API(check_storable) (state) == DP_OK);
	free(FS_NAME(round_trip) (state));
	FS_NAME(read) (state, confidence);

	fuzz_rng(&rng);
	for (unsigned i = 0; i < FS_PUSHES; i++)
	{
		dp_status	status = FS_NAME(push_byte) (state, fuzz_byte(data, size, i), &rng);

		if (status == DP_ERROR_HORIZON_EXCEEDED)
			break;				/* refused before anything changed */
		if (status != DP_OK)
		{
			/* a refusal (DP_ERROR_OVERFLOW): the caller drops the state */
			if (FUZZ_STATE_READ_REFUSED)
				FS_NAME(read) (state, confidence);
			return;
		}
	}
	FS_NAME(read) (state, confidence);

	/* a state the caller would refuse to store (a forged node pushed past the bound) */
	if (FS_API(check_storable) (state) != DP_OK)
		return;
	copy = FS_NAME(round_trip) (state);
	rng_copy = rng;
	{
		uint8_t		byte = fuzz_byte(data, size, 7);
		dp_status	status = FS_NAME(push_byte) (state, byte, &rng);

		/* the stored copy continues exactly as the original */
		FUZZ_CHECK(FS_NAME(push_byte) (copy, byte, &rng_copy) == status);
		if (status == DP_OK)
			FS_NAME(check_same) (copy, state);
	}
	FS_NAME(read) (copy, FUZZ_STATE_COPY_CONFIDENCE(data, size));
	free(copy);
}

/*
 * What a harness does with a decoder's result: nothing for a refusal (NULL,
 * a normal outcome), else the state must fit its storage of bytes and goes
 * through the exercise.  Frees the state.
 */
static void
FS_NAME(decoded) (FS_TYPE *state, size_t bytes, const uint8_t *data, size_t size)
{
	if (state == NULL)
		return;
	FS_NAME(check_fits) (state, bytes);
	FS_NAME(exercise) (state, data, size);
	free(state);
}

/*
 * The text harness: the NUL-terminated input.  Hostile variant: when the
 * input holds a NUL byte, the text before it sizes the allocation and the
 * text after it is decoded into that allocation.
 */
static void
FS_NAME(text_input) (const uint8_t *data, size_t size)
{
	char	   *text = fuzz_text(data, size);
	size_t		first_length = strlen(text);
	size_t		bytes = 0;
	FS_TYPE    *state = FS_NAME(from_text) (text, text, &bytes);

	FS_NAME(decoded) (state, bytes, data, size);
	if (first_length < size)
	{
		/* a private copy of the second part, so that ASan sees reads past it */
		char	   *second = fuzz_text(data + first_length + 1, size - first_length - 1);

		state = FS_NAME(from_text) (text, second, &bytes);
		FS_NAME(decoded) (state, bytes, data, size);
		free(second);
	}
	free(text);
}

/*
 * The binary harness: the input as it is.  Hostile variant
 * (fuzz_split_binary): the last two bytes split the rest into a first part,
 * whose peek sizes the allocation, and a second part decoded into it.
 */
static void
FS_NAME(binary_input) (const uint8_t *data, size_t size)
{
	size_t		bytes = 0;
	FS_TYPE    *state = FS_NAME(from_bytes) (data, size, data, size, &bytes);
	size_t		first_length;
	const uint8_t *second_start;
	size_t		second_length;

	FS_NAME(decoded) (state, bytes, data, size);
	if (fuzz_split_binary(data, size, &first_length, &second_start, &second_length))
	{
		/* private copies of both parts, so that ASan sees reads past either */
		uint8_t    *first = fuzz_copy(data, first_length);
		uint8_t    *second = fuzz_copy(second_start, second_length);

		state = FS_NAME(from_bytes) (first, first_length, second, second_length, &bytes);
		FS_NAME(decoded) (state, bytes, data, size);
		free(second);
		free(first);
	}
}

#undef FS_PUSHES
#undef FS_NAME
#undef FS_API
#undef FS_TYPE
#undef FS_JOIN
#undef FS_JOIN_
#undef FUZZ_STATE_READ_REFUSED
#undef FUZZ_STATE_COPY_CONFIDENCE
#undef FUZZ_STATE_CONFIDENCE
#undef FUZZ_STATE_LAYOUT
#undef FUZZ_STATE_PREFIX

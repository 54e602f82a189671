/*
 * test_completeness.c
 *		Every kind of the registry has the tests and docs the project asks of
 *		a mechanism (issue 28): an audit case, an error-variance test, a
 *		codec (stored form) test, a fuzz seed and a docs entry.  A kind added
 *		to dp_mechanism_list.h without one of them fails here, by name.
 *
 * Reads the repository's files, so it runs from the top of the tree (as
 * scripts/test.sh and make unit run it); DP_SOURCE_ROOT names another top.
 */
/* popen: the unit tests are C11, listing a directory is POSIX */
#define _POSIX_C_SOURCE 200809L

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dp_counter.h"
#include "tap.h"

#define MAX_FILES 64

typedef struct source_file
{
	char		path[256];
	char	   *text;
} source_file;

static source_file unit_files[MAX_FILES];
static int	unit_file_count;

static char *
read_text(const char *path)
{
	FILE	   *file = fopen(path, "rb");
	char	   *text;
	long		length;

	if (file == NULL)
		return NULL;
	fseek(file, 0, SEEK_END);
	length = ftell(file);
	fseek(file, 0, SEEK_SET);
	text = malloc((size_t) length + 1);
	if (text == NULL || fread(text, 1, (size_t) length, file) != (size_t) length)
	{
		fclose(file);
		free(text);
		return NULL;
	}
	text[length] = '\0';
	fclose(file);
	return text;
}

static const char *
root(void)
{
	const char *top = getenv("DP_SOURCE_ROOT");

	return top && *top ? top : ".";
}

static char *
read_source(const char *relative)
{
	char		path[512];

	snprintf(path, sizeof(path), "%s/%s", root(), relative);
	return read_text(path);
}

/*
 * `word` in text, not as part of a longer identifier (before it, and after
 * it too when `whole`)
 */
static bool
has_text(const char *text, const char *word, bool whole)
{
	size_t		length = strlen(word);
	const char *p = text;

	while (text && (p = strstr(p, word)) != NULL)
	{
		char		after = p[length];
		char		before = p == text ? ' ' : p[-1];

		if ((!whole || !(isalnum((unsigned char) after) || after == '_')) &&
			!(isalnum((unsigned char) before) || before == '_'))
			return true;
		p += length;
	}
	return false;
}

static bool
has_word(const char *text, const char *word)
{
	return has_text(text, word, true);
}

/*
 * Whether a file names the kind: its enum constant, or a mechanism of it
 * in the text form ("kary(epsilon=..." or "\"kary(").
 */
static bool
names_kind(const char *text, const dp_counter_kind *kind)
{
	char		constant[96];
	char		form[96];

	if (text == NULL)
		return false;
	snprintf(constant, sizeof(constant), "DP_MECHANISM_");
	for (size_t i = 0; kind->name[i] && strlen(constant) < sizeof(constant) - 1; i++)
	{
		size_t		at = strlen(constant);

		constant[at] = (char) toupper((unsigned char) kind->name[i]);
		constant[at + 1] = '\0';
	}
	if (has_word(text, constant))
		return true;
	snprintf(form, sizeof(form), "%s(epsilon=", kind->name);
	if (has_text(text, form, false))
		return true;
	snprintf(form, sizeof(form), "%s(rho=", kind->name);
	return has_text(text, form, false);
}

/* a unit test file (not the audit's) that names the kind and contains `marker` */
static const char *
unit_test_with(const dp_counter_kind *kind, const char *marker)
{
	for (int i = 0; i < unit_file_count; i++)
		if (strstr(unit_files[i].path, "test_audit") == NULL &&
			strstr(unit_files[i].path, "test_completeness") == NULL &&
			strstr(unit_files[i].path, "test_calibration_lp") == NULL &&
			names_kind(unit_files[i].text, kind) && strstr(unit_files[i].text, marker))
			return unit_files[i].path;
	return NULL;
}

static void
load_unit_files(void)
{
	/* the unit tests, as the Makefile's wildcard finds them */
	char		listing[512];
	FILE	   *pipe;
	char		line[256];

	snprintf(listing, sizeof(listing), "ls %s/test/unit/test_*.c 2>/dev/null", root());
	pipe = popen(listing, "r");
	while (pipe && unit_file_count < MAX_FILES && fgets(line, sizeof(line), pipe))
	{
		line[strcspn(line, "\n")] = '\0';
		snprintf(unit_files[unit_file_count].path, sizeof(unit_files[0].path), "%s", line);
		unit_files[unit_file_count].text = read_text(line);
		if (unit_files[unit_file_count].text)
			unit_file_count++;
	}
	if (pipe)
		pclose(pipe);
}

int
main(void)
{
	char	   *audit = read_source("test/unit/test_audit.c");
	char	   *corpus = read_source("test/fuzz/make_corpus.c");
	char	   *mechanisms_doc = read_source("docs/mechanisms.md");
	char	   *reference_doc = read_source("docs/reference.md");
	const dp_counter_kind *kind;

	int			status;

	load_unit_files();
	if (audit == NULL || corpus == NULL || mechanisms_doc == NULL || reference_doc == NULL ||
		unit_file_count == 0)
	{
		tap_ok(false, "the sources are readable from %s (run from the top of the tree)", root());
		status = tap_done();
		goto done;
	}
	for (size_t i = 0; (kind = dp_counter_kind_at(i)) != NULL; i++)
	{
		char		constructor[96];
		char		heading[96];
		const char *file;

		tap_ok(names_kind(audit, kind),
			   "%s: has an audit case (a mechanism of it in test/unit/test_audit.c)", kind->name);
		file = unit_test_with(kind, "variance");
		tap_ok(file != NULL,
			   "%s: has an error-variance test (a unit test naming it that checks a variance)%s%s",
			   kind->name, file ? ": " : "", file ? file : "");
		file = unit_test_with(kind, "serialize");
		tap_ok(file != NULL,
			   "%s: has a codec case (a unit test naming it that serializes a state)%s%s",
			   kind->name, file ? ": " : "", file ? file : "");
		tap_ok(names_kind(corpus, kind),
			   "%s: has a fuzz seed (test/fuzz/make_corpus.c)", kind->name);
		snprintf(constructor, sizeof(constructor), "dp_%s", kind->name);
		snprintf(heading, sizeof(heading), "`%s`", kind->name);
		tap_ok(has_word(mechanisms_doc, constructor) || strstr(mechanisms_doc, heading) != NULL,
			   "%s: has a docs entry (docs/mechanisms.md names %s)", kind->name, constructor);
		tap_ok(has_word(reference_doc, constructor) || strstr(reference_doc, heading) != NULL,
			   "%s: has a reference entry (docs/reference.md names %s)", kind->name, constructor);
	}
	status = tap_done();
done:
	/* everything read is freed, so that LeakSanitizer (make unit-sanitize) stays quiet */
	for (int i = 0; i < unit_file_count; i++)
		free(unit_files[i].text);
	free(audit);
	free(corpus);
	free(mechanisms_doc);
	free(reference_doc);
	return status;
}

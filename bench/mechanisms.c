/*
 * mechanisms.c
 *		Exact error variance of every counting mechanism at every step, from
 *		the mechanism's own noise description: no sampling.
 *
 * Usage: mechanisms OUTPUT_DIR [LARGEST_LOG2_HORIZON]
 * (20 by default; 16 for a quick run: BLT's variance alone takes about
 * 100 us a step, nearly two minutes at 2^20)
 *
 * For each mechanism at epsilon = 1 (or rho = 1/2 for the zCDP ones),
 * max_per_step = 1 and T = 2^10, 2^16, 2^20, the variance of the release at
 * t = 1..T is dp_noise_sum_variance over dp_counter_noise_groups_at: the
 * same description dp_error_sd and dp_error_bound use, so these figures are
 * what the SQL functions report, and what bench/mechanisms.sh checks
 * against releases drawn through SQL.
 *
 * The mechanisms are text forms (dp_mechanism_parse), one line each in
 * `entries` below; a kind this build does not know, or a text it does not
 * parse or validate, is skipped with a note, so the table can name kinds
 * that are still being written.
 *
 * Prints two markdown tables (pure epsilon-DP, then zCDP) and writes to
 * OUTPUT_DIR:
 *   mechanisms_by_t_<T>.dat       t and the variance of each pure epsilon-DP
 *                                 mechanism (an entry that is the same
 *                                 mechanism as an earlier one is left out);
 *                                 every t at 2^10, means over bins of T/2048
 *                                 steps beyond (for plots)
 *   mechanisms_zcdp_by_t_<T>.dat  the same for the zCDP mechanisms
 *   mechanisms_exact.tsv          T, label, canonical text, mean and max of
 *                                 the variance over t, and the mean over t of
 *                                 sd(e_t^2) (the empirical check's band)
 *   mechanisms_exact_1024.tsv     label, t, variance, sd(e_t^2) at T = 2^10
 *   mechanisms_points.tsv         T, label, t, variance at a few steps (the
 *                                 check of dp_error_sd)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dp_counter.h"

/*
 * One mechanism: a label, its kind's name, the privacy parameter as it is
 * written in the text form, and the block or arity (0: the kind's default,
 * -1: the odd arity with the least exact mean variance, searched here).
 * The horizon is added for bounded kinds.
 */
typedef struct bench_entry
{
	const char *label;
	const char *kind;
	const char *privacy;
	int64_t		block;
} bench_entry;

static const bench_entry entries[] = {
	{"binary", "binary", "epsilon=1", 0},
	{"two_level", "two_level", "epsilon=1", 0},
	{"hybrid", "hybrid", "epsilon=1", 0},
	{"kary", "kary", "epsilon=1", 0},
	{"balanced", "balanced", "epsilon=1", 0},
	{"balanced_best_k", "balanced", "epsilon=1", -1},
	{"balanced_unbounded", "balanced_unbounded", "epsilon=1", 0},
	{"ppcum", "ppcum", "epsilon=1", 0},
	{"simple_ii", "simple_ii", "epsilon=1", 0},
	{"simple_i", "simple_i", "epsilon=1", 0},
	{"honaker_2", "honaker", "epsilon=1", 2},
	{"honaker", "honaker", "epsilon=1", 0},
	/* zCDP: rho = 1/2, variance in its own units (not comparable to epsilon = 1) */
	{"binary_rho", "binary", "rho=0.5", 0},
	{"blt", "blt", "rho=0.5", 0},
	{"smooth_binary", "smooth_binary", "rho=0.5", 0},
};

#define ENTRY_COUNT ((int) (sizeof(entries) / sizeof(entries[0])))
#define HORIZON_COUNT 3
static const int log_horizons[HORIZON_COUNT] = {10, 16, 20};

/* points written per series beyond 2^10 */
#define PLOT_POINTS 2048

/* What one mechanism gives at one horizon. */
typedef struct bench_result
{
	bool		present;
	bool		zcdp;
	char		text[DP_MECHANISM_TEXT_BYTES];
	int64_t		block;			/* block or arity in force (0: none) */
	double		mean;
	double		max;
	double		mean_sd_square; /* mean over t of sd(e_t^2) */
	double		mean_continuous;	/* the same with 2 b^2 per Laplace term */
	double		max_continuous;
	double	   *by_t;			/* variance at t = 1..T (index t) */
	double	   *sd_square_by_t; /* sd(e_t^2) at t = 1..T */
} bench_result;

static bench_result results[ENTRY_COUNT][HORIZON_COUNT];
static char notes[ENTRY_COUNT][512];

/*
 * Variance and fourth cumulant of one noise term.  Discrete Laplace of
 * scale b is the difference of two geometric variables with q = e^(-1/b):
 * variance 2q / (1-q)^2 (= 2b^2 - 1/6 + O(1/b^2), a little below the
 * continuous Laplace's 2b^2) and fourth cumulant 2q (1 + 4q + q^2) / (1-q)^4.
 * The discrete Gaussian's are summed from its mass function.
 */
static void
term_moments(const dp_counter *counter, const dp_noise_group *group,
			 double *variance, double *kappa4)
{
	double		b = dp_scale_as_double(&group->scale);

#ifdef DP_FLAG_ZCDP
	if (counter->mechanism.flags & DP_FLAG_ZCDP)
	{
		/*
		 * The scale is sigma^2.  From sigma^2 = 4 on the discrete Gaussian's
		 * variance and fourth cumulant differ from the continuous sigma^2 and
		 * 0 by a relative e^(-2 pi^2 sigma^2) < 1e-34 (Poisson summation), and
		 * the scales of fixed-point mechanisms are huge: no sum there.
		 */
		double		sigma2 = b;
		double		limit = ceil(40.0 * sqrt(sigma2)) + 1.0;
		double		mass = 0.0,
					second = 0.0,
					fourth = 0.0;

		if (sigma2 >= 4.0)
		{
			*variance = sigma2;
			*kappa4 = 0.0;
			return;
		}
		/* the mass beyond 40 sigma is below 1e-300 */
		for (double z = -limit; z <= limit; z += 1.0)
		{
			double		p = exp(-z * z / (2.0 * sigma2));

			mass += p;
			second += p * z * z;
			fourth += p * z * z * z * z;
		}
		*variance = second / mass;
		*kappa4 = fourth / mass - 3.0 * (*variance) * (*variance);
		return;
	}
#endif
	(void) counter;
	{
		double		q = exp(-1.0 / b);
		double		p = -expm1(-1.0 / b);	/* 1 - q without cancellation */

		*variance = 2.0 * q / (p * p);
		*kappa4 = 2.0 * q * (1.0 + 4.0 * q + q * q) / (p * p * p * p);
	}
}

/*
 * Variance of the release after t steps, and the standard deviation of its
 * squared error: for a sum S of independent symmetric terms, E S^4 = k4 +
 * 3 V^2, so Var(S^2) = k4 + 2 V^2 with k4 the sum of the terms' fourth
 * cumulants (weight^4 each).
 */
static double
release_variance(const dp_counter *counter, int64_t t, double *sd_square, double *continuous)
{
	dp_noise_group groups[DP_NOISE_GROUPS_MAX];
	int			count = dp_counter_noise_groups_at(counter, t, groups);
	double		variance = dp_noise_sum_variance(groups, count);
	double		kappa4 = 0.0;

	*continuous = 0.0;

	for (int i = 0; i < count; i++)
	{
		double		v,
					k4,
					w2 = groups[i].weight * groups[i].weight;

		/* v is dp_noise_sum_variance's own term variance; only k4 is new */
		term_moments(counter, &groups[i], &v, &k4);
		kappa4 += (double) groups[i].terms * w2 * w2 * k4;
		/* the convention of the figures: continuous Laplace, 2 b^2 */
		*continuous += (double) groups[i].terms * w2 * 2.0 *
			pow(dp_scale_as_double(&groups[i].scale), 2);
	}
	*sd_square = sqrt(kappa4 + 2.0 * variance * variance);
	return variance;
}

/* The mechanism of an entry at a horizon, parsed and validated. */
static bool
build(const bench_entry *entry, int64_t horizon, int64_t block, dp_mechanism *mechanism,
	  char *note, size_t note_size)
{
	const dp_counter_kind *kind = dp_counter_kind_by_name(entry->kind);
	char		text[DP_MECHANISM_TEXT_BYTES];
	const char *cursor = text;
	const char *field = "";
	dp_parse_error error;
	int			length;

	if (kind == NULL)
	{
		snprintf(note, note_size, "kind \"%s\" not known to this build", entry->kind);
		return false;
	}
	length = snprintf(text, sizeof(text), "%s(%s", entry->kind, entry->privacy);
	if (kind->bounded)
		length += snprintf(text + length, sizeof(text) - length, ",horizon=%lld",
						   (long long) horizon);
	if (block > 0 && kind->has_block)
		length += snprintf(text + length, sizeof(text) - length, ",%s=%lld",
						   kind->block_name, (long long) block);
	/* the variance at max_per_step = 1: a count must state its bound (0.14.0) */
	snprintf(text + length, sizeof(text) - length, ",max_per_step=1)");

	memset(&error, 0, sizeof(error));
	if (dp_mechanism_parse(&cursor, mechanism, &error) != DP_OK)
	{
		snprintf(note, note_size, "%s: not parsed (%s: %s)", text,
				 error.field ? error.field : "?", error.problem ? error.problem : "?");
		return false;
	}
	if (dp_mechanism_validate(mechanism, &field) != DP_OK)
	{
		snprintf(note, note_size, "%s: refused (field %s)", text, field);
		return false;
	}
	return true;
}

/* Exact variance at every t = 1..T; false (with a note) when not built. */
static bool
evaluate(const bench_entry *entry, int64_t horizon, int64_t block, bench_result *result,
		 char *note, size_t note_size)
{
	dp_mechanism mechanism;
	dp_counter *counter;
	const char *field = "";

	if (!build(entry, horizon, block, &mechanism, note, note_size))
		return false;
	counter = malloc(dp_counter_size(&mechanism));
	if (dp_counter_prepare(counter, &mechanism, &field) != DP_OK)
	{
		snprintf(note, note_size, "%s: not prepared (field %s)", entry->label, field);
		free(counter);
		return false;
	}
	result->present = true;
	result->zcdp = strncmp(entry->privacy, "rho", 3) == 0;
	result->block = mechanism.block;
	dp_mechanism_to_text(&mechanism, result->text, sizeof(result->text));
	result->by_t = malloc(sizeof(double) * (size_t) (horizon + 1));
	result->sd_square_by_t = malloc(sizeof(double) * (size_t) (horizon + 1));
	result->mean = result->max = result->mean_sd_square = 0.0;
	result->mean_continuous = result->max_continuous = 0.0;
	for (int64_t t = 1; t <= horizon; t++)
	{
		double		continuous;
		double		v = release_variance(counter, t, &result->sd_square_by_t[t], &continuous);

		result->mean_continuous += continuous;
		if (continuous > result->max_continuous)
			result->max_continuous = continuous;

		result->by_t[t] = v;
		result->mean += v;
		result->mean_sd_square += result->sd_square_by_t[t];
		if (v > result->max)
			result->max = v;
	}
	result->mean /= (double) horizon;
	result->mean_sd_square /= (double) horizon;
	result->mean_continuous /= (double) horizon;
	free(counter);
	return true;
}

static void
release_result(bench_result *result)
{
	free(result->by_t);
	free(result->sd_square_by_t);
	result->by_t = result->sd_square_by_t = NULL;
}

/*
 * The odd arity whose exact mean variance is least (the kind's default is
 * chosen from an approximation of it): every arity the kind validates.
 */
static bool
evaluate_best_arity(const bench_entry *entry, int64_t horizon, bench_result *result,
					char *note, size_t note_size)
{
	bool		found = false;

	for (int64_t k = 3; k <= 255; k += 2)
	{
		bench_result candidate;
		char		ignored[512];

		memset(&candidate, 0, sizeof(candidate));
		if (!evaluate(entry, horizon, k, &candidate, ignored, sizeof(ignored)))
			continue;
		if (!found || candidate.mean < result->mean)
		{
			if (found)
				release_result(result);
			*result = candidate;
			found = true;
		}
		else
			release_result(&candidate);
	}
	if (!found)
		snprintf(note, note_size, "%s: no valid odd arity", entry->label);
	return found;
}

/* Large figures in exponent form so that Simple I fits a column. */
static void
print_figure(double value)
{
	if (value >= 1e7)
		printf("%.3e", value);
	else if (value >= 100)
		printf("%.0f", value);
	else
		printf("%.1f", value);
}

static void
print_table(bool zcdp, int reference)
{
	printf("| mechanism | block/arity |");
	for (int h = 0; h < HORIZON_COUNT; h++)
		printf(" 2^%d mean / max |", log_horizons[h]);
	for (int h = 0; h < HORIZON_COUNT; h++)
		printf(" 2^%d ratio to %s (mean / max) |", log_horizons[h], entries[reference].label);
	printf("\n|---|---|");
	for (int h = 0; h < 2 * HORIZON_COUNT; h++)
		printf("---|");
	printf("\n");
	for (int e = 0; e < ENTRY_COUNT; e++)
	{
		bool		any = false;

		for (int h = 0; h < HORIZON_COUNT; h++)
			any |= results[e][h].present && results[e][h].zcdp == zcdp;
		if (!any)
			continue;
		printf("| %s |", entries[e].label);
		for (int h = 0; h < HORIZON_COUNT; h++)
		{
			if (results[e][h].present && results[e][h].block > 0)
				printf("%s%lld", h ? " / " : " ", (long long) results[e][h].block);
			else
				printf("%s–", h ? " / " : " ");
		}
		printf(" |");
		for (int h = 0; h < HORIZON_COUNT; h++)
		{
			printf(" ");
			if (results[e][h].present)
			{
				print_figure(results[e][h].mean);
				printf(" / ");
				print_figure(results[e][h].max);
			}
			else
				printf("–");
			printf(" |");
		}
		for (int h = 0; h < HORIZON_COUNT; h++)
		{
			const bench_result *r = &results[e][h];
			const bench_result *b = &results[reference][h];

			if (r->present && b->present)
				printf(" %.3f / %.3f |", r->mean / b->mean, r->max / b->max);
			else
				printf(" – |");
		}
		printf("\n");
	}
}

/* The pure mechanisms with 2 b^2 per term, for comparison with 2b^2 figures. */
static void
print_continuous_table(void)
{
	printf("| mechanism |");
	for (int h = 0; h < HORIZON_COUNT; h++)
		printf(" 2^%d mean / max |", log_horizons[h]);
	printf("\n|---|---|---|---|\n");
	for (int e = 0; e < ENTRY_COUNT; e++)
	{
		if (!results[e][0].present || results[e][0].zcdp)
			continue;
		printf("| %s |", entries[e].label);
		for (int h = 0; h < HORIZON_COUNT; h++)
		{
			printf(" ");
			if (results[e][h].present)
			{
				print_figure(results[e][h].mean_continuous);
				printf(" / ");
				print_figure(results[e][h].max_continuous);
			}
			else
				printf("–");
			printf(" |");
		}
		printf("\n");
	}
}

/*
 * The variance by t of the pure (or the zCDP) mechanisms at one horizon:
 * every t up to 2^10, then the mean over bins of T / PLOT_POINTS steps (a
 * sample of single steps would follow the digit pattern of the stride,
 * e.g. multiples of 32 are low points of Binary).
 */
/* Whether an entry is in a plot: present, of that family, no earlier twin. */
static bool
plotted(int e, int h, bool zcdp)
{
	if (!results[e][h].present || results[e][h].zcdp != zcdp)
		return false;
	for (int earlier = 0; earlier < e; earlier++)
		if (results[earlier][h].present &&
			strcmp(results[earlier][h].text, results[e][h].text) == 0)
			return false;
	return true;
}

static void
write_by_t(const char *out_dir, int h, bool zcdp)
{
	int64_t		horizon = (int64_t) 1 << log_horizons[h];
	int64_t		bin = horizon <= 1024 ? 1 : horizon / PLOT_POINTS;
	char		path[1024];
	FILE	   *data;
	int			columns = 0;

	for (int e = 0; e < ENTRY_COUNT; e++)
		columns += plotted(e, h, zcdp);
	if (columns == 0)
		return;
	snprintf(path, sizeof(path), "%s/mechanisms%s_by_t_%lld.dat", out_dir,
			 zcdp ? "_zcdp" : "", (long long) horizon);
	data = fopen(path, "w");
	if (data == NULL)
	{
		perror(path);
		exit(1);
	}
	/* a header line of column names, for gnuplot's columnheader() */
	fprintf(data, "t");
	for (int e = 0; e < ENTRY_COUNT; e++)
		if (plotted(e, h, zcdp))
			fprintf(data, " %s", entries[e].label);
	fprintf(data, "\n");
	for (int64_t start = 1; start <= horizon; start += bin)
	{
		int64_t		end = start + bin - 1;

		fprintf(data, "%.1f", bin == 1 ? (double) start : (start + end) / 2.0);
		for (int e = 0; e < ENTRY_COUNT; e++)
		{
			double		sum = 0;

			if (!plotted(e, h, zcdp))
				continue;
			for (int64_t t = start; t <= end; t++)
				sum += results[e][h].by_t[t];
			fprintf(data, " %.6g", sum / (double) bin);
		}
		fprintf(data, "\n");
	}
	fclose(data);
}

static FILE *
open_or_die(const char *out_dir, const char *name)
{
	char		path[1024];
	FILE	   *file;

	snprintf(path, sizeof(path), "%s/%s", out_dir, name);
	file = fopen(path, "w");
	if (file == NULL)
	{
		perror(path);
		exit(1);
	}
	return file;
}

int
main(int argc, char **argv)
{
	const char *out_dir = argc > 1 ? argv[1] : ".";
	int			largest = argc > 2 ? atoi(argv[2]) : 20;
	int			reference = 0;	/* binary */
	int			zcdp_reference = -1;
	FILE	   *summary = open_or_die(out_dir, "mechanisms_exact.tsv");
	FILE	   *per_t = open_or_die(out_dir, "mechanisms_exact_1024.tsv");
	FILE	   *points = open_or_die(out_dir, "mechanisms_points.tsv");

	fprintf(summary, "T\tlabel\ttext\tmean\tmax\tmean_sd_square\n");
	fprintf(per_t, "label\tt\tvariance\tsd_square\n");
	fprintf(points, "T\tlabel\tt\tvariance\n");
	for (int e = 0; e < ENTRY_COUNT; e++)
	{
		for (int h = 0; h < HORIZON_COUNT; h++)
		{
			int64_t		horizon = (int64_t) 1 << log_horizons[h];
			bench_result *r = &results[e][h];
			bool		ok;

			if (log_horizons[h] > largest)
				continue;
			ok = entries[e].block < 0 ?
				evaluate_best_arity(&entries[e], horizon, r, notes[e], sizeof(notes[e])) :
				evaluate(&entries[e], horizon, entries[e].block, r, notes[e], sizeof(notes[e]));
			if (!ok)
				continue;
			fprintf(summary, "%lld\t%s\t%s\t%.10g\t%.10g\t%.10g\n", (long long) horizon,
					entries[e].label, r->text, r->mean, r->max, r->mean_sd_square);
			{
				int64_t		steps[] = {1, 2, 3, 100, horizon / 3, horizon / 2 + 1,
				horizon - 1, horizon};

				for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
					fprintf(points, "%lld\t%s\t%lld\t%.17g\n", (long long) horizon,
							entries[e].label, (long long) steps[i], r->by_t[steps[i]]);
			}
			if (h == 0)
				for (int64_t t = 1; t <= horizon; t++)
					fprintf(per_t, "%s\t%lld\t%.17g\t%.17g\n", entries[e].label,
							(long long) t, r->by_t[t], r->sd_square_by_t[t]);
		}
		if (zcdp_reference < 0 && results[e][0].present && results[e][0].zcdp)
			zcdp_reference = e;
	}
	fclose(summary);
	fclose(per_t);
	fclose(points);

	printf("Exact variance of the release over t = 1..T (max_per_step = 1), "
		   "from each mechanism's noise description\n\n");
	printf("Pure epsilon-DP, epsilon = 1:\n\n");
	print_table(false, reference);
	if (zcdp_reference >= 0)
	{
		printf("\nrho-zCDP, rho = 1/2 (discrete Gaussian; own units, not comparable "
			   "to the table above):\n\n");
		print_table(true, zcdp_reference);
	}
	printf("\n");
	for (int e = 0; e < ENTRY_COUNT; e++)
		if (notes[e][0] != '\0')
			printf("skipped %s: %s\n", entries[e].label, notes[e]);
	for (int e = 0; e < ENTRY_COUNT; e++)
		if (results[e][0].present && entries[e].block < 0)
			printf("%s: arity %lld / %lld / %lld at 2^10 / 2^16 / 2^20 (exact search over odd arities)\n",
				   entries[e].label, (long long) results[e][0].block,
				   (long long) results[e][1].block, (long long) results[e][2].block);
	printf("\nEach discrete Laplace term has variance 2q/(1-q)^2 = 2b^2 - 1/6 + O(1/b^2), "
		   "q = exp(-1/b): slightly below the continuous 2b^2.  The same pure mechanisms "
		   "with 2b^2 per term (the convention of figures computed for continuous Laplace "
		   "noise):\n\n");
	print_continuous_table();

	for (int h = 0; h < HORIZON_COUNT; h++)
	{
		write_by_t(out_dir, h, false);
		write_by_t(out_dir, h, true);
	}
	for (int e = 0; e < ENTRY_COUNT; e++)
		for (int h = 0; h < HORIZON_COUNT; h++)
			if (results[e][h].present)
				release_result(&results[e][h]);
	return 0;
}

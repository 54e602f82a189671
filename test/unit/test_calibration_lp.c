/*
 * test_calibration_lp.c
 *		The exact check of every mechanism's calibration: the releases (and
 *		the stored state, where a mechanism promises something about it)
 *		are linear in the data and in independent noise terms, r = A x + B z,
 *		with both matrices read off the real core; for neighbouring data x,
 *		x' the privacy cost of everything an observer sees is bounded by the
 *		cheapest shift w of the noise with B w = A (x' - x), costing
 *		sum_j |w_j| / b_j under discrete Laplace terms of scale b_j (a linear
 *		program) and ||w / sigma||^2 / 2 under discrete Gaussian terms of
 *		variance parameter sigma_j^2 (a least-squares problem).  Each such
 *		cost must be at most what the mechanism promises: epsilon (rho), or
 *		at age d of an expiring mechanism its loss curve g(d).
 *
 * The statistical audit (test_audit.c) samples; this solves, so it sees a
 * miscalibration the audit's events are blind to (a kind ignoring the
 * person-level unit, an expiring interval usable a step early, a
 * pan-private closing term at half scale: `make lp-broken`), and it reads
 * every step, option and age rather than the audit's chosen cases.
 *
 * Built with -DDP_TEST_NOISE_HOOK (the Makefile sets it for this file):
 * then dp_counter_noise returns the hook's value instead of a draw, and the
 * test runs each counter once per noise term with that term set to a probe
 * value and every other term 0 (a column of B), and once per step with
 * max_per_step there and 0 elsewhere, without noise (a column of A).  A
 * run with random data and random noise then checks that the counter is
 * linear in them, so the matrices are the mechanism.
 *
 * What is read: the mechanism's own release after every step (the consistent
 * release is post-processing of it), and the nodes of the stored state
 * after every step (dp_counter_persisted_nodes; the consistent node is a
 * function of the releases).  The views checked, for every kind in the
 * registry (a kind without a case here fails), every option it accepts
 * and every step up to the case's horizon:
 *
 *   releases      every release, one unit changed: the kind's loss at the
 *                 unit's age (epsilon, rho; g(d) for the delayed trees,
 *                 with every age d checked);
 *   past snapshot one stored state read after step tau with the releases
 *                 up to it: epsilon for every kind (docs/threat_model.md),
 *                 the loss at any age for the delayed trees; not BLT,
 *                 whose state holds its encoder's raw buffers (docs/zcdp.md);
 *   snapshot      one stored state read after step tau with every release,
 *                 before and after: epsilon for the pan-private and keyed
 *                 options and for Simple I and Simple II;
 *   two versions  two stored states with every release: epsilon for Simple
 *                 II only, whose state is its last release.
 *
 * The unit: one step changed by up to max_per_step (event level), or one
 * person's K contributions (person level): every vertex of that set, K
 * steps each changed by the same bound with every pattern of signs (the
 * cost is convex in x' - x and even, so its maximum is at a vertex).  At
 * person level the vertices are those of the first person_steps steps.
 *
 * Each linear program's answer is the cost of an explicit shift whose
 * residual is checked, so an answer within the claim cannot be an
 * artefact of the simplex's rounding.
 *
 * The Laplace cost of a real shift is the loss of the continuous analogue;
 * the project's argument for the discrete terms is in docs/expiration.md
 * (integral optimal shifts) and in the kinds' comments.  The check compares
 * at a relative 1e-9; kinds whose release rounds a weighted estimate
 * (Honaker, BLT) are read with a probe 2^30 times their noise's scale, so
 * their matrices are exact to about 2^-30, and compared at 1e-6.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dp_counter.h"
#include "dp_delayed_tree.h"
#include "tap.h"
#include "test_support.h"

#ifndef DP_TEST_NOISE_HOOK

int
main(void)
{
	printf("1..0 # SKIP built without -DDP_TEST_NOISE_HOOK (make unit sets it)\n");
	return 0;
}

#else

#define LP_STEPS_MAX 32
#define LP_DRAWS_MAX 2048
#define LP_NODES_MAX DP_COUNTER_MAX_NODES

/* ---- the cases: at least one per kind of the registry ---- */

typedef struct lp_case
{
	dp_mechanism_kind kind;
	const char *text;			/* event level; the options are added by the test */
	int			steps;			/* releases read (at most the horizon) */
	int			person_steps;	/* the same at person level (fewer: more vertices) */
	bool		later_snapshot; /* a state is private with later releases without the option */
	bool		past_snapshot;	/* a state is private with the releases up to it */
	bool		two_versions;	/* two versions of a state with every release (Simple II) */
} lp_case;

static const lp_case cases[] = {
	{DP_MECHANISM_BINARY, "binary(epsilon=1,horizon=16,max_per_step=3)", 16, 8, false, true, false},
	{DP_MECHANISM_SIMPLE_I, "simple_i(epsilon=1,horizon=12,max_per_step=3)", 12, 8, true, true, false},
	{DP_MECHANISM_SIMPLE_II, "simple_ii(epsilon=1,max_per_step=3)", 16, 8, true, true, true},
	{DP_MECHANISM_TWO_LEVEL, "two_level(epsilon=1,horizon=16,block=3,max_per_step=3)", 16, 8, false, true, false},
	{DP_MECHANISM_HYBRID, "hybrid(epsilon=1,max_per_step=3)", 16, 8, false, true, false},
	{DP_MECHANISM_PPCUM, "ppcum(epsilon=1,horizon=16,max_per_step=3)", 16, 8, false, true, false},
	{DP_MECHANISM_KARY, "kary(epsilon=1,horizon=16,arity=3,max_per_step=3)", 16, 8, false, true, false},
	{DP_MECHANISM_BALANCED, "balanced(epsilon=1,horizon=16,arity=3,max_per_step=3)", 16, 8, false, true, false},
	{DP_MECHANISM_BALANCED_UNBOUNDED, "balanced_unbounded(epsilon=1,arity=3,max_per_step=3)", 16, 8, false, true, false},
	{DP_MECHANISM_BLT, "blt(rho=0.5,horizon=16,max_per_step=3)", 16, 8, false, false, false},
	{DP_MECHANISM_HONAKER, "honaker(epsilon=1,horizon=16,arity=2,max_per_step=3)", 16, 8, false, true, false},
	{DP_MECHANISM_HONAKER, "honaker(epsilon=1,horizon=9,arity=3,max_per_step=3)", 9, 8, false, true, false},
	{DP_MECHANISM_SMOOTH_BINARY, "smooth_binary(rho=0.5,horizon=16,max_per_step=3)", 16, 8, false, true, false},
	{DP_MECHANISM_EXPIRING, "expiring(epsilon=1,lambda=1,delay=0,max_per_step=3)", 24, 8, false, true, false},
	{DP_MECHANISM_EXPIRING, "expiring(epsilon=1,lambda=2,delay=2,max_per_step=3)", 24, 8, false, true, false},
	{DP_MECHANISM_EXPIRING_BASELINE, "expiring_baseline(epsilon=1,horizon=24,window=4,past_ratio=0.5,max_per_step=3)", 24, 8, false, true, false},
	/* levels = 1 (per-step noise), intermediate and the full tree at several widths */
	{DP_MECHANISM_ROLLING, "rolling(epsilon=1,width=5,levels=3,max_per_step=3)", 24, 8, false, true, false},
	{DP_MECHANISM_ROLLING, "rolling(epsilon=1,width=5,levels=2,max_per_step=3)", 24, 8, false, true, false},
	{DP_MECHANISM_ROLLING, "rolling(epsilon=1,width=5,levels=1,max_per_step=3)", 16, 8, false, true, false},
	{DP_MECHANISM_ROLLING, "rolling(epsilon=1,width=4,levels=3,max_per_step=3)", 20, 8, false, true, false},
	{DP_MECHANISM_ROLLING, "rolling(epsilon=1,width=4,levels=1,max_per_step=3)", 16, 8, false, true, false},
	{DP_MECHANISM_ROLLING, "rolling(epsilon=1,width=7,levels=2,max_per_step=3)", 24, 8, false, true, false},
	{DP_MECHANISM_ROLLING, "rolling(epsilon=1,width=1,max_per_step=3)", 8, 6, false, true, false},
	/* k-ary: arity 3 at W = 9 and arity 4 at W = 8, two levels */
	{DP_MECHANISM_ROLLING, "rolling(epsilon=1,width=9,levels=2,arity=3,max_per_step=3)", 24, 8, false, true, false},
	{DP_MECHANISM_ROLLING, "rolling(epsilon=1,width=8,levels=2,arity=4,max_per_step=3)", 24, 8, false, true, false},
	/* K = 0: every step a closed block; K = 7: levels 0 to 4 of the first block */
	{DP_MECHANISM_DECAYED, "decayed(epsilon=1,gamma=0.9,max_per_step=3)", 16, 8, false, true, false},
	{DP_MECHANISM_DECAYED, "decayed(epsilon=1,gamma=0.999,max_per_step=3)", 32, 8, false, true, false},
};

#define CASE_COUNT ((int) (sizeof(cases) / sizeof(cases[0])))

/* the options the test adds, each where the kind accepts it */
static const uint32_t option_flags[] = {
	DP_FLAG_PAN_PRIVATE, DP_FLAG_CONSISTENT, DP_FLAG_KEYED, DP_FLAG_PERSON,
	DP_FLAG_PER_OBSERVATION, DP_FLAG_ZCDP
};

#define OPTION_COUNT ((int) (sizeof(option_flags) / sizeof(option_flags[0])))

/* person level: K contributions; per observation, each worth max_per_step */
#define PERSON_CONTRIBUTIONS 3
#define PERSON_MAX_PER_STEP 1
#define OBSERVATION_MAX_PER_STEP 2

/* ---- the noise hook ---- */

typedef struct lp_probe
{
	int			count;			/* terms drawn so far in this run */
	int			target;			/* the term set to the probe (-1: none) */
	dp_int128	value;			/* the probe's value */
	bool		recording;		/* the first run: record every term's scale */
	bool		random;			/* the linearity run: term j is values[j] */
	const dp_int128 *values;
	double		scales[LP_DRAWS_MAX];	/* b, or sigma^2 */
	bool		overflow;		/* more terms than LP_DRAWS_MAX */
} lp_probe;

static dp_int128
lp_hook(void *context, const dp_counter *counter, const dp_scale *scale, int node,
		dp_noise_role role)
{
	lp_probe   *probe = context;
	int			j = probe->count++;

	if (j >= LP_DRAWS_MAX)
	{
		probe->overflow = true;
		return 0;
	}
	if (probe->recording)
		probe->scales[j] = dp_scale_as_double(scale);
	if (probe->random)
		return probe->values[j];
	return j == probe->target ? probe->value : 0;
}

/* ---- the matrices of one mechanism ---- */

typedef struct lp_matrices
{
	dp_mechanism mechanism;
	int			steps;
	int			nodes;			/* the kind's persisted nodes (not the consistent one) */
	int			draws;
	int			rows;			/* steps * (1 + nodes) */
	bool		gaussian;
	bool		rounded;		/* the release rounds a weighted estimate */
	double	   *noise;			/* rows x draws */
	double	   *data;			/* rows x steps: max_per_step at one step */
	double		scales[LP_DRAWS_MAX];
	int			probe_shift[LP_DRAWS_MAX];	/* term j's probe is 2^probe_shift[j] */
} lp_matrices;

/* row of the release after step t (1-based) and of node i after step t */
static inline int
release_row(const lp_matrices *m, int t)
{
	return (t - 1) * (1 + m->nodes);
}

static inline int
node_row(const lp_matrices *m, int t, int i)
{
	return (t - 1) * (1 + m->nodes) + 1 + i;
}

static const unsigned char lp_noise_key[DP_NOISE_KEY_BYTES] = "calibration lp noise key 000000";

/*
 * One run: data x[1..steps] (NULL: zeros), noise from the probe; writes
 * every row.  false if the counter refused a step.
 */
static bool
lp_run(const lp_matrices *m, lp_probe *probe, const int64_t *x, dp_int128 *out)
{
	dp_counter *counter = malloc(dp_counter_size(&m->mechanism));
	dp_int128	nodes[LP_NODES_MAX];
	dp_random	rng;
	const char *field = NULL;
	bool		ok = true;

	dp_random_init_keyed(&rng, "lp", 2);
	probe->count = 0;
	probe->overflow = false;
	dp_test_noise_hook_context = probe;
	dp_test_noise_hook = lp_hook;
	if (counter == NULL ||
		dp_counter_start_keyed(counter, &m->mechanism,
							   (m->mechanism.flags & DP_FLAG_KEYED) ? lp_noise_key : NULL,
							   &rng, &field) != DP_OK)
	{
		printf("Bail out! could not start a counter (%s)\n", field ? field : "-");
		exit(1);
	}
	for (int t = 1; t <= m->steps && ok; t++)
	{
		ok = dp_counter_push(counter, x ? x[t] : 0, &rng) == DP_OK;
		out[release_row(m, t)] = counter->release;
		dp_counter_persisted_nodes(counter, nodes);
		for (int i = 0; i < m->nodes; i++)
			out[node_row(m, t, i)] = nodes[i];
	}
	dp_test_noise_hook = NULL;
	free(counter);
	return ok && !probe->overflow;
}

/* 2^30 times the term's standard deviation, as a power of two */
static int
probe_shift_for(double scale, bool gaussian)
{
	double		sd = gaussian ? sqrt(scale) : scale;
	int			shift = (int) ceil(log2(sd > 1 ? sd : 1)) + 30;

	return shift;
}

static double
int128_to_double(dp_int128 value)
{
	return (double) value;
}

/*
 * Reads A and B off the core; false (with a diagnostic) if the counter
 * cannot be run or is not linear.
 */
static bool
lp_extract(lp_matrices *m, const dp_mechanism *mechanism, int steps, bool nodes_read,
		   char *why, size_t why_size)
{
	lp_probe   *probe = calloc(1, sizeof(lp_probe));
	dp_int128  *out;
	dp_int128  *values;
	int64_t		x[LP_STEPS_MAX + 1];
	dp_random	rng;

	memset(m, 0, sizeof(*m));
	if (steps < 1 || steps > LP_STEPS_MAX)
	{
		snprintf(why, why_size, "%d steps: the test reads 1 to %d", steps, LP_STEPS_MAX);
		free(probe);
		return false;
	}
	m->mechanism = *mechanism;
	m->steps = steps;
	m->nodes = dp_counter_kind_by_id(mechanism->kind)->node_count(mechanism);
	m->rows = steps * (1 + m->nodes);
	m->gaussian = (mechanism->flags & DP_FLAG_ZCDP) != 0;
	m->rounded = dp_counter_kind_by_id(mechanism->kind)->release_slack != NULL;
	out = malloc(sizeof(dp_int128) * (size_t) m->rows);
	values = malloc(sizeof(dp_int128) * LP_DRAWS_MAX);
	if (probe == NULL || out == NULL || values == NULL)
		abort();

	/* the terms and their scales: a run without noise and data, all zero */
	probe->target = -1;
	probe->recording = true;
	if (!lp_run(m, probe, NULL, out))
	{
		snprintf(why, why_size, "the counter refused a step without noise");
		goto fail;
	}
	m->draws = probe->count;
	memcpy(m->scales, probe->scales, sizeof(double) * (size_t) m->draws);
	for (int r = 0; r < m->rows; r++)
		if (out[r] != 0)
		{
			snprintf(why, why_size, "output %d is not 0 without data and noise", r);
			goto fail;
		}
	probe->recording = false;
	m->noise = calloc((size_t) m->rows * (size_t) (m->draws > 0 ? m->draws : 1), sizeof(double));
	m->data = calloc((size_t) m->rows * (size_t) steps, sizeof(double));
	if (m->noise == NULL || m->data == NULL)
		abort();

	/* B: one term at its probe, the others 0 */
	for (int j = 0; j < m->draws; j++)
	{
		m->probe_shift[j] = probe_shift_for(m->scales[j], m->gaussian);
		probe->target = j;
		probe->value = ((dp_int128) 1) << m->probe_shift[j];
		if (!lp_run(m, probe, NULL, out) || probe->count != m->draws)
		{
			snprintf(why, why_size, "term %d: the counter refused a step, or drew another number of terms", j);
			goto fail;
		}
		for (int r = 0; r < m->rows; r++)
			m->noise[(size_t) r * m->draws + j] = ldexp(int128_to_double(out[r]), -m->probe_shift[j]);
	}
	/* A: max_per_step at one step, no noise */
	probe->target = -1;
	for (int s = 1; s <= steps; s++)
	{
		memset(x, 0, sizeof(x));
		x[s] = mechanism->max_per_step;
		if (!lp_run(m, probe, x, out) || probe->count != m->draws)
		{
			snprintf(why, why_size, "step %d: the counter refused a step, or drew another number of terms", s);
			goto fail;
		}
		for (int r = 0; r < m->rows; r++)
			m->data[(size_t) r * steps + (s - 1)] = int128_to_double(out[r]);
	}

	/*
	 * Linearity: random data and random multiples of the probes must give
	 * A x / max_per_step + B z (exactly, but for a rounded release: within
	 * 1, its rounding and the decoder's).
	 */
	dp_random_init_keyed(&rng, "lp linearity", 12);
	for (int s = 1; s <= steps; s++)
		x[s] = (int64_t) dp_random_below(&rng, (uint64_t) mechanism->max_per_step + 1);
	for (int j = 0; j < m->draws; j++)
		values[j] = ((dp_int128) dp_random_below(&rng, 5) - 2) * (((dp_int128) 1) << m->probe_shift[j]);
	probe->random = true;
	probe->values = values;
	if (!lp_run(m, probe, x, out) || probe->count != m->draws)
	{
		snprintf(why, why_size, "the linearity run refused a step, or drew another number of terms");
		goto fail;
	}
	probe->random = false;
	for (int r = 0; r < m->rows; r++)
	{
		double		expected = 0,
					error;
		bool		release = r % (1 + m->nodes) == 0;	/* else a node */

		for (int s = 1; s <= steps; s++)
			expected += m->data[(size_t) r * steps + (s - 1)] * (double) x[s] /
				(double) mechanism->max_per_step;
		for (int j = 0; j < m->draws; j++)
			expected += m->noise[(size_t) r * m->draws + j] * int128_to_double(values[j]);
		error = fabs(int128_to_double(out[r]) - expected);
		/*
		 * A rounded kind's output is an integer within 1 of its exact
		 * value (its release: 1/2 and the decoder's or fixed point's
		 * slack; its fixed-point nodes: one unit), and so is each reading
		 * of A and B, scaled here by the data's and the terms' multiples.
		 */
		if (m->rounded)
		{
			double		readings = 1;

			for (int s = 1; s <= steps; s++)
				readings += (double) x[s] / (double) mechanism->max_per_step;
			for (int j = 0; j < m->draws; j++)
				readings += fabs(ldexp(int128_to_double(values[j]), -m->probe_shift[j]));
			error = error > readings ? error : 0;
		}
		/* the nodes of a state no view reads (BLT's) are not needed */
		if (!release && !nodes_read)
			continue;
		if (error > 1e-9 * (1 + fabs(expected)))
		{
			snprintf(why, why_size, "not linear: output %d (step %d) is %.17g, A x + B z gives %.17g",
					 r, r / (1 + m->nodes) + 1, int128_to_double(out[r]), expected);
			goto fail;
		}
	}
	free(probe);
	free(out);
	free(values);
	return true;

fail:
	free(probe);
	free(out);
	free(values);
	free(m->noise);
	free(m->data);
	m->noise = m->data = NULL;
	return false;
}

/* ---- the linear program: min sum_j c_j |w_j| subject to B w = y ---- */

typedef struct lp_tableau
{
	double	   *t;
	int		   *basis;
	size_t		capacity;
	size_t		basis_capacity;
} lp_tableau;

static lp_tableau tableau;
static long lp_pivots;

static void
lp_pivot(double *t, int rows, int width, int *basis, int r, int e)
{
	double		p = t[(size_t) r * width + e];

	for (int k = 0; k < width; k++)
		t[(size_t) r * width + k] /= p;
	t[(size_t) r * width + e] = 1.0;
	for (int i = 0; i <= rows; i++)
	{
		double		f;

		if (i == r)
			continue;
		f = t[(size_t) i * width + e];
		if (f == 0)
			continue;
		for (int k = 0; k < width; k++)
			t[(size_t) i * width + k] -= f * t[(size_t) r * width + k];
		t[(size_t) i * width + e] = 0;
	}
	basis[r] = e;
	lp_pivots++;
}

/*
 * The primal simplex on the tableau (row `rows` holds the reduced costs
 * and minus the objective), entering columns < allowed: the most negative
 * reduced cost, and Bland's rule after a run of degenerate pivots.  false
 * if unbounded or out of iterations.
 */
static bool
lp_simplex(double *t, int rows, int width, int *basis, int allowed, double optimality)
{
	int			rhs = width - 1;
	int			degenerate = 0;

	for (int iteration = 0; iteration < 50000; iteration++)
	{
		const double *cost = t + (size_t) rows * width;
		int			e = -1,
					r = -1;
		double		best = -optimality;
		double		ratio = INFINITY;

		for (int j = 0; j < allowed; j++)
			if (cost[j] < best)
			{
				e = j;
				if (degenerate > 50)
					break;		/* Bland: the first improving column */
				best = cost[j];
			}
		if (e < 0)
			return true;
		for (int i = 0; i < rows; i++)
		{
			double		a = t[(size_t) i * width + e];

			if (a > 1e-9)
			{
				double		q = t[(size_t) i * width + rhs] / a;

				if (q < ratio - 1e-12 || (q <= ratio + 1e-12 && r >= 0 && basis[i] < basis[r]))
				{
					ratio = q < ratio ? q : ratio;
					r = i;
				}
			}
		}
		if (r < 0)
		{
			if (getenv("DP_LP_DEBUG"))
				fprintf(stderr, "unbounded column %d cost %g rows %d\n", e, cost[e], rows);
			return false;
		}
		degenerate = ratio < 1e-12 ? degenerate + 1 : 0;
		lp_pivot(t, rows, width, basis, r, e);
	}
	if (getenv("DP_LP_DEBUG"))
		fprintf(stderr, "out of iterations rows %d\n", rows);
	return false;
}

/* the least cost; INFINITY when no shift of the noise makes the outputs equal */
static double
lp_min_l1(int rows, int n, const double *B, const double *y, const double *c, double feasibility)
{
	int			columns = 2 * n + rows;
	int			width = columns + 1;
	size_t		size = (size_t) (rows + 1) * width;
	double	   *t;
	int		   *basis;
	double		total = 0,
				infeasibility;
	/* a reduced cost this close to 0 is 0: the readings of a rounded kind are exact to 2^-30 */
	double		optimality = feasibility > 1e-9 ? 1e-8 : 1e-11;

	if (size > tableau.capacity)
	{
		free(tableau.t);
		tableau.t = malloc(sizeof(double) * size);
		tableau.capacity = size;
	}
	if ((size_t) rows > tableau.basis_capacity)
	{
		free(tableau.basis);
		tableau.basis = malloc(sizeof(int) * (size_t) rows);
		tableau.basis_capacity = rows;
	}
	t = tableau.t;
	basis = tableau.basis;
	if (t == NULL || basis == NULL)
		abort();
	memset(t, 0, sizeof(double) * size);
	for (int i = 0; i < rows; i++)
	{
		double		sign = y[i] < 0 ? -1 : 1;

		for (int j = 0; j < n; j++)
		{
			t[(size_t) i * width + j] = sign * B[(size_t) i * n + j];
			t[(size_t) i * width + n + j] = -sign * B[(size_t) i * n + j];
		}
		t[(size_t) i * width + 2 * n + i] = 1;
		t[(size_t) i * width + columns] = sign * y[i];
		basis[i] = 2 * n + i;
		total += fabs(y[i]);
	}
	/* phase 1: minimise the artificial variables */
	for (int i = 0; i < rows; i++)
		for (int k = 0; k < 2 * n; k++)
			t[(size_t) rows * width + k] -= t[(size_t) i * width + k];
	for (int i = 0; i < rows; i++)
		t[(size_t) rows * width + columns] -= t[(size_t) i * width + columns];
	if (!lp_simplex(t, rows, width, basis, columns, optimality))
		return NAN;
	infeasibility = -t[(size_t) rows * width + columns];
	if (infeasibility > feasibility * (1 + total))
		return INFINITY;
	/* artificials still basic at 0: pivot them out, or their row is redundant */
	for (int i = 0; i < rows; i++)
		if (basis[i] >= 2 * n)
			for (int k = 0; k < 2 * n; k++)
				if (fabs(t[(size_t) i * width + k]) > 1e-7)
				{
					lp_pivot(t, rows, width, basis, i, k);
					break;
				}
	/* phase 2: the costs, reduced against the basis */
	for (int k = 0; k <= columns; k++)
		t[(size_t) rows * width + k] = k < n ? c[k] : k < 2 * n ? c[k - n] : 0;
	for (int i = 0; i < rows; i++)
	{
		double		cb = basis[i] < n ? c[basis[i]] : basis[i] < 2 * n ? c[basis[i] - n] : 0;

		if (cb != 0)
			for (int k = 0; k <= columns; k++)
				t[(size_t) rows * width + k] -= cb * t[(size_t) i * width + k];
	}
	if (!lp_simplex(t, rows, width, basis, 2 * n, optimality))
		return NAN;

	/*
	 * The answer is the cost of an explicit shift: w from the final basis,
	 * which must satisfy B w = y to 10^-12 of y's size (10^-7 for the
	 * rounded kinds, whose readings are exact to about 2^-30).  So a cost
	 * within the claim is a shift that exists, whatever the simplex's
	 * rounding did; a simplex stopped early could only report too much.
	 */
	{
		double	   *w = calloc((size_t) (n > 0 ? n : 1), sizeof(double));
		double		cost = 0;

		if (w == NULL)
			abort();
		for (int i = 0; i < rows; i++)
		{
			double		value = t[(size_t) i * width + columns];

			if (basis[i] < n)
				w[basis[i]] += value;
			else if (basis[i] < 2 * n)
				w[basis[i] - n] -= value;
		}
		for (int i = 0; i < rows && !isnan(cost); i++)
		{
			double		residual = -y[i];

			for (int j = 0; j < n; j++)
				residual += B[(size_t) i * n + j] * w[j];
			if (fabs(residual) > (feasibility > 1e-9 ? 1e-7 : 1e-12) * (1 + total))
				cost = NAN;
		}
		for (int j = 0; j < n && !isnan(cost); j++)
			cost += c[j] * fabs(w[j]);
		free(w);
		return cost;
	}
}

/*
 * The Gaussian cost: min ||u||^2 / 2 subject to B diag(sigma) u = y.  The
 * rows are orthogonalized in order (Gram-Schmidt, twice); the independent
 * ones fix the coordinates v of u in their span by forward substitution,
 * the dependent ones must agree with them.
 */
static double
lp_min_l2(int rows, int n, const double *B, const double *y, const double *sigma)
{
	double	   *q = malloc(sizeof(double) * (size_t) rows * (n > 0 ? n : 1));
	double	   *R = calloc((size_t) rows * (rows > 0 ? rows : 1), sizeof(double));
	int		   *pivot_of = malloc(sizeof(int) * (size_t) (rows > 0 ? rows : 1));
	double	   *v = calloc((size_t) (rows > 0 ? rows : 1), sizeof(double));
	double		residual_row[LP_DRAWS_MAX];
	int			rank = 0;
	double		cost = 0;

	if (q == NULL || R == NULL || pivot_of == NULL || v == NULL)
		abort();
	for (int i = 0; i < rows; i++)
	{
		double		norm0 = 0,
					norm = 0;

		for (int j = 0; j < n; j++)
		{
			residual_row[j] = B[(size_t) i * n + j] * sigma[j];
			norm0 += residual_row[j] * residual_row[j];
		}
		for (int pass = 0; pass < 2; pass++)
			for (int k = 0; k < rank; k++)
			{
				double		dot = 0;

				for (int j = 0; j < n; j++)
					dot += residual_row[j] * q[(size_t) k * n + j];
				R[(size_t) i * rows + k] += dot;
				for (int j = 0; j < n; j++)
					residual_row[j] -= dot * q[(size_t) k * n + j];
			}
		for (int j = 0; j < n; j++)
			norm += residual_row[j] * residual_row[j];
		norm = sqrt(norm);
		if (norm > 1e-9 * sqrt(norm0) && norm0 > 0)
		{
			for (int j = 0; j < n; j++)
				q[(size_t) rank * n + j] = residual_row[j] / norm;
			R[(size_t) i * rows + rank] = norm;
			pivot_of[i] = rank++;
		}
		else
			pivot_of[i] = -1;
	}
	for (int i = 0; i < rows && !isinf(cost); i++)
	{
		double		rest = y[i];

		for (int k = 0; k < rank; k++)
			if (pivot_of[i] != k)
				rest -= R[(size_t) i * rows + k] * v[k];
		if (pivot_of[i] >= 0)
			v[pivot_of[i]] = rest / R[(size_t) i * rows + pivot_of[i]];
		else if (fabs(rest) > 1e-6 * (1 + fabs(y[i])))
			cost = INFINITY;
	}
	if (!isinf(cost))
		for (int k = 0; k < rank; k++)
			cost += v[k] * v[k] / 2;
	free(q);
	free(R);
	free(pivot_of);
	free(v);
	return cost;
}

/* ---- views and units ---- */

typedef struct lp_tally
{
	long		problems;
	double		worst_ratio;	/* max cost / claim */
	char		worst[300];
	bool		failed;
	char		failure[300];
} lp_tally;

/*
 * The cost of making the chosen rows of x and x' = x + delta equal, over
 * the terms that reach them: rows and columns that are 0 on both sides are
 * left out of the problem.
 */
static double
lp_cost(const lp_matrices *m, const int *rows, int row_count, const double *delta)
{
	double	   *dense = NULL;
	double		y[LP_STEPS_MAX + 2 * LP_NODES_MAX];
	double		weights[LP_DRAWS_MAX];
	int			columns[LP_DRAWS_MAX];
	int			used_rows[LP_STEPS_MAX + 2 * LP_NODES_MAX];
	int			n = 0,
				k = 0;
	double		cost;

	for (int j = 0; j < m->draws; j++)
	{
		bool		reaches = false;

		for (int i = 0; i < row_count && !reaches; i++)
			reaches = m->noise[(size_t) rows[i] * m->draws + j] != 0;
		if (reaches)
			columns[n++] = j;
	}
	for (int i = 0; i < row_count; i++)
	{
		double		value = 0;
		bool		any = false;

		for (int s = 0; s < m->steps; s++)
			value += m->data[(size_t) rows[i] * m->steps + s] * delta[s];
		for (int c = 0; c < n && !any; c++)
			any = m->noise[(size_t) rows[i] * m->draws + columns[c]] != 0;
		if (!any && value == 0)
			continue;
		if (!any)
			return INFINITY;	/* an output that moves without noise */
		y[k] = value;
		used_rows[k++] = rows[i];
	}
	if (k == 0)
		return 0;
	dense = malloc(sizeof(double) * (size_t) k * n);
	if (dense == NULL)
		abort();
	/* each row scaled to a largest coefficient of 1 (fixed-point nodes are 2^24 counts) */
	for (int i = 0; i < k; i++)
	{
		double		largest = 0;

		for (int c = 0; c < n; c++)
		{
			dense[(size_t) i * n + c] = m->noise[(size_t) used_rows[i] * m->draws + columns[c]];
			if (fabs(dense[(size_t) i * n + c]) > largest)
				largest = fabs(dense[(size_t) i * n + c]);
		}
		for (int c = 0; c < n; c++)
			dense[(size_t) i * n + c] /= largest;
		y[i] /= largest;
	}
	for (int c = 0; c < n; c++)
		weights[c] = m->gaussian ? sqrt(m->scales[columns[c]]) : 1.0 / m->scales[columns[c]];
	cost = m->gaussian ? lp_min_l2(k, n, dense, y, weights) : lp_min_l1(k, n, dense, y, weights, m->rounded ? 1e-6 : 1e-9);
	free(dense);
	return cost;
}

static void
lp_record(lp_tally *tally, double cost, double claim, double tolerance,
		  const char *view, int tau, int tau2, const int *steps, int step_count, int through)
{
	double		ratio = cost / claim;
	char		where[160];
	int			length;

	tally->problems++;
	length = snprintf(where, sizeof(where), "%s", view);
	if (tau > 0)
		length += snprintf(where + length, sizeof(where) - length, " after step %d", tau);
	if (tau2 > 0)
		length += snprintf(where + length, sizeof(where) - length, " and %d", tau2);
	length += snprintf(where + length, sizeof(where) - length, ", releases through %d, unit at", through);
	for (int i = 0; i < step_count; i++)
		length += snprintf(where + length, sizeof(where) - length, " %d", steps[i]);
	if (!(ratio <= 1 + tolerance) && !tally->failed)
	{
		tally->failed = true;
		snprintf(tally->failure, sizeof(tally->failure), "%s: cost %.9g > claim %.9g", where, cost, claim);
	}
	if (ratio > tally->worst_ratio || isnan(ratio))
	{
		tally->worst_ratio = isnan(ratio) ? INFINITY : ratio;
		snprintf(tally->worst, sizeof(tally->worst), "%s (cost %.9g, claim %.9g)", where, cost, claim);
	}
}

/* the loss promised at an age: g(d) for a delayed tree, epsilon (rho) otherwise */
static double
claim_at(const dp_mechanism *mechanism, int64_t age)
{
	return dp_delayed_tree_privacy_loss(mechanism, age);
}

/*
 * Every vertex of the unit's set of changes among steps 1..limit: one step
 * at event level; at person level `contributions` steps (all of them if
 * there are fewer), with every pattern of signs whose first is positive
 * (x and x' swapped give the same cost).  Calls back with the changed
 * steps in increasing order.
 */
typedef void (*unit_callback) (void *context, const int *steps, const int *signs, int count);

#define UNIT_STEPS_MAX 8

static void
units_from(int limit, int count, int chosen, int next, int *steps, int *signs,
		   unit_callback callback, void *context)
{
	if (chosen == count)
	{
		for (int pattern = 0; pattern < (1 << (count - 1)); pattern++)
		{
			signs[0] = 1;
			for (int i = 1; i < count; i++)
				signs[i] = (pattern >> (i - 1)) & 1 ? -1 : 1;
			callback(context, steps, signs, count);
		}
		return;
	}
	for (int s = next; s <= limit - (count - chosen - 1); s++)
	{
		steps[chosen] = s;
		units_from(limit, count, chosen + 1, s + 1, steps, signs, callback, context);
	}
}

static void
for_each_unit(int limit, int contributions, unit_callback callback, void *context)
{
	int			steps[UNIT_STEPS_MAX],
				signs[UNIT_STEPS_MAX];
	int			count = contributions < limit ? contributions : limit;

	if (count < 1 || count > UNIT_STEPS_MAX)
		return;
	units_from(limit, count, 0, 1, steps, signs, callback, context);
}

typedef struct view_context
{
	const lp_matrices *m;
	lp_tally   *tally;
	double		tolerance;
	double		unit;			/* the change of one step at a vertex */
	int			tau;			/* snapshot after tau (0: none) */
	int			tau2;			/* a second version after tau2 (0: none) */
	bool		later;			/* with the releases after the snapshot */
	bool		ages;			/* releases: every age, not only the last */
	const char *view;
} view_context;

static void
check_unit(void *context, const int *steps, const int *signs, int count)
{
	view_context *v = context;
	const lp_matrices *m = v->m;
	double		delta[LP_STEPS_MAX] = {0};
	int			rows[LP_STEPS_MAX + 2 * LP_NODES_MAX];
	int			oldest = steps[0];

	for (int i = 0; i < count; i++)
		delta[steps[i] - 1] = signs[i] * v->unit;

	if (v->tau == 0)
	{
		/* releases through oldest + age, for every age (or only the last) */
		for (int through = v->ages ? oldest : m->steps; through <= m->steps; through++)
		{
			int			row_count = 0;

			for (int t = 1; t <= through; t++)
				rows[row_count++] = release_row(m, t);
			lp_record(v->tally, lp_cost(m, rows, row_count, delta),
					  claim_at(&m->mechanism, through - oldest), v->tolerance, v->view, 0, 0,
					  steps, count, through);
		}
		return;
	}
	{
		int			through = v->later ? m->steps : v->tau;
		int			row_count = 0;

		for (int t = 1; t <= through; t++)
			rows[row_count++] = release_row(m, t);
		for (int i = 0; i < m->nodes; i++)
			rows[row_count++] = node_row(m, v->tau, i);
		if (v->tau2 > 0)
			for (int i = 0; i < m->nodes; i++)
				rows[row_count++] = node_row(m, v->tau2, i);
		/* a snapshot's promise holds at any age: the delayed trees' whole loss */
		lp_record(v->tally, lp_cost(m, rows, row_count, delta),
				  claim_at(&m->mechanism, DP_HORIZON_MAX), v->tolerance, v->view, v->tau,
				  v->tau2, steps, count, through);
	}
}

/* every view the mechanism promises something about */
static void
check_mechanism(const lp_case *c, const lp_matrices *m, lp_tally *tally)
{
	const dp_mechanism *mech = &m->mechanism;
	bool		person = (mech->flags & DP_FLAG_PERSON) != 0;
	int			contributions = person ? (int) mech->contributions : 1;
	bool		delayed;
	dp_delayed_tree tree;
	view_context v = {.m = m, .tally = tally, .tolerance = m->rounded ? 1e-6 : 1e-9};

	delayed = dp_delayed_tree_of(mech, &tree);
	/*
	 * A's columns are max_per_step at one step: at every vertex each
	 * changed step moves by exactly that (person level without per
	 * observation runs at max_per_step 1, a contribution being one unit).
	 */
	v.unit = 1;

	v.view = "releases";
	v.ages = delayed;
	for_each_unit(m->steps, contributions, check_unit, &v);
	v.ages = false;

	if (c->past_snapshot)
	{
		v.view = "past snapshot";
		for (int tau = 1; tau <= m->steps; tau++)
		{
			v.tau = tau;
			for_each_unit(tau, contributions, check_unit, &v);
		}
	}
	if (c->later_snapshot || (mech->flags & (DP_FLAG_PAN_PRIVATE | DP_FLAG_KEYED)))
	{
		v.view = "snapshot";
		v.later = true;
		for (int tau = 1; tau <= m->steps; tau++)
		{
			v.tau = tau;
			for_each_unit(m->steps, contributions, check_unit, &v);
		}
	}
	if (c->two_versions)
	{
		v.view = "two versions";
		v.later = true;
		for (int tau = 1; tau <= m->steps; tau++)
			for (int tau2 = tau + 1; tau2 <= m->steps; tau2++)
			{
				v.tau = tau;
				v.tau2 = tau2;
				for_each_unit(m->steps, contributions, check_unit, &v);
			}
		v.tau2 = 0;
	}
}

/* the case's mechanism with the options; the person level's unit set */
static void
mechanism_with_options(const lp_case *c, uint32_t options, dp_mechanism *out)
{
	*out = test_mechanism(c->text);
	out->flags |= options;
	if (options & DP_FLAG_KEYED)
		snprintf(out->key, sizeof(out->key), "lp");
	if (options & DP_FLAG_PERSON)
	{
		out->contributions = PERSON_CONTRIBUTIONS;
		out->max_per_step = (options & DP_FLAG_PER_OBSERVATION) ?
			OBSERVATION_MAX_PER_STEP : PERSON_MAX_PER_STEP;
	}
}

static bool only_matches(const char *name);

int
main(void)
{
	clock_t		start = clock();
	long		problems = 0,
				mechanisms = 0;
	bool		covered[256] = {false};
	int			kinds = 0;

	/* every kind of the registry has a case: a new kind must add one */
#define DP_MECHANISM_ENTRY(name, id, kind_variable) kinds++;
#include "dp_mechanism_list.h"
#undef DP_MECHANISM_ENTRY
	for (int i = 0; i < CASE_COUNT; i++)
		if (cases[i].kind >= 0 && cases[i].kind < 256)
			covered[cases[i].kind] = true;
#define DP_MECHANISM_ENTRY(name, id, kind_variable) \
	tap_ok(id < 256 && covered[id], "the registry's kind %s has an exact calibration case", #name);
#include "dp_mechanism_list.h"
#undef DP_MECHANISM_ENTRY

	for (int i = 0; i < CASE_COUNT; i++)
	{
		const lp_case *c = &cases[i];
		const dp_counter_kind *kind = dp_counter_kind_by_id(c->kind);

		if (!only_matches(kind->name))
			continue;
		for (uint32_t subset = 0; subset < (1u << OPTION_COUNT); subset++)
		{
			uint32_t	options = 0;
			dp_mechanism mechanism;
			lp_matrices m;
			lp_tally	tally = {.worst_ratio = -INFINITY};
			char		text[DP_MECHANISM_TEXT_BYTES];
			char		why[300];
			const char *field;
			bool		skip = false;
			int			steps;
			clock_t		mechanism_start;

			for (int o = 0; o < OPTION_COUNT; o++)
				if (subset & (1u << o))
				{
					if (!(kind->accepted_flags & option_flags[o]))
						skip = true;
					options |= option_flags[o];
				}
			if (skip)
				continue;
			mechanism_with_options(c, options, &mechanism);
			/* ZCDP reads epsilon as rho; a kind that needs it takes it from its text */
			if (dp_mechanism_validate(&mechanism, &field) != DP_OK)
				continue;
			dp_mechanism_to_text(&mechanism, text, sizeof(text));
			steps = (options & DP_FLAG_PERSON) ? c->person_steps : c->steps;
			mechanisms++;
			mechanism_start = clock();
			if (!lp_extract(&m, &mechanism, steps, c->past_snapshot, why, sizeof(why)))
			{
				tap_ok(false, "%s: %s", text, why);
				continue;
			}
			check_mechanism(c, &m, &tally);
			problems += tally.problems;
			if (!tap_ok(!tally.failed, "%s: %d terms, %ld problems, cost at most %.9f of the claim (%.2f s)",
						text, m.draws, tally.problems, tally.worst_ratio,
						(double) (clock() - mechanism_start) / CLOCKS_PER_SEC))
				tap_diag("first failure: %s", tally.failure);
			tap_diag("  worst: %s", tally.worst);
			free(m.noise);
			free(m.data);
		}
	}
	tap_diag("%d kinds, %ld mechanisms, %ld problems, %ld pivots, %.2f s CPU", kinds, mechanisms,
			 problems, lp_pivots,
			 (double) (clock() - start) / CLOCKS_PER_SEC);
	return tap_done();
}

/* DP_LP_ONLY=kind runs that kind's cases only (make lp-broken) */
static bool
only_matches(const char *name)
{
	const char *only = getenv("DP_LP_ONLY");

	return only == NULL || *only == '\0' || strcmp(only, name) == 0;
}

#endif							/* DP_TEST_NOISE_HOOK */

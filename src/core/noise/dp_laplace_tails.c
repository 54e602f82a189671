/*
 * dp_laplace_tails.c
 *		Error analysis of discrete Laplace noise: the variance of one draw,
 *		exact tails and half-widths of sums of draws of one or two scales,
 *		the convolution of a few narrow scales, and the Cornish-Fisher
 *		expansion for many draws of one scale.  The samplers are in dp_noise.c.
 */
#include "dp_laplace_tails.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

/* 1 - q and log q for q = exp(-1 / b), without cancellation for large b. */
static void
geometric_parameter(const dp_scale *scale, double *one_minus_q, double *log_q)
{
	double		inverse_scale = (double) scale->denominator / (double) scale->numerator;

	*log_q = -inverse_scale;
	*one_minus_q = -expm1(-inverse_scale);
}

double
dp_discrete_laplace_variance(const dp_scale *scale)
{
	double		one_minus_q;
	double		log_q;

	geometric_parameter(scale, &one_minus_q, &log_q);
	return 2.0 * exp(log_q) / (one_minus_q * one_minus_q);
}

/* log(exp(a) + exp(b)) without overflow; -INFINITY is the empty sum. */
static double
log_add(double a, double b)
{
	double		high = a > b ? a : b;
	double		low = a > b ? b : a;

	if (high == -INFINITY)
		return -INFINITY;
	return high + log1p(exp(low - high));
}

/*
 * Tails of a sum of k independent discrete Laplace terms of one scale.
 *
 * With q = exp(-1/b), the generating function of the sum is
 * (1-q)^{2k} / ((1 - q x)^k (1 - q/x)^k).  Its partial fractions at x = 1/q
 * give, for z >= 0,
 *     P[S = z] = (1-q)^{2k} q^z sum_{j=1..k} alpha_j C(z + j - 1, j - 1),
 * where alpha_j = h_{k-j} and h_m are the Taylor coefficients in u = 1 - q x
 * of (1 + r / (1 - u / (1 - q^2)))^k with r = q^2 / (1 - q^2):
 *     h_0 = (1 - q^2)^{-k},
 *     h_m = (1 - q^2)^{-m} sum_{i=1..k} C(k, i) r^i C(m + i - 1, m).
 * All of these are positive.  Summing over z >= w turns each
 * C(z + j - 1, j - 1) q^z into (1-q)^{-j} times a negative-binomial tail,
 * F_j(w) = P[Binomial(w + j - 1, p) <= j - 1] with p = 1 - q, so
 *     P[S >= w] = sum_j weight_j F_j(w),  weight_j = alpha_j (1-q)^{2k-j}.
 * F_j obeys F_{j+1} = F_j + q B_j with B_j = P[Binomial(w + j - 1, p) = j]
 * and B_{j+1} = B_j p (w + j) / (j + 1), so a tail costs O(k) once the
 * weights (which do not depend on w) are known.  Every term is positive:
 * no cancellation.
 */
typedef struct tail_context
{
	int			terms;
	double		log_q;
	double		q;
	double		p;				/* 1 - q */
	double		weight[DP_EXACT_TERMS_MAX + 1];
} tail_context;

static void
tail_context_init(tail_context *context, const dp_scale *scale, int k)
{
	double		log_q;
	double		one_minus_q;
	double		log_one_minus_q;
	double		log_one_minus_q2;
	double		log_r;

	geometric_parameter(scale, &one_minus_q, &log_q);
	log_one_minus_q = log(one_minus_q);
	log_one_minus_q2 = log(-expm1(2.0 * log_q));
	log_r = 2.0 * log_q - log_one_minus_q2;

	context->terms = k;
	context->log_q = log_q;
	context->q = exp(log_q);
	context->p = one_minus_q;
	for (int m = 0; m < k; m++)
	{
		double		log_h = -m * log_one_minus_q2;
		int			j = k - m;

		if (m > 0)
		{
			double		series = -INFINITY;
			double		log_choose_k_i = 0.0;	/* log C(k, i) */
			double		log_choose_m_i = 0.0;	/* log C(m + i - 1, m) */

			for (int i = 1; i <= k; i++)
			{
				log_choose_k_i += log((double) (k - i + 1) / i);
				series = log_add(series, log_choose_k_i + i * log_r + log_choose_m_i);
				log_choose_m_i += log((double) (m + i) / i);
			}
			log_h += series;
		}
		else
			log_h = -k * log_one_minus_q2;
		/* weight_j = alpha_j (1-q)^{2k-j}; below double range it is negligible */
		context->weight[j] = exp(log_h + (2.0 * k - j) * log_one_minus_q);
	}
}

/* P[S >= w] for integer w (any sign). */
static double
tail_at(const tail_context *context, double w)
{
	double		f;
	double		b;
	double		total = 0.0;

	if (context->terms == 0)
		return w <= 0 ? 1.0 : 0.0;
	if (w <= 0)
		return 1.0 - tail_at(context, 1.0 - w);	/* P[S >= w] = 1 - P[S >= 1 - w] */

	f = exp(w * context->log_q);
	b = w * context->p * exp((w - 1) * context->log_q);
	for (int j = 1; j <= context->terms; j++)
	{
		total += context->weight[j] * f;
		f += context->q * b;
		b *= context->p * (w + j) / (j + 1);
	}
	return total > 1.0 ? 1.0 : total;
}

double
dp_discrete_laplace_sum_upper_tail(const dp_scale *scale, int terms, double threshold)
{
	tail_context context;

	if (terms < 0 || terms > DP_EXACT_TERMS_MAX)
		return NAN;
	if (threshold <= 0)
		return 1.0;
	tail_context_init(&context, scale, terms);
	return tail_at(&context, threshold);
}

/*
 * Every loop below is bounded by a constant or by the cell counts: a tail
 * search doubles at most DP_DOUBLINGS_MAX times (a double passes 2^1023
 * before that), bisections halve a range of at most that many bits.
 */
#define DP_DOUBLINGS_MAX 1100

/* Smallest integer w >= 0 for which exceeds(w) is false; exceeds is monotone. */
static double
smallest_passing(bool (*exceeds) (const void *, double), const void *argument)
{
	double		low = 0;
	double		high = 1;

	if (!exceeds(argument, 0))
		return 0.0;
	/* tails fall to 0 long before 2^1100 overflows to infinity; the cap is for safety */
	for (int doublings = 0; exceeds(argument, high); doublings++)
	{
		if (doublings == DP_DOUBLINGS_MAX)
			return NAN;
		low = high;
		high *= 2;
	}
	/* invariant: exceeds(low), !exceeds(high) */
	while (high - low > 1 && high - low > high * 0x1p-50)
	{
		double		middle = floor(low + (high - low) / 2);

		if (exceeds(argument, middle))
			low = middle;
		else
			high = middle;
	}
	return high;
}

typedef struct one_group_search
{
	tail_context context;
	double		allowed;
} one_group_search;

/* P[|S| > w] = 2 P[S >= w + 1] */
static bool
one_group_exceeds(const void *argument, double w)
{
	const one_group_search *search = argument;

	return 2.0 * tail_at(&search->context, w + 1) > search->allowed;
}

double
dp_laplace_one_group_half_width(const dp_scale *scale, int terms, double miss)
{
	one_group_search search;

	if (terms <= 0)
		return 0.0;
	if (terms > DP_EXACT_TERMS_MAX || !(miss > 0.0 && miss <= 1.0))
		return NAN;
	tail_context_init(&search.context, scale, terms);
	search.allowed = miss;
	return smallest_passing(one_group_exceeds, &search);
}

double
dp_discrete_laplace_sum_half_width(const dp_scale *scale, int terms, double confidence)
{
	return dp_laplace_one_group_half_width(scale, terms, 1.0 - confidence);
}


/* z with P[Z > z] = upper for a standard normal Z, by bisection on erfc */
static double
normal_upper_quantile(double upper)
{
	double		low = 0.0;
	double		high = 40.0;

	for (int i = 0; i < 200 && high - low > 1e-15 * high; i++)
	{
		double		middle = (low + high) / 2;

		if (0.5 * erfc(middle * 0.70710678118654752440) > upper)
			low = middle;
		else
			high = middle;
	}
	return high;
}

/*
 * Many terms of one scale: the sum is close to normal, and the Cornish-Fisher
 * expansion with the exact fourth cumulant corrects the rest.  One term,
 * G1 - G2 with G geometric on {0, 1, ...} of success probability p, has
 * cumulants kappa2 = 2q/p^2 and kappa4 = 2q(p^2 + 6pq + 6q^2)/p^4; a sum of
 * k terms multiplies both by k.  The lattice is handled by the continuity
 * correction P[S >= w + 1] ~ P[continuous >= w + 1/2].
 */

double
dp_noise_sum_half_width_expansion(const dp_scale *scale, int64_t terms, double confidence)
{
	return dp_laplace_expansion_half_width(scale, terms, 1.0 - confidence);
}

double
dp_laplace_expansion_half_width(const dp_scale *scale, int64_t terms, double miss)
{
	double		one_minus_q;
	double		log_q;
	double		p;
	double		q;
	double		kappa2;
	double		kappa4;
	double		excess;
	double		z;
	double		x;

	geometric_parameter(scale, &one_minus_q, &log_q);
	p = one_minus_q;
	q = exp(log_q);
	kappa2 = (double) terms * 2.0 * q / (p * p);
	kappa4 = (double) terms * 2.0 * q * (p * p + 6.0 * p * q + 6.0 * q * q) / (p * p * p * p);
	excess = kappa4 / (kappa2 * kappa2);
	z = normal_upper_quantile(miss / 2.0);
	x = z + excess / 24.0 * (z * z * z - 3.0 * z);
	return fmax(0.0, ceil(x * sqrt(kappa2) - 0.5));
}

/*
 * Two groups X and Y: P[X + Y >= v] = sum_x P[X = x] P[Y >= v - x].  On a
 * lattice of step h, cut the range of X into cells [i h, (i + 1) h); inside a
 * cell P[Y >= v - x] is increasing in x, so using its value at the cell's
 * right end bounds the tail from above.  The mass of X outside the range
 * (a millionth of the allowed error) is counted as if it always
 * exceeded.  The half-width is the smallest lattice point meeting the upper
 * bound, so it is never below the exact one and exceeds it by at most about
 * 2h, with h about 1/4000 of the range of the sum (and 0 when the range
 * has fewer than DP_LATTICE_CELLS integers: then h = 1 and it is exact).
 */
#define DP_LATTICE_CELLS 8192
#define DP_TAIL_NEGLIGIBLE 1e-6

/* a v >= 1 with P[S >= v] below `tail`, by doubling */
static double
range_of(const tail_context *context, double tail)
{
	double		v = 1;

	for (int doublings = 0; doublings < DP_DOUBLINGS_MAX && tail_at(context, v) > tail; doublings++)
		v *= 2;
	return v;
}

typedef struct two_group_search
{
	double		h;
	long		x_cells;		/* cells of X: i in [-x_cells, x_cells) */
	double	   *x_mass;			/* x_mass[i + x_cells] = P[X in cell i] */
	double		x_outside;		/* P[X outside all cells] */
	long		y_points;		/* y_tail[n + y_points] = P[Y >= n h + 1] */
	double	   *y_tail;
	double		allowed;
} two_group_search;

static double
y_tail_at(const two_group_search *search, long n)
{
	if (n < -search->y_points)
		return 1.0;
	if (n >= search->y_points)
		return search->y_tail[2 * search->y_points - 1];	/* an upper bound */
	return search->y_tail[n + search->y_points];
}

/* Upper bound on P[X + Y >= m h] > allowed / 2, for w = m h - 1 */
static bool
two_group_exceeds_lattice(const two_group_search *search, long m)
{
	double		upper = search->x_outside;

	for (long i = -search->x_cells; i < search->x_cells; i++)
		upper += search->x_mass[i + search->x_cells] * y_tail_at(search, m - i - 1);
	return 2.0 * upper > search->allowed;
}

double
dp_laplace_two_groups_half_width(const dp_noise_group *groups, double miss)
{
	tail_context *x = malloc(sizeof(tail_context));
	tail_context *y = malloc(sizeof(tail_context));
	two_group_search search;
	double		x_range;
	double		y_range;
	double		result = NAN;
	long		low;
	long		high;

	search.x_mass = NULL;
	search.y_tail = NULL;
	if (x == NULL || y == NULL)
		goto done;
	tail_context_init(x, &groups[0].scale, (int) groups[0].terms);
	tail_context_init(y, &groups[1].scale, (int) groups[1].terms);
	search.allowed = miss;

	x_range = range_of(x, DP_TAIL_NEGLIGIBLE * search.allowed);
	y_range = range_of(y, DP_TAIL_NEGLIGIBLE * search.allowed);
	search.h = fmax(1.0, ceil(2.0 * fmax(x_range, y_range) / DP_LATTICE_CELLS));
	search.x_cells = (long) ceil(x_range / search.h);
	search.y_points = (long) ceil(y_range / search.h) + 1;
	search.x_mass = malloc(sizeof(double) * 2 * (size_t) search.x_cells);
	search.y_tail = malloc(sizeof(double) * 2 * (size_t) search.y_points);
	if (search.x_mass == NULL || search.y_tail == NULL)
		goto done;

	for (long i = -search.x_cells; i < search.x_cells; i++)
		search.x_mass[i + search.x_cells] =
			fmax(0.0, tail_at(x, i * search.h) - tail_at(x, (i + 1) * search.h));
	search.x_outside = tail_at(x, search.x_cells * search.h) +
		tail_at(x, search.x_cells * search.h + 1);
	for (long n = -search.y_points; n < search.y_points; n++)
		search.y_tail[n + search.y_points] = tail_at(y, n * search.h + 1);

	/* w = m h - 1; find the smallest m >= 1 that passes */
	/*
	 * Passes once m h is beyond both ranges (then the bound is the mass kept
	 * outside them, a millionth of the allowed error): within about
	 * log2(x_cells + y_points) doublings.
	 */
	low = 0;
	high = 1;
	while (two_group_exceeds_lattice(&search, high))
	{
		if (high > 4 * (search.x_cells + search.y_points))
			goto done;
		low = high;
		high *= 2;
	}
	while (high - low > 1)
	{
		long		middle = low + (high - low) / 2;

		if (two_group_exceeds_lattice(&search, middle))
			low = middle;
		else
			high = middle;
	}
	result = high * search.h - 1;

done:
	free(search.x_mass);
	free(search.y_tail);
	free(x);
	free(y);
	return result;
}

/*
 * Sums of discrete Laplace terms of three or more scales, exactly, when
 * their support is small: each term Z of scale b is cut at M, chosen so
 * that P[|Z| > M] = 2 q^(M+1) / (1 + q) (q = e^(-1/b)) adds up to at most
 * a millionth of the allowed miss over all terms, and the in-range parts
 * are convolved (a sub-probability: the mass cut off is counted apart).
 * Then P[|S| > w] <= P[|S| > w, every term in range] + P[some term out
 * of range], and the answer is the least integer w at which that is at
 * most `miss` (the tail summed in double precision, raised by 1e-9 for its
 * rounding): the exact quantile, or one above it only when the exact tail
 * lies within a millionth of miss.  NAN when the cut support would pass
 * DP_CONVOLUTION_WIDTH_MAX or the terms DP_CONVOLUTION_TERMS_MAX (the
 * work is below about 3.4e7 multiply-adds); the caller then uses the
 * Chernoff bound.
 */
#define DP_CONVOLUTION_WIDTH_MAX 2048
#define DP_CONVOLUTION_TERMS_MAX 4096

double
dp_laplace_convolved_half_width(const dp_noise_group *groups, int count, double miss)
{
	int64_t		terms = 0;
	long		cuts[DP_NOISE_GROUPS_MAX];
	double		q[DP_NOISE_GROUPS_MAX];
	long		width = 0;
	long		reached = 0;
	double		truncated = 0.0;
	double		per_term;
	double	   *mass;
	double	   *next;
	double		tail = 0.0;
	long		w;

	for (int g = 0; g < count; g++)
	{
		if (groups[g].terms > DP_CONVOLUTION_TERMS_MAX - terms)
			return NAN;
		terms += groups[g].terms;
	}
	per_term = miss * 1e-6 / (double) terms;
	for (int g = 0; g < count; g++)
	{
		double		one_minus_q;
		double		log_q;
		double		cut;

		geometric_parameter(&groups[g].scale, &one_minus_q, &log_q);
		q[g] = exp(log_q);
		/* the least M with 2 q^(M+1) / (1 + q) <= per_term */
		cut = ceil((log(per_term) + log1p(q[g]) - log(2.0)) / log_q) - 1.0;
		if (!(cut >= 0.0))
			cut = 0.0;
		if (cut > DP_CONVOLUTION_WIDTH_MAX || width + (double) groups[g].terms * cut > DP_CONVOLUTION_WIDTH_MAX)
			return NAN;
		cuts[g] = (long) cut;
		width += (long) groups[g].terms * cuts[g];
		truncated += (double) groups[g].terms * 2.0 * exp(log_q * (cut + 1.0)) / (1.0 + q[g]);
	}
	if (truncated > miss * 1e-6 * (1.0 + 1e-6))
		return NAN;				/* not reached: the cuts were chosen for this */

	mass = calloc((size_t) (2 * width + 1), sizeof(double));
	next = calloc((size_t) (2 * width + 1), sizeof(double));
	if (mass == NULL || next == NULL)
	{
		free(mass);
		free(next);
		return NAN;
	}
	/* index i holds the value i - width */
	mass[width] = 1.0;
	for (int g = 0; g < count; g++)
	{
		double		center = (1.0 - q[g]) / (1.0 + q[g]);

		for (int64_t term = 0; term < groups[g].terms; term++)
		{
			long		grown = reached + cuts[g];

			for (long v = -grown; v <= grown; v++)
				next[v + width] = 0.0;
			for (long v = -reached; v <= reached; v++)
			{
				double		here = mass[v + width];
				double		p = center * here;

				if (here == 0.0)
					continue;
				next[v + width] += p;
				for (long z = 1; z <= cuts[g]; z++)
				{
					p *= q[g];
					next[v + z + width] += p;
					next[v - z + width] += p;
				}
			}
			reached = grown;
			{
				double	   *swap = mass;

				mass = next;
				next = swap;
			}
		}
	}

	/* the least w with tail(w) + truncated <= miss, scanning down from the top */
	for (w = reached; w > 0; w--)
	{
		double		wider = tail + mass[w + width] + mass[-w + width];

		/* tail(w - 1) = tail(w) + P[S = w] + P[S = -w] */
		if (wider * (1.0 + 1e-9) + truncated > miss)
			break;
		tail = wider;
	}
	free(mass);
	free(next);
	return (double) w;
}


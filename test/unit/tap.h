/*
 * tap.h
 *		A minimal TAP producer for the C unit tests.  Each test program prints
 *		"ok N - ..." / "not ok N - ..." lines and a final plan, and exits
 *		non-zero when any check failed.
 */
#ifndef DP_TAP_H
#define DP_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int	tap_count = 0;
static int	tap_failed = 0;

static inline int
tap_ok(int condition, const char *format, ...)
{
	va_list		args;

	tap_count++;
	if (!condition)
		tap_failed++;
	printf("%sok %d - ", condition ? "" : "not ", tap_count);
	va_start(args, format);
	vprintf(format, args);
	va_end(args);
	printf("\n");
	fflush(stdout);
	return condition;
}

static inline void
tap_diag(const char *format, ...)
{
	va_list		args;

	printf("# ");
	va_start(args, format);
	vprintf(format, args);
	va_end(args);
	printf("\n");
}

static inline int
tap_done(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed == 0 ? 0 : 1;
}

/*
 * Critical values used by the statistical checks, all for p = 1e-6:
 * the two-sided standard normal quantile, and the upper quantile of a
 * chi-squared law with df degrees of freedom (Wilson-Hilferty, accurate to
 * well under 1% for df >= 10).
 */
#define Z_TWO_SIDED_1E6 4.8916
#define Z_ONE_SIDED_1E6 4.7534

static inline double
chi_squared_critical_1e6(int df)
{
	double		a = 2.0 / (9.0 * df);
	double		base = 1.0 - a + Z_ONE_SIDED_1E6 * sqrt(a);

	return df * base * base * base;
}

/*
 * Exact variance and fourth moment of the discrete Laplace distribution of
 * scale b (P[z] proportional to exp(-|z| / b)), by summing its mass.
 */
static inline void
discrete_laplace_moments(double b, double *variance, double *fourth)
{
	double		q = exp(-1.0 / b);
	double		c = (1 - q) / (1 + q);

	*variance = 0;
	*fourth = 0;
	for (long z = 1; z < 10000000; z++)
	{
		double		p = 2 * c * pow(q, (double) z);

		*variance += p * z * z;
		*fourth += p * pow((double) z, 4);
		if (p < 1e-300)
			break;
	}
}

#endif							/* DP_TAP_H */

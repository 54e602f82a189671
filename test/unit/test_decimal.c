/*
 * test_decimal.c
 *		dp_decimal_round (src/core/codec/dp_decimal.c): the amounts the
 *		privacy-budget ledger records.  Fixed cases, then every class of
 *		double against glibc's printf, which prints a double's exact value
 *		and rounds it in the current rounding mode (FE_UPWARD, FE_DOWNWARD,
 *		FE_TONEAREST with ties to even):
 *		an oracle written independently of the code under test.
 */
#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "tap.h"
#include "dp_decimal.h"

/* printf's rounding of x to `places`, in the given direction, without trailing zeros */
static void
oracle(double x, int places, dp_rounding rounding, char *out, size_t size)
{
	int			saved = fegetround();
	char	   *point;
	size_t		end;

	fesetround(rounding == DP_ROUND_UP ? FE_UPWARD :
			   rounding == DP_ROUND_DOWN ? FE_DOWNWARD : FE_TONEAREST);
	snprintf(out, size, "%.*f", places, x);
	fesetround(saved);
	point = strchr(out, '.');
	if (point == NULL)
		return;
	end = strlen(out);
	while (end > 0 && out[end - 1] == '0')
		end--;
	if (out[end - 1] == '.')
		end--;
	out[end] = '\0';
}

static const char *const direction_name[] = {"down", "up", "nearest"};

static int
check(double x, int places, dp_rounding rounding, const char *expected)
{
	char		got[DP_DECIMAL_TEXT_BYTES];

	if (!dp_decimal_round(x, places, rounding, got, sizeof(got)))
		return tap_ok(0, "%.17g to %d places %s: refused", x, places, direction_name[rounding]);
	return tap_ok(strcmp(got, expected) == 0, "%.17g to %d places %s is %s (got %s)",
				  x, places, direction_name[rounding], expected, got);
}

static void
test_fixed(void)
{
	/* 0.1 is 0.1000000000000000055511151231257827...: above 0.1 */
	check(0.1, 12, DP_ROUND_UP, "0.100000000001");
	check(0.1, 12, DP_ROUND_DOWN, "0.1");
	/* 0.8 and 0.2 are both above their decimals: 1.000000000002 together */
	check(0.8, 12, DP_ROUND_UP, "0.800000000001");
	check(0.2, 12, DP_ROUND_UP, "0.200000000001");
	check(0.8 + 0.2, 12, DP_ROUND_UP, "1");
	/* 0.3 is 0.299999999999999988897769753748...: below 0.3 */
	check(0.3, 12, DP_ROUND_UP, "0.3");
	check(0.3, 12, DP_ROUND_DOWN, "0.299999999999");
	check(1.0 / 3.0, 12, DP_ROUND_UP, "0.333333333334");
	check(1.0 / 3.0, 12, DP_ROUND_DOWN, "0.333333333333");
	/* binary fractions are exact */
	check(0.5, 12, DP_ROUND_UP, "0.5");
	check(0.25, 12, DP_ROUND_DOWN, "0.25");
	check(1.0, 12, DP_ROUND_UP, "1");
	check(2.5, 12, DP_ROUND_DOWN, "2.5");
	check(0x1p-40, 20, DP_ROUND_DOWN, "0.0000000000009094947");
	check(0.0, 12, DP_ROUND_UP, "0");
	check(0.0, 12, DP_ROUND_DOWN, "0");
	/* the tiniest charge costs one unit; a budget this small is nothing */
	check(1e-300, 12, DP_ROUND_UP, "0.000000000001");
	check(1e-320, 12, DP_ROUND_UP, "0.000000000001");
	check(4.9406564584124654e-324, 12, DP_ROUND_UP, "0.000000000001");
	check(1e-320, 12, DP_ROUND_DOWN, "0");
	check(0x1p-40, 12, DP_ROUND_UP, "0.000000000001");
	check(0x1p-40, 12, DP_ROUND_DOWN, "0");
	/* 1e-12 itself is 9.9999999999999997988e-13: just below one unit */
	check(1e-12, 12, DP_ROUND_UP, "0.000000000001");
	check(1e-12, 12, DP_ROUND_DOWN, "0");
	/* carries through nines, and into a new digit */
	check(0.9999999999999999, 12, DP_ROUND_UP, "1");
	check(99.99999999999999, 12, DP_ROUND_UP, "100");
	check(0.9999999999999999, 12, DP_ROUND_DOWN, "0.999999999999");
	/* what dp_epsilon_for once returned: just above 100 */
	check(100.00000000000016, 12, DP_ROUND_UP, "100.000000000001");
	check(100.00000000000016, 12, DP_ROUND_DOWN, "100");
	/* nearest: a budget's total is the decimal that was typed */
	check(0.3, 12, DP_ROUND_NEAREST, "0.3");
	check(0.1, 12, DP_ROUND_NEAREST, "0.1");
	check(1.0 / 3.0, 12, DP_ROUND_NEAREST, "0.333333333333");
	check(2.0 / 3.0, 12, DP_ROUND_NEAREST, "0.666666666667");
	check(1e-320, 12, DP_ROUND_NEAREST, "0");
	check(6e-13, 12, DP_ROUND_NEAREST, "0.000000000001");
	check(4e-13, 12, DP_ROUND_NEAREST, "0");
	/* exact ties (2^-13 = 0.0001220703125) go to the even neighbour */
	check(0x1p-13, 12, DP_ROUND_NEAREST, "0.000122070312");
	check(3 * 0x1p-13, 12, DP_ROUND_NEAREST, "0.000366210938");
	check(2.5, 0, DP_ROUND_NEAREST, "2");
	check(3.5, 0, DP_ROUND_NEAREST, "4");
	check(0.5, 0, DP_ROUND_NEAREST, "0");
	/* no decimals */
	check(2.5, 0, DP_ROUND_UP, "3");
	check(2.5, 0, DP_ROUND_DOWN, "2");
	check(1e15, 12, DP_ROUND_UP, "1000000000000000");
	check(4503599627370497.0, 12, DP_ROUND_DOWN, "4503599627370497");
}

static void
test_refusals(void)
{
	char		out[DP_DECIMAL_TEXT_BYTES];
	char		small[8];

	tap_ok(!dp_decimal_round(1.0, 12, (dp_rounding) 7, out, sizeof(out)), "an unknown rounding is refused");
	tap_ok(!dp_decimal_round(-0.5, 12, DP_ROUND_UP, out, sizeof(out)), "a negative value is refused");
	tap_ok(!dp_decimal_round(-1e-320, 12, DP_ROUND_UP, out, sizeof(out)), "a negative subnormal is refused");
	tap_ok(!dp_decimal_round(NAN, 12, DP_ROUND_UP, out, sizeof(out)), "NaN is refused");
	tap_ok(!dp_decimal_round(INFINITY, 12, DP_ROUND_UP, out, sizeof(out)), "infinity is refused");
	tap_ok(!dp_decimal_round(1.0, -1, DP_ROUND_UP, out, sizeof(out)), "negative places are refused");
	tap_ok(!dp_decimal_round(1.0, DP_DECIMAL_MAX_PLACES + 1, DP_ROUND_UP, out, sizeof(out)),
		   "too many places are refused");
	tap_ok(!dp_decimal_round(1.0, 12, DP_ROUND_UP, small, sizeof(small)), "a short buffer is refused");
}

/* a deterministic generator of 64-bit patterns (splitmix64) */
static uint64_t
next_bits(uint64_t *state)
{
	uint64_t	z = (*state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* Agreement with the oracle over `count` values of one class. */
static void
test_against_printf(const char *name, int count, double (*draw) (uint64_t *))
{
	uint64_t	state = UINT64_C(20261126);
	int			disagreements = 0;
	int			i;
	double		first_bad = 0;

	for (i = 0; i < count; i++)
	{
		double		x = draw(&state);
		int			places = (int) (next_bits(&state) % (DP_DECIMAL_MAX_PLACES + 1));
		int			direction;

		for (direction = DP_ROUND_DOWN; direction <= DP_ROUND_NEAREST; direction++)
		{
			char		got[DP_DECIMAL_TEXT_BYTES];
			char		want[400];

			if (!dp_decimal_round(x, places, direction, got, sizeof(got)))
				strcpy(got, "(refused)");
			oracle(x, places, direction, want, sizeof(want));
			if (strcmp(got, want) != 0)
			{
				if (disagreements == 0)
				{
					first_bad = x;
					tap_diag("%.17g to %d places %s: %s, printf %s", x, places,
							 direction_name[direction], got, want);
				}
				disagreements++;
			}
		}
	}
	tap_ok(disagreements == 0, "%s: %d values, all three roundings, 0-%d places, as printf (%d differ, first %.17g)",
		   name, count, DP_DECIMAL_MAX_PLACES, disagreements, first_bad);
}

/* any finite double >= 0, every exponent equally likely */
static double
draw_any(uint64_t *state)
{
	double		x;

	do
	{
		uint64_t	bits = next_bits(state) & UINT64_C(0x7fffffffffffffff);

		memcpy(&x, &bits, sizeof(x));
	} while (!isfinite(x));
	return x;
}

/* the epsilons a ledger sees: 2^-40 to 100, uniform in the logarithm */
static double
draw_epsilon(uint64_t *state)
{
	double		u = (double) (next_bits(state) >> 11) * 0x1p-53;

	return exp2(-40.0 + u * (40.0 + log2(100.0)));
}

/* decimals as typed: k / 10^d */
static double
draw_typed(uint64_t *state)
{
	uint64_t	k = next_bits(state) % 1000000;
	int			d = (int) (next_bits(state) % 13);

	return (double) k / pow(10.0, d);
}

/* subnormals */
static double
draw_subnormal(uint64_t *state)
{
	uint64_t	bits = next_bits(state) & UINT64_C(0x000fffffffffffff);
	double		x;

	memcpy(&x, &bits, sizeof(x));
	return x;
}

/*
 * Exact ties at p places, odd / 2^(p + 1) (x * 10^p is then an integer and
 * a half), rounded to nearest: to the even neighbour, as printf does.
 */
static void
test_ties(void)
{
	uint64_t	state = UINT64_C(1126);
	int			disagreements = 0;
	int			cases = 0;
	int			p;

	for (p = 0; p <= DP_DECIMAL_MAX_PLACES; p++)
	{
		int			i;

		for (i = 0; i < 500; i++)
		{
			double		x = ldexp((double) ((next_bits(&state) % 1000000) * 2 + 1), -(p + 1));
			char		got[DP_DECIMAL_TEXT_BYTES];
			char		want[400];

			cases++;
			if (!dp_decimal_round(x, p, DP_ROUND_NEAREST, got, sizeof(got)))
				strcpy(got, "(refused)");
			oracle(x, p, DP_ROUND_NEAREST, want, sizeof(want));
			if (strcmp(got, want) != 0 && disagreements++ == 0)
				tap_diag("tie %.17g to %d places: %s, printf %s", x, p, got, want);
		}
	}
	tap_ok(disagreements == 0, "%d exact ties to nearest, as printf (%d differ)", cases, disagreements);
}

/* the oracle rounds in the direction asked, or agreeing with it proves nothing */
static void
test_oracle(void)
{
	char		up[64];
	char		down[64];

	oracle(0.1, 12, DP_ROUND_UP, up, sizeof(up));
	oracle(0.1, 12, DP_ROUND_DOWN, down, sizeof(down));
	tap_ok(strcmp(up, "0.100000000001") == 0 && strcmp(down, "0.1") == 0,
		   "printf honours the rounding mode (0.1 up %s, down %s)", up, down);
}

int
main(void)
{
	test_oracle();
	test_fixed();
	test_refusals();
	test_against_printf("any double", 20000, draw_any);
	test_against_printf("epsilons 2^-40..100", 100000, draw_epsilon);
	test_against_printf("typed decimals", 100000, draw_typed);
	test_against_printf("subnormals", 2000, draw_subnormal);
	test_ties();
	return tap_done();
}

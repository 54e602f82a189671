/*
 * test_audit.c
 *		The quick privacy audit (audit.h) of every mechanism and option.
 *		Where the releases expose the noisy value of every node that holds
 *		a step, the node audit: seeded runs on neighbouring streams must not
 *		show a loss above epsilon (the Clopper-Pearson lower bound, at alpha
 *		= 1e-6 split over the events), and the audit must be sharp: its
 *		point estimate is close to the loss those nodes can show.  Elsewhere
 *		the projection audit of the whole release vector, against the claim
 *		of the mechanism (epsilon; expiration: epsilon times the weights of
 *		the levels the item's age reaches; zCDP: the (epsilon, delta)
 *		conversion and the sqrt(2 rho) bound on any projection's shift).
 *		Built with -DDP_TEST_HALVE_NOISE_OF=DP_MECHANISM_<kind> (make
 *		audit-broken) the cases of that kind fail.  make audit runs ten
 *		times the runs.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "audit.h"
#include "dp_randomized_response.h"
#include "tap.h"

#define ALPHA 1e-6

/* 200,000 runs per stream in make test; DP_AUDIT_RUNS for more (make audit) */
static int64_t runs = 200000;

/* DP_AUDIT_ONLY=kind runs the cases of that kind alone (make audit-broken) */
static const char *only = NULL;

static bool
selected(const char *text)
{
	size_t		length = only ? strlen(only) : 0;

	return only == NULL || (strncmp(text, only, length) == 0 && text[length] == '(');
}

/*
 * sharp: the share of what the step's released nodes allow that the
 * estimate must reach.  0.8 (10 standard errors below it) where a node has
 * one noise term; 0.5 for pan-private nodes, whose two terms make the tail
 * of the loss thinner (the estimate reaches 0.6 to 0.8 of it), which still
 * tells a build with halved noise apart (make audit-broken).
 */
static void
audit_case_sharp(const char *text, int64_t steps, int64_t j, const char *why, double sharp)
{
	audit_result r;

	if (!selected(text))
		return;
	r = audit_run(text, steps, j, runs, ALPHA);

	tap_ok(r.epsilon_low <= r.epsilon,
		   "%s, step %lld of %lld (%s): loss lower bound %.3f <= epsilon %.3f "
		   "(estimate %.3f from P = %.4f vs %.4f; %d released nodes hold the step, "
		   "together %.3f)", text, (long long) j, (long long) steps, why, r.epsilon_low,
		   r.epsilon, r.epsilon_estimate, r.p1, r.p0, r.nodes, r.item_epsilon);
	tap_ok(r.epsilon_estimate >= sharp * r.item_epsilon,
		   "%s, step %lld: the audit is sharp (estimate %.3f of %.3f, at least %.1f of it)", text,
		   (long long) j, r.epsilon_estimate, r.item_epsilon, sharp);
}

static void
audit_case(const char *text, int64_t steps, int64_t j, const char *why)
{
	audit_case_sharp(text, steps, j, why, 0.8);
}


/*
 * The projection audit (audit.h): the claim is what the mechanism promises
 * the neighbour, epsilon unless given; neighbour[t] is x' at step t.
 */
#define DELTA_ZCDP 1e-4

static void
audit_projection_case(const char *text, int64_t steps, const int64_t *neighbour, double claim,
					  double delta, double rho, const char *why)
{
	clock_t		start = clock();
	audit_projection_result r;

	if (!selected(text))
		return;
	r = audit_projection_run(text, steps, neighbour, runs, ALPHA, delta);
	tap_diag("%s: %.1f s", text, (double) (clock() - start) / CLOCKS_PER_SEC);

	tap_ok(r.epsilon_low <= claim,
		   "%s, %lld steps (%s): loss lower bound %.3f <= %.3f%s (estimate %.3f from "
		   "P = %.5f vs %.5f, %s tail of the discriminant; separation %.3f s.d.)",
		   text, (long long) steps, why, r.epsilon_low, claim,
		   delta > 0 ? " at delta 1e-4" : "", r.epsilon_estimate, r.p1, r.p0,
		   r.upper_tail ? "upper" : "lower", r.separation);
	/* zCDP: no projection moves by more than sqrt(2 rho) s.d. (audit.h); 6 standard errors */
	if (delta > 0)
	{
		double		limit = sqrt(2 * rho) * (1 + 6 / sqrt(2.0 * r.separation_runs));

		tap_ok(r.separation <= limit && r.separation >= 0.5 * sqrt(2 * rho),
			   "%s: the discriminant moves by %.4f s.d., at most sqrt(2 rho) = %.4f (limit %.4f "
			   "with 6 standard errors) and at least half of it", text, r.separation,
			   sqrt(2 * rho), limit);
	}
}

/* x' with `value` at step j and nothing elsewhere */
static void
audit_projection_step(const char *text, int64_t steps, int64_t j, int64_t value, double claim,
					  const char *why)
{
	int64_t		neighbour[AUDIT_PROJECTION_STEPS_MAX + 1] = {0};

	neighbour[j] = value;
	audit_projection_case(text, steps, neighbour, claim, 0, 0, why);
}

/* the epsilon of (epsilon, delta)-DP that rho-zCDP gives (Bun and Steinke, TCC 2016) */
static double
zcdp_claim(double rho)
{
	return rho + 2 * sqrt(rho * log(1 / DELTA_ZCDP));
}

/* expiring: epsilon times the level weights (l + 1)^(lambda - 1) of the levels d can reach */
static double
expiring_claim(double epsilon, int64_t delay, double lambda, int64_t age)
{
	double		g = 1;

	for (int l = 1; l < 62 && (((int64_t) 1) << l) - 1 + delay <= age; l++)
		g += pow(l + 1, lambda - 1);
	return epsilon * g;
}

static void
projection_cases(void)
{
	int64_t		person[AUDIT_PROJECTION_STEPS_MAX + 1] = {0};
	int64_t		observations[AUDIT_PROJECTION_STEPS_MAX + 1] = {0};
	int64_t		ones[AUDIT_PROJECTION_STEPS_MAX + 1] = {0};

	audit_projection_step("binary(epsilon=1,horizon=16)", 16, 1, 1, 1, "Binary, for comparison with the node audit");
	audit_projection_step("simple_i(epsilon=1,horizon=8)", 8, 1, 1, 1, "the first item: every release");
	audit_projection_step("simple_i(epsilon=1,horizon=8)", 8, 2, 1, 1, "the second item");
	audit_projection_step("hybrid(epsilon=1)", 15, 8, 1, 1, "the first item of block 3: its log p-sum and 3 tree nodes");
	audit_projection_step("hybrid(epsilon=1,pan_private=true)", 15, 8, 1, 1, "pan-private");
	audit_projection_step("ppcum(epsilon=1,horizon=16)", 16, 1, 1, 1, "the first item");
	audit_projection_step("ppcum(epsilon=1,horizon=16)", 16, 9, 1, 1, "an item after half the tree");
	audit_projection_step("kary(epsilon=2,horizon=9,arity=3,pan_private=true)", 9, 1, 1, 2, "pan-private 3-ary");
	audit_projection_step("balanced(epsilon=1,horizon=13,arity=3)", 13, 1, 1, 1, "balanced digits, the first item");
	audit_projection_step("balanced(epsilon=1,horizon=13,arity=3)", 13, 5, 1, 1, "balanced digits, an item at a digit change");
	audit_projection_step("balanced_unbounded(epsilon=1,arity=3)", 13, 2, 1, 1, "the first item of block 1");
	audit_projection_step("honaker(epsilon=1,horizon=16,arity=2)", 16, 1, 1, 1, "Honaker's estimates, the first item");
	audit_projection_step("honaker(epsilon=1,horizon=9,arity=3,pan_private=true)", 9, 4, 1, 1, "pan-private, 3-ary");
	audit_projection_step("binary(epsilon=1,horizon=16,consistent=true)", 16, 1, 1, 1, "the consistent release");
	audit_projection_step("expiring(epsilon=1,delay=8,lambda=2)", 8, 1, 1,
						  expiring_claim(1, 8, 2, 7), "expiration: 7 steps, before any delay ends");
	/* level 3's interval (0, 8] joins the releases at 8 + 2^3 - 1 + 2 = 17 */
	audit_projection_step("expiring(epsilon=1,delay=2,lambda=2)", 17, 1, 1,
						  expiring_claim(1, 2, 2, 16), "expiration: 16 steps old, levels 0 to 3");
	audit_projection_step("expiring_baseline(epsilon=1,horizon=16,window=4,past_ratio=1)", 4, 1, 1, 1,
						  "within the window");
	audit_projection_step("expiring_baseline(epsilon=1,horizon=16,window=4,past_ratio=1)", 16, 1, 1, 2,
						  "past the window: epsilon_current + epsilon_past");
	audit_projection_step("rolling(epsilon=1,width=5,levels=3)", 12, 3, 1, 1,
						  "rolling window of 5, full tree: an item in 3 nodes, released by 5 windows");
	audit_projection_step("rolling(epsilon=1,width=5,levels=1)", 12, 3, 1, 1,
						  "rolling window of 5, one level: an item in 1 node, released by 5 windows");
	audit_projection_step("rolling(epsilon=1,width=6,levels=2)", 12, 3, 1, 1,
						  "rolling window of 6, two levels: an item in 2 nodes");
	audit_projection_step("rolling(epsilon=1,width=4,levels=3,pan_private=true)", 10, 5, 1, 1,
						  "rolling window of 4, pan-private");
	audit_projection_step("decayed(epsilon=1,gamma=0.9)", 8, 1, 1, 1,
						  "decayed sum, K = 0: the first item, in every release with weight 0.9^(t - 1)");
	audit_projection_step("decayed(epsilon=1,gamma=0.999)", 16, 5, 1, 1,
						  "decayed sum, K = 7: an item in the 4 closed nodes of levels 0, 1, 3, 4");
	/* person level: one person's contributions at several steps */
	person[1] = person[6] = person[11] = 1;
	audit_projection_case("binary(epsilon=1,horizon=16,contributions=3)", 16, person, 1, 0, 0,
						  "person level, 3 contributions at steps 1, 6, 11");
	audit_projection_case("balanced(epsilon=1,horizon=13,arity=3,contributions=3)", 13, person, 1, 0, 0,
						  "person level, balanced digits");
	audit_projection_case("rolling(epsilon=1,width=7,contributions=3)", 13, person, 1, 0, 0,
						  "person level, rolling window of 7");
	observations[3] = observations[4] = 2;
	audit_projection_case("binary(epsilon=1,horizon=8,max_per_step=2,contributions=2,per_observation=true)",
						  8, observations, 1, 0, 0, "person level per observation, 2 observations of 2");
	/* zCDP */
	ones[1] = 1;
	audit_projection_case("binary(rho=0.5,horizon=16)", 16, ones, zcdp_claim(0.5), DELTA_ZCDP, 0.5,
						  "Gaussian Binary");
	audit_projection_case("smooth_binary(rho=0.5,horizon=16)", 16, ones, zcdp_claim(0.5), DELTA_ZCDP, 0.5,
						  "Smooth Binary");
	audit_projection_case("blt(rho=0.5,horizon=16)", 16, ones, zcdp_claim(0.5), DELTA_ZCDP, 0.5, "BLT");
	audit_projection_case("rolling(rho=0.5,width=5)", 12, ones, zcdp_claim(0.5), DELTA_ZCDP, 0.5,
						  "Gaussian rolling window");
	audit_projection_case("balanced(rho=0.5,horizon=13,arity=3)", 13, ones, zcdp_claim(0.5), DELTA_ZCDP, 0.5,
						  "Gaussian balanced digits");
}

/*
 * Statistics: a sum, an average or a variance over Binary counters, one per
 * channel, x every step observed at the lower bound and x' changing step 1;
 * the node audit of every channel at once (audit.h).  What the step can
 * show is each channel's share of epsilon times the part of its
 * sensitivity the change uses (docs/aggregates.md): at most epsilon.
 */
static void
audit_statistic_case(const char *mechanism, int32_t kind, double lower, double upper,
					 int64_t steps, bool observed_first, double first_value, double sharp,
					 const char *why)
{
	dp_statistic_spec spec;
	audit_result r;
	char		label[256];

	if (!selected(mechanism))
		return;
	spec = test_statistic_spec(kind, DP_VALUES_REAL, DP_ESTIMATOR_MIDPOINT, lower, upper,
							   test_mechanism(mechanism));
	snprintf(label, sizeof(label), "%s %s %s", dp_statistic_kind_name(kind), mechanism, why);
	r = audit_statistic_nodes_run(label, &spec, steps, 1, observed_first, first_value, runs, ALPHA);
	tap_ok(r.epsilon_low <= r.epsilon,
		   "%s of %s over [%g, %g] (%s): loss lower bound %.3f <= epsilon %.3f (estimate %.3f "
		   "from P = %.4f vs %.4f; %d released nodes of its channels hold the step, together %.3f)",
		   dp_statistic_kind_name(kind), mechanism, lower, upper, why, r.epsilon_low, r.epsilon,
		   r.epsilon_estimate, r.p1, r.p0, r.nodes, r.item_epsilon);
	tap_ok(r.epsilon_estimate >= sharp * r.item_epsilon,
		   "%s of %s (%s): the audit is sharp (estimate %.3f of %.3f, at least %.1f of it)",
		   dp_statistic_kind_name(kind), mechanism, why, r.epsilon_estimate, r.item_epsilon,
		   sharp);
}

/*
 * sharp: 0.8 where the step moves one channel by its whole sensitivity;
 * 0.5 where it moves several, some by part of theirs (more nodes with
 * smaller shifts make the tail of the loss thinner, as for pan-private
 * nodes), still 5 standard errors below the estimates at 200,000 runs.
 */
static void
statistic_cases(void)
{
	audit_statistic_case("binary(epsilon=1,horizon=8)", DP_STATISTIC_SUM, 0, 20, 8, true, 20, 0.8,
						 "one value from 0 to 20");
	audit_statistic_case("binary(epsilon=1,horizon=8)", DP_STATISTIC_AVERAGE, 0, 1, 8, true, 1, 0.8,
						 "one value from lower to upper");
	audit_statistic_case("binary(epsilon=1,horizon=8)", DP_STATISTIC_AVERAGE, 0, 1, 8, false, 0, 0.5,
						 "one step unobserved");
	audit_statistic_case("binary(epsilon=1,horizon=8)", DP_STATISTIC_VARIANCE, 0, 1, 8, false, 0, 0.5,
						 "one step unobserved");
	audit_statistic_case("binary(epsilon=1,horizon=8)", DP_STATISTIC_VARIANCE, 0, 1, 8, true, 0.5,
						 0.5, "one value from lower to the midpoint");
}

/*
 * Randomized response: one report of a bit, x = 0 against x' = 1.  The
 * event "the report is 1" has probability ratio e^epsilon exactly, so the
 * estimate must reach it and the bound must not pass it.
 */
static void
audit_randomized_response(double epsilon)
{
	dp_random	rng;
	int64_t		ones[2] = {0, 0};
	char		label[64];
	double		low,
				high,
				estimate,
				error;

	if (!selected("randomized_response()"))
		return;
	snprintf(label, sizeof(label), "randomized_response(%g)", epsilon);
	dp_random_init_keyed(&rng, label, strlen(label));
	for (int bit = 0; bit < 2; bit++)
		for (int64_t run = 0; run < runs; run++)
			ones[bit] += dp_randomized_response(&rng, bit, epsilon) == 1;
	low = audit_binomial_lower(ones[1], runs, ALPHA / 2);
	high = audit_binomial_upper(ones[0], runs, ALPHA / 2);
	estimate = log((double) ones[1] / (double) ones[0]);
	/* the delta method's standard error of the log ratio */
	error = sqrt((runs - ones[1]) / ((double) runs * ones[1]) +
				 (runs - ones[0]) / ((double) runs * ones[0]));
	tap_ok(log(low / high) <= epsilon && estimate >= epsilon - 6 * error,
		   "randomized response, epsilon %g: loss lower bound %.3f <= epsilon, estimate %.3f "
		   "(P[report 1] = %.4f vs %.4f) within 6 standard errors (%.4f) of it", epsilon,
		   log(low / high), estimate, (double) ones[1] / runs, (double) ones[0] / runs, error);
}

int
main(void)
{
	if (getenv("DP_AUDIT_RUNS") && atoll(getenv("DP_AUDIT_RUNS")) > 0)
		runs = atoll(getenv("DP_AUDIT_RUNS"));
	only = getenv("DP_AUDIT_ONLY");
	/* libsodium's fast ChaCha20 (the same keystream) */
	if (!dp_random_library_init())
		return 1;
	audit_case("binary(epsilon=1,horizon=16)", 16, 1, "the first item: all 5 ancestors released");
	audit_case("binary(epsilon=1,horizon=16)", 16, 9, "an item at a power of 2 plus 1");
	audit_case("binary(epsilon=0.5,horizon=8,max_per_step=3)", 8, 5, "max_per_step 3");
	audit_case("simple_ii(epsilon=1)", 8, 3, "one node per step");
	/* Simple I: its releases with the stored state read after the last step */
	audit_case("simple_i(epsilon=1,horizon=8)", 8, 8, "the last item, a state read after it");
	audit_case("simple_i(epsilon=2,horizon=8)", 8, 4, "an item in the middle, a state read at the end");
	audit_case("ppcum(epsilon=1,horizon=2)", 2, 2, "the last item, a state read after it");
	audit_case("binary(epsilon=2,horizon=64)", 64, 33, "the first item of the second half");
	audit_case("binary(epsilon=1,horizon=1,max_per_step=5)", 1, 1, "one step, one node");
	audit_case("kary(epsilon=1,horizon=27,arity=3)", 27, 1, "the first item of a 3-ary tree");
	audit_case("kary(epsilon=1,horizon=64,arity=4)", 27, 22, "an item inside the second block of 16");
	audit_case("two_level(epsilon=1,horizon=16,block=4)", 16, 6, "an item inside a closed block");
	audit_case("two_level(epsilon=1,horizon=16,block=4)", 16, 8, "the last item of a block");
	/* pan-private: each node has an opening and a closing term, both of full scale */
	audit_case_sharp("binary(epsilon=2,horizon=16,pan_private=true)", 16, 1,
					 "pan-private, all 5 ancestors released", 0.5);
	audit_case_sharp("binary(epsilon=4,horizon=4,pan_private=true)", 4, 1,
					 "pan-private, a short tree", 0.5);
	audit_case_sharp("binary(epsilon=2,horizon=1,max_per_step=3,pan_private=true)", 1, 1,
					 "pan-private, one node, max_per_step 3", 0.5);
	projection_cases();
	statistic_cases();
	audit_randomized_response(1);
	audit_randomized_response(0.1);
	return tap_done();
}

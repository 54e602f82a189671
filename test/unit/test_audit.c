/*
 * test_audit.c
 *		The quick privacy audit (audit.h): for the mechanisms whose releases
 *		expose the noisy value of every node that holds a step, seeded runs
 *		on neighbouring streams must not show a loss above epsilon (the
 *		Clopper-Pearson lower bound, at alpha = 1e-6 split over the events),
 *		and the audit must be sharp: its point estimate is close to the loss
 *		the released nodes of that step can show.  Built with
 *		-DDP_TEST_HALVE_BINARY_NOISE (make audit-broken) the Binary lines
 *		fail: the audit sees about twice epsilon.  bench/audit.sh runs more
 *		cases with ten times the runs.
 */
#include <stdio.h>
#include <stdlib.h>

#include "audit.h"
#include "tap.h"

#define ALPHA 1e-6

/* 200,000 runs per stream in make test; DP_AUDIT_RUNS for more (make audit) */
static int64_t runs = 200000;

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
	audit_result r = audit_run(text, steps, j, runs, ALPHA);

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

int
main(void)
{
	if (getenv("DP_AUDIT_RUNS") && atoll(getenv("DP_AUDIT_RUNS")) > 0)
		runs = atoll(getenv("DP_AUDIT_RUNS"));
	audit_case("binary(epsilon=1,horizon=16)", 16, 1, "the first item: all 5 ancestors released");
	audit_case("binary(epsilon=1,horizon=16)", 16, 9, "an item at a power of 2 plus 1");
	audit_case("binary(epsilon=0.5,horizon=8,max_per_step=3)", 8, 5, "max_per_step 3");
	audit_case("simple_ii(epsilon=1)", 8, 3, "one node per step");
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
	return tap_done();
}

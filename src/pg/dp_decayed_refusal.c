/*
 * dp_decayed_refusal.c
 *		The refusal of a decayed mechanism by the functions that read a
 *		counter's release as a count (dp_count, the statistics,
 *		dp_estimate): in a module of its own, below both them and the
 *		decayed aggregates (dp_decayed_agg.c), so that the layers keep no
 *		cycle.
 */
#include "dp_stream.h"

/*
 * The other aggregates and states release a decayed counter's units as a
 * count: they refuse its mechanism (0A000) and name the decayed forms.
 */
void
dp_refuse_decayed_mechanism(const dp_mechanism *mechanism, const char *function)
{
	if (mechanism->kind == DP_MECHANISM_DECAYED)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s does not take a dp_decayed mechanism", function),
				 errdetail("A decayed sum's release is a real number in fixed point; only the "
						   "decayed aggregates read it."),
				 errhint("Use dp_decayed_count(x, gamma, m) or dp_decayed_sum(v, lower, upper, "
						 "gamma, m) OVER (ORDER BY ...); the estimate of a decayed count's "
						 "state is dp_decayed_estimate(state).")));
}

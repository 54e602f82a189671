/*
 * dp_aggregate_shape.c
 *		Refuses dp_stream aggregate calls whose shape cannot give a
 *		meaningful stream: a FILTER, a window without ORDER BY, a window
 *		frame whose start moves.
 *
 * A stream is the sequence of rows of one window partition in ORDER BY
 * order, or of one group (in the call's ORDER BY order when it has one);
 * row t is time step t.  These checks look at the query only, never at the
 * data: each aggregate runs them once when its state starts, and its final
 * function runs them when no row reached the transition function (a FILTER
 * that kept no row), so that whether a query is refused never depends on
 * what a FILTER's condition selected.
 */
#include "dp_stream.h"

#include "access/htup_details.h"
#include "catalog/pg_aggregate.h"
#include "nodes/execnodes.h"
#include "nodes/parsenodes.h"
#include "nodes/plannodes.h"
#include "utils/syscache.h"

/*
 * Without an inverse transition, PostgreSQL restarts the aggregate for every
 * row of a frame whose start moves, which would draw fresh noise for steps
 * already released and multiply the privacy loss.
 */
static void
check_window_frame(WindowAggState *window)
{
	if (!(window->frameOptions & FRAMEOPTION_START_UNBOUNDED_PRECEDING) ||
		(window->frameOptions & FRAMEOPTION_EXCLUSION))
		ereport(ERROR,
				(errcode(ERRCODE_WINDOWING_ERROR),
				 errmsg("dp_stream aggregates need a window frame that starts at UNBOUNDED PRECEDING and excludes nothing"),
				 errdetail("A frame whose start moves would restart the aggregate and draw new noise for time steps already released."),
				 errhint("Use the default frame, or ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW.")));
}

/*
 * Without ORDER BY a partition's rows have no time order: the stream would
 * be whatever order the plan reads them in, and in the default frame every
 * row is a peer of every other, so each row would get the release of the
 * whole partition.  The ORDER BY is the window's, shared by every function
 * of the WindowAgg node.
 */
static void
check_window_order(WindowAggState *window)
{
	WindowAgg  *plan = (WindowAgg *) window->ss.ps.plan;

	if (plan->ordNumCols == 0)
		ereport(ERROR,
				(errcode(ERRCODE_WINDOWING_ERROR),
				 errmsg("dp_stream window aggregates need ORDER BY in their window"),
				 errdetail("The rows of a partition are the time steps of a stream in ORDER BY "
						   "order; without it their order is whatever the plan produces."),
				 errhint("Add ORDER BY the time column, e.g. OVER (PARTITION BY meter ORDER BY day).")));
}

static void
refuse_filter(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("dp_stream aggregates do not accept FILTER"),
			 errdetail("A FILTER decides which rows are time steps: with a condition on private "
					   "data, the structure of the stream (how many steps it has, which rows "
					   "they are) becomes private, and it must be public."),
			 errhint("Keep every row of the public time axis and move the condition into the "
					 "value: CASE WHEN condition THEN value END (a NULL step counts as 0 in a "
					 "count or sum, and as no observation in an average or variance).")));
}

/*
 * Whether the aggregate `aggregate` (a pg_proc OID) has `function` as its
 * transition or final function: how a window function of the node is
 * matched with the call that is running.
 */
static bool
aggregate_uses_function(Oid aggregate, Oid function)
{
	HeapTuple	tuple;
	bool		uses;

	tuple = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(aggregate));
	if (!HeapTupleIsValid(tuple))
		return false;			/* a window function, not an aggregate */
	uses = ((Form_pg_aggregate) GETSTRUCT(tuple))->aggtransfn == function ||
		((Form_pg_aggregate) GETSTRUCT(tuple))->aggfinalfn == function;
	ReleaseSysCache(tuple);
	return uses;
}

/*
 * A WindowAgg node evaluates every window function of one window; the one
 * running now is found by its transition (or final) function.  Calls of
 * the same aggregate that differ only in FILTER are different window
 * functions with the same functions: any of them with a FILTER refuses
 * the query, which is refused when that one starts anyway.
 */
static void
check_window_filter(FunctionCallInfo fcinfo, WindowAggState *window)
{
	ListCell   *cell;
	Oid			function = fcinfo->flinfo ? fcinfo->flinfo->fn_oid : InvalidOid;

	if (!OidIsValid(function))
		return;
	foreach(cell, window->funcs)
	{
		WindowFuncExprState *state = (WindowFuncExprState *) lfirst(cell);

		if (state->wfunc->aggfilter != NULL &&
			aggregate_uses_function(state->wfunc->winfnoid, function))
			refuse_filter();
	}
}

void
dp_check_stream_shape(FunctionCallInfo fcinfo)
{
	if (fcinfo->context == NULL)
		return;
	if (IsA(fcinfo->context, WindowAggState))
	{
		WindowAggState *window = (WindowAggState *) fcinfo->context;

		check_window_filter(fcinfo, window);
		check_window_order(window);
		check_window_frame(window);
	}
	else if (IsA(fcinfo->context, AggState))
	{
		Aggref	   *aggref = AggGetAggref(fcinfo);

		/*
		 * A plain or state aggregate's transition state is shared only by
		 * calls with equal FILTERs, so the representative Aggref tells.
		 */
		if (aggref != NULL && aggref->aggfilter != NULL)
			refuse_filter();
	}
}

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
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "nodes/execnodes.h"
#include "nodes/parsenodes.h"
#include "nodes/plannodes.h"
#include "optimizer/optimizer.h"
#include "utils/syscache.h"

/*
 * The width of a ROWS frame from N PRECEDING to CURRENT ROW (N + 1), or 0
 * when the frame is not that shape or N is not a constant.
 */
static int64
rows_frame_width(WindowAggState *window)
{
	WindowAgg  *plan = (WindowAgg *) window->ss.ps.plan;
	int			options = window->frameOptions;
	Node	   *offset = plan->startOffset;

	if (!(options & FRAMEOPTION_ROWS) || !(options & FRAMEOPTION_START_OFFSET_PRECEDING) ||
		!(options & FRAMEOPTION_END_CURRENT_ROW) || offset == NULL || !IsA(offset, Const) ||
		((Const *) offset)->constisnull || ((Const *) offset)->consttype != INT8OID)
		return 0;
	if (DatumGetInt64(((Const *) offset)->constvalue) < 0 ||
		DatumGetInt64(((Const *) offset)->constvalue) >= PG_INT64_MAX)
		return 0;
	return DatumGetInt64(((Const *) offset)->constvalue) + 1;
}

/*
 * Without an inverse transition, PostgreSQL restarts the aggregate for every
 * row of a frame whose start moves, which would draw fresh noise for steps
 * already released and multiply the privacy loss.  A moving frame of the
 * last N + 1 rows is what the rolling forms compute with their own noise:
 * the hint names the call with the frame's width.
 */
static void
check_window_frame(WindowAggState *window)
{
	int64		width;

	if ((window->frameOptions & FRAMEOPTION_START_UNBOUNDED_PRECEDING) &&
		!(window->frameOptions & FRAMEOPTION_EXCLUSION))
		return;
	width = rows_frame_width(window);
	if (width > 0)
		ereport(ERROR,
				(errcode(ERRCODE_WINDOWING_ERROR),
				 errmsg("dp_stream aggregates need a window frame that starts at UNBOUNDED PRECEDING and excludes nothing"),
				 errdetail("A frame whose start moves would restart the aggregate and draw new noise for time steps already released."),
				 errhint("For the sum of the last " INT64_FORMAT " rows use the rolling form over the default frame, e.g. "
						 "dp_rolling_count(x, width => " INT64_FORMAT ", mechanism => m) OVER (ORDER BY ...) "
						 "(also dp_rolling_sum, dp_rolling_avg, dp_rolling_variance, dp_rolling_summary).",
						 width, width)));
	ereport(ERROR,
			(errcode(ERRCODE_WINDOWING_ERROR),
			 errmsg("dp_stream aggregates need a window frame that starts at UNBOUNDED PRECEDING and excludes nothing"),
			 errdetail("A frame whose start moves would restart the aggregate and draw new noise for time steps already released."),
			 errhint("Use the default frame, or ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW; "
					 "for a moving window, the rolling forms: dp_rolling_count(x, width => 7, mechanism => m) OVER (ORDER BY ...).")));
}

/*
 * Without ORDER BY a partition's rows have no time order: the stream would
 * be whatever order the plan reads them in, and in the default frame every
 * row is a peer of every other, so each row would get the release of the
 * whole partition.  An ORDER BY of constants or of the partition's own keys
 * (ORDER BY 1, PARTITION BY meter ORDER BY meter) orders nothing either.
 * Decided from the plan alone.  The ORDER BY is the window's, shared by
 * every function of the WindowAgg node.
 */
/*
 * Whether column `column` of `plan`'s output is the same value for every
 * row the plan returns in one execution: a constant or a parameter, looked
 * up through the nodes that pass their input's columns on (a Sort under the
 * window, a subquery's scan).  ORDER BY 1, ORDER BY NULL or ORDER BY $1
 * reach the WindowAgg as such a column: an ORDER BY in the syntax, no time
 * order in fact.
 */
static bool
column_is_constant(Plan *plan, AttrNumber column)
{
	for (;;)
	{
		TargetEntry *entry;
		Node	   *expr;
		Var		   *var;

		CHECK_FOR_INTERRUPTS();
		if (plan == NULL || column < 1 || column > list_length(plan->targetlist))
			return false;
		entry = list_nth_node(TargetEntry, plan->targetlist, column - 1);
		expr = (Node *) entry->expr;
		while (expr != NULL && IsA(expr, RelabelType))
			expr = (Node *) ((RelabelType *) expr)->arg;
		if (expr == NULL)
			return false;
		if (IsA(expr, Const) || IsA(expr, Param))
			return true;
		if (!IsA(expr, Var))
			return false;
		var = (Var *) expr;
		if (var->varno == OUTER_VAR && outerPlan(plan) != NULL)
			plan = outerPlan(plan);
		else if (IsA(plan, SubqueryScan) && var->varno == ((Scan *) plan)->scanrelid)
			plan = ((SubqueryScan *) plan)->subplan;
		else
			return false;
		column = var->varattno;
	}
}

/*
 * Whether the window's ORDER BY orders anything within a partition: some
 * key that is neither a constant nor one of the partition's own keys (which
 * are equal on every row of the partition).
 */
static bool
window_has_time_order(WindowAgg *plan)
{
	for (int i = 0; i < plan->ordNumCols; i++)
	{
		bool		partition_key = false;

		for (int j = 0; j < plan->partNumCols; j++)
			if (plan->partColIdx[j] == plan->ordColIdx[i])
				partition_key = true;
		if (!partition_key && !column_is_constant(outerPlan(&plan->plan), plan->ordColIdx[i]))
			return true;
	}
	return false;
}

static void
check_window_order(WindowAggState *window)
{
	WindowAgg  *plan = (WindowAgg *) window->ss.ps.plan;

	if (!window_has_time_order(plan))
		ereport(ERROR,
				(errcode(ERRCODE_WINDOWING_ERROR),
				 errmsg("dp_stream window aggregates need ORDER BY in their window"),
				 errdetail("The rows of a partition are the time steps of a stream in ORDER BY "
						   "order; without it (or with an ORDER BY that is constant in the "
						   "partition) their order is whatever the plan produces."),
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

/* A Const, or a parameter of the query (the same for its whole execution). */
static bool
expression_constant(Node *expression)
{
	return expression != NULL &&
		(IsA(expression, Const) ||
		 (IsA(expression, Param) && ((Param *) expression)->paramkind == PARAM_EXTERN));
}

/* argument `position` (fcinfo numbering, from 1) of a call with arguments `arguments` */
static bool
argument_constant(List *arguments, int position, bool target_entries)
{
	Node	   *argument;

	if (position < 0)
		return true;
	if (position < 1 || position > list_length(arguments))
		return false;
	argument = (Node *) list_nth(arguments, position - 1);
	if (target_entries)
		argument = (Node *) ((TargetEntry *) argument)->expr;
	return expression_constant(argument);
}

/*
 * The per-row check that the mechanism has not changed within a stream
 * (a decode and two comparisons a row) can be skipped when the argument is
 * a constant of the plan.  A window node evaluates all its window
 * functions: every one that uses this function must have constant
 * arguments (so two calls that differ only in their mechanism column are
 * both checked per row).  A plain aggregate's transition state is shared
 * only by calls with equal arguments, so the representative Aggref tells.
 */
bool
dp_aggregate_arguments_constant(FunctionCallInfo fcinfo, int first, int second)
{
	Oid			function = fcinfo->flinfo ? fcinfo->flinfo->fn_oid : InvalidOid;

	if (!OidIsValid(function) || fcinfo->context == NULL)
		return false;
	if (IsA(fcinfo->context, WindowAggState))
	{
		WindowAggState *window = (WindowAggState *) fcinfo->context;
		ListCell   *cell;
		bool		found = false;

		foreach(cell, window->funcs)
		{
			WindowFunc *call = ((WindowFuncExprState *) lfirst(cell))->wfunc;

			if (!aggregate_uses_function(call->winfnoid, function))
				continue;
			if (!argument_constant(call->args, first, false) ||
				!argument_constant(call->args, second, false))
				return false;
			found = true;
		}
		return found;
	}
	if (IsA(fcinfo->context, AggState))
	{
		Aggref	   *aggref = AggGetAggref(fcinfo);

		return aggref != NULL && aggref->aggdirectargs == NIL &&
			argument_constant(aggref->args, first, true) &&
			argument_constant(aggref->args, second, true);
	}
	return false;
}

/*
 * A rolling release is the sum of the last `width` steps, so it depends on
 * the order of the steps, where a running total depends on it only through
 * its noise.  A window's ORDER BY is checked above; a plain or state
 * aggregate call (a GROUP BY group, a whole table) orders its steps only by
 * the call's own ORDER BY, and without one (or with one of constants) "the
 * last width rows" are whatever rows the plan reads last: a release of a
 * window that exists in no order of the data, and a stored state that
 * continues it.  Refused for every call with a mechanism whose kind the
 * registry marks order_dependent (rolling: the rolling forms and the
 * running forms given dp_rolling; decayed: each step weighed by its
 * distance from the last).
 */
void
dp_check_rolling_order(FunctionCallInfo fcinfo, const dp_mechanism *mechanism)
{
	Aggref	   *aggref;
	ListCell   *cell;

	const dp_counter_kind *kind = dp_counter_kind_by_id(mechanism->kind);

	if (kind == NULL || !kind->order_dependent || fcinfo->context == NULL ||
		!IsA(fcinfo->context, AggState))
		return;
	aggref = AggGetAggref(fcinfo);
	if (aggref == NULL)
		return;
	foreach(cell, aggref->aggorder)
	{
		TargetEntry *entry = get_sortgroupclause_tle((SortGroupClause *) lfirst(cell),
													 aggref->args);

		if (!IsA(entry->expr, Const) && !IsA(entry->expr, Param))
			return;
	}
	ereport(ERROR,
			(errcode(ERRCODE_WINDOWING_ERROR),
			 errmsg("dp_stream %s aggregates need ORDER BY in the call",
					mechanism->kind == DP_MECHANISM_ROLLING ? "rolling" : "decayed"),
			 errdetail("A %s; without an ORDER BY "
					   "of the time column in the aggregate call (or with one of constants) the "
					   "last rows are whatever rows the plan reads last.",
					   mechanism->kind == DP_MECHANISM_ROLLING ?
					   "rolling release sums the last steps of the stream" :
					   "decayed release weighs each step by its distance from the last"),
			 errhint("Order the call by the time column, e.g. dp_rolling_count(n, 7, m ORDER BY day), "
					 "or use the window form OVER (ORDER BY day).")));
}

/*
 * dp_keyed_streams.c
 *		One keyed stream per key and partition in a query.
 *
 * Keyed noise is a function of the key, the partition, the position and the
 * data (docs/keyed_noise.md).  Two streams that draw under one key and one
 * partition get the same noise wherever their nodes hold the same data:
 * `dp_count(n, dp_keyed(m, 'k')) OVER (PARTITION BY ward ORDER BY day)`
 * would give wards with equal counts equal noise, and a reader who knows
 * the other wards' data could decode a ward from the published releases.
 * The same stream computed twice (a re-executed subquery, a LATERAL join,
 * a view joined to itself) must still be accepted: its releases are equal
 * and tell nothing more than one copy.
 *
 * So, for each (key, partition) drawn in a query, the value of every step
 * as the first stream to reach that step pushed it is kept; a stream whose
 * value at a step differs from it is refused before it draws.  Every stream
 * accepted is then equal to the reference at every step it reached: the
 * streams under one key and partition are copies of one stream, whatever
 * order the executor interleaves them in (hash aggregation, window
 * partitions, nested loops).  Memory: 9 bytes per step of the longest
 * stream, per key and partition, for the duration of the query.
 *
 * "A query" is the executor state of the aggregate (EState): every
 * aggregate call, window, subplan and re-scan of one statement.  It lives
 * in the EState's memory context and is found through a short list of the
 * executor states running in this backend, from which a reset callback on
 * that context removes it: nothing outlives the query, even on error.  Two
 * separate statements under one key cannot be compared this way; that is
 * the residual the docs state (a key is for one stream, or for one
 * partitioned publication with partition =>).
 */
#include "dp_stream.h"

#include "nodes/execnodes.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"

typedef struct StreamIdentity
{
	char		key[DP_KEY_NAME_MAX + 1];
	unsigned char partition[DP_PARTITION_BYTES];
} StreamIdentity;

struct DpKeyedStream
{
	StreamIdentity identity;	/* the hash key: first */
	MemoryContext context;
	int64		length;			/* steps with a reference */
	int64		capacity;
	uint64	   *values;
	uint8	   *tags;			/* DpKeyedValueTag of each step */
};

typedef struct QueryStreams
{
	void	   *scope;			/* the EState (or, outside one, the FmgrInfo) */
	HTAB	   *streams;
	struct QueryStreams *next;
	MemoryContextCallback callback;
} QueryStreams;

/* the queries of this backend that have keyed streams, innermost first */
static QueryStreams *running_queries = NULL;

static void
forget_query(void *arg)
{
	QueryStreams *query = (QueryStreams *) arg;
	QueryStreams **link;

	for (link = &running_queries; *link != NULL; link = &(*link)->next)
		if (*link == query)
		{
			*link = query->next;
			break;
		}
}

static QueryStreams *
query_streams(FunctionCallInfo fcinfo)
{
	void	   *scope;
	MemoryContext context;
	QueryStreams *query;
	HASHCTL		control;

	/* both are a ScanState first: the executor state of the whole statement */
	if (fcinfo->context && IsA(fcinfo->context, AggState))
	{
		scope = ((AggState *) fcinfo->context)->ss.ps.state;
		context = ((EState *) scope)->es_query_cxt;
	}
	else if (fcinfo->context && IsA(fcinfo->context, WindowAggState))
	{
		scope = ((WindowAggState *) fcinfo->context)->ss.ps.state;
		context = ((EState *) scope)->es_query_cxt;
	}
	else
	{
		/* not reached from the aggregates; the call's own lifetime otherwise */
		scope = fcinfo->flinfo;
		context = fcinfo->flinfo->fn_mcxt;
	}

	for (query = running_queries; query != NULL; query = query->next)
		if (query->scope == scope)
			return query;

	query = MemoryContextAllocZero(context, sizeof(QueryStreams));
	query->scope = scope;
	memset(&control, 0, sizeof(control));
	control.keysize = sizeof(StreamIdentity);
	control.entrysize = sizeof(DpKeyedStream);
	control.hcxt = context;
	query->streams = hash_create("dp_stream keyed streams", 16, &control,
								 HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	query->callback.func = forget_query;
	query->callback.arg = query;
	MemoryContextRegisterResetCallback(context, &query->callback);
	query->next = running_queries;
	running_queries = query;
	return query;
}

/*
 * The reference of the mechanism's key and partition in the caller's query
 * (after the key's registration was checked: only the key's role gets
 * here); NULL for an unkeyed mechanism, which draws fresh noise.
 */
DpKeyedStream *
dp_keyed_stream_start(FunctionCallInfo fcinfo, const dp_mechanism *mechanism)
{
	StreamIdentity identity;
	DpKeyedStream *stream;
	QueryStreams *query;
	bool		found;

	if (!(mechanism->flags & DP_FLAG_KEYED))
		return NULL;
	memset(&identity, 0, sizeof(identity));
	strlcpy(identity.key, mechanism->key, sizeof(identity.key));
	memcpy(identity.partition, mechanism->partition, DP_PARTITION_BYTES);

	query = query_streams(fcinfo);
	stream = hash_search(query->streams, &identity, HASH_ENTER, &found);
	if (!found)
	{
		stream->context = GetMemoryChunkContext(query);
		stream->length = 0;
		stream->capacity = 0;
		stream->values = NULL;
		stream->tags = NULL;
	}
	return stream;
}

static void
refuse(const DpKeyedStream *stream, int64 step)
{
	bool		partitioned = dp_mechanism_has_partition_digest(stream->identity.partition);

	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("key \"%s\" draws noise for two streams with different data in one query%s",
					stream->identity.key, partitioned ? " and one partition" : ""),
			 errdetail("The streams differ at time step " INT64_FORMAT ".  Under one key and "
					   "partition, noise depends on the data only, so streams whose data are "
					   "equal in places draw equal noise there, and their releases would show "
					   "one stream's data to whoever knows another's.", step + 1),
			 partitioned ?
			 errhint("Give each stream a partition value of its own, e.g. partition => ward "
					 "where the streams are PARTITION BY ward, or a key of its own.") :
			 errhint("Name the partition: dp_keyed(mechanism, key, partition => ward).")));
}

/*
 * Step `step` (0 for the first) of a stream pushes `value`: the first stream
 * there sets the reference, any other must push the same.
 */
void
dp_keyed_stream_step(DpKeyedStream *stream, int64 step, DpKeyedValueTag tag, uint64 value)
{
	if (stream == NULL)
		return;
	/* a stream reached `step` through steps 0 .. step - 1, each of which has a reference */
	Assert(step <= stream->length);
	if (step < stream->length)
	{
		if (stream->tags[step] != (uint8) tag || stream->values[step] != value)
			refuse(stream, step);
		return;
	}
	if (stream->length == stream->capacity)
	{
		int64		capacity = stream->capacity == 0 ? 64 : stream->capacity * 2;

		if ((Size) capacity > MaxAllocSize / sizeof(uint64))
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("a keyed stream of more than " INT64_FORMAT " steps in one query",
							stream->capacity)));
		if (stream->values == NULL)
		{
			stream->values = MemoryContextAlloc(stream->context, capacity * sizeof(uint64));
			stream->tags = MemoryContextAlloc(stream->context, capacity);
		}
		else
		{
			stream->values = repalloc(stream->values, capacity * sizeof(uint64));
			stream->tags = repalloc(stream->tags, capacity);
		}
		stream->capacity = capacity;
	}
	stream->values[step] = value;
	stream->tags[step] = (uint8) tag;
	stream->length++;
}

/*
 * dp_stream.h
 *		Declarations shared by the PostgreSQL glue files.
 */
#ifndef DP_STREAM_PG_H
#define DP_STREAM_PG_H

#include "postgres.h"
#include "fmgr.h"

#include "dp_compat.h"

#include "dp_counter.h"
#include "dp_seal.h"
#include "dp_statistic.h"

/* The noise source of this backend (dp_stream.c). */
extern dp_random *dp_backend_random(void);

/* dp_stream.read_unsealed: a superuser reads states written before sealing. */
extern bool dp_read_unsealed;

/* dp_stream.argument_order_warning: constructors warn about 0.14.0's order. */
extern bool dp_argument_order_warning;

/* Secrets (dp_secret.c): sealing, opening and keyed noise. */
extern bool dp_sealing_installed(void);
extern void dp_secret_for_sealing(unsigned char *secret, uint64 *key_id);
extern bool dp_secret_by_id(uint64 key_id, unsigned char *secret);
extern bool dp_keyed_noise_key(const dp_mechanism *mechanism, const char *context,
							   unsigned char *noise_key, int *derivation);

/*
 * Sealed values (dp_sealed.c).  dp_sealed_datum seals a core serialization
 * whose first public_length bytes are public, padded to padded_length (a
 * length that depends on public fields only), bound to a role and maybe a
 * stream; dp_state_read opens stored bytes in one call of the core
 * (dp_state_open): the state (a dp_counter or dp_statistic in palloc'd
 * memory) after authenticating it, or from an unsealed value when
 * dp_stream.read_unsealed is on, and what it is bound to (a value sealed
 * before 0.12.0, or unsealed, to the extension's owner); with check, only
 * for a role that may use it (dp_check_binding).  Errors in the state name
 * it as text or binary input.
 */
extern Datum dp_sealed_datum(int kind, const unsigned char *plain, size_t plain_length,
							 size_t public_length, size_t padded_length,
							 const dp_seal_binding *binding);
extern void *dp_state_read(int kind, const char *type_name, const unsigned char *data,
						   size_t length, bool binary, const char *text,
						   dp_seal_binding *binding, bool check);
/* The binding of a new state: the current role, no stream. */
extern void dp_binding_for_new_state(dp_seal_binding *binding);
/* The binding of a state that names none: the extension's owner. */
extern void dp_binding_for_legacy_state(dp_seal_binding *binding);
/* Whether the current role may use a state with this binding. */
extern bool dp_may_use_binding(const dp_seal_binding *binding);
/* Raises 42501 unless it may. */
extern void dp_check_binding(const char *type_name, const dp_seal_binding *binding);
extern void dp_check_rebinding(const char *type_name, const dp_seal_binding *binding);
extern uint64 dp_stream_id_argument(int64 id);
/* Text form: "sealed:" and the base64 of the sealed bytes. */
extern char *dp_sealed_text(Datum datum);
/* The sealed bytes of a text form; NULL when the text is not a sealed one. */
extern const unsigned char *dp_sealed_from_text(const char *type_name, const char *text,
												size_t *length);
/*
 * The unsealed form, for databases whose extension predates 0.6.0
 * (dp_state_compat.c).
 */
extern Datum dp_unsealed_datum(const dp_counter *counter, const dp_statistic *statistic);
/* A sealed value typed in or received, checked for form and stored as it is. */
extern Datum dp_sealed_input(int kind, const char *type_name, const unsigned char *data,
							 size_t length, bool binary, const char *text);
/* Raises 42501 for an unsealed value unless dp_stream.read_unsealed is on. */
extern void dp_check_unsealed_allowed(const char *type_name);

/*
 * Starts a counter or statistic for `mechanism` (validated), with the noise
 * key of a keyed mechanism (checked to be registered), else with the
 * caller's random stream.
 */
extern dp_status dp_counter_begin(dp_counter *counter, const dp_mechanism *mechanism,
								  bool repeatable, const char **field);
/* Raises 0A000 for a dp_decayed mechanism, which only the decayed functions read (dp_decayed_refusal.c). */
extern void dp_refuse_decayed_mechanism(const dp_mechanism *mechanism, const char *function);
/* Raises 42501 unless the current user may draw noise under the mechanism's key. */
extern void dp_keyed_check_user(const dp_mechanism *mechanism);
/* The keyed mechanism of a publication the current user may draw for (42704 otherwise). */
extern Datum dp_publication_registered(const char *name);

/*
 * Keyed streams within one query (dp_keyed_streams.c): a second stream under
 * one key and partition with different data is refused (0A000).  Start
 * after the key's registration is checked (NULL for an unkeyed mechanism,
 * and every step call then does nothing); call step before each push.
 */
typedef struct DpKeyedStream DpKeyedStream;
typedef enum DpKeyedValueTag
{
	DP_KEYED_COUNT = 1,			/* a count's int64 */
	DP_KEYED_ABSENT,			/* a statistic's step without an observation */
	DP_KEYED_REAL,				/* a statistic's float8, its bits */
	DP_KEYED_INTEGER			/* a statistic's integer */
} DpKeyedValueTag;
extern DpKeyedStream *dp_keyed_stream_start(FunctionCallInfo fcinfo,
											const dp_mechanism *mechanism);
extern void dp_keyed_stream_step(DpKeyedStream *stream, int64 step, DpKeyedValueTag tag,
								 uint64 value);

/* ereport(ERROR) for a core status; `what` names the SQL object involved. */
DP_NORETURN extern void dp_report_status(dp_status status, const char *field,
							 const dp_mechanism *mechanism);
/*
 * "dp_binary, dp_two_level or dp_hybrid": the constructors of the kinds that
 * accept every option in `flags`, from the registry, palloc'd.
 */
extern char *dp_fill_template(const char *template, const dp_mechanism *mechanism,
							  const dp_counter_kind *kind, const dp_kind_parameter *parameter);
extern char *dp_kinds_accepting_text(uint32 flags, const char *conjunction);
/* a core limit as messages write it: a power of two as "2^k" */
extern const char *dp_limit_text(double value);
extern const char *dp_limit_text_int64(int64 value);
/* Raises 22023 unless 0 < confidence < 1. */
extern void dp_check_confidence(double confidence);
DP_NORETURN extern void dp_report_parse_error(const char *type_name, const char *input,
								  const dp_parse_error *error, bool binary);

/*
 * Refuses an aggregate call whose shape cannot give a meaningful stream
 * (dp_aggregate_shape.c): a FILTER (0A000), a window without ORDER BY or
 * with a frame whose start moves (42P20).  Looks at the query only; call it
 * when a state starts, and in a final function that gets no state.
 */
extern void dp_check_stream_shape(FunctionCallInfo fcinfo);

/*
 * Whether the arguments `first` and `second` of the aggregate call running
 * (fcinfo numbering: 1 is the first after the state; -1 for none) are the
 * same value at every row: a constant or a query parameter in every call of
 * the query that runs this function (dp_aggregate_shape.c).  False when it
 * cannot tell.
 */
extern bool dp_aggregate_arguments_constant(FunctionCallInfo fcinfo, int first, int second);

/*
 * Raises 42P20 for a plain or state aggregate call with a rolling mechanism
 * and no ORDER BY of a column (dp_aggregate_shape.c).
 */
extern void dp_check_rolling_order(FunctionCallInfo fcinfo, const dp_mechanism *mechanism);

/* Raises 42P20 when a state aggregate's final function runs in a window. */
extern void dp_refuse_state_in_window(FunctionCallInfo fcinfo);

/* ereport(ERROR) for a status from dp_statistic_layout. */
DP_NORETURN extern void dp_report_statistic_status(dp_status status, const char *field,
									   const dp_statistic_spec *spec);

/* How a step value arrives from SQL. */
typedef enum DpValueType
{
	DP_VALUE_INT8,
	DP_VALUE_INT4,
	DP_VALUE_FLOAT8
} DpValueType;

/*
 * The value of one time step from argument `argno`: NULL is 0, a float8 is
 * rounded and clamped (dp_counter_value_from_double); integers are clamped
 * by dp_counter_push (dp_counter_type.c).
 */
extern int64 dp_step_value(FunctionCallInfo fcinfo, int argno, DpValueType type,
						   const dp_counter *counter);

/*
 * dp_mechanism SQL type: a version byte, then (version 5) the explicit codec
 * of dp_mechanism_codec.c; versions 1 to 4 held the C struct of their day
 * and are still read (this struct describes them).
 */
typedef struct DpMechanismDatum
{
	int32		vl_len_;
	uint8		version;
	uint8		reserved[7];
	dp_mechanism mechanism;
} DpMechanismDatum;

#define DP_MECHANISM_DATUM_VERSION 5	/* the codec; raw structs: 1: 0.1.0, no block;
										 * 2: 0.2.0-0.5.0, no key; 3: 0.6.0, no
										 * contributions; 4: early 0.7.0 builds */

/* A stored value of versions 1 to 4, or false (dp_mechanism_compat.c). */
extern bool dp_mechanism_read_struct(const DpMechanismDatum *value, size_t size,
									 dp_mechanism *mechanism);
/* Validate a mechanism or raise an error naming the parameter. */
extern void dp_mechanism_check(const dp_mechanism *mechanism);

/* The mechanism of a datum, validated: an invalid stored value raises XX001. */
extern const dp_mechanism *dp_mechanism_from_datum(Datum datum);
/* ERROR: repeatable states are for the epsilon-DP mechanisms */
DP_NORETURN extern void dp_refuse_repeatable_zcdp(void);
extern bool dp_mechanism_datum_equals(Datum datum, const dp_mechanism *mechanism);

/*
 * The same for the per-row check of an aggregate's transition function: the
 * last datum's bytes and their decoded mechanism are kept in fn_extra, so a
 * row whose datum has the same bytes is not decoded again.
 */
extern bool dp_mechanism_datum_matches(FunctionCallInfo fcinfo, Datum datum,
									   const dp_mechanism *mechanism);
/* The decoded mechanism of a datum through that cache (not validated again). */
extern const dp_mechanism *dp_mechanism_datum_cached(FunctionCallInfo fcinfo, Datum datum);

/*
 * Where an aggregate's transition function finds its mechanism: the
 * argument `mechanism` and, for the rolling forms (dp_rolling_count(value,
 * width, mechanism), ...), the argument `width` (-1 for the running forms):
 * the stream then runs the rolling mechanism of that width made from the
 * argument (dp_mechanism_rolling_of).
 */
typedef struct DpMechanismArgument
{
	int			mechanism;
	int			width;
} DpMechanismArgument;

extern void dp_aggregate_mechanism(FunctionCallInfo fcinfo, DpMechanismArgument where,
								   dp_mechanism *out);
extern bool dp_aggregate_mechanism_matches(FunctionCallInfo fcinfo, DpMechanismArgument where,
										   const dp_mechanism *mechanism);
extern Datum dp_mechanism_to_datum(const dp_mechanism *mechanism);

/*
 * dp_counter SQL type: a varlena holding the core's binary form, sealed.
 * dp_counter_from_datum opens a state for the role it is bound to (42501
 * for any other); dp_counter_to_datum seals a new state, bound to the
 * current role.  The _bound forms return and take the binding, so that a
 * pushed state keeps its own; with check false, the opened state must serve
 * its public fields only.
 */
extern dp_counter *dp_counter_from_datum(Datum datum);
extern Datum dp_counter_to_datum(const dp_counter *counter);
extern dp_counter *dp_counter_from_datum_bound(Datum datum, dp_seal_binding *binding,
											   bool check);
extern Datum dp_counter_to_datum_bound(const dp_counter *counter,
									   const dp_seal_binding *binding);

/* dp_statistic SQL type: the same. */
extern dp_statistic *dp_statistic_from_datum(Datum datum);
extern Datum dp_statistic_to_datum(const dp_statistic *statistic);
extern dp_statistic *dp_statistic_from_datum_bound(Datum datum, dp_seal_binding *binding,
												   bool check);
extern Datum dp_statistic_to_datum_bound(const dp_statistic *statistic,
										 const dp_seal_binding *binding);
/* Makes a mechanism fit for a repeatable state (pan-private, content-keyed). */
extern void dp_repeatable_mechanism(dp_mechanism *mechanism);
/* dp_bind's check and change: 42501 unless the current role has role's privileges. */
extern void dp_rebind(dp_seal_binding *binding, Oid role);
/*
 * A statistic at step 0 in `context` (validates the spec, draws the first
 * noise), keyed as dp_counter_begin.
 */
extern dp_statistic *dp_statistic_begin(MemoryContext context, const dp_statistic_spec *spec,
										bool repeatable);
/* What a statistic computes, as keyed noise and dp_stream.keys name it. */
extern char *dp_statistic_computes(const dp_statistic_spec *spec);
/* The dp_summary composite of a statistic (the function must return it). */
extern Datum dp_summary_datum(FunctionCallInfo fcinfo, const dp_statistic *statistic);

#endif							/* DP_STREAM_PG_H */

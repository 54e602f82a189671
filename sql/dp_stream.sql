-- dp_stream: the whole SQL surface of the current version, one object at a
-- time in its final form.  The Makefile copies this file to
-- sql/dp_stream--<version>.sql (the version of dp_stream.control), which a
-- fresh CREATE EXTENSION runs.  Databases made by older versions reach the
-- same catalog through sql/dp_stream--0.1.0.sql and the update scripts;
-- test/regress/sql/upgrade.sql compares the two, object by object.  A
-- change here therefore goes with an update script that makes the same
-- change (docs/design.md, "Contributor checklist").  Function bodies are
-- compared too, comments in them included.
--
-- Sections: schemas and roles; types; mechanisms; options of a mechanism;
-- privacy accounting and error analysis; counting states; sums, averages
-- and variances; randomized response; aggregates; internals of the
-- catalog; tables; guards; secrets; the ledger; keys; managed streams;
-- publications; Citus; views; triggers; grants; what an installation does
-- once.  docs/reference.md documents every function.

\echo Use "CREATE EXTENSION dp_stream" to load this file. \quit

-- SQL function bodies name functions defined in later sections (as in
-- pg_dump's output): they are checked when first called, not here.  SET
-- LOCAL in an extension script lasts until the script ends (a plain SET
-- would outlive CREATE EXTENSION in the session).
SET LOCAL check_function_bodies = off;

-- =========================================================================
-- Schemas and roles
-- =========================================================================
-- @extschema@ (chosen at CREATE EXTENSION: a schema only superusers can write,
-- README.md) holds the types, the mechanisms, the aggregates and the functions
-- on states.  dp_stream holds the catalog: managed streams, releases, the
-- ledger, keys, publications and secrets.  dp_stream_private holds the
-- administrative functions behind dp_stream's wrappers, with the privileges
-- they need.

CREATE SCHEMA dp_stream;
COMMENT ON SCHEMA dp_stream IS 'dp_stream managed streams: catalog, releases, advance()';

CREATE SCHEMA dp_stream_private;
COMMENT ON SCHEMA dp_stream_private IS 'dp_stream: the administrative functions behind dp_stream''s wrappers, with their privileges (granted to dp_stream_admin)';

-- The two roles the grants below name.  Roles are cluster-wide: created only
-- where missing (another database may have made them); DROP EXTENSION
-- leaves them.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'dp_stream_admin') THEN
    CREATE ROLE dp_stream_admin NOLOGIN;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'dp_stream_reader') THEN
    CREATE ROLE dp_stream_reader NOLOGIN;
  END IF;
END $$;
COMMENT ON ROLE dp_stream_admin IS 'dp_stream: creates and advances streams, registers keys, manages budgets';
COMMENT ON ROLE dp_stream_reader IS 'dp_stream: reads releases and the list of streams';

-- =========================================================================
-- Types
-- =========================================================================
-- dp_mechanism: an algorithm with its parameters; dp_counter: a sealed
-- running count; dp_statistic: a sealed running sum, average or variance.
-- Each is a varlena with text and binary forms (src/pg/).  dp_rr_estimate,
-- dp_summary, dp_stream.observation and dp_stream.advance_result are rows.

CREATE TYPE @extschema@.dp_mechanism;

CREATE FUNCTION @extschema@.dp_mechanism_in(cstring) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_in';
COMMENT ON FUNCTION @extschema@.dp_mechanism_in(cstring) IS 'internal: input function of its type (text form)';

CREATE FUNCTION @extschema@.dp_mechanism_out(@extschema@.dp_mechanism) RETURNS cstring
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_out';
COMMENT ON FUNCTION @extschema@.dp_mechanism_out(@extschema@.dp_mechanism) IS 'internal: output function of its type (text form)';

CREATE FUNCTION @extschema@.dp_mechanism_recv(internal) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_recv';
COMMENT ON FUNCTION @extschema@.dp_mechanism_recv(internal) IS 'internal: binary input function of its type';

CREATE FUNCTION @extschema@.dp_mechanism_send(@extschema@.dp_mechanism) RETURNS bytea
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_send';
COMMENT ON FUNCTION @extschema@.dp_mechanism_send(@extschema@.dp_mechanism) IS 'internal: binary output function of its type';

CREATE TYPE @extschema@.dp_mechanism (
    INTERNALLENGTH = variable,
    INPUT = @extschema@.dp_mechanism_in,
    OUTPUT = @extschema@.dp_mechanism_out,
    RECEIVE = @extschema@.dp_mechanism_recv,
    SEND = @extschema@.dp_mechanism_send,
    ALIGNMENT = double,
    STORAGE = plain
);
COMMENT ON TYPE @extschema@.dp_mechanism IS 'a differentially private counting mechanism and its parameters';

CREATE TYPE @extschema@.dp_counter;

CREATE FUNCTION @extschema@.dp_counter_in(cstring) RETURNS @extschema@.dp_counter
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_counter_in';
COMMENT ON FUNCTION @extschema@.dp_counter_in(cstring) IS 'internal: input function of its type (text form)';

CREATE FUNCTION @extschema@.dp_counter_out(@extschema@.dp_counter) RETURNS cstring
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_counter_out';
COMMENT ON FUNCTION @extschema@.dp_counter_out(@extschema@.dp_counter) IS 'internal: output function of its type (text form)';

CREATE FUNCTION @extschema@.dp_counter_recv(internal) RETURNS @extschema@.dp_counter
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_counter_recv';
COMMENT ON FUNCTION @extschema@.dp_counter_recv(internal) IS 'internal: binary input function of its type';

CREATE FUNCTION @extschema@.dp_counter_send(@extschema@.dp_counter) RETURNS bytea
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_counter_send';
COMMENT ON FUNCTION @extschema@.dp_counter_send(@extschema@.dp_counter) IS 'internal: binary output function of its type';

CREATE TYPE @extschema@.dp_counter (
    INTERNALLENGTH = variable,
    INPUT = @extschema@.dp_counter_in,
    OUTPUT = @extschema@.dp_counter_out,
    RECEIVE = @extschema@.dp_counter_recv,
    SEND = @extschema@.dp_counter_send,
    ALIGNMENT = int4,
    STORAGE = main
);
COMMENT ON TYPE @extschema@.dp_counter IS 'a continuable differentially private counter state (noisy nodes only)';

CREATE TYPE @extschema@.dp_statistic;

CREATE FUNCTION @extschema@.dp_statistic_in(cstring) RETURNS @extschema@.dp_statistic
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_statistic_in';
COMMENT ON FUNCTION @extschema@.dp_statistic_in(cstring) IS 'internal: input function of its type (text form)';

CREATE FUNCTION @extschema@.dp_statistic_out(@extschema@.dp_statistic) RETURNS cstring
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_statistic_out';
COMMENT ON FUNCTION @extschema@.dp_statistic_out(@extschema@.dp_statistic) IS 'internal: output function of its type (text form)';

CREATE FUNCTION @extschema@.dp_statistic_recv(internal) RETURNS @extschema@.dp_statistic
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_statistic_recv';
COMMENT ON FUNCTION @extschema@.dp_statistic_recv(internal) IS 'internal: binary input function of its type';

CREATE FUNCTION @extschema@.dp_statistic_send(@extschema@.dp_statistic) RETURNS bytea
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_counter_send';
COMMENT ON FUNCTION @extschema@.dp_statistic_send(@extschema@.dp_statistic) IS 'internal: binary output function of its type';

CREATE TYPE @extschema@.dp_statistic (
    INTERNALLENGTH = variable,
    INPUT = @extschema@.dp_statistic_in,
    OUTPUT = @extschema@.dp_statistic_out,
    RECEIVE = @extschema@.dp_statistic_recv,
    SEND = @extschema@.dp_statistic_send,
    ALIGNMENT = int4,
    STORAGE = extended
);
COMMENT ON TYPE @extschema@.dp_statistic IS 'a continuable differentially private sum, average or variance state (noisy nodes only)';

CREATE TYPE @extschema@.dp_rr_estimate AS (
	estimate double precision,
	standard_deviation double precision,
	reports bigint
);
COMMENT ON TYPE @extschema@.dp_rr_estimate IS 'a debiased count from randomized responses, with its standard deviation';

CREATE TYPE @extschema@.dp_summary AS (
	count double precision,
	sum double precision,
	avg double precision,
	var_pop double precision,
	var_samp double precision,
	stddev_pop double precision,
	stddev_samp double precision
);
COMMENT ON TYPE @extschema@.dp_summary IS 'private count, sum, average, variances and standard deviations of one stream, from one budget';

CREATE TYPE dp_stream.observation AS (
	partition text,
	period timestamp without time zone,
	value double precision,
	person text
);
COMMENT ON TYPE dp_stream.observation IS 'a value of one period (and partition, and person) for dp_stream.publish and dp_stream.advance';

CREATE TYPE dp_stream.advance_result AS (
	periods bigint,
	partitions bigint,
	new_partitions bigint,
	releases bigint,
	filled_without_data bigint,
	late_observations bigint
);
COMMENT ON TYPE dp_stream.advance_result IS 'what dp_stream.publish or a catch-up released: periods, partitions, releases, fills, late observations';

-- =========================================================================
-- Mechanisms
-- =========================================================================
-- One constructor per kind of the core's registry (src/core/), all of them
-- one C function (dp_mechanism_construct, which reads the kind from the
-- name of the function called), dp_mechanism_of by name, dp_auto's choice, and the definitions kept under
-- <name>_before_0_14 for views written before 0.14.0 moved max_per_step to
-- the third place (docs/mechanisms.md).

-- dp_auto runs a query of the registry; the planner folds a call with
-- constant arguments by running it, once per planning.  jit is off for it:
-- under a setting that adds disable_cost to that query's plan (enable_sort =
-- off, as the throughput benchmark sets) its cost passed jit_above_cost, and
-- every planning of a query calling dp_auto paid 0.1-0.2 s of LLVM code
-- generation for a query that reads a dozen rows.
CREATE FUNCTION @extschema@.dp_auto(epsilon double precision, horizon bigint DEFAULT NULL::bigint, max_per_step bigint DEFAULT NULL::bigint) RETURNS @extschema@.dp_mechanism
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    SET "dp_stream.argument_order_warning" TO 'off'
    SET jit TO 'off'
    AS $$
  SELECT @extschema@.dp_mechanism_of((SELECT k.kind FROM @extschema@.dp_mechanisms() AS k
                                      WHERE k.auto_rank IS NOT NULL AND k.bounded = ($2 IS NOT NULL)
                                      ORDER BY k.auto_rank LIMIT 1), $1, $2, $3)
$$;
COMMENT ON FUNCTION @extschema@.dp_auto(epsilon double precision, horizon bigint, max_per_step bigint) IS 'the recommended mechanism: balanced digits for a known horizon, balanced digits on growing blocks for a stream without end; a count needs max_per_step';

CREATE FUNCTION @extschema@.dp_balanced(epsilon double precision, horizon bigint, max_per_step bigint DEFAULT NULL::bigint, arity bigint DEFAULT NULL::bigint) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_construct';
COMMENT ON FUNCTION @extschema@.dp_balanced(epsilon double precision, horizon bigint, max_per_step bigint, arity bigint) IS 'k-ary tree with balanced digits (odd arity, chosen by default; arity => k): the least variance of the pure epsilon-DP counters; T-bounded';

CREATE FUNCTION @extschema@.dp_balanced_before_0_14(epsilon double precision, horizon bigint, arity bigint DEFAULT NULL::bigint, max_per_step bigint DEFAULT 1) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_balanced_construct';
COMMENT ON FUNCTION @extschema@.dp_balanced_before_0_14(epsilon double precision, horizon bigint, arity bigint, max_per_step bigint) IS 'deprecated: dp_balanced in its order before 0.14.0, kept so that views created before keep their meaning; call dp_balanced';

CREATE FUNCTION @extschema@.dp_balanced_unbounded(epsilon double precision, max_per_step bigint DEFAULT NULL::bigint, arity bigint DEFAULT NULL::bigint) RETURNS @extschema@.dp_mechanism
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    SET "dp_stream.argument_order_warning" TO 'off'
    AS $$ SELECT @extschema@.dp_mechanism_of('balanced_unbounded', epsilon, NULL::bigint, max_per_step, arity) $$;
COMMENT ON FUNCTION @extschema@.dp_balanced_unbounded(epsilon double precision, max_per_step bigint, arity bigint) IS 'balanced-digit trees on blocks of growing length: no horizon, within 1.4x of the best bounded mechanism''s variance';

CREATE FUNCTION @extschema@.dp_binary(epsilon double precision, horizon bigint, max_per_step bigint DEFAULT NULL::bigint) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_construct';
COMMENT ON FUNCTION @extschema@.dp_binary(epsilon double precision, horizon bigint, max_per_step bigint) IS 'Binary (tree) mechanism: T-bounded, error O(log^1.5 T / epsilon)';

CREATE FUNCTION @extschema@.dp_blt(rho double precision, horizon bigint, max_per_step bigint DEFAULT NULL::bigint) RETURNS @extschema@.dp_mechanism
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    SET "dp_stream.argument_order_warning" TO 'off'
    AS $$ SELECT @extschema@.dp_zcdp_mechanism_of('blt', rho, horizon, max_per_step) $$;
COMMENT ON FUNCTION @extschema@.dp_blt(rho double precision, horizon bigint, max_per_step bigint) IS 'buffered-linear-Toeplitz matrix factorization under rho-zCDP: the least variance of the zCDP counters, O(1) state; horizon up to 2^40';

CREATE FUNCTION @extschema@.dp_expiring(epsilon double precision, max_per_step bigint DEFAULT NULL::bigint, lambda double precision DEFAULT NULL::double precision, delay bigint DEFAULT 0) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_construct';
COMMENT ON FUNCTION @extschema@.dp_expiring(epsilon double precision, max_per_step bigint, lambda double precision, delay bigint) IS 'privacy expiration: an item d steps old loses epsilon g(d), g of order log(d)^lambda (lambda => x, required); no horizon, pan-private option, error O(log T / epsilon) for lambda > 3/2';

CREATE FUNCTION @extschema@.dp_decayed(epsilon double precision, max_per_step bigint DEFAULT NULL::bigint, gamma double precision DEFAULT NULL::double precision) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_construct';
COMMENT ON FUNCTION @extschema@.dp_decayed(epsilon double precision, max_per_step bigint, gamma double precision) IS 'exponentially decayed sum: releases sum of gamma^(t - s) x_s (gamma => x in (0, 0.999999], required) with an error bounded in t; no horizon; read by dp_decayed_count and dp_decayed_sum';

CREATE FUNCTION @extschema@.dp_expiring_baseline(epsilon double precision, horizon bigint, max_per_step bigint DEFAULT NULL::bigint, epsilon_past double precision DEFAULT NULL::double precision, window_size bigint DEFAULT NULL::bigint) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_construct';
COMMENT ON FUNCTION @extschema@.dp_expiring_baseline(epsilon double precision, horizon bigint, max_per_step bigint, epsilon_past double precision, window_size bigint) IS 'the baseline of privacy expiration: epsilon for the last window_size steps, epsilon + epsilon_past for older items (both required, by name); T-bounded';

CREATE FUNCTION @extschema@.dp_expiring_baseline_before_0_14(epsilon_current double precision, epsilon_past double precision, window_size bigint, horizon bigint, max_per_step bigint DEFAULT 1) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_expiring_baseline_construct';
COMMENT ON FUNCTION @extschema@.dp_expiring_baseline_before_0_14(epsilon_current double precision, epsilon_past double precision, window_size bigint, horizon bigint, max_per_step bigint) IS 'deprecated: dp_expiring_baseline in its order before 0.14.0, kept so that views created before keep their meaning; call dp_expiring_baseline';

CREATE FUNCTION @extschema@.dp_expiring_before_0_14(epsilon double precision, lambda double precision, delay bigint DEFAULT 0, max_per_step bigint DEFAULT 1) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_expiring_construct';
COMMENT ON FUNCTION @extschema@.dp_expiring_before_0_14(epsilon double precision, lambda double precision, delay bigint, max_per_step bigint) IS 'deprecated: dp_expiring in its order before 0.14.0, kept so that views created before keep their meaning; call dp_expiring';

CREATE FUNCTION @extschema@.dp_gaussian_binary(rho double precision, horizon bigint, max_per_step bigint DEFAULT NULL::bigint) RETURNS @extschema@.dp_mechanism
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    SET "dp_stream.argument_order_warning" TO 'off'
    AS $$ SELECT @extschema@.dp_zcdp_mechanism_of('binary', rho, horizon, max_per_step) $$;
COMMENT ON FUNCTION @extschema@.dp_gaussian_binary(rho double precision, horizon bigint, max_per_step bigint) IS 'the Binary mechanism with discrete Gaussian noise, under rho-zCDP';

CREATE FUNCTION @extschema@.dp_honaker(epsilon double precision, horizon bigint, max_per_step bigint DEFAULT NULL::bigint, arity bigint DEFAULT NULL::bigint) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_construct';
COMMENT ON FUNCTION @extschema@.dp_honaker(epsilon double precision, horizon bigint, max_per_step bigint, arity bigint) IS 'k-ary tree with Honaker''s streaming estimator (arity => k; arity 2: Binary at 0.58x its variance); pan-private and keyed options; T-bounded';

CREATE FUNCTION @extschema@.dp_honaker_before_0_14(epsilon double precision, horizon bigint, arity bigint DEFAULT NULL::bigint, max_per_step bigint DEFAULT 1) RETURNS @extschema@.dp_mechanism
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$ SELECT @extschema@.dp_mechanism_of_before_0_14('honaker', epsilon, horizon, arity, max_per_step) $$;
COMMENT ON FUNCTION @extschema@.dp_honaker_before_0_14(epsilon double precision, horizon bigint, arity bigint, max_per_step bigint) IS 'deprecated: dp_honaker in its order before 0.14.0, kept so that views created before keep their meaning; call dp_honaker';

CREATE FUNCTION @extschema@.dp_hybrid(epsilon double precision, max_per_step bigint DEFAULT NULL::bigint) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_construct';
COMMENT ON FUNCTION @extschema@.dp_hybrid(epsilon double precision, max_per_step bigint) IS 'Hybrid: logarithmic blocks plus a Binary tree per block, epsilon/2 each; unbounded, error O(log^1.5 t / epsilon)';

CREATE FUNCTION @extschema@.dp_kary(epsilon double precision, horizon bigint, max_per_step bigint DEFAULT NULL::bigint, arity bigint DEFAULT NULL::bigint) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_construct';
COMMENT ON FUNCTION @extschema@.dp_kary(epsilon double precision, horizon bigint, max_per_step bigint, arity bigint) IS 'k-ary tree: k-adic intervals, arity chosen for the least mean variance by default (arity => k); T-bounded, error O(k log_k^1.5 T / epsilon)';

CREATE FUNCTION @extschema@.dp_kary_before_0_14(epsilon double precision, horizon bigint, arity bigint DEFAULT NULL::bigint, max_per_step bigint DEFAULT 1) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_kary_construct';
COMMENT ON FUNCTION @extschema@.dp_kary_before_0_14(epsilon double precision, horizon bigint, arity bigint, max_per_step bigint) IS 'deprecated: dp_kary in its order before 0.14.0, kept so that views created before keep their meaning; call dp_kary';

CREATE FUNCTION @extschema@.dp_mechanism(state @extschema@.dp_counter) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_counter_mechanism';
COMMENT ON FUNCTION @extschema@.dp_mechanism(state @extschema@.dp_counter) IS 'the mechanism of a stored counter (a public field)';

CREATE FUNCTION @extschema@.dp_mechanism(state @extschema@.dp_statistic) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_statistic_mechanism';
COMMENT ON FUNCTION @extschema@.dp_mechanism(state @extschema@.dp_statistic) IS 'the mechanism of a stored statistic (a public field)';

CREATE FUNCTION @extschema@.dp_mechanism_of(kind text, epsilon double precision, horizon bigint DEFAULT NULL::bigint, max_per_step bigint DEFAULT NULL::bigint, parameter bigint DEFAULT NULL::bigint) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_construct';
COMMENT ON FUNCTION @extschema@.dp_mechanism_of(kind text, epsilon double precision, horizon bigint, max_per_step bigint, parameter bigint) IS 'any mechanism by its name in the text form; a NULL horizon is none, a NULL max_per_step not stated, a NULL parameter the default block or arity';

CREATE FUNCTION @extschema@.dp_mechanism_of_before_0_14(kind text, epsilon double precision, horizon bigint DEFAULT NULL::bigint, parameter bigint DEFAULT NULL::bigint, max_per_step bigint DEFAULT 1) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_of';
COMMENT ON FUNCTION @extschema@.dp_mechanism_of_before_0_14(kind text, epsilon double precision, horizon bigint, parameter bigint, max_per_step bigint) IS 'deprecated: dp_mechanism_of in its order before 0.14.0, kept so that views created before keep their meaning; call dp_mechanism_of';

CREATE FUNCTION @extschema@.dp_ppcum(epsilon double precision, horizon bigint, max_per_step bigint DEFAULT NULL::bigint) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_construct';
COMMENT ON FUNCTION @extschema@.dp_ppcum(epsilon double precision, horizon bigint, max_per_step bigint) IS 'PPCum: pan-private cumulative sum; T-bounded, error O(log^1.5 T / epsilon) at every step';

CREATE FUNCTION @extschema@.dp_rolling(epsilon double precision, width bigint, max_per_step bigint DEFAULT NULL::bigint, levels integer DEFAULT NULL::integer, arity integer DEFAULT NULL::integer) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_construct';
COMMENT ON FUNCTION @extschema@.dp_rolling(epsilon double precision, width bigint, max_per_step bigint, levels integer, arity integer) IS 'rolling window: each release is the noisy sum of the last width steps (width at most 511), from a tree of the given arity (default 2 when levels is given) over width capped at levels levels (1: each step noised once; both left out: the pair of least mean variance, e.g. 2 levels of arity 19 at width 365); no horizon, error independent of the stream''s length';

CREATE FUNCTION @extschema@.dp_rolling_of(mechanism @extschema@.dp_mechanism, width bigint) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_rolling_of';
COMMENT ON FUNCTION @extschema@.dp_rolling_of(mechanism @extschema@.dp_mechanism, width bigint) IS 'the rolling mechanism of width steps with mechanism''s epsilon (or rho), max_per_step, privacy unit, key and pan-private option, on the number of levels of least mean variance: what dp_rolling_count(x, width, mechanism) runs';

CREATE FUNCTION @extschema@.dp_simple_i(epsilon double precision, horizon bigint, max_per_step bigint DEFAULT NULL::bigint) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_construct';
COMMENT ON FUNCTION @extschema@.dp_simple_i(epsilon double precision, horizon bigint, max_per_step bigint) IS 'Simple I: fresh noise on every release; T-bounded, error O(T / epsilon)';

CREATE FUNCTION @extschema@.dp_simple_ii(epsilon double precision, max_per_step bigint DEFAULT NULL::bigint) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_construct';
COMMENT ON FUNCTION @extschema@.dp_simple_ii(epsilon double precision, max_per_step bigint) IS 'Simple II: noise on every value; unbounded, error O(sqrt(t) / epsilon)';

CREATE FUNCTION @extschema@.dp_smooth_binary(rho double precision, horizon bigint, max_per_step bigint DEFAULT NULL::bigint) RETURNS @extschema@.dp_mechanism
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    SET "dp_stream.argument_order_warning" TO 'off'
    AS $$ SELECT @extschema@.dp_zcdp_mechanism_of('smooth_binary', rho, horizon, max_per_step) $$;
COMMENT ON FUNCTION @extschema@.dp_smooth_binary(rho double precision, horizon bigint, max_per_step bigint) IS 'the Smooth Binary mechanism of Andersson and Pagh under rho-zCDP: the same error at every step, 0.62-0.73x Gaussian Binary''s mean variance';

CREATE FUNCTION @extschema@.dp_two_level(epsilon double precision, horizon bigint, max_per_step bigint DEFAULT NULL::bigint, block bigint DEFAULT NULL::bigint) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_construct';
COMMENT ON FUNCTION @extschema@.dp_two_level(epsilon double precision, horizon bigint, max_per_step bigint, block bigint) IS 'Two-level: blocks of ceil(sqrt(T)) steps (block => b) plus singletons; T-bounded, error O(T^(1/4) / epsilon)';

CREATE FUNCTION @extschema@.dp_two_level_before_0_14(epsilon double precision, horizon bigint, block bigint DEFAULT NULL::bigint, max_per_step bigint DEFAULT 1) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_two_level_construct';
COMMENT ON FUNCTION @extschema@.dp_two_level_before_0_14(epsilon double precision, horizon bigint, block bigint, max_per_step bigint) IS 'deprecated: dp_two_level in its order before 0.14.0, kept so that views created before keep their meaning; call dp_two_level';

CREATE FUNCTION @extschema@.dp_zcdp_mechanism_of(kind text, rho double precision, horizon bigint DEFAULT NULL::bigint, max_per_step bigint DEFAULT NULL::bigint, parameter bigint DEFAULT NULL::bigint) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_construct';
COMMENT ON FUNCTION @extschema@.dp_zcdp_mechanism_of(kind text, rho double precision, horizon bigint, max_per_step bigint, parameter bigint) IS 'a mechanism under rho-zCDP with discrete Gaussian noise: binary, kary, balanced, balanced_unbounded or blt';

CREATE FUNCTION @extschema@.dp_zcdp_mechanism_of_before_0_14(kind text, rho double precision, horizon bigint DEFAULT NULL::bigint, parameter bigint DEFAULT NULL::bigint, max_per_step bigint DEFAULT 1) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_zcdp_mechanism_of';
COMMENT ON FUNCTION @extschema@.dp_zcdp_mechanism_of_before_0_14(kind text, rho double precision, horizon bigint, parameter bigint, max_per_step bigint) IS 'deprecated: dp_zcdp_mechanism_of in its order before 0.14.0, kept so that views created before keep their meaning; call dp_zcdp_mechanism_of';

-- =========================================================================
-- Options of a mechanism
-- =========================================================================
-- Wrappers that return the same mechanism with an option set: keyed noise,
-- pan-privacy, consistency, person-level privacy, a publication's key
-- (docs/keyed_noise.md, docs/privacy_unit.md, docs/publications.md).

CREATE FUNCTION @extschema@.dp_consistent(mechanism @extschema@.dp_mechanism) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_consistent_option';
COMMENT ON FUNCTION @extschema@.dp_consistent(mechanism @extschema@.dp_mechanism) IS 'the mechanism with releases post-processed into non-decreasing integers growing by at most max_per_step';

CREATE FUNCTION @extschema@.dp_key_of(mechanism @extschema@.dp_mechanism) RETURNS text
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_key';
COMMENT ON FUNCTION @extschema@.dp_key_of(mechanism @extschema@.dp_mechanism) IS 'the key of a keyed mechanism, NULL for any other';

CREATE FUNCTION @extschema@.dp_keyed(mechanism @extschema@.dp_mechanism, key text) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_keyed_option';
COMMENT ON FUNCTION @extschema@.dp_keyed(mechanism @extschema@.dp_mechanism, key text) IS 'the mechanism with repeatable noise under a registered key: the same data always gives the same releases';

CREATE FUNCTION @extschema@.dp_keyed(mechanism @extschema@.dp_mechanism, key text, partition anycompatible) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_keyed_partition_option';
COMMENT ON FUNCTION @extschema@.dp_keyed(mechanism @extschema@.dp_mechanism, key text, partition anycompatible) IS 'the mechanism with keyed noise under a registered key, for one partition of a publication (text, integer, numeric, boolean or uuid); the partition enters the noise, not the registration';

CREATE FUNCTION @extschema@.dp_pan_private(mechanism @extschema@.dp_mechanism) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_pan_private_option';
COMMENT ON FUNCTION @extschema@.dp_pan_private(mechanism @extschema@.dp_mechanism) IS 'the mechanism with a second noise term on every accumulator: a stored state stays private together with all later releases';

CREATE FUNCTION @extschema@.dp_person_level(mechanism @extschema@.dp_mechanism, contributions bigint) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_person_level_option';
COMMENT ON FUNCTION @extschema@.dp_person_level(mechanism @extschema@.dp_mechanism, contributions bigint) IS 'the mechanism protecting a person who contributes at most this much to the whole stream (events of a count, observations of a statistic)';

CREATE FUNCTION @extschema@.dp_publication(name text, partition anycompatible) RETURNS @extschema@.dp_mechanism
    LANGUAGE c STABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_publication_option';
COMMENT ON FUNCTION @extschema@.dp_publication(name text, partition anycompatible) IS 'the keyed mechanism of a registered publication for one partition (text, integer, numeric, boolean or uuid)';

CREATE FUNCTION @extschema@.dp_publication(name text, partition text) RETURNS @extschema@.dp_mechanism
    LANGUAGE c STABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_publication_option';
COMMENT ON FUNCTION @extschema@.dp_publication(name text, partition text) IS 'the keyed mechanism of a registered publication for one partition given as text';

-- =========================================================================
-- Privacy accounting and error analysis
-- =========================================================================
-- Epsilon, rho and privacy-loss curves of a mechanism; error bounds and
-- standard deviations at a step; the registry as a table and the comparison
-- of every kind at one epsilon and horizon.  None draws noise.

-- jit off, as for dp_auto: its registry query sorts, and under enable_sort =
-- off each call compiled that query with LLVM.
CREATE FUNCTION @extschema@.dp_compare_mechanisms(epsilon double precision, horizon bigint, steps bigint, max_per_step bigint DEFAULT NULL::bigint, confidence double precision DEFAULT 0.95) RETURNS TABLE(mechanism @extschema@.dp_mechanism, error_sd double precision, error_bound double precision)
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    SET "dp_stream.argument_order_warning" TO 'off'
    SET jit TO 'off'
    AS $$
  SELECT m, @extschema@.dp_error_sd(m, $3), @extschema@.dp_error_bound(m, $3, $5)
  FROM (SELECT @extschema@.dp_mechanism_of(k.kind, $1, CASE WHEN k.bounded THEN $2 END, $4) AS m
        FROM (SELECT * FROM @extschema@.dp_mechanisms() ORDER BY auto_rank NULLS LAST, kind
              OFFSET 0) AS k
        WHERE k.epsilon AND array_position(k.parameter_defaults, NULL) IS NULL) AS candidates
  WHERE $1 IS NOT NULL AND $2 IS NOT NULL AND $3 IS NOT NULL AND $5 IS NOT NULL
  ORDER BY 3, 2
$$;
COMMENT ON FUNCTION @extschema@.dp_compare_mechanisms(epsilon double precision, horizon bigint, steps bigint, max_per_step bigint, confidence double precision) IS 'every mechanism at one epsilon and horizon: the error at a step, best first (draws no noise); per unit of the step bound when max_per_step is not stated';

CREATE FUNCTION @extschema@.dp_epsilon(mechanism @extschema@.dp_mechanism) RETURNS double precision
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_epsilon';
COMMENT ON FUNCTION @extschema@.dp_epsilon(mechanism @extschema@.dp_mechanism) IS 'the epsilon a stream of this mechanism spends (all its releases together)';

CREATE FUNCTION @extschema@.dp_epsilon_for(mechanism @extschema@.dp_mechanism, half_width double precision, steps bigint, confidence double precision DEFAULT 0.95) RETURNS double precision
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_epsilon_for';
COMMENT ON FUNCTION @extschema@.dp_epsilon_for(mechanism @extschema@.dp_mechanism, half_width double precision, steps bigint, confidence double precision) IS 'the smallest epsilon whose error bound at a step is at most half_width (the mechanism''s own epsilon is ignored); half_width per unit of the step bound when the mechanism states no max_per_step';

CREATE FUNCTION @extschema@.dp_error_bound(state @extschema@.dp_counter, confidence double precision DEFAULT 0.95) RETURNS double precision
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_counter_error_bound_sql';
COMMENT ON FUNCTION @extschema@.dp_error_bound(state @extschema@.dp_counter, confidence double precision) IS 'half-width of a two-sided interval for the current release, from the exact noise distribution';

CREATE FUNCTION @extschema@.dp_error_bound(state @extschema@.dp_statistic, confidence double precision DEFAULT 0.95) RETURNS double precision
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_statistic_error_bound_sql';
COMMENT ON FUNCTION @extschema@.dp_error_bound(state @extschema@.dp_statistic, confidence double precision) IS 'sums: exact half-width; averages: a union bound over the noisy sum and count (see docs/aggregates.md)';

CREATE FUNCTION @extschema@.dp_error_bound(mechanism @extschema@.dp_mechanism, steps bigint, confidence double precision DEFAULT 0.95) RETURNS double precision
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_error_bound_sql';
COMMENT ON FUNCTION @extschema@.dp_error_bound(mechanism @extschema@.dp_mechanism, steps bigint, confidence double precision) IS 'half-width of a two-sided interval for the release at a given step (draws no noise); per unit of the step bound when the mechanism states no max_per_step';

CREATE FUNCTION @extschema@.dp_error_bound_max(mechanism @extschema@.dp_mechanism, steps bigint, confidence double precision DEFAULT 0.95) RETURNS double precision
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_error_bound_max';
COMMENT ON FUNCTION @extschema@.dp_error_bound_max(mechanism @extschema@.dp_mechanism, steps bigint, confidence double precision) IS 'the widest error bound over steps 1..steps: a band that never narrows (at most 10^7 steps); per step, not for the whole stream: at confidence 1 - (1 - c) / steps it holds at every step at once with probability >= c';

CREATE FUNCTION @extschema@.dp_error_sd(mechanism @extschema@.dp_mechanism, steps bigint) RETURNS double precision
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_error_sd';
COMMENT ON FUNCTION @extschema@.dp_error_sd(mechanism @extschema@.dp_mechanism, steps bigint) IS 'standard deviation of the error of the release at a given step (draws no noise); per unit of the step bound when the mechanism states no max_per_step';

CREATE FUNCTION @extschema@.dp_mechanism_kinds(OUT kind text, OUT bounded boolean, OUT parameters text[], OUT epsilon boolean, OUT rho boolean, OUT pan_private boolean, OUT consistent boolean, OUT keyed boolean, OUT person_level boolean) RETURNS SETOF record
    LANGUAGE c STABLE STRICT ROWS 16 PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_kinds';
COMMENT ON FUNCTION @extschema@.dp_mechanism_kinds(OUT kind text, OUT bounded boolean, OUT parameters text[], OUT epsilon boolean, OUT rho boolean, OUT pan_private boolean, OUT consistent boolean, OUT keyed boolean, OUT person_level boolean) IS 'every counting mechanism of this version: whether it needs a horizon, its own parameters (as in the text form), and the options it accepts (pure epsilon, rho-zCDP, dp_pan_private, dp_consistent, dp_keyed, dp_person_level)';

CREATE FUNCTION @extschema@.dp_mechanisms(OUT kind text, OUT constructor text, OUT bounded boolean, OUT epsilon boolean, OUT rho boolean, OUT options text[], OUT parameters text[], OUT parameter_ranges text[], OUT parameter_defaults text[], OUT auto_rank integer) RETURNS SETOF record
    LANGUAGE c STABLE STRICT ROWS 16 PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanisms';
COMMENT ON FUNCTION @extschema@.dp_mechanisms(OUT kind text, OUT constructor text, OUT bounded boolean, OUT epsilon boolean, OUT rho boolean, OUT options text[], OUT parameters text[], OUT parameter_ranges text[], OUT parameter_defaults text[], OUT auto_rank integer) IS 'every counting mechanism of this version: its constructor, whether it needs a horizon, its privacy forms (epsilon, rho), the options it accepts (pan_private, consistent, keyed, person_level), its own parameters with their ranges and defaults (NULL: required), and its rank for dp_auto (NULL: never chosen)';

CREATE FUNCTION @extschema@.dp_privacy_loss(mechanism @extschema@.dp_mechanism, age bigint) RETURNS double precision
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_privacy_loss_sql';
COMMENT ON FUNCTION @extschema@.dp_privacy_loss(mechanism @extschema@.dp_mechanism, age bigint) IS 'the guaranteed privacy loss of an item (or a person''s oldest contribution) released age steps ago, by all releases so far';

CREATE FUNCTION @extschema@.dp_privacy_loss_curve(mechanism @extschema@.dp_mechanism, max_age bigint) RETURNS TABLE(age bigint, loss double precision)
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
  IF max_age > 1000000 THEN
    RAISE EXCEPTION 'max_age is too large for dp_privacy_loss_curve'
      USING ERRCODE = 'program_limit_exceeded',
            DETAIL = format('max_age was %s; the curve has at most 1000001 rows (ages 0 to 1000000).', max_age),
            HINT = 'Call dp_privacy_loss(mechanism, age) for the ages you need, e.g. powers of two.';
  END IF;
  RETURN QUERY
    SELECT a, @extschema@.dp_privacy_loss(mechanism, a) FROM generate_series(0::bigint, max_age) AS a;
END $$;
COMMENT ON FUNCTION @extschema@.dp_privacy_loss_curve(mechanism @extschema@.dp_mechanism, max_age bigint) IS 'dp_privacy_loss for every age from 0 to max_age';

CREATE FUNCTION @extschema@.dp_rho(mechanism @extschema@.dp_mechanism) RETURNS double precision
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_rho';
COMMENT ON FUNCTION @extschema@.dp_rho(mechanism @extschema@.dp_mechanism) IS 'rho of a zCDP mechanism; NULL for a pure epsilon-DP one';

CREATE FUNCTION @extschema@.dp_zcdp_epsilon(mechanism @extschema@.dp_mechanism, delta double precision) RETURNS double precision
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$ SELECT @extschema@.dp_zcdp_epsilon(@extschema@.dp_rho(mechanism), delta) $$;
COMMENT ON FUNCTION @extschema@.dp_zcdp_epsilon(mechanism @extschema@.dp_mechanism, delta double precision) IS 'the epsilon of the (epsilon, delta)-DP a zCDP mechanism gives (NULL for a pure epsilon-DP one)';

CREATE FUNCTION @extschema@.dp_zcdp_epsilon(rho double precision, delta double precision) RETURNS double precision
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_zcdp_epsilon_sql';
COMMENT ON FUNCTION @extschema@.dp_zcdp_epsilon(rho double precision, delta double precision) IS 'the epsilon of the (epsilon, delta)-DP implied by rho-zCDP';

-- =========================================================================
-- Counting states (dp_counter)
-- =========================================================================
-- A state built, pushed, read, bound to a role and resealed, and the
-- transition and final functions of the dp_count aggregates.

CREATE FUNCTION @extschema@.dp_bind(state @extschema@.dp_counter, role regrole) RETURNS @extschema@.dp_counter
    LANGUAGE c STRICT PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_counter_bind';
COMMENT ON FUNCTION @extschema@.dp_bind(state @extschema@.dp_counter, role regrole) IS 'the same state, usable by another role from now on (needs the privileges of the state''s role and of the new one)';

CREATE FUNCTION @extschema@.dp_bind(state @extschema@.dp_statistic, role regrole) RETURNS @extschema@.dp_statistic
    LANGUAGE c STRICT PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_statistic_bind';
COMMENT ON FUNCTION @extschema@.dp_bind(state @extschema@.dp_statistic, role regrole) IS 'the same state, usable by another role from now on (needs the privileges of the state''s role and of the new one)';

CREATE FUNCTION @extschema@.dp_count_final(internal) RETURNS bigint
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_count_final';
COMMENT ON FUNCTION @extschema@.dp_count_final(internal) IS 'internal: final function of the aggregates of the same name';

CREATE FUNCTION @extschema@.dp_count_state_final(internal) RETURNS @extschema@.dp_counter
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_count_state_final';
COMMENT ON FUNCTION @extschema@.dp_count_state_final(internal) IS 'internal: final function of the aggregates of the same name';

CREATE FUNCTION @extschema@.dp_count_transition(internal, double precision, @extschema@.dp_mechanism) RETURNS internal
    LANGUAGE c PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_count_transition_float8';
COMMENT ON FUNCTION @extschema@.dp_count_transition(internal, double precision, @extschema@.dp_mechanism) IS 'internal: transition function of the aggregates of the same name';

CREATE FUNCTION @extschema@.dp_count_transition(internal, integer, @extschema@.dp_mechanism) RETURNS internal
    LANGUAGE c PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_count_transition_int4';
COMMENT ON FUNCTION @extschema@.dp_count_transition(internal, integer, @extschema@.dp_mechanism) IS 'internal: transition function of the aggregates of the same name';

CREATE FUNCTION @extschema@.dp_count_transition(internal, bigint, @extschema@.dp_mechanism) RETURNS internal
    LANGUAGE c PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_count_transition_int8';
COMMENT ON FUNCTION @extschema@.dp_count_transition(internal, bigint, @extschema@.dp_mechanism) IS 'internal: transition function of the aggregates of the same name';

CREATE FUNCTION @extschema@.dp_counter_new(mechanism @extschema@.dp_mechanism) RETURNS @extschema@.dp_counter
    LANGUAGE c STRICT PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_counter_new';
COMMENT ON FUNCTION @extschema@.dp_counter_new(mechanism @extschema@.dp_mechanism) IS 'a counter state at step 0, to be advanced with dp_push';

CREATE FUNCTION @extschema@.dp_counter_new(mechanism @extschema@.dp_mechanism, repeatable boolean) RETURNS @extschema@.dp_counter
    LANGUAGE c STRICT PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_counter_new';
COMMENT ON FUNCTION @extschema@.dp_counter_new(mechanism @extschema@.dp_mechanism, repeatable boolean) IS 'a counter state at step 0; repeatable: its forks pushed with the same values agree';

CREATE FUNCTION @extschema@.dp_estimate(state @extschema@.dp_counter) RETURNS bigint
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_counter_estimate';
COMMENT ON FUNCTION @extschema@.dp_estimate(state @extschema@.dp_counter) IS 'the release of a stored counter at its current step (draws no noise)';

CREATE FUNCTION @extschema@.dp_estimate(state @extschema@.dp_statistic) RETURNS double precision
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_statistic_estimate_default';
COMMENT ON FUNCTION @extschema@.dp_estimate(state @extschema@.dp_statistic) IS 'the sum, average or sample variance the state''s aggregate releases';

CREATE FUNCTION @extschema@.dp_estimate(state @extschema@.dp_statistic, estimate text) RETURNS double precision
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_statistic_estimate_named';
COMMENT ON FUNCTION @extschema@.dp_estimate(state @extschema@.dp_statistic, estimate text) IS 'sum, count, avg, var_pop, var_samp, stddev_pop or stddev_samp of a state';

CREATE FUNCTION @extschema@.dp_push(state @extschema@.dp_counter, value double precision) RETURNS @extschema@.dp_counter
    LANGUAGE c PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_counter_push_float8';
COMMENT ON FUNCTION @extschema@.dp_push(state @extschema@.dp_counter, value double precision) IS 'the counter one step later, with this step''s value rounded half to even (NULL counts as 0)';

CREATE FUNCTION @extschema@.dp_push(state @extschema@.dp_counter, value bigint) RETURNS @extschema@.dp_counter
    LANGUAGE c PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_counter_push_int8';
COMMENT ON FUNCTION @extschema@.dp_push(state @extschema@.dp_counter, value bigint) IS 'the counter one step later, with this step''s value (NULL counts as 0)';

CREATE FUNCTION @extschema@.dp_push(state @extschema@.dp_statistic, value double precision) RETURNS @extschema@.dp_statistic
    LANGUAGE c PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_statistic_push_float8';
COMMENT ON FUNCTION @extschema@.dp_push(state @extschema@.dp_statistic, value double precision) IS 'the statistic one step later, with this step''s value (NULL or NaN: no observation)';

CREATE FUNCTION @extschema@.dp_push(state @extschema@.dp_statistic, value bigint) RETURNS @extschema@.dp_statistic
    LANGUAGE c PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_statistic_push_int8';
COMMENT ON FUNCTION @extschema@.dp_push(state @extschema@.dp_statistic, value bigint) IS 'the statistic one step later, with this step''s value (NULL: no observation)';

CREATE FUNCTION @extschema@.dp_reseal(state @extschema@.dp_counter) RETURNS @extschema@.dp_counter
    LANGUAGE c STRICT PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_counter_reseal';
COMMENT ON FUNCTION @extschema@.dp_reseal(state @extschema@.dp_counter) IS 'the same state, for the same role, sealed under the newest secret (after a rotation, or for a state written before 0.6.0)';

CREATE FUNCTION @extschema@.dp_reseal(state @extschema@.dp_statistic) RETURNS @extschema@.dp_statistic
    LANGUAGE c STRICT PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_statistic_reseal';
COMMENT ON FUNCTION @extschema@.dp_reseal(state @extschema@.dp_statistic) IS 'the same state, for the same role, sealed under the newest secret (after a rotation, or for a state written before 0.6.0)';

CREATE FUNCTION @extschema@.dp_steps(state @extschema@.dp_counter) RETURNS bigint
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_counter_steps';
COMMENT ON FUNCTION @extschema@.dp_steps(state @extschema@.dp_counter) IS 'the number of steps a stored counter has consumed (a public field)';

CREATE FUNCTION @extschema@.dp_steps(state @extschema@.dp_statistic) RETURNS bigint
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_statistic_steps_sql';
COMMENT ON FUNCTION @extschema@.dp_steps(state @extschema@.dp_statistic) IS 'the number of steps a stored statistic has consumed (a public field)';

-- =========================================================================
-- Sums, averages and variances (dp_statistic)
-- =========================================================================
-- States of clamped sums with their transition and final functions, and
-- dp_summary's one-pass summary (docs/aggregates.md).

CREATE FUNCTION @extschema@.dp_avg_final(internal) RETURNS double precision
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_avg_final';
COMMENT ON FUNCTION @extschema@.dp_avg_final(internal) IS 'internal: final function of the aggregates of the same name';

CREATE FUNCTION @extschema@.dp_avg_transition(internal, double precision, double precision, double precision, @extschema@.dp_mechanism) RETURNS internal
    LANGUAGE c PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_avg_transition';
COMMENT ON FUNCTION @extschema@.dp_avg_transition(internal, double precision, double precision, double precision, @extschema@.dp_mechanism) IS 'internal: transition function of the aggregates of the same name';

CREATE FUNCTION @extschema@.dp_statistic_new(statistic text, lower double precision, upper double precision, mechanism @extschema@.dp_mechanism) RETURNS @extschema@.dp_statistic
    LANGUAGE c STRICT PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_statistic_new';
COMMENT ON FUNCTION @extschema@.dp_statistic_new(statistic text, lower double precision, upper double precision, mechanism @extschema@.dp_mechanism) IS 'a real-valued sum, average or variance state at step 0, to be advanced with dp_push';

CREATE FUNCTION @extschema@.dp_statistic_new(statistic text, lower double precision, upper double precision, mechanism @extschema@.dp_mechanism, repeatable boolean) RETURNS @extschema@.dp_statistic
    LANGUAGE c STRICT PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_statistic_new';
COMMENT ON FUNCTION @extschema@.dp_statistic_new(statistic text, lower double precision, upper double precision, mechanism @extschema@.dp_mechanism, repeatable boolean) IS 'a sum, average or variance state at step 0; repeatable: its forks pushed with the same values agree';

CREATE FUNCTION @extschema@.dp_statistic_state_final(internal) RETURNS @extschema@.dp_statistic
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_statistic_state_final';
COMMENT ON FUNCTION @extschema@.dp_statistic_state_final(internal) IS 'internal: final function of the aggregates of the same name';

CREATE FUNCTION @extschema@.dp_stddev_pop_final(internal) RETURNS double precision
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_stddev_pop_final';
COMMENT ON FUNCTION @extschema@.dp_stddev_pop_final(internal) IS 'internal: final function of the aggregates of the same name';

CREATE FUNCTION @extschema@.dp_stddev_samp_final(internal) RETURNS double precision
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_stddev_samp_final';
COMMENT ON FUNCTION @extschema@.dp_stddev_samp_final(internal) IS 'internal: final function of the aggregates of the same name';

CREATE FUNCTION @extschema@.dp_sum_final(internal) RETURNS double precision
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_sum_final_float8';
COMMENT ON FUNCTION @extschema@.dp_sum_final(internal) IS 'internal: final function of the aggregates of the same name';

CREATE FUNCTION @extschema@.dp_sum_final_bigint(internal) RETURNS bigint
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_sum_final_int8';
COMMENT ON FUNCTION @extschema@.dp_sum_final_bigint(internal) IS 'internal: final function of the aggregates of the same name';

CREATE FUNCTION @extschema@.dp_sum_transition(internal, double precision, double precision, double precision, @extschema@.dp_mechanism) RETURNS internal
    LANGUAGE c PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_sum_transition_float8';
COMMENT ON FUNCTION @extschema@.dp_sum_transition(internal, double precision, double precision, double precision, @extschema@.dp_mechanism) IS 'internal: transition function of the aggregates of the same name';

CREATE FUNCTION @extschema@.dp_sum_transition(internal, integer, integer, integer, @extschema@.dp_mechanism) RETURNS internal
    LANGUAGE c PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_sum_transition_int4';
COMMENT ON FUNCTION @extschema@.dp_sum_transition(internal, integer, integer, integer, @extschema@.dp_mechanism) IS 'internal: transition function of the aggregates of the same name';

CREATE FUNCTION @extschema@.dp_sum_transition(internal, bigint, bigint, bigint, @extschema@.dp_mechanism) RETURNS internal
    LANGUAGE c PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_sum_transition_int8';
COMMENT ON FUNCTION @extschema@.dp_sum_transition(internal, bigint, bigint, bigint, @extschema@.dp_mechanism) IS 'internal: transition function of the aggregates of the same name';

CREATE FUNCTION @extschema@.dp_summary(state @extschema@.dp_statistic) RETURNS @extschema@.dp_summary
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_statistic_summary';
COMMENT ON FUNCTION @extschema@.dp_summary(state @extschema@.dp_statistic) IS 'every estimate a stored sum, average or variance state holds, as one row';

CREATE FUNCTION @extschema@.dp_summary_final(internal) RETURNS @extschema@.dp_summary
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_summary_final';
COMMENT ON FUNCTION @extschema@.dp_summary_final(internal) IS 'internal: final function of the aggregates of the same name';

CREATE FUNCTION @extschema@.dp_var_pop_final(internal) RETURNS double precision
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_var_pop_final';
COMMENT ON FUNCTION @extschema@.dp_var_pop_final(internal) IS 'internal: final function of the aggregates of the same name';

CREATE FUNCTION @extschema@.dp_var_samp_final(internal) RETURNS double precision
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_var_samp_final';
COMMENT ON FUNCTION @extschema@.dp_var_samp_final(internal) IS 'internal: final function of the aggregates of the same name';

CREATE FUNCTION @extschema@.dp_variance_transition(internal, double precision, double precision, double precision, @extschema@.dp_mechanism) RETURNS internal
    LANGUAGE c PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_variance_transition';
COMMENT ON FUNCTION @extschema@.dp_variance_transition(internal, double precision, double precision, double precision, @extschema@.dp_mechanism) IS 'internal: transition function of the aggregates of the same name';

-- =========================================================================
-- Randomized response
-- =========================================================================
-- Local differential privacy for one boolean per person
-- (docs/mechanisms.md).

CREATE FUNCTION @extschema@.dp_randomized_response(value boolean, epsilon double precision) RETURNS boolean
    LANGUAGE c STRICT PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_randomized_response_sql';
COMMENT ON FUNCTION @extschema@.dp_randomized_response(value boolean, epsilon double precision) IS 'keeps the bit with probability e^epsilon / (1 + e^epsilon), flips it otherwise: epsilon-local DP';

CREATE FUNCTION @extschema@.dp_rr_count_final(internal) RETURNS @extschema@.dp_rr_estimate
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_rr_count_final';
COMMENT ON FUNCTION @extschema@.dp_rr_count_final(internal) IS 'internal: final function of the aggregates of the same name';

CREATE FUNCTION @extschema@.dp_rr_count_transition(internal, boolean, double precision) RETURNS internal
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_rr_count_transition';
COMMENT ON FUNCTION @extschema@.dp_rr_count_transition(internal, boolean, double precision) IS 'internal: transition function of the aggregates of the same name';

-- =========================================================================
-- Aggregates
-- =========================================================================
-- Window aggregates over ordered rows: the running noisy values (dp_count,
-- dp_sum, dp_avg, dp_variance, ...) and the states they leave
-- (*_state), for continuing a stream later.

CREATE AGGREGATE @extschema@.dp_avg(value double precision, lower double precision, upper double precision, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_avg_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_avg_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_avg(value double precision, lower double precision, upper double precision, mechanism @extschema@.dp_mechanism) IS 'private running average of values clamped into [lower, upper] (NULL while the noisy count is not positive)';

CREATE AGGREGATE @extschema@.dp_avg_state(value double precision, lower double precision, upper double precision, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_avg_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_statistic_state_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_avg_state(value double precision, lower double precision, upper double precision, mechanism @extschema@.dp_mechanism) IS 'the average state of the stream; plain aggregate only (refused as a window function)';

CREATE AGGREGATE @extschema@.dp_count(double precision, @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_count_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_count_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_count(double precision, @extschema@.dp_mechanism) IS 'private running count of per-step values, rounded half to even and clamped into [0, max_per_step]';

CREATE AGGREGATE @extschema@.dp_count(integer, @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_count_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_count_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_count(integer, @extschema@.dp_mechanism) IS 'private running count (window) or total (aggregate) of per-step values, clamped into [0, max_per_step]';

CREATE AGGREGATE @extschema@.dp_count(bigint, @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_count_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_count_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_count(bigint, @extschema@.dp_mechanism) IS 'private running count (window) or total (aggregate) of per-step values, clamped into [0, max_per_step]';

CREATE AGGREGATE @extschema@.dp_count_state(double precision, @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_count_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_count_state_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_count_state(double precision, @extschema@.dp_mechanism) IS 'the counter state of the stream, to store and continue; plain aggregate only (refused as a window function)';

CREATE AGGREGATE @extschema@.dp_count_state(integer, @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_count_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_count_state_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_count_state(integer, @extschema@.dp_mechanism) IS 'the counter state of the stream, to store and continue; plain aggregate only (refused as a window function)';

CREATE AGGREGATE @extschema@.dp_count_state(bigint, @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_count_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_count_state_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_count_state(bigint, @extschema@.dp_mechanism) IS 'the counter state of the stream, to store and continue; plain aggregate only (refused as a window function)';

CREATE AGGREGATE @extschema@.dp_rr_count(randomized boolean, epsilon double precision) (
    SFUNC = @extschema@.dp_rr_count_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_rr_count_final
);
COMMENT ON AGGREGATE @extschema@.dp_rr_count(randomized boolean, epsilon double precision) IS 'unbiased count of true bits from randomized responses, with its standard deviation';

CREATE AGGREGATE @extschema@.dp_stddev(value double precision, lower double precision, upper double precision, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_variance_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_stddev_samp_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_stddev(value double precision, lower double precision, upper double precision, mechanism @extschema@.dp_mechanism) IS 'private running sample standard deviation of values clamped into [lower, upper]';

CREATE AGGREGATE @extschema@.dp_stddev_pop(value double precision, lower double precision, upper double precision, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_variance_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_stddev_pop_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_stddev_pop(value double precision, lower double precision, upper double precision, mechanism @extschema@.dp_mechanism) IS 'private running population standard deviation of values clamped into [lower, upper]';

CREATE AGGREGATE @extschema@.dp_stddev_samp(value double precision, lower double precision, upper double precision, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_variance_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_stddev_samp_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_stddev_samp(value double precision, lower double precision, upper double precision, mechanism @extschema@.dp_mechanism) IS 'private running sample standard deviation of values clamped into [lower, upper]';

CREATE AGGREGATE @extschema@.dp_sum(value double precision, lower double precision, upper double precision, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_sum_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_sum_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_sum(value double precision, lower double precision, upper double precision, mechanism @extschema@.dp_mechanism) IS 'private running sum of values clamped into [lower, upper]';

CREATE AGGREGATE @extschema@.dp_sum(value integer, lower integer, upper integer, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_sum_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_sum_final_bigint,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_sum(value integer, lower integer, upper integer, mechanism @extschema@.dp_mechanism) IS 'private running sum of integers clamped into [lower, upper], computed exactly';

CREATE AGGREGATE @extschema@.dp_sum(value bigint, lower bigint, upper bigint, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_sum_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_sum_final_bigint,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_sum(value bigint, lower bigint, upper bigint, mechanism @extschema@.dp_mechanism) IS 'private running sum of integers clamped into [lower, upper], computed exactly';

CREATE AGGREGATE @extschema@.dp_sum_state(value double precision, lower double precision, upper double precision, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_sum_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_statistic_state_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_sum_state(value double precision, lower double precision, upper double precision, mechanism @extschema@.dp_mechanism) IS 'the sum state of the stream; plain aggregate only (refused as a window function)';

CREATE AGGREGATE @extschema@.dp_sum_state(value integer, lower integer, upper integer, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_sum_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_statistic_state_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_sum_state(value integer, lower integer, upper integer, mechanism @extschema@.dp_mechanism) IS 'the sum state of the stream; plain aggregate only (refused as a window function)';

CREATE AGGREGATE @extschema@.dp_sum_state(value bigint, lower bigint, upper bigint, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_sum_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_statistic_state_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_sum_state(value bigint, lower bigint, upper bigint, mechanism @extschema@.dp_mechanism) IS 'the sum state of the stream; plain aggregate only (refused as a window function)';

CREATE AGGREGATE @extschema@.dp_summary(value double precision, lower double precision, upper double precision, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_variance_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_summary_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_summary(value double precision, lower double precision, upper double precision, mechanism @extschema@.dp_mechanism) IS 'window-safe: every statistic of the stream at each row from one epsilon (count, centred sum and squares at epsilon/3 each); releases only';

CREATE AGGREGATE @extschema@.dp_var_pop(value double precision, lower double precision, upper double precision, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_variance_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_var_pop_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_var_pop(value double precision, lower double precision, upper double precision, mechanism @extschema@.dp_mechanism) IS 'private running population variance of values clamped into [lower, upper]';

CREATE AGGREGATE @extschema@.dp_var_samp(value double precision, lower double precision, upper double precision, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_variance_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_var_samp_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_var_samp(value double precision, lower double precision, upper double precision, mechanism @extschema@.dp_mechanism) IS 'private running sample variance of values clamped into [lower, upper]';

CREATE AGGREGATE @extschema@.dp_variance(value double precision, lower double precision, upper double precision, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_variance_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_var_samp_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_variance(value double precision, lower double precision, upper double precision, mechanism @extschema@.dp_mechanism) IS 'private running sample variance of values clamped into [lower, upper]';

CREATE AGGREGATE @extschema@.dp_variance_state(value double precision, lower double precision, upper double precision, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_variance_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_statistic_state_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_variance_state(value double precision, lower double precision, upper double precision, mechanism @extschema@.dp_mechanism) IS 'the variance state of the stream; plain aggregate only (refused as a window function)';

-- =========================================================================
-- Rolling windows
-- =========================================================================
-- The rolling forms of the aggregates (docs/rolling.md): dp_rolling_count,
-- dp_rolling_sum, dp_rolling_avg, dp_rolling_variance, dp_rolling_summary
-- and their _state forms take (..., width, mechanism) and run the rolling
-- mechanism of that width made from the mechanism's budget
-- (dp_rolling_of), with the final functions of the running forms.

CREATE FUNCTION @extschema@.dp_rolling_count_transition(internal, double precision, bigint, @extschema@.dp_mechanism) RETURNS internal
    LANGUAGE c PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_rolling_count_transition_float8';
COMMENT ON FUNCTION @extschema@.dp_rolling_count_transition(internal, double precision, bigint, @extschema@.dp_mechanism) IS 'internal: transition function of the aggregates of the same name';

CREATE FUNCTION @extschema@.dp_rolling_count_transition(internal, integer, bigint, @extschema@.dp_mechanism) RETURNS internal
    LANGUAGE c PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_rolling_count_transition_int4';
COMMENT ON FUNCTION @extschema@.dp_rolling_count_transition(internal, integer, bigint, @extschema@.dp_mechanism) IS 'internal: transition function of the aggregates of the same name';

CREATE FUNCTION @extschema@.dp_rolling_count_transition(internal, bigint, bigint, @extschema@.dp_mechanism) RETURNS internal
    LANGUAGE c PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_rolling_count_transition_int8';
COMMENT ON FUNCTION @extschema@.dp_rolling_count_transition(internal, bigint, bigint, @extschema@.dp_mechanism) IS 'internal: transition function of the aggregates of the same name';

CREATE FUNCTION @extschema@.dp_rolling_sum_transition(internal, double precision, double precision, double precision, bigint, @extschema@.dp_mechanism) RETURNS internal
    LANGUAGE c PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_rolling_sum_transition_float8';
COMMENT ON FUNCTION @extschema@.dp_rolling_sum_transition(internal, double precision, double precision, double precision, bigint, @extschema@.dp_mechanism) IS 'internal: transition function of the aggregates of the same name';

CREATE FUNCTION @extschema@.dp_rolling_sum_transition(internal, integer, integer, integer, bigint, @extschema@.dp_mechanism) RETURNS internal
    LANGUAGE c PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_rolling_sum_transition_int4';
COMMENT ON FUNCTION @extschema@.dp_rolling_sum_transition(internal, integer, integer, integer, bigint, @extschema@.dp_mechanism) IS 'internal: transition function of the aggregates of the same name';

CREATE FUNCTION @extschema@.dp_rolling_sum_transition(internal, bigint, bigint, bigint, bigint, @extschema@.dp_mechanism) RETURNS internal
    LANGUAGE c PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_rolling_sum_transition_int8';
COMMENT ON FUNCTION @extschema@.dp_rolling_sum_transition(internal, bigint, bigint, bigint, bigint, @extschema@.dp_mechanism) IS 'internal: transition function of the aggregates of the same name';

CREATE FUNCTION @extschema@.dp_rolling_avg_transition(internal, double precision, double precision, double precision, bigint, @extschema@.dp_mechanism) RETURNS internal
    LANGUAGE c PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_rolling_avg_transition';
COMMENT ON FUNCTION @extschema@.dp_rolling_avg_transition(internal, double precision, double precision, double precision, bigint, @extschema@.dp_mechanism) IS 'internal: transition function of the aggregates of the same name';

CREATE FUNCTION @extschema@.dp_rolling_variance_transition(internal, double precision, double precision, double precision, bigint, @extschema@.dp_mechanism) RETURNS internal
    LANGUAGE c PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_rolling_variance_transition';
COMMENT ON FUNCTION @extschema@.dp_rolling_variance_transition(internal, double precision, double precision, double precision, bigint, @extschema@.dp_mechanism) IS 'internal: transition function of the aggregates of the same name';

CREATE AGGREGATE @extschema@.dp_rolling_avg(value double precision, lower double precision, upper double precision, width bigint, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_rolling_avg_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_avg_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_rolling_avg(value double precision, lower double precision, upper double precision, width bigint, mechanism @extschema@.dp_mechanism) IS 'private average of the last width steps values clamped into [lower, upper] (NULL while the noisy count is not positive), from the rolling mechanism of mechanisms budget';

CREATE AGGREGATE @extschema@.dp_rolling_avg_state(value double precision, lower double precision, upper double precision, width bigint, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_rolling_avg_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_statistic_state_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_rolling_avg_state(value double precision, lower double precision, upper double precision, width bigint, mechanism @extschema@.dp_mechanism) IS 'the rolling average state of the stream; plain aggregate only (refused as a window function)';

CREATE AGGREGATE @extschema@.dp_rolling_count(value double precision, width bigint, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_rolling_count_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_count_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_rolling_count(value double precision, width bigint, mechanism @extschema@.dp_mechanism) IS 'private count of the last width steps (clamped into [0, max_per_step]), from the rolling mechanism of mechanisms budget: error independent of the streams length';

CREATE AGGREGATE @extschema@.dp_rolling_count(value integer, width bigint, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_rolling_count_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_count_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_rolling_count(value integer, width bigint, mechanism @extschema@.dp_mechanism) IS 'private count of the last width steps (clamped into [0, max_per_step]), from the rolling mechanism of mechanisms budget: error independent of the streams length';

CREATE AGGREGATE @extschema@.dp_rolling_count(value bigint, width bigint, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_rolling_count_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_count_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_rolling_count(value bigint, width bigint, mechanism @extschema@.dp_mechanism) IS 'private count of the last width steps (clamped into [0, max_per_step]), from the rolling mechanism of mechanisms budget: error independent of the streams length';

CREATE AGGREGATE @extschema@.dp_rolling_count_state(value double precision, width bigint, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_rolling_count_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_count_state_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_rolling_count_state(value double precision, width bigint, mechanism @extschema@.dp_mechanism) IS 'the rolling counter state of the stream, to store and continue; plain aggregate only (refused as a window function)';

CREATE AGGREGATE @extschema@.dp_rolling_count_state(value integer, width bigint, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_rolling_count_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_count_state_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_rolling_count_state(value integer, width bigint, mechanism @extschema@.dp_mechanism) IS 'the rolling counter state of the stream, to store and continue; plain aggregate only (refused as a window function)';

CREATE AGGREGATE @extschema@.dp_rolling_count_state(value bigint, width bigint, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_rolling_count_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_count_state_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_rolling_count_state(value bigint, width bigint, mechanism @extschema@.dp_mechanism) IS 'the rolling counter state of the stream, to store and continue; plain aggregate only (refused as a window function)';

CREATE AGGREGATE @extschema@.dp_rolling_sum(value double precision, lower double precision, upper double precision, width bigint, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_rolling_sum_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_sum_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_rolling_sum(value double precision, lower double precision, upper double precision, width bigint, mechanism @extschema@.dp_mechanism) IS 'private sum of the last width steps values clamped into [lower, upper], from the rolling mechanism of mechanisms budget';

CREATE AGGREGATE @extschema@.dp_rolling_sum(value integer, lower integer, upper integer, width bigint, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_rolling_sum_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_sum_final_bigint,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_rolling_sum(value integer, lower integer, upper integer, width bigint, mechanism @extschema@.dp_mechanism) IS 'private sum of the last width steps values clamped into [lower, upper], from the rolling mechanism of mechanisms budget';

CREATE AGGREGATE @extschema@.dp_rolling_sum(value bigint, lower bigint, upper bigint, width bigint, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_rolling_sum_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_sum_final_bigint,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_rolling_sum(value bigint, lower bigint, upper bigint, width bigint, mechanism @extschema@.dp_mechanism) IS 'private sum of the last width steps values clamped into [lower, upper], from the rolling mechanism of mechanisms budget';

CREATE AGGREGATE @extschema@.dp_rolling_sum_state(value double precision, lower double precision, upper double precision, width bigint, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_rolling_sum_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_statistic_state_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_rolling_sum_state(value double precision, lower double precision, upper double precision, width bigint, mechanism @extschema@.dp_mechanism) IS 'the rolling sum state of the stream; plain aggregate only (refused as a window function)';

CREATE AGGREGATE @extschema@.dp_rolling_sum_state(value integer, lower integer, upper integer, width bigint, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_rolling_sum_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_statistic_state_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_rolling_sum_state(value integer, lower integer, upper integer, width bigint, mechanism @extschema@.dp_mechanism) IS 'the rolling sum state of the stream; plain aggregate only (refused as a window function)';

CREATE AGGREGATE @extschema@.dp_rolling_sum_state(value bigint, lower bigint, upper bigint, width bigint, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_rolling_sum_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_statistic_state_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_rolling_sum_state(value bigint, lower bigint, upper bigint, width bigint, mechanism @extschema@.dp_mechanism) IS 'the rolling sum state of the stream; plain aggregate only (refused as a window function)';

CREATE AGGREGATE @extschema@.dp_rolling_summary(value double precision, lower double precision, upper double precision, width bigint, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_rolling_variance_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_summary_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_rolling_summary(value double precision, lower double precision, upper double precision, width bigint, mechanism @extschema@.dp_mechanism) IS 'window-safe: every statistic of the last width steps at each row from one epsilon (count, centred sum and squares at epsilon/3 each); releases only';

CREATE AGGREGATE @extschema@.dp_rolling_variance(value double precision, lower double precision, upper double precision, width bigint, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_rolling_variance_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_var_samp_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_rolling_variance(value double precision, lower double precision, upper double precision, width bigint, mechanism @extschema@.dp_mechanism) IS 'private sample variance of the last width steps values clamped into [lower, upper], from the rolling mechanism of mechanisms budget';

CREATE AGGREGATE @extschema@.dp_rolling_variance_state(value double precision, lower double precision, upper double precision, width bigint, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_rolling_variance_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_statistic_state_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_rolling_variance_state(value double precision, lower double precision, upper double precision, width bigint, mechanism @extschema@.dp_mechanism) IS 'the rolling variance state of the stream; plain aggregate only (refused as a window function)';

-- =========================================================================
-- Decayed sums
-- =========================================================================
-- dp_decayed_count and dp_decayed_sum (src/pg/dp_decayed_agg.c): the
-- exponentially decayed sum of the mechanism kind "decayed", as window
-- functions and ordered aggregates (docs/mechanisms.md, "decayed").

CREATE FUNCTION @extschema@.dp_decayed_count_transition(internal, double precision, double precision, @extschema@.dp_mechanism) RETURNS internal
    LANGUAGE c PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_decayed_count_transition_float8';
COMMENT ON FUNCTION @extschema@.dp_decayed_count_transition(internal, double precision, double precision, @extschema@.dp_mechanism) IS 'internal: transition function of the aggregates of the same name';

CREATE FUNCTION @extschema@.dp_decayed_count_transition(internal, integer, double precision, @extschema@.dp_mechanism) RETURNS internal
    LANGUAGE c PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_decayed_count_transition_int4';
COMMENT ON FUNCTION @extschema@.dp_decayed_count_transition(internal, integer, double precision, @extschema@.dp_mechanism) IS 'internal: transition function of the aggregates of the same name';

CREATE FUNCTION @extschema@.dp_decayed_count_transition(internal, bigint, double precision, @extschema@.dp_mechanism) RETURNS internal
    LANGUAGE c PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_decayed_count_transition_int8';
COMMENT ON FUNCTION @extschema@.dp_decayed_count_transition(internal, bigint, double precision, @extschema@.dp_mechanism) IS 'internal: transition function of the aggregates of the same name';

CREATE FUNCTION @extschema@.dp_decayed_sum_transition(internal, double precision, double precision, double precision, double precision, @extschema@.dp_mechanism) RETURNS internal
    LANGUAGE c PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_decayed_sum_transition';
COMMENT ON FUNCTION @extschema@.dp_decayed_sum_transition(internal, double precision, double precision, double precision, double precision, @extschema@.dp_mechanism) IS 'internal: transition function of the aggregates of the same name';

CREATE FUNCTION @extschema@.dp_decayed_final(internal) RETURNS double precision
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_decayed_final';
COMMENT ON FUNCTION @extschema@.dp_decayed_final(internal) IS 'internal: final function of dp_decayed_count and dp_decayed_sum';

CREATE AGGREGATE @extschema@.dp_decayed_count(value double precision, gamma double precision, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_decayed_count_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_decayed_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_decayed_count(value double precision, gamma double precision, mechanism @extschema@.dp_mechanism) IS 'private exponentially decayed count (x, gamma, mechanism): sum of gamma^(t - s) x_s, values rounded half to even and clamped into [0, max_per_step]';

CREATE AGGREGATE @extschema@.dp_decayed_count(value integer, gamma double precision, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_decayed_count_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_decayed_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_decayed_count(value integer, gamma double precision, mechanism @extschema@.dp_mechanism) IS 'private exponentially decayed count (x, gamma, mechanism): sum of gamma^(t - s) x_s, values clamped into [0, max_per_step]';

CREATE AGGREGATE @extschema@.dp_decayed_count(value bigint, gamma double precision, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_decayed_count_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_decayed_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_decayed_count(value bigint, gamma double precision, mechanism @extschema@.dp_mechanism) IS 'private exponentially decayed count (x, gamma, mechanism): sum of gamma^(t - s) x_s, values clamped into [0, max_per_step]';

CREATE AGGREGATE @extschema@.dp_decayed_sum(value double precision, lower double precision, upper double precision, gamma double precision, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_decayed_sum_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_decayed_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_decayed_sum(value double precision, lower double precision, upper double precision, gamma double precision, mechanism @extschema@.dp_mechanism) IS 'private exponentially decayed sum (value, lower, upper, gamma, mechanism): sum of gamma^(t - s) v_s, values clamped into [lower, upper]';

CREATE FUNCTION @extschema@.dp_decayed_state_final(internal) RETURNS @extschema@.dp_counter
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_decayed_state_final';
COMMENT ON FUNCTION @extschema@.dp_decayed_state_final(internal) IS 'internal: final function of dp_decayed_count_state';

CREATE AGGREGATE @extschema@.dp_decayed_count_state(value double precision, gamma double precision, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_decayed_count_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_decayed_state_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_decayed_count_state(value double precision, gamma double precision, mechanism @extschema@.dp_mechanism) IS 'the decayed counter state of the stream, to store and continue with dp_push and read with dp_decayed_estimate; plain aggregate only (refused as a window function)';

CREATE AGGREGATE @extschema@.dp_decayed_count_state(value integer, gamma double precision, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_decayed_count_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_decayed_state_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_decayed_count_state(value integer, gamma double precision, mechanism @extschema@.dp_mechanism) IS 'the decayed counter state of the stream, to store and continue with dp_push and read with dp_decayed_estimate; plain aggregate only (refused as a window function)';

CREATE AGGREGATE @extschema@.dp_decayed_count_state(value bigint, gamma double precision, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_decayed_count_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_decayed_state_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_decayed_count_state(value bigint, gamma double precision, mechanism @extschema@.dp_mechanism) IS 'the decayed counter state of the stream, to store and continue with dp_push and read with dp_decayed_estimate; plain aggregate only (refused as a window function)';

CREATE FUNCTION @extschema@.dp_decayed_estimate(state @extschema@.dp_counter) RETURNS double precision
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_decayed_estimate';
COMMENT ON FUNCTION @extschema@.dp_decayed_estimate(state @extschema@.dp_counter) IS 'the release of a decayed count''s state (dp_decayed_count_state, dp_push), in the values'' units';

-- =========================================================================
-- Internals of the catalog
-- =========================================================================
-- C helpers of the dp_stream schema: ids, secrets, the stream a state is
-- bound to, person tags, ledger amounts, the check of a count's mechanism,
-- and the small SQL helpers of publish and advance.  Not granted to PUBLIC.

CREATE FUNCTION dp_stream.bind_stream(state @extschema@.dp_counter, stream_id bigint) RETURNS @extschema@.dp_counter
    LANGUAGE c STRICT PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_counter_bind_stream';
COMMENT ON FUNCTION dp_stream.bind_stream(state @extschema@.dp_counter, stream_id bigint) IS 'internal: the state tied to a managed stream''s id, for create_stream';

CREATE FUNCTION dp_stream.bind_stream(state @extschema@.dp_statistic, stream_id bigint) RETURNS @extschema@.dp_statistic
    LANGUAGE c STRICT PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_statistic_bind_stream';
COMMENT ON FUNCTION dp_stream.bind_stream(state @extschema@.dp_statistic, stream_id bigint) IS 'internal: the state tied to a managed stream''s id, for create_stream';

CREATE FUNCTION dp_stream.check_count_mechanism(mechanism @extschema@.dp_mechanism) RETURNS void
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_check_count_mechanism';
COMMENT ON FUNCTION dp_stream.check_count_mechanism(mechanism @extschema@.dp_mechanism) IS 'internal: raises 22023 when a count''s mechanism states no max_per_step';

CREATE FUNCTION dp_stream.key_computes(statistic text, lower double precision DEFAULT NULL::double precision, upper double precision DEFAULT NULL::double precision, integer_values boolean DEFAULT false) RETURNS text
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_key_computes';
COMMENT ON FUNCTION dp_stream.key_computes(statistic text, lower double precision, upper double precision, integer_values boolean) IS 'what a key is registered to compute: count, or a statistic with its bounds and value domain';

CREATE FUNCTION dp_stream.keyed_noise_secret() RETURNS bigint
    LANGUAGE c STABLE PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_keyed_noise_secret';
COMMENT ON FUNCTION dp_stream.keyed_noise_secret() IS 'internal: the id of the secret keyed noise draws under in this database, which a key records';

CREATE FUNCTION dp_stream.ledger_amount(epsilon double precision, rounding text) RETURNS numeric
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_ledger_amount';
COMMENT ON FUNCTION dp_stream.ledger_amount(epsilon double precision, rounding text) IS 'epsilon as the ledger records it: its exact value rounded (up, down or nearest) to a multiple of 1e-12';

CREATE FUNCTION dp_stream.observation(partition text, period timestamp without time zone, value double precision DEFAULT 1, person text DEFAULT NULL::text) RETURNS dp_stream.observation
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT ROW(partition, period, value, person)::dp_stream.observation $$;
COMMENT ON FUNCTION dp_stream.observation(partition text, period timestamp without time zone, value double precision, person text) IS 'an observation: partition, period, value (1: one event), person (person-level publications)';

CREATE FUNCTION dp_stream.period_index(first_period timestamp without time zone, period_length interval, t timestamp without time zone) RETURNS bigint
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
  SELECT CASE WHEN extract(epoch FROM t - first_period) % extract(epoch FROM period_length) = 0
              THEN (extract(epoch FROM t - first_period) / extract(epoch FROM period_length))::bigint END
$$;
COMMENT ON FUNCTION dp_stream.period_index(first_period timestamp without time zone, period_length interval, t timestamp without time zone) IS 'internal: k such that t = first_period + k * period_length, or NULL, for publish';

CREATE FUNCTION dp_stream.person_tag(publication text, person text) RETURNS bytea
    LANGUAGE c STABLE STRICT PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_person_tag';
COMMENT ON FUNCTION dp_stream.person_tag(publication text, person text) IS 'internal: a keyed 16-byte tag of a person within a publication, for publish';

CREATE FUNCTION dp_stream.random_id() RETURNS bigint
    LANGUAGE c STRICT PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_random_id';
COMMENT ON FUNCTION dp_stream.random_id() IS 'internal: a random id for a new secret';

CREATE FUNCTION dp_stream.random_secret() RETURNS bytea
    LANGUAGE c STRICT PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_random_secret';
COMMENT ON FUNCTION dp_stream.random_secret() IS 'internal: 32 random bytes for a new secret';

CREATE FUNCTION dp_stream.release_values(statistic text, counter @extschema@.dp_counter, statistic_state @extschema@.dp_statistic, OUT estimate double precision, OUT error_bound double precision, OUT summary @extschema@.dp_summary) RETURNS record
    LANGUAGE sql STABLE
    AS $$
  SELECT CASE WHEN statistic = 'count' THEN @extschema@.dp_estimate(counter)
              WHEN statistic = 'summary' THEN (x.summary).count
              ELSE @extschema@.dp_estimate(statistic_state) END,
         CASE WHEN statistic = 'count' THEN @extschema@.dp_error_bound(counter, 0.95::float8)
              WHEN statistic IN ('sum', 'average')
              THEN @extschema@.dp_error_bound(statistic_state, 0.95::float8) END,
         x.summary
  FROM (SELECT CASE WHEN statistic = 'summary' THEN @extschema@.dp_summary(statistic_state) END
               AS summary) AS x
$$;
COMMENT ON FUNCTION dp_stream.release_values(statistic text, counter @extschema@.dp_counter, statistic_state @extschema@.dp_statistic, OUT estimate double precision, OUT error_bound double precision, OUT summary @extschema@.dp_summary) IS 'internal: the estimate, 95% error bound and summary a release records, for advance and publish';

CREATE FUNCTION dp_stream.require_admin(function regprocedure) RETURNS void
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
  name text := (SELECT p.proname FROM pg_catalog.pg_proc AS p WHERE p.oid = function);
BEGIN
  IF NOT pg_catalog.has_function_privilege(function, 'EXECUTE') THEN
    RAISE EXCEPTION 'permission denied for function %', name
      USING ERRCODE = 'insufficient_privilege',
            HINT = format('dp_stream.%s is for the administrators of dp_stream: a superuser grants it with GRANT dp_stream_admin TO %s.',
                          name, pg_catalog.quote_ident(current_user));
  END IF;
END $$;
COMMENT ON FUNCTION dp_stream.require_admin(function regprocedure) IS 'internal: raises 42501, naming dp_stream_admin, unless the current role may execute the function';

CREATE FUNCTION dp_stream.sealed_secret_id(state @extschema@.dp_counter) RETURNS bigint
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_sealed_secret_id';
COMMENT ON FUNCTION dp_stream.sealed_secret_id(state @extschema@.dp_counter) IS 'internal: the id of the secret a stored dp_counter is sealed under (NULL: not sealed)';

CREATE FUNCTION dp_stream.sealed_secret_id(state @extschema@.dp_statistic) RETURNS bigint
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_sealed_secret_id';
COMMENT ON FUNCTION dp_stream.sealed_secret_id(state @extschema@.dp_statistic) IS 'internal: the id of the secret a stored dp_statistic is sealed under (NULL: not sealed)';

CREATE FUNCTION dp_stream.state_stream(state @extschema@.dp_counter) RETURNS bigint
    LANGUAGE c STABLE STRICT PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_counter_stream_id';
COMMENT ON FUNCTION dp_stream.state_stream(state @extschema@.dp_counter) IS 'internal: the managed stream id a state is tied to (0 for none), for advance';

CREATE FUNCTION dp_stream.state_stream(state @extschema@.dp_statistic) RETURNS bigint
    LANGUAGE c STABLE STRICT PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_statistic_stream_id';
COMMENT ON FUNCTION dp_stream.state_stream(state @extschema@.dp_statistic) IS 'internal: the managed stream id a state is tied to (0 for none), for advance';

CREATE FUNCTION dp_stream.written_by_this_transaction(xmin xid) RETURNS boolean
    LANGUAGE c STABLE STRICT PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_written_by_this_transaction';
COMMENT ON FUNCTION dp_stream.written_by_this_transaction(xmin xid) IS 'internal: whether a row version was written by the current transaction, for advance';

-- =========================================================================
-- Tables
-- =========================================================================
-- The catalog: managed streams and their releases, the privacy-budget ledger
-- (budgets and append-only charges), the database's secrets, registered keys,
-- publications with their persons' contributions, and Citus's transfer
-- table.  The extension's owner owns them; the grants section says who reads
-- them.

CREATE TABLE dp_stream.releases (
    stream text NOT NULL,
    step bigint NOT NULL,
    period timestamp without time zone NOT NULL,
    estimate double precision,
    error_bound double precision,
    summary @extschema@.dp_summary,
    released_at timestamp with time zone DEFAULT now() NOT NULL,
    released_by name DEFAULT SESSION_USER,
    filled_without_data boolean DEFAULT false,
    CONSTRAINT releases_step_check CHECK ((step >= 1))
);
ALTER TABLE ONLY dp_stream.releases
    ADD CONSTRAINT releases_pkey PRIMARY KEY (stream, step);
ALTER TABLE ONLY dp_stream.releases
    ADD CONSTRAINT releases_stream_period_key UNIQUE (stream, period);
COMMENT ON TABLE dp_stream.releases IS 'append-only: one release per stream and period (grant SELECT to readers)';
COMMENT ON COLUMN dp_stream.releases.filled_without_data IS 'true for a period released with no data because a later period was released first (NULL before 0.13.0)';

CREATE TABLE dp_stream.streams (
    name text NOT NULL,
    statistic text NOT NULL,
    mechanism @extschema@.dp_mechanism NOT NULL,
    lower double precision,
    upper double precision,
    first_period timestamp without time zone NOT NULL,
    period_length interval NOT NULL,
    steps bigint DEFAULT 0 NOT NULL,
    counter @extschema@.dp_counter,
    statistic_state @extschema@.dp_statistic,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    created_by name DEFAULT SESSION_USER NOT NULL,
    stream_id bigint NOT NULL,
    publication text,
    partition text,
    CONSTRAINT streams_check CHECK (((statistic = 'count'::text) = (counter IS NOT NULL))),
    CONSTRAINT streams_check1 CHECK (((statistic = 'count'::text) = (statistic_state IS NULL))),
    CONSTRAINT streams_check2 CHECK (((statistic = 'count'::text) = ((lower IS NULL) AND (upper IS NULL)))),
    CONSTRAINT streams_partition_check CHECK (((publication IS NULL) = (partition IS NULL))),
    CONSTRAINT streams_period_length_check CHECK ((period_length > '00:00:00'::interval)),
    CONSTRAINT streams_statistic_check CHECK ((statistic = ANY (ARRAY['count'::text, 'sum'::text, 'average'::text, 'variance'::text, 'summary'::text]))),
    CONSTRAINT streams_steps_check CHECK ((steps >= 0))
)
WITH (fillfactor='50');
ALTER TABLE ONLY dp_stream.streams
    ADD CONSTRAINT streams_pkey PRIMARY KEY (name);
ALTER TABLE ONLY dp_stream.streams
    ADD CONSTRAINT streams_publication_partition_key UNIQUE (publication, partition);
ALTER TABLE ONLY dp_stream.streams
    ADD CONSTRAINT streams_stream_id_key UNIQUE (stream_id);
COMMENT ON TABLE dp_stream.streams IS 'the managed streams with their sealed states: the extension''s owner only';

CREATE TABLE dp_stream.budgets (
    dataset text NOT NULL,
    total_epsilon numeric NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    created_by name DEFAULT CURRENT_USER NOT NULL,
    CONSTRAINT budgets_total_epsilon_check CHECK ((total_epsilon > (0)::numeric))
);
ALTER TABLE ONLY dp_stream.budgets
    ADD CONSTRAINT budgets_pkey PRIMARY KEY (dataset);
COMMENT ON TABLE dp_stream.budgets IS 'privacy budgets: the total epsilon of each dataset';

CREATE TABLE dp_stream.charges (
    id bigint NOT NULL,
    dataset text NOT NULL,
    epsilon numeric NOT NULL,
    purpose text NOT NULL,
    charged_by name DEFAULT SESSION_USER NOT NULL,
    charged_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT charges_epsilon_check CHECK ((epsilon > (0)::numeric))
);

CREATE SEQUENCE dp_stream.charges_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE dp_stream.charges_id_seq OWNED BY dp_stream.charges.id;
COMMENT ON SEQUENCE dp_stream.charges_id_seq IS 'internal: ids of dp_stream.charges';

ALTER TABLE ONLY dp_stream.charges ALTER COLUMN id SET DEFAULT nextval('dp_stream.charges_id_seq'::regclass);
ALTER TABLE ONLY dp_stream.charges
    ADD CONSTRAINT charges_pkey PRIMARY KEY (id);
COMMENT ON TABLE dp_stream.charges IS 'append-only: every epsilon charged, against which budget, on what, by whom, when';

CREATE TABLE dp_stream.citus_transfer (
    "position" integer NOT NULL,
    kind text NOT NULL,
    body text NOT NULL,
    CONSTRAINT citus_transfer_kind_check CHECK ((kind = ANY (ARRAY['secret'::text, 'budget'::text, 'key'::text])))
);
COMMENT ON TABLE dp_stream.citus_transfer IS 'internal: empty; dp_stream.citus_sync_secrets() passes the coordinator''s secrets and keys through it to every node of a Citus cluster';

CREATE TABLE dp_stream.contributions (
    publication text NOT NULL,
    person bytea NOT NULL,
    used bigint NOT NULL,
    CONSTRAINT contributions_used_check CHECK ((used >= 1))
);
ALTER TABLE ONLY dp_stream.contributions
    ADD CONSTRAINT contributions_pkey PRIMARY KEY (publication, person);
COMMENT ON TABLE dp_stream.contributions IS 'per person-level publication and person (a keyed tag), the contributions used so far';

CREATE TABLE dp_stream.keys (
    key text NOT NULL,
    mechanism @extschema@.dp_mechanism NOT NULL,
    used_by regrole NOT NULL,
    computes text NOT NULL,
    dataset text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    created_by name DEFAULT SESSION_USER NOT NULL,
    noise_secret bigint,
    derivation smallint DEFAULT 1 NOT NULL,
    CONSTRAINT keys_derivation_check CHECK ((derivation = ANY (ARRAY[1, 2])))
);
ALTER TABLE ONLY dp_stream.keys
    ADD CONSTRAINT keys_pkey PRIMARY KEY (key);
COMMENT ON TABLE dp_stream.keys IS 'keys of keyed noise, each with the one mechanism, computation and role it may be used with';
COMMENT ON COLUMN dp_stream.keys.noise_secret IS 'the id of the noise secret (dp_stream.secrets) the key draws under; a draw under any other is refused';
-- The derivation of the key's noise terms (0.17.0, docs/keyed_noise.md):
-- 1 for every key registered before 0.17.0, forever (another derivation
-- would release the same data again with independent noise); register_key
-- writes 2.  The default is 1 so that rows without the column (a dump of an
-- older version restored into this one) keep the derivation they drew with.
COMMENT ON COLUMN dp_stream.keys.derivation IS 'how the key''s noise terms are derived: 1 (keys registered before 0.17.0), 2 (registered since: one PRF evaluation a term); fixed for the key''s life';

CREATE TABLE dp_stream.publications (
    name text NOT NULL,
    mechanism @extschema@.dp_mechanism NOT NULL,
    used_by regrole NOT NULL,
    statistic text NOT NULL,
    lower double precision,
    upper double precision,
    integer_values boolean DEFAULT false NOT NULL,
    partition_by text NOT NULL,
    privacy_unit text NOT NULL,
    contributions bigint,
    truncation text NOT NULL,
    partitions_per_person bigint,
    first_period timestamp without time zone NOT NULL,
    period_length interval NOT NULL,
    dataset text,
    epsilon numeric NOT NULL,
    charge bigint,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    created_by name DEFAULT SESSION_USER NOT NULL,
    CONSTRAINT publications_check CHECK (((privacy_unit = 'person'::text) = (contributions IS NOT NULL))),
    CONSTRAINT publications_check1 CHECK (((privacy_unit = 'event'::text) = (truncation = 'none'::text))),
    CONSTRAINT publications_check2 CHECK (((truncation = 'per_partition'::text) = (partitions_per_person IS NOT NULL))),
    CONSTRAINT publications_check3 CHECK (((dataset IS NULL) = (charge IS NULL))),
    CONSTRAINT publications_contributions_check CHECK ((contributions >= 1)),
    CONSTRAINT publications_epsilon_check CHECK ((epsilon > (0)::numeric)),
    CONSTRAINT publications_partitions_per_person_check CHECK ((partitions_per_person >= 1)),
    CONSTRAINT publications_period_length_check CHECK ((period_length > '00:00:00'::interval)),
    CONSTRAINT publications_privacy_unit_check CHECK ((privacy_unit = ANY (ARRAY['event'::text, 'person'::text]))),
    CONSTRAINT publications_statistic_check CHECK ((statistic = ANY (ARRAY['count'::text, 'sum'::text, 'average'::text, 'variance'::text, 'summary'::text]))),
    CONSTRAINT publications_truncation_check CHECK ((truncation = ANY (ARRAY['none'::text, 'across_partitions'::text, 'per_partition'::text])))
);
ALTER TABLE ONLY dp_stream.publications
    ADD CONSTRAINT publications_pkey PRIMARY KEY (name);
COMMENT ON TABLE dp_stream.publications IS 'partitioned publications: what is published, for which privacy unit, and its one charge (append-only)';

CREATE TABLE dp_stream.secrets (
    id bigint NOT NULL,
    purpose text NOT NULL,
    secret bytea NOT NULL,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    CONSTRAINT secrets_purpose_check CHECK ((purpose = ANY (ARRAY['seal'::text, 'noise'::text, 'table_noise'::text]))),
    CONSTRAINT secrets_secret_check CHECK ((length(secret) = 32))
);
ALTER TABLE ONLY dp_stream.secrets ALTER COLUMN secret SET STATISTICS 0;
ALTER TABLE ONLY dp_stream.secrets
    ADD CONSTRAINT secrets_pkey PRIMARY KEY (id);
COMMENT ON TABLE dp_stream.secrets IS 'the database''s sealing and noise secrets: superusers only; dumped with the database';

ALTER TABLE ONLY dp_stream.charges
    ADD CONSTRAINT charges_dataset_fkey FOREIGN KEY (dataset) REFERENCES dp_stream.budgets(dataset);

ALTER TABLE ONLY dp_stream.contributions
    ADD CONSTRAINT contributions_publication_fkey FOREIGN KEY (publication) REFERENCES dp_stream.publications(name);

ALTER TABLE ONLY dp_stream.keys
    ADD CONSTRAINT keys_dataset_fkey FOREIGN KEY (dataset) REFERENCES dp_stream.budgets(dataset);

ALTER TABLE ONLY dp_stream.publications
    ADD CONSTRAINT publications_charge_fkey FOREIGN KEY (charge) REFERENCES dp_stream.charges(id);

ALTER TABLE ONLY dp_stream.publications
    ADD CONSTRAINT publications_dataset_fkey FOREIGN KEY (dataset) REFERENCES dp_stream.budgets(dataset);

ALTER TABLE ONLY dp_stream.publications
    ADD CONSTRAINT publications_name_fkey FOREIGN KEY (name) REFERENCES dp_stream.keys(key);

ALTER TABLE ONLY dp_stream.releases
    ADD CONSTRAINT releases_stream_fkey FOREIGN KEY (stream) REFERENCES dp_stream.streams(name);

ALTER TABLE ONLY dp_stream.streams
    ADD CONSTRAINT streams_publication_fkey FOREIGN KEY (publication) REFERENCES dp_stream.publications(name);

-- pg_dump dumps the contents of every table of the catalog (and the
-- sequence of the ledger's charges) with the database.
SELECT pg_catalog.pg_extension_config_dump('dp_stream.streams', '');
SELECT pg_catalog.pg_extension_config_dump('dp_stream.releases', '');
SELECT pg_catalog.pg_extension_config_dump('dp_stream.budgets', '');
SELECT pg_catalog.pg_extension_config_dump('dp_stream.charges', '');
SELECT pg_catalog.pg_extension_config_dump('dp_stream.charges_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('dp_stream.secrets', '');
SELECT pg_catalog.pg_extension_config_dump('dp_stream.keys', '');
SELECT pg_catalog.pg_extension_config_dump('dp_stream.publications', '');
SELECT pg_catalog.pg_extension_config_dump('dp_stream.contributions', '');

-- =========================================================================
-- Guards
-- =========================================================================
-- Trigger functions that keep the catalog append-only, refuse a name or a
-- mechanism that cannot be stored, and keep the ledger on a Citus
-- coordinator.

CREATE FUNCTION dp_stream.catalog_on_coordinator() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
  IF dp_stream.citus_worker() THEN
    RAISE EXCEPTION 'dp_stream.% is written on the coordinator of a Citus cluster', TG_TABLE_NAME
      USING ERRCODE = 'object_not_in_prerequisite_state',
            DETAIL = 'Budgets, managed streams and publications are the coordinator''s: made or advanced on a worker, they would release and charge outside the cluster''s ledger.',
            HINT = 'Connect to the coordinator and run it there.';
  END IF;
  IF TG_OP = 'DELETE' THEN
    RETURN OLD;
  END IF;
  RETURN NEW;
END $$;
COMMENT ON FUNCTION dp_stream.catalog_on_coordinator() IS 'internal: refuses rows of budgets, streams, publications and releases written on a Citus worker (trigger)';

CREATE FUNCTION dp_stream.charges_on_coordinator() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
  IF dp_stream.citus_worker() THEN
    RAISE EXCEPTION 'epsilon is charged on the coordinator of a Citus cluster'
      USING ERRCODE = 'object_not_in_prerequisite_state',
            DETAIL = 'The budgets are the coordinator''s: a charge made on a worker would not count against them.',
            HINT = 'Connect to the coordinator: charge, and create keys, publications and streams that charge a dataset, there.';
  END IF;
  RETURN NULL;
END $$;
COMMENT ON FUNCTION dp_stream.charges_on_coordinator() IS 'internal: refuses a charge on a Citus worker (trigger on dp_stream.charges)';

CREATE FUNCTION dp_stream.check_key_mechanism() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
  PERFORM dp_stream.check_count_mechanism(NEW.mechanism);
  RETURN NEW;
END $$;
COMMENT ON FUNCTION dp_stream.check_key_mechanism() IS 'internal: refuses a count''s key without a stated max_per_step (trigger on dp_stream.keys)';

CREATE FUNCTION dp_stream.check_publication_mechanism() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
  units bigint := pg_catalog.substring(NEW.mechanism::text, ',contributions=([0-9]+)')::bigint;
BEGIN
  IF units IS DISTINCT FROM NEW.contributions
     OR @extschema@.dp_key_of(NEW.mechanism) IS DISTINCT FROM NEW.name THEN
    RAISE EXCEPTION 'the mechanism of publication "%" does not match its privacy unit', NEW.name
      USING ERRCODE = 'invalid_parameter_value',
            DETAIL = format('The privacy unit is %s%s; the mechanism is %s.', NEW.privacy_unit,
                            CASE WHEN NEW.contributions IS NOT NULL
                                 THEN format(' with %s contributions', NEW.contributions) ELSE '' END,
                            NEW.mechanism),
            HINT = 'Register publications with dp_stream.create_publication and the plain mechanism: it applies dp_person_level itself.';
  END IF;
  RETURN NEW;
END $$;
COMMENT ON FUNCTION dp_stream.check_publication_mechanism() IS 'internal trigger: a publication''s mechanism is person-level with its k exactly when its privacy unit is a person';

CREATE FUNCTION dp_stream.check_stream_name() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
  IF TG_TABLE_NAME = 'streams' THEN
    IF pg_catalog.strpos(NEW.name, '/') > 0
       AND EXISTS (SELECT 1 FROM dp_stream.publications AS p
                   WHERE p.name = pg_catalog.split_part(NEW.name, '/', 1)) THEN
      RAISE EXCEPTION 'stream "%" would take the name of a partition of publication "%"',
                      NEW.name, pg_catalog.split_part(NEW.name, '/', 1)
        USING ERRCODE = 'duplicate_object',
              DETAIL = 'A partition of a publication is the managed stream named publication/partition.',
              HINT = 'Choose a name that does not start with a publication''s name and "/".';
    END IF;
  ELSIF EXISTS (SELECT 1 FROM dp_stream.streams AS s
                WHERE s.publication IS NULL AND pg_catalog.starts_with(s.name, NEW.name || '/')) THEN
    RAISE EXCEPTION 'publication "%" would share its partitions'' names with existing streams', NEW.name
      USING ERRCODE = 'duplicate_object',
            DETAIL = format('A partition is the managed stream named %s/partition; stream "%s" exists.',
                            NEW.name,
                            (SELECT min(s.name) FROM dp_stream.streams AS s
                             WHERE s.publication IS NULL AND pg_catalog.starts_with(s.name, NEW.name || '/'))),
            HINT = 'Choose another name for the publication.';
  END IF;
  RETURN NEW;
END $$;
COMMENT ON FUNCTION dp_stream.check_stream_name() IS 'internal trigger: an ordinary stream never has the name of a publication''s partition (publication/partition)';

CREATE FUNCTION dp_stream.refuse_change() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  RAISE EXCEPTION '%.% is append-only', TG_TABLE_SCHEMA, TG_TABLE_NAME
    USING ERRCODE = 'insufficient_privilege',
          DETAIL = 'A release or a budget charge, once made, is final: removing it would let the same period be released again with new noise, or the same epsilon be spent twice.',
          HINT = 'Releases are written by dp_stream.advance() and charges by dp_stream.charge() only.';
END $$;
COMMENT ON FUNCTION dp_stream.refuse_change() IS 'internal: the trigger that keeps releases, charges and keys append-only';

-- =========================================================================
-- Secrets
-- =========================================================================
-- Rotation of the sealing secret, dropping an old one, and the switch of
-- keyed noise to the table sampler (docs/threat_model.md).

CREATE FUNCTION dp_stream.drop_secret(secret_id bigint) RETURNS void
    LANGUAGE plpgsql STRICT
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
  s dp_stream.secrets;
BEGIN
  SELECT * INTO s FROM dp_stream.secrets WHERE id = secret_id;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'dp_stream secret % does not exist', secret_id USING ERRCODE = 'undefined_object';
  END IF;
  IF s.purpose IN ('noise', 'table_noise') THEN
    RAISE EXCEPTION 'a noise secret cannot be dropped'
      USING ERRCODE = 'object_in_use',
            DETAIL = 'Every keyed release depends on it: without it, the same data would be released again with new noise.';
  END IF;
  IF NOT EXISTS (SELECT 1 FROM dp_stream.secrets t
                 WHERE t.purpose = 'seal' AND (t.created_at, t.id) > (s.created_at, s.id)) THEN
    RAISE EXCEPTION 'the newest sealing secret cannot be dropped'
      USING ERRCODE = 'object_in_use', HINT = 'Rotate first: SELECT dp_stream.rotate_secret().';
  END IF;
  DELETE FROM dp_stream.secrets WHERE id = secret_id;
  -- every node drops it too, unless one still holds states sealed under it
  PERFORM dp_stream.citus_sync(false);
END $$;
COMMENT ON FUNCTION dp_stream.drop_secret(secret_id bigint) IS 'drops an old sealing secret; values still sealed under it no longer open (superusers)';

CREATE FUNCTION dp_stream.rotate_secret() RETURNS bigint
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
  new_id bigint;
BEGIN
  IF current_setting('transaction_isolation') <> 'read committed' THEN
    RAISE EXCEPTION 'dp_stream.rotate_secret() must run in a READ COMMITTED transaction'
      USING ERRCODE = 'invalid_transaction_state',
            DETAIL = 'Its snapshot would predate the writers it waits for, and a reseal in the same transaction would miss what they sealed.',
            HINT = 'Run it alone (autocommit) at the default isolation level, then reseal.';
  END IF;
  LOCK TABLE dp_stream.secrets IN EXCLUSIVE MODE;
  new_id := dp_stream.random_id();
  INSERT INTO dp_stream.secrets (id, purpose, secret)
  VALUES (new_id, 'seal', dp_stream.random_secret());
  -- the catalog's states move to the new secret at once; values in other
  -- tables keep opening under the old one until they are resealed
  UPDATE dp_stream.streams
     SET counter = @extschema@.dp_reseal(counter),
         statistic_state = @extschema@.dp_reseal(statistic_state);
  PERFORM dp_stream.citus_sync(false);
  RETURN new_id;
END $$;
COMMENT ON FUNCTION dp_stream.rotate_secret() IS 'creates a new sealing secret, after every transaction that sealed under the old one has ended; reseals the stream catalog under it and returns its id (superusers)';

CREATE FUNCTION dp_stream.use_table_sampler_for_keyed_noise() RETURNS bigint
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
  found_id bigint;
BEGIN
  SELECT id INTO found_id FROM dp_stream.secrets WHERE purpose = 'table_noise'
   ORDER BY created_at, id LIMIT 1;
  IF FOUND THEN
    RETURN found_id;
  END IF;
  found_id := dp_stream.random_id();
  INSERT INTO dp_stream.secrets (id, purpose, secret)
  VALUES (found_id, 'table_noise', dp_stream.random_secret());
  RAISE WARNING 'keyed noise now draws with the table sampler under a new secret'
    USING DETAIL = 'Every keyed stream computed again from its data releases new noise once: '
                   'with the releases seen before, that is a second epsilon for each of them.',
          HINT = 'Switch before anything keyed is published, or charge the registered budgets once more.';
  ALTER TABLE dp_stream.keys DISABLE TRIGGER keys_append_only;
  UPDATE dp_stream.keys SET noise_secret = found_id;
  ALTER TABLE dp_stream.keys ENABLE TRIGGER keys_append_only;
  PERFORM dp_stream.citus_sync(false);
  RETURN found_id;
END $$;
COMMENT ON FUNCTION dp_stream.use_table_sampler_for_keyed_noise() IS 'keyed noise draws with the constant-time table sampler under a new secret, from now on; returns its id (superusers; once for good)';

-- =========================================================================
-- The privacy-budget ledger
-- =========================================================================
-- Budgets per dataset and charges against them (docs/managed_streams.md).
-- Each entry point is a wrapper in dp_stream that checks its caller and calls
-- the function of the same name in dp_stream_private.

CREATE FUNCTION dp_stream.budget(dataset text, OUT total_epsilon numeric, OUT spent_epsilon numeric, OUT remaining_epsilon numeric, OUT charges bigint) RETURNS record
    LANGUAGE sql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  SELECT dp_stream.require_admin('dp_stream_private.budget(text)');
  SELECT * FROM dp_stream_private.budget(dataset);
$$;
COMMENT ON FUNCTION dp_stream.budget(dataset text, OUT total_epsilon numeric, OUT spent_epsilon numeric, OUT remaining_epsilon numeric, OUT charges bigint) IS 'total, spent and remaining epsilon of a dataset';

CREATE FUNCTION dp_stream.charge(dataset text, epsilon double precision, purpose text) RETURNS numeric
    LANGUAGE sql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  SELECT dp_stream.require_admin('dp_stream_private.charge(text, double precision, text)'), dp_stream.require_coordinator('dp_stream.charge');
  SELECT * FROM dp_stream_private.charge(dataset, epsilon, purpose);
$$;
COMMENT ON FUNCTION dp_stream.charge(dataset text, epsilon double precision, purpose text) IS 'charges epsilon against a dataset''s budget and returns what is left; refused beyond the budget';

CREATE FUNCTION dp_stream.create_budget(dataset text, total_epsilon double precision) RETURNS void
    LANGUAGE sql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  SELECT dp_stream.require_admin('dp_stream_private.create_budget(text, double precision)'), dp_stream.require_coordinator('dp_stream.create_budget');
  SELECT * FROM dp_stream_private.create_budget(dataset, total_epsilon);
$$;
COMMENT ON FUNCTION dp_stream.create_budget(dataset text, total_epsilon double precision) IS 'creates a privacy budget: the total epsilon all releases about a dataset may spend';

CREATE FUNCTION dp_stream_private.budget(dataset text, OUT total_epsilon numeric, OUT spent_epsilon numeric, OUT remaining_epsilon numeric, OUT charges bigint) RETURNS record
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  SELECT b.total_epsilon, coalesce(sum(c.epsilon), 0), b.total_epsilon - coalesce(sum(c.epsilon), 0),
         count(c.id)
  FROM dp_stream.budgets b LEFT JOIN dp_stream.charges c ON c.dataset = b.dataset
  WHERE b.dataset = budget.dataset
  GROUP BY b.total_epsilon $$;
COMMENT ON FUNCTION dp_stream_private.budget(dataset text, OUT total_epsilon numeric, OUT spent_epsilon numeric, OUT remaining_epsilon numeric, OUT charges bigint) IS 'total, spent and remaining epsilon of a dataset';

CREATE FUNCTION dp_stream_private.charge(dataset text, epsilon double precision, purpose text) RETURNS numeric
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
  total numeric;
  spent numeric;
  amount numeric;
BEGIN
  IF dataset IS NULL OR epsilon IS NULL OR purpose IS NULL THEN
    RAISE EXCEPTION 'dataset, epsilon and purpose must not be null' USING ERRCODE = 'null_value_not_allowed';
  END IF;
  IF NOT (epsilon > 0 AND epsilon < 'Infinity') THEN
    RAISE EXCEPTION 'a charge must be positive and finite'
      USING ERRCODE = 'invalid_parameter_value', DETAIL = format('epsilon was %s.', epsilon);
  END IF;
  -- rounded up: the ledger never records less than is spent
  amount := dp_stream.ledger_amount(epsilon, 'up');
  -- a charge must survive a crash (see advance)
  PERFORM pg_catalog.set_config('synchronous_commit', 'on', true);
  UPDATE dp_stream.budgets AS b SET total_epsilon = b.total_epsilon
   WHERE b.dataset = charge.dataset
  RETURNING b.total_epsilon INTO total;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'budget "%" does not exist', dataset
      USING ERRCODE = 'undefined_object', HINT = 'Create it with dp_stream.create_budget().';
  END IF;
  SELECT coalesce(sum(c.epsilon), 0) INTO spent FROM dp_stream.charges AS c WHERE c.dataset = charge.dataset;
  IF spent + amount > total THEN
    RAISE EXCEPTION 'privacy budget of "%" exceeded', dataset
      USING ERRCODE = 'insufficient_resources',
            DETAIL = format('%s is spent of %s; %s more was asked for %s.', spent, total, amount, purpose),
            HINT = 'Spend less epsilon, or raise the budget deliberately (it bounds what all releases of the dataset reveal together).';
  END IF;
  INSERT INTO dp_stream.charges (dataset, epsilon, purpose) VALUES (dataset, amount, purpose);
  RETURN total - spent - amount;
END $$;
COMMENT ON FUNCTION dp_stream_private.charge(dataset text, epsilon double precision, purpose text) IS 'charges epsilon against a dataset''s budget and returns what is left; refused beyond the budget';

CREATE FUNCTION dp_stream_private.create_budget(dataset text, total_epsilon double precision) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
  total numeric;
BEGIN
  IF dataset IS NULL OR total_epsilon IS NULL THEN
    RAISE EXCEPTION 'dataset and total_epsilon must not be null' USING ERRCODE = 'null_value_not_allowed';
  END IF;
  IF NOT (total_epsilon > 0 AND total_epsilon < 'Infinity') THEN
    RAISE EXCEPTION 'total_epsilon must be positive and finite'
      USING ERRCODE = 'invalid_parameter_value', DETAIL = format('total_epsilon was %s.', total_epsilon);
  END IF;
  -- the decimal that was typed, to 12 places
  total := dp_stream.ledger_amount(total_epsilon, 'nearest');
  IF total = 0 THEN
    RAISE EXCEPTION 'total_epsilon is too small for the ledger'
      USING ERRCODE = 'invalid_parameter_value',
            DETAIL = format('total_epsilon was %s; the ledger counts epsilon in units of 1e-12 and rounds a total to the nearest unit, here 0.',
                            total_epsilon),
            HINT = 'Give a total of at least 1e-12.';
  END IF;
  INSERT INTO dp_stream.budgets (dataset, total_epsilon) VALUES (dataset, total);
EXCEPTION WHEN unique_violation THEN
  RAISE EXCEPTION 'budget "%" already exists', dataset USING ERRCODE = 'duplicate_object';
END $$;
COMMENT ON FUNCTION dp_stream_private.create_budget(dataset text, total_epsilon double precision) IS 'creates a privacy budget: the total epsilon all releases about a dataset may spend';

-- =========================================================================
-- Keys
-- =========================================================================
-- Keyed mechanisms registered once, with their dataset's charge
-- (docs/keyed_noise.md).

CREATE FUNCTION dp_stream.create_key(key text, mechanism @extschema@.dp_mechanism, dataset text DEFAULT NULL::text, used_by regrole DEFAULT NULL::regrole, statistic text DEFAULT 'count'::text, lower double precision DEFAULT NULL::double precision, upper double precision DEFAULT NULL::double precision, integer_values boolean DEFAULT false) RETURNS @extschema@.dp_mechanism
    LANGUAGE sql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  SELECT dp_stream.require_admin('dp_stream_private.create_key(text, @extschema@.dp_mechanism, text, regrole, text, double precision, double precision, boolean)'), dp_stream.require_coordinator('dp_stream.create_key');
  SELECT * FROM dp_stream_private.create_key(key, mechanism, dataset, used_by, statistic, lower, upper, integer_values);
$$;
COMMENT ON FUNCTION dp_stream.create_key(key text, mechanism @extschema@.dp_mechanism, dataset text, used_by regrole, statistic text, lower double precision, upper double precision, integer_values boolean) IS 'registers a key for keyed noise with its mechanism, computation and role, charges its epsilon once, returns the keyed mechanism';

CREATE FUNCTION dp_stream.register_key(key text, mechanism @extschema@.dp_mechanism, dataset text, used_by regrole, computes text) RETURNS @extschema@.dp_mechanism
    LANGUAGE sql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  SELECT dp_stream.require_admin('dp_stream_private.register_key(text, @extschema@.dp_mechanism, text, regrole, text)'), dp_stream.require_coordinator('dp_stream.register_key');
  SELECT * FROM dp_stream_private.register_key(key, mechanism, dataset, used_by, computes);
$$;
COMMENT ON FUNCTION dp_stream.register_key(key text, mechanism @extschema@.dp_mechanism, dataset text, used_by regrole, computes text) IS 'internal: writes a key registration for create_key, as the extension''s owner';

CREATE FUNCTION dp_stream_private.create_key(key text, mechanism @extschema@.dp_mechanism, dataset text DEFAULT NULL::text, used_by regrole DEFAULT NULL::regrole, statistic text DEFAULT 'count'::text, lower double precision DEFAULT NULL::double precision, upper double precision DEFAULT NULL::double precision, integer_values boolean DEFAULT false) RETURNS @extschema@.dp_mechanism
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
  computes text;
BEGIN
  IF key IS NULL OR mechanism IS NULL OR statistic IS NULL THEN
    RAISE EXCEPTION 'key, mechanism and statistic must not be null'
      USING ERRCODE = 'null_value_not_allowed';
  END IF;
  -- the statistic, its bounds and its value domain (key_computes checks them)
  computes := dp_stream.key_computes(statistic, lower, upper, coalesce(integer_values, false));
  -- and that the mechanism suits the statistic, as the aggregates check it
  -- (a count's needs a stated max_per_step, since 0.14.0)
  IF statistic <> 'count' THEN
    PERFORM @extschema@.dp_statistic_new(statistic, lower, upper, mechanism);
  ELSE
    PERFORM dp_stream.check_count_mechanism(mechanism);
  END IF;
  -- the default role is the caller's current role (under SET ROLE too):
  -- this function runs as the caller, register_key as the owner
  RETURN dp_stream.register_key(key, mechanism, dataset,
                                coalesce(used_by, current_user::regrole), computes);
END $$;
COMMENT ON FUNCTION dp_stream_private.create_key(key text, mechanism @extschema@.dp_mechanism, dataset text, used_by regrole, statistic text, lower double precision, upper double precision, integer_values boolean) IS 'registers a key for keyed noise with its mechanism, computation and role, charges its epsilon once, returns the keyed mechanism';

CREATE FUNCTION dp_stream_private.register_key(key text, mechanism @extschema@.dp_mechanism, dataset text, used_by regrole, computes text) RETURNS @extschema@.dp_mechanism
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
  keyed @extschema@.dp_mechanism;
BEGIN
  IF key IS NULL OR mechanism IS NULL OR used_by IS NULL OR computes IS NULL THEN
    RAISE EXCEPTION 'key, mechanism, used_by and computes must not be null'
      USING ERRCODE = 'null_value_not_allowed';
  END IF;
  IF NOT pg_catalog.pg_has_role(session_user, used_by, 'MEMBER') THEN
    RAISE EXCEPTION 'a key can be registered only for a role one is a member of'
      USING ERRCODE = 'insufficient_privilege', DETAIL = format('Role %s is not a member of %s.', session_user, used_by), HINT = format('Register the key for a role %s is a member of, or have a superuser run GRANT %s TO %s first.', session_user, used_by, pg_catalog.quote_ident(session_user));
  END IF;
  keyed := @extschema@.dp_keyed(mechanism, key);
  INSERT INTO dp_stream.keys (key, mechanism, used_by, computes, dataset, noise_secret, derivation)
  VALUES (key, keyed, used_by, computes, dataset, dp_stream.keyed_noise_secret(), 2);
  IF dataset IS NOT NULL THEN
    PERFORM dp_stream.charge(dataset, @extschema@.dp_epsilon(keyed), format('key %s', key));
  END IF;
  PERFORM dp_stream.citus_sync(false); RETURN keyed;
EXCEPTION WHEN unique_violation THEN
  RAISE EXCEPTION 'key "%" already exists', key
    USING ERRCODE = 'duplicate_object',
          HINT = 'A key is registered once; use the mechanism it was registered with (see dp_stream.keys).';
END $$;
COMMENT ON FUNCTION dp_stream_private.register_key(key text, mechanism @extschema@.dp_mechanism, dataset text, used_by regrole, computes text) IS 'internal: writes a key registration for create_key, as the extension''s owner';

-- =========================================================================
-- Managed streams
-- =========================================================================
-- A stream is created once and advanced one period at a time; every period
-- is released exactly once (docs/managed_streams.md).

CREATE FUNCTION dp_stream.advance(name text, observations dp_stream.observation[]) RETURNS dp_stream.advance_result
    LANGUAGE sql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  SELECT dp_stream.require_admin('dp_stream_private.advance(text, dp_stream.observation[])'), dp_stream.require_coordinator('dp_stream.advance');
  SELECT * FROM dp_stream_private.advance(name, observations);
$$;
COMMENT ON FUNCTION dp_stream.advance(name text, observations dp_stream.observation[]) IS 'catches a stream up: releases every period to the last observation''s, each with its data, in one call';

SET default_tablespace = '';

SET default_table_access_method = heap;

CREATE FUNCTION dp_stream.advance(name text, period timestamp without time zone, value double precision) RETURNS dp_stream.releases
    LANGUAGE sql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  SELECT dp_stream.require_admin('dp_stream_private.advance(text, timestamp without time zone, double precision)'), dp_stream.require_coordinator('dp_stream.advance');
  SELECT * FROM dp_stream_private.advance(name, period, value);
$$;
COMMENT ON FUNCTION dp_stream.advance(name text, period timestamp without time zone, value double precision) IS 'consumes one period of a managed stream and returns its release, exactly once per period';

CREATE FUNCTION dp_stream.create_stream(name text, statistic text, mechanism @extschema@.dp_mechanism, lower double precision DEFAULT NULL::double precision, upper double precision DEFAULT NULL::double precision, first_period timestamp without time zone DEFAULT date_trunc('day'::text, LOCALTIMESTAMP), period_length interval DEFAULT '1 day'::interval, dataset text DEFAULT NULL::text) RETURNS void
    LANGUAGE sql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  SELECT dp_stream.require_admin('dp_stream_private.create_stream(text, text, @extschema@.dp_mechanism, double precision, double precision, timestamp without time zone, interval, text)'), dp_stream.require_coordinator('dp_stream.create_stream');
  SELECT * FROM dp_stream_private.create_stream(name, statistic, mechanism, lower, upper, first_period, period_length, dataset);
$$;
COMMENT ON FUNCTION dp_stream.create_stream(name text, statistic text, mechanism @extschema@.dp_mechanism, lower double precision, upper double precision, first_period timestamp without time zone, period_length interval, dataset text) IS 'registers a managed stream; its state stays in dp_stream.streams';

CREATE FUNCTION dp_stream.push_period(s dp_stream.streams, period timestamp without time zone, value double precision, filled_without_data boolean) RETURNS dp_stream.streams
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
  r record;
BEGIN
  s.steps := s.steps + 1;
  IF s.statistic = 'count' THEN
    s.counter := @extschema@.dp_push(s.counter, coalesce(value, 0::float8));
  ELSE
    s.statistic_state := @extschema@.dp_push(s.statistic_state, value);
  END IF;
  r := dp_stream.release_values(s.statistic, s.counter, s.statistic_state);
  INSERT INTO dp_stream.releases (stream, step, period, estimate, error_bound, summary,
                                  filled_without_data)
  VALUES (s.name, s.steps, period, r.estimate, r.error_bound, r.summary, filled_without_data);
  RETURN s;
END $$;
COMMENT ON FUNCTION dp_stream.push_period(s dp_stream.streams, period timestamp without time zone, value double precision, filled_without_data boolean) IS 'internal: pushes one period into a stream and records its release, for advance';

CREATE FUNCTION dp_stream.stream_for_advance(name text) RETURNS dp_stream.streams
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
  s dp_stream.streams;
  row_xmin xid;
  state_id bigint;
  state_steps bigint;
  released bigint;
  mechanism_text text;
BEGIN
  -- a release that was returned must survive a crash: with asynchronous
  -- commit it could be lost and the period released again with new noise
  PERFORM pg_catalog.set_config('synchronous_commit', 'on', true);
  -- serializes the advances of one stream; other streams are not blocked
  SELECT * INTO s FROM dp_stream.streams AS t WHERE t.name = stream_for_advance.name FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'stream "%" does not exist', name USING ERRCODE = 'undefined_object';
  END IF;
  -- a partition moves with its publication: advanced alone, it would
  -- release a period the others have not, or miss one they have
  IF s.publication IS NOT NULL THEN
    RAISE EXCEPTION 'stream "%" is a partition of publication "%"', s.name, s.publication
      USING ERRCODE = 'wrong_object_type',
            HINT = 'Advance the publication with dp_stream.publish.';
  END IF;
  -- releases drawn in the transaction that creates the stream would be
  -- seen (and could be copied) even if the creation, and its charge, roll
  -- back: a row at step 0 written by this transaction is a new stream
  SELECT t.xmin INTO row_xmin FROM dp_stream.streams AS t WHERE t.name = s.name;
  IF s.steps = 0 AND dp_stream.written_by_this_transaction(row_xmin) THEN
    RAISE EXCEPTION 'stream "%" was created in this transaction', s.name
      USING ERRCODE = 'object_not_in_prerequisite_state',
            DETAIL = 'A stream whose creation rolls back must have released nothing.',
            HINT = 'Commit the transaction that creates the stream, then advance it.';
  END IF;
  IF s.statistic = 'count' THEN
    state_id := dp_stream.state_stream(s.counter);
    state_steps := @extschema@.dp_steps(s.counter);
    mechanism_text := @extschema@.dp_mechanism(s.counter)::text;
  ELSE
    state_id := dp_stream.state_stream(s.statistic_state);
    state_steps := @extschema@.dp_steps(s.statistic_state);
    mechanism_text := @extschema@.dp_mechanism(s.statistic_state)::text;
  END IF;
  SELECT coalesce(max(x.step), 0) INTO released FROM dp_stream.releases AS x WHERE x.stream = s.name;
  IF state_id IS DISTINCT FROM s.stream_id OR state_steps <> s.steps OR released <> s.steps THEN
    RAISE EXCEPTION 'the state of stream "%" is not its own', s.name
      USING ERRCODE = 'data_corrupted',
            DETAIL = format('The state belongs to %s at step %s; the stream is at step %s with %s releases.',
                            CASE WHEN state_id = s.stream_id THEN 'this stream'
                                 WHEN state_id = 0 THEN 'no stream' ELSE 'another stream' END,
                            state_steps, s.steps, released),
            HINT = 'dp_stream.streams was edited: restore the row from a backup.';
  END IF;
  IF pg_catalog.strpos(mechanism_text, 'pan_private=true') = 0 THEN
    RAISE WARNING 'stream "%" draws position-keyed noise', s.name
      USING DETAIL = 'It was created before dp_stream 0.12.0: a rolled-back advance, or a retry with another value, shows the noise of the real release.',
            HINT = 'Recreate the stream; new streams draw pan-private, content-keyed noise.';
  END IF;
  RETURN s;
END $$;
COMMENT ON FUNCTION dp_stream.stream_for_advance(name text) IS 'internal: the stream locked and checked for advance';

CREATE FUNCTION dp_stream_private.advance(name text, observations dp_stream.observation[]) RETURNS dp_stream.advance_result
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
  s dp_stream.streams;
  result dp_stream.advance_result;
  next_period timestamp;
  last_period timestamp;
  period_value float8;
  period_count bigint;
  bad timestamp;
BEGIN
  IF name IS NULL OR observations IS NULL THEN
    RAISE EXCEPTION 'stream name and observations must not be null' USING ERRCODE = 'null_value_not_allowed';
  END IF;
  s := dp_stream.stream_for_advance(name);
  -- every observation names a period of the stream, at most 1000 ahead
  SELECT o.period INTO bad FROM unnest(observations) AS o
  WHERE o.period IS NULL OR o.person IS NOT NULL OR o.partition IS NOT NULL
     OR o.period NOT IN (SELECT s.first_period + s.period_length * k
                         FROM generate_series(0::bigint, s.steps + 999) AS k)
  LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'an observation is not one of stream "%"', s.name
      USING ERRCODE = 'invalid_parameter_value',
            DETAIL = format('Observations of a stream name one of its periods (%s + k * %s, at most 1000 after the next one, %s) and no partition or person; one names %s.',
                            s.first_period, s.period_length, s.first_period + s.period_length * s.steps,
                            coalesce(bad::text, 'no period')),
            HINT = 'Use dp_stream.observation(NULL, period, value); catch up in several calls, oldest periods first.';
  END IF;
  next_period := s.first_period + s.period_length * s.steps;
  SELECT max(o.period), count(*) FILTER (WHERE o.period < next_period)
    INTO last_period, result.late_observations
  FROM unnest(observations) AS o;
  result.periods := 0;
  result.partitions := 1;
  result.new_partitions := 0;
  result.filled_without_data := 0;
  WHILE next_period <= last_period LOOP
    SELECT CASE WHEN s.statistic IN ('count', 'sum') THEN sum(o.value) ELSE min(o.value) END,
           count(o.value)
      INTO period_value, period_count
    FROM unnest(observations) AS o WHERE o.period = next_period;
    IF period_count > 1 AND s.statistic NOT IN ('count', 'sum') THEN
      RAISE EXCEPTION 'stream "%" takes one observation per period', s.name
        USING ERRCODE = 'cardinality_violation',
              DETAIL = format('%s observations were given for %s.', period_count, next_period);
    END IF;
    s := dp_stream.push_period(s, next_period, period_value, false);
    result.periods := result.periods + 1;
    next_period := s.first_period + s.period_length * s.steps;
  END LOOP;
  UPDATE dp_stream.streams AS t SET steps = s.steps, counter = s.counter,
         statistic_state = s.statistic_state
  WHERE t.name = s.name;
  result.releases := result.periods;
  RETURN result;
END $$;
COMMENT ON FUNCTION dp_stream_private.advance(name text, observations dp_stream.observation[]) IS 'catches a stream up: releases every period to the last observation''s, each with its data, in one call';

CREATE FUNCTION dp_stream_private.advance(name text, period timestamp without time zone, value double precision) RETURNS dp_stream.releases
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
  s dp_stream.streams;
  r dp_stream.releases;
  next_period timestamp;
  stream_next timestamp;
  filled bigint := 0;
BEGIN
  IF name IS NULL OR period IS NULL THEN
    RAISE EXCEPTION 'stream name and period must not be null' USING ERRCODE = 'null_value_not_allowed';
  END IF;
  s := dp_stream.stream_for_advance(name);
  -- exactly once: a released period is answered from the table
  SELECT * INTO r FROM dp_stream.releases AS x WHERE x.stream = s.name AND x.period = advance.period;
  IF FOUND THEN
    RETURN r;
  END IF;
  -- a far-away period is refused before any work: one call fills at most
  -- 1000 missing periods
  IF period > s.first_period + s.period_length * (s.steps + 1000) THEN
    RAISE EXCEPTION 'stream "%" would skip more than 1000 periods', s.name
      USING ERRCODE = 'program_limit_exceeded',
            DETAIL = format('The next period is %s; %s was asked for.',
                            s.first_period + s.period_length * s.steps, period),
            HINT = 'Catch up with dp_stream.advance(name, observations), or advance the missing periods in several calls.';
  END IF;
  stream_next := s.first_period + s.period_length * s.steps;
  LOOP
    next_period := s.first_period + s.period_length * s.steps;
    EXIT WHEN next_period >= period;
    s := dp_stream.push_period(s, next_period, NULL, true);
    filled := filled + 1;
  END LOOP;
  IF next_period <> period THEN
    RAISE EXCEPTION 'period % of stream "%" is not a period of the stream, or was passed without a release',
                    period, s.name
      USING ERRCODE = 'invalid_parameter_value',
            DETAIL = format('Periods are %s + k * %s; the stream''s next period is %s.',
                            s.first_period, s.period_length, stream_next);
  END IF;
  s := dp_stream.push_period(s, period, value, false);
  UPDATE dp_stream.streams AS t SET steps = s.steps, counter = s.counter,
         statistic_state = s.statistic_state
  WHERE t.name = s.name;
  IF filled > 0 THEN
    RAISE WARNING 'stream "%": % before % released without data', s.name,
                  filled || CASE WHEN filled = 1 THEN ' period' ELSE ' periods' END, period
      USING DETAIL = 'They are marked filled_without_data in dp_stream.releases; a value passed for them later is not used.',
            HINT = 'Catch up missed periods with their data in one call: dp_stream.advance(name, observations).';
  END IF;
  SELECT * INTO r FROM dp_stream.releases AS x WHERE x.stream = s.name AND x.step = s.steps;
  RETURN r;
END $$;
COMMENT ON FUNCTION dp_stream_private.advance(name text, period timestamp without time zone, value double precision) IS 'consumes one period of a managed stream and returns its release, exactly once per period';

CREATE FUNCTION dp_stream_private.create_stream(name text, statistic text, mechanism @extschema@.dp_mechanism, lower double precision DEFAULT NULL::double precision, upper double precision DEFAULT NULL::double precision, first_period timestamp without time zone DEFAULT date_trunc('day'::text, LOCALTIMESTAMP), period_length interval DEFAULT '1 day'::interval, dataset text DEFAULT NULL::text) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
  id bigint;
BEGIN
  IF name IS NULL OR statistic IS NULL OR mechanism IS NULL OR first_period IS NULL
     OR period_length IS NULL THEN
    RAISE EXCEPTION 'dp_stream.create_stream arguments must not be null'
      USING ERRCODE = 'null_value_not_allowed';
  END IF;
  IF period_length <= interval '0' THEN
    RAISE EXCEPTION 'period_length must be positive' USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF @extschema@.dp_key_of(mechanism) IS NOT NULL THEN
    RAISE EXCEPTION 'a managed stream takes no keyed mechanism'
      USING ERRCODE = 'feature_not_supported',
            DETAIL = 'A managed stream releases each period once and draws its noise under a key of its own; advance runs as the extension''s owner, so a registered key would be usable by every administrator.',
            HINT = 'Pass the mechanism without dp_keyed().';
  END IF;
  IF pg_catalog.starts_with(mechanism::text, 'decayed(') THEN
    RAISE EXCEPTION 'a managed stream takes no decayed mechanism'
      USING ERRCODE = 'feature_not_supported',
            DETAIL = 'advance releases a period with dp_estimate, which refuses a decayed counter: the stream would be registered, and its epsilon charged, without ever releasing.',
            HINT = 'Compute decayed releases with dp_decayed_count or dp_decayed_sum and store them.';
  END IF;
  -- the id that ties the stream's state to this row (0 means none)
  LOOP
    id := dp_stream.random_id();
    EXIT WHEN id <> 0;
  END LOOP;
  -- the state is repeatable (pan-private, content-keyed noise of its own),
  -- bound to the extension's owner (this function's role) and to the id
  IF statistic = 'count' THEN
    IF lower IS NOT NULL OR upper IS NOT NULL THEN
      RAISE EXCEPTION 'a count stream takes no bounds'
        USING ERRCODE = 'invalid_parameter_value',
              HINT = 'A count clamps each period into [0, max_per_step] of its mechanism.';
    END IF;
    INSERT INTO dp_stream.streams (name, statistic, mechanism, first_period, period_length,
                                   counter, stream_id)
    VALUES (name, statistic, mechanism, first_period, period_length,
            dp_stream.bind_stream(@extschema@.dp_counter_new(mechanism, true), id), id);
  ELSIF statistic IN ('sum', 'average', 'variance', 'summary') THEN
    IF lower IS NULL OR upper IS NULL THEN
      RAISE EXCEPTION '% stream needs lower and upper',
                      CASE statistic WHEN 'average' THEN 'an average' ELSE 'a ' || statistic END
        USING ERRCODE = 'null_value_not_allowed',
              HINT = 'Pass the range every value is clamped into.';
    END IF;
    INSERT INTO dp_stream.streams (name, statistic, mechanism, lower, upper, first_period,
                                   period_length, statistic_state, stream_id)
    VALUES (name, statistic, mechanism, lower, upper, first_period, period_length,
            dp_stream.bind_stream(
              @extschema@.dp_statistic_new(CASE statistic WHEN 'summary' THEN 'variance' ELSE statistic END,
                                           lower, upper, mechanism, true), id), id);
  ELSE
    RAISE EXCEPTION 'unknown statistic "%"', statistic
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'Use count, sum, average, variance or summary.';
  END IF;
  -- a stream spends its epsilon once, for all its periods: charged now
  IF dataset IS NOT NULL THEN
    PERFORM dp_stream.charge(dataset, @extschema@.dp_epsilon(mechanism), format('stream %s', name));
  END IF;
EXCEPTION WHEN unique_violation THEN
  RAISE EXCEPTION 'stream "%" already exists', name USING ERRCODE = 'duplicate_object';
END $$;
COMMENT ON FUNCTION dp_stream_private.create_stream(name text, statistic text, mechanism @extschema@.dp_mechanism, lower double precision, upper double precision, first_period timestamp without time zone, period_length interval, dataset text) IS 'registers a managed stream; its state stays in dp_stream.streams';

-- =========================================================================
-- Publications
-- =========================================================================
-- A statistic published per period and partition, with a person's
-- contributions bounded across them (docs/publications.md).

CREATE FUNCTION dp_stream.create_publication(name text, statistic text, mechanism @extschema@.dp_mechanism, lower double precision DEFAULT NULL::double precision, upper double precision DEFAULT NULL::double precision, partition_by text DEFAULT 'partition'::text, privacy_unit text DEFAULT 'event'::text, contributions bigint DEFAULT NULL::bigint, truncation text DEFAULT NULL::text, partitions_per_person bigint DEFAULT NULL::bigint, dataset text DEFAULT NULL::text, used_by regrole DEFAULT NULL::regrole, first_period timestamp without time zone DEFAULT date_trunc('day'::text, LOCALTIMESTAMP), period_length interval DEFAULT '1 day'::interval, integer_values boolean DEFAULT false) RETURNS @extschema@.dp_mechanism
    LANGUAGE sql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  SELECT dp_stream.require_admin('dp_stream_private.create_publication(text, text, @extschema@.dp_mechanism, double precision, double precision, text, text, bigint, text, bigint, text, regrole, timestamp without time zone, interval, boolean)'), dp_stream.require_coordinator('dp_stream.create_publication');
  SELECT * FROM dp_stream_private.create_publication(name, statistic, mechanism, lower, upper, partition_by, privacy_unit, contributions, truncation, partitions_per_person, dataset, used_by, first_period, period_length, integer_values);
$$;
COMMENT ON FUNCTION dp_stream.create_publication(name text, statistic text, mechanism @extschema@.dp_mechanism, lower double precision, upper double precision, partition_by text, privacy_unit text, contributions bigint, truncation text, partitions_per_person bigint, dataset text, used_by regrole, first_period timestamp without time zone, period_length interval, integer_values boolean) IS 'registers a partitioned publication: its key, its privacy unit, and one charge for all its partitions';

CREATE FUNCTION dp_stream.publish(publication text, period timestamp without time zone, observations dp_stream.observation[], through timestamp without time zone DEFAULT NULL::timestamp without time zone, fill_missing boolean DEFAULT false) RETURNS dp_stream.advance_result
    LANGUAGE sql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  SELECT dp_stream.require_admin('dp_stream_private.publish(text, timestamp without time zone, dp_stream.observation[], timestamp without time zone, boolean)'), dp_stream.require_coordinator('dp_stream.publish');
  SELECT * FROM dp_stream_private.publish(publication, period, observations, through, fill_missing);
$$;
COMMENT ON FUNCTION dp_stream.publish(publication text, period timestamp without time zone, observations dp_stream.observation[], through timestamp without time zone, fill_missing boolean) IS 'releases periods of every partition of a publication, each once, from observations of those periods';

CREATE FUNCTION dp_stream.register_publication(name text, mechanism @extschema@.dp_mechanism, used_by regrole, statistic text, lower double precision, upper double precision, integer_values boolean, computes text, partition_by text, privacy_unit text, contributions bigint, truncation text, partitions_per_person bigint, first_period timestamp without time zone, period_length interval, dataset text) RETURNS @extschema@.dp_mechanism
    LANGUAGE sql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  SELECT dp_stream.require_admin('dp_stream_private.register_publication(text, @extschema@.dp_mechanism, regrole, text, double precision, double precision, boolean, text, text, text, bigint, text, bigint, timestamp without time zone, interval, text)'), dp_stream.require_coordinator('dp_stream.register_publication');
  SELECT * FROM dp_stream_private.register_publication(name, mechanism, used_by, statistic, lower, upper, integer_values, computes, partition_by, privacy_unit, contributions, truncation, partitions_per_person, first_period, period_length, dataset);
$$;
COMMENT ON FUNCTION dp_stream.register_publication(name text, mechanism @extschema@.dp_mechanism, used_by regrole, statistic text, lower double precision, upper double precision, integer_values boolean, computes text, partition_by text, privacy_unit text, contributions bigint, truncation text, partitions_per_person bigint, first_period timestamp without time zone, period_length interval, dataset text) IS 'internal: writes a publication, its key and its charge, for create_publication';

CREATE FUNCTION dp_stream_private.create_publication(name text, statistic text, mechanism @extschema@.dp_mechanism, lower double precision DEFAULT NULL::double precision, upper double precision DEFAULT NULL::double precision, partition_by text DEFAULT 'partition'::text, privacy_unit text DEFAULT 'event'::text, contributions bigint DEFAULT NULL::bigint, truncation text DEFAULT NULL::text, partitions_per_person bigint DEFAULT NULL::bigint, dataset text DEFAULT NULL::text, used_by regrole DEFAULT NULL::regrole, first_period timestamp without time zone DEFAULT date_trunc('day'::text, LOCALTIMESTAMP), period_length interval DEFAULT '1 day'::interval, integer_values boolean DEFAULT false) RETURNS @extschema@.dp_mechanism
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
  published @extschema@.dp_mechanism;
  computes text;
BEGIN
  IF name IS NULL OR statistic IS NULL OR mechanism IS NULL OR partition_by IS NULL
     OR privacy_unit IS NULL OR first_period IS NULL OR period_length IS NULL THEN
    RAISE EXCEPTION 'dp_stream.create_publication arguments must not be null'
      USING ERRCODE = 'null_value_not_allowed',
            HINT = 'name, statistic, mechanism, partition_by, privacy_unit, first_period and period_length are required.';
  END IF;
  IF statistic NOT IN ('count', 'sum', 'average', 'variance', 'summary') THEN
    RAISE EXCEPTION 'unknown statistic "%"', statistic
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'Use count, sum, average, variance or summary.';
  END IF;
  IF pg_catalog.starts_with(mechanism::text, 'decayed(') THEN
    RAISE EXCEPTION 'a publication takes no decayed mechanism'
      USING ERRCODE = 'feature_not_supported',
            DETAIL = 'A publication releases running statistics with dp_count, dp_sum, dp_avg, dp_variance or dp_summary, which refuse a decayed counter: the key would be registered, and its epsilon charged, without ever releasing.',
            HINT = 'Compute decayed releases with dp_decayed_count and store them.';
  END IF;
  IF statistic = 'count' AND (lower IS NOT NULL OR upper IS NOT NULL) THEN
    RAISE EXCEPTION 'a count publication takes no bounds'
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'A count clamps each period into [0, max_per_step] of its mechanism.';
  END IF;
  IF period_length <= interval '0' OR extract(month FROM period_length) <> 0
     OR extract(year FROM period_length) <> 0 THEN
    RAISE EXCEPTION 'the period_length of a publication must be positive and of a fixed length'
      USING ERRCODE = 'invalid_parameter_value',
            DETAIL = format('period_length was %s.', period_length),
            HINT = 'Use days, hours, minutes or seconds (interval ''7 days'', not ''1 month'').';
  END IF;
  IF @extschema@.dp_key_of(mechanism) IS NOT NULL
     OR pg_catalog.strpos(mechanism::text, 'contributions=') > 0 THEN
    RAISE EXCEPTION 'a publication takes the plain mechanism'
      USING ERRCODE = 'invalid_parameter_value',
            DETAIL = format('The mechanism was %s.', mechanism),
            HINT = 'Leave out dp_keyed and dp_person_level: the publication keys the noise itself, and a person is the unit with privacy_unit => ''person'', contributions => k.';
  END IF;
  IF privacy_unit = 'event' THEN
    IF contributions IS NOT NULL OR partitions_per_person IS NOT NULL
       OR coalesce(truncation, 'none') <> 'none' THEN
      RAISE EXCEPTION 'contributions, truncation and partitions_per_person are for a person-level publication'
        USING ERRCODE = 'invalid_parameter_value',
              HINT = 'Pass privacy_unit => ''person'' with them.';
    END IF;
    truncation := 'none';
    published := mechanism;
  ELSIF privacy_unit = 'person' THEN
    IF contributions IS NULL THEN
      RAISE EXCEPTION 'a person-level publication needs contributions'
        USING ERRCODE = 'null_value_not_allowed',
              HINT = 'contributions => k: at most k contributions per person to the whole publication.';
    END IF;
    truncation := coalesce(truncation, 'across_partitions');
    IF truncation = 'per_partition' AND partitions_per_person IS NULL THEN
      RAISE EXCEPTION 'truncation per partition does not compose in parallel'
        USING ERRCODE = 'invalid_parameter_value',
              DETAIL = 'With k contributions per person in each partition, a person in m partitions contributes mk to the publication: its releases are m times epsilon-DP for that person, not epsilon-DP.',
              HINT = 'Truncate each person to k contributions across all partitions (truncation => ''across_partitions'', what dp_stream.publish does), or state partitions_per_person => m to be charged m times epsilon.';
    ELSIF truncation = 'across_partitions' AND partitions_per_person IS NOT NULL THEN
      RAISE EXCEPTION 'partitions_per_person is for truncation per partition'
        USING ERRCODE = 'invalid_parameter_value',
              HINT = 'Across partitions, one epsilon covers every partition: leave partitions_per_person out.';
    ELSIF truncation NOT IN ('across_partitions', 'per_partition') THEN
      RAISE EXCEPTION 'unknown truncation "%"', truncation
        USING ERRCODE = 'invalid_parameter_value',
              HINT = 'Use across_partitions or per_partition.';
    END IF;
    published := @extschema@.dp_person_level(mechanism, contributions);
  ELSE
    RAISE EXCEPTION 'unknown privacy unit "%"', privacy_unit
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'Use event or person.';
  END IF;
  -- what is computed, checked as create_key checks it
  computes := dp_stream.key_computes(CASE statistic WHEN 'summary' THEN 'variance' ELSE statistic END,
                                     lower, upper, coalesce(integer_values, false));
  IF statistic <> 'count' THEN
    PERFORM @extschema@.dp_statistic_new(CASE statistic WHEN 'summary' THEN 'variance' ELSE statistic END,
                                         lower, upper, published);
  ELSE
    PERFORM dp_stream.check_count_mechanism(published);
  END IF;
  RETURN dp_stream.register_publication(name, published, coalesce(used_by, current_user::regrole),
                                        statistic, lower, upper, coalesce(integer_values, false),
                                        computes, partition_by, privacy_unit, contributions,
                                        truncation, partitions_per_person, first_period,
                                        period_length, dataset);
END $$;
COMMENT ON FUNCTION dp_stream_private.create_publication(name text, statistic text, mechanism @extschema@.dp_mechanism, lower double precision, upper double precision, partition_by text, privacy_unit text, contributions bigint, truncation text, partitions_per_person bigint, dataset text, used_by regrole, first_period timestamp without time zone, period_length interval, integer_values boolean) IS 'registers a partitioned publication: its key, its privacy unit, and one charge for all its partitions';

CREATE FUNCTION dp_stream_private.publish(publication text, period timestamp without time zone, observations dp_stream.observation[], through timestamp without time zone DEFAULT NULL::timestamp without time zone, fill_missing boolean DEFAULT false) RETURNS dp_stream.advance_result
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
#variable_conflict use_column
DECLARE
  p dp_stream.publications;
  result dp_stream.advance_result;
  k_from bigint;
  k_through bigint;
  k_first bigint;
  k bigint;
  at timestamp;
  bad record;
  missing bigint;
  oldest timestamp;
  kept dp_stream.observation[];
  done bigint;
  start timestamp;
  new_names text[];
  filled bigint;
  k_published bigint;
  behind text[];
BEGIN
  IF publish.publication IS NULL OR publish.period IS NULL OR publish.observations IS NULL
     OR publish.fill_missing IS NULL THEN
    RAISE EXCEPTION 'publication, period, observations and fill_missing must not be null'
      USING ERRCODE = 'null_value_not_allowed';
  END IF;
  -- a release that was returned must survive a crash (see advance)
  PERFORM pg_catalog.set_config('synchronous_commit', 'on', true);
  SELECT * INTO p FROM dp_stream.publications AS x WHERE x.name = publish.publication;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'publication "%" does not exist', publish.publication
      USING ERRCODE = 'undefined_object',
            HINT = 'Register it with dp_stream.create_publication.';
  END IF;
  -- a managed partition's state is a real-valued statistic (dp_statistic_new)
  IF p.integer_values THEN
    RAISE EXCEPTION 'publication "%" computes a sum over integers, which publish cannot advance', p.name
      USING ERRCODE = 'feature_not_supported',
            DETAIL = 'A managed partition keeps a real-valued state; the key is registered for integer values.',
            HINT = 'Publish it with a view (dp_sum over an integer column with dp_publication), or register a publication without integer_values.';
  END IF;
  -- Fix 6 (review, sql/publication_review.sql section 3): a session
  -- outside the publication's role is refused here, before anything that
  -- depends on the data.  The trigger on dp_stream.streams (fix 1) fires
  -- at the first write, and before it publish truncated each person to k
  -- contributions and refused two kept observations of one partition and
  -- period for an average, variance or summary (21000): which answer
  -- came back told how many contributions a named person had used.
  -- The trigger stays, for every other path that writes a partition.
  IF NOT pg_catalog.pg_has_role(session_user, p.used_by, 'MEMBER') THEN
    RAISE EXCEPTION 'publication "%" is published only by members of its role', p.name
      USING ERRCODE = 'insufficient_privilege',
            DETAIL = 'Its partitions draw the noise dp_publication gives that role: whoever else published data of their choosing, even in a transaction rolled back, could test guesses about the data behind that role''s releases.',
            HINT = 'Publish from a session logged in as a member of the publication''s used_by role (dp_stream.publication_list), or create the publication with used_by => the publishing job''s role.';
  END IF;
  -- person level: the contributions counted so far must not change under us
  IF p.privacy_unit = 'person' THEN
    PERFORM 1 FROM dp_stream.publications AS x WHERE x.name = p.name FOR UPDATE;
  END IF;
  k_from := dp_stream.period_index(p.first_period, p.period_length, publish.period);
  k_through := dp_stream.period_index(p.first_period, p.period_length,
                                      coalesce(publish.through, publish.period));
  IF k_from IS NULL OR k_from < 0 OR k_through IS NULL OR k_through < k_from THEN
    RAISE EXCEPTION 'period and through must be periods of publication "%", in order', p.name
      USING ERRCODE = 'invalid_parameter_value',
            DETAIL = format('Periods are %s + k * %s (k >= 0); period was %s, through %s.',
                            p.first_period, p.period_length, publish.period,
                            coalesce(publish.through, publish.period));
  END IF;
  IF k_through - k_from >= 1000 THEN
    RAISE EXCEPTION 'one publish releases at most 1000 periods'
      USING ERRCODE = 'program_limit_exceeded',
            DETAIL = format('%s periods were asked for.', k_through - k_from + 1),
            HINT = 'Catch up in several calls, oldest periods first.';
  END IF;

  -- every observation is well-formed and of a period up to `through`
  SELECT o.* INTO bad FROM unnest(publish.observations) AS o
  WHERE o.partition IS NULL OR o.period IS NULL OR pg_catalog.octet_length(o.partition) > 1000
     OR (o.person IS NULL) = (p.privacy_unit = 'person')
     OR dp_stream.period_index(p.first_period, p.period_length, o.period) IS NULL
     OR o.period < p.first_period OR o.period > p.first_period + p.period_length * k_through
  LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'an observation does not fit publication "%"', p.name
      USING ERRCODE = 'invalid_parameter_value',
            DETAIL = format('Each observation names a partition (at most 1000 bytes), a period (%s + k * %s, at most %s) and %s; one was %s.',
                            p.first_period, p.period_length, p.first_period + p.period_length * k_through,
                            CASE p.privacy_unit WHEN 'person' THEN 'the person it belongs to'
                                 ELSE 'no person (the privacy unit is an event)' END, bad),
            HINT = CASE p.privacy_unit WHEN 'person' THEN 'Use dp_stream.observation(partition, period, value, person).'
                        ELSE 'Use dp_stream.observation(partition, period, value).' END;
  END IF;

  -- partitions seen for the first time start at the publication's first
  -- period, whatever the call and whatever other calls run at the same
  -- time: the periods they missed were published for the others (they had
  -- no data in them) or are missing (below).  So every partition's stream
  -- has the same steps, and a view over the publication's axis draws
  -- exactly the releases publish made.
  start := p.first_period;
  WITH created AS (
    INSERT INTO dp_stream.streams AS t (name, statistic, mechanism, lower, upper, first_period,
                                        period_length, counter, statistic_state, stream_id,
                                        publication, partition)
    SELECT p.name || '/' || n.partition, p.statistic, p.mechanism, p.lower, p.upper, start,
           p.period_length,
           CASE WHEN p.statistic = 'count' THEN dp_stream.bind_stream(
                  @extschema@.dp_counter_new(@extschema@.dp_publication(p.name, n.partition), true), n.id) END,
           CASE WHEN p.statistic <> 'count' THEN dp_stream.bind_stream(
                  @extschema@.dp_statistic_new(CASE p.statistic WHEN 'summary' THEN 'variance' ELSE p.statistic END,
                                               p.lower, p.upper,
                                               @extschema@.dp_publication(p.name, n.partition), true), n.id) END,
           n.id, p.name, n.partition
    FROM (SELECT d.partition, dp_stream.random_id() AS id
          FROM (SELECT DISTINCT o.partition FROM unnest(publish.observations) AS o
                WHERE NOT EXISTS (SELECT 1 FROM dp_stream.streams AS s
                                  WHERE s.publication = p.name AND s.partition = o.partition)) AS d) AS n
    ON CONFLICT DO NOTHING
    RETURNING t.name
  )
  SELECT coalesce(array_agg(c.name), '{}') INTO new_names FROM created AS c;
  result.new_partitions := pg_catalog.cardinality(new_names);
  -- The planner knows a publication's partitions from the table's
  -- statistics, which do not have the new ones yet: it would take 10,000
  -- new partitions for 1, and join them with the observations by a nested
  -- loop, n^2 comparisons (17 s instead of 1 s).  Many new partitions are
  -- counted now; the lock this takes (until the transaction ends) only
  -- waits for another ANALYZE or VACUUM of the catalog.
  IF result.new_partitions >= 100 THEN
    ANALYZE dp_stream.streams;
  END IF;
  -- every partition, new or not, takes its data from here: a stream of the
  -- same name made by create_stream would have kept a new one out
  SELECT o.partition INTO bad FROM unnest(publish.observations) AS o
  WHERE NOT EXISTS (SELECT 1 FROM dp_stream.streams AS s
                    WHERE s.publication = p.name AND s.partition = o.partition)
  LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'partition "%" of publication "%" cannot be created', bad.partition, p.name
      USING ERRCODE = 'duplicate_object',
            DETAIL = format('A managed stream named "%s/%s" exists and is not this partition.', p.name, bad.partition);
  END IF;

  -- one row lock per partition, in a fixed order (no deadlock between two
  -- publishes); each partition's periods are released once, by whoever
  -- locks it first
  PERFORM 1 FROM dp_stream.streams AS s WHERE s.publication = p.name ORDER BY s.name FOR UPDATE;

  -- partitions behind `period`: refused, or filled without data
  SELECT count(*), min(s.first_period + s.period_length * s.steps) INTO missing, oldest
  FROM dp_stream.streams AS s
  WHERE s.publication = p.name AND s.first_period + s.period_length * s.steps < publish.period
    AND s.name <> ALL (new_names);
  -- periods before `period` that no partition released (a first publish
  -- after first_period, or one that did not see another's uncommitted
  -- first one): missing for every partition, new ones included
  SELECT coalesce(max(dp_stream.period_index(p.first_period, p.period_length,
                                             s.first_period + s.period_length * s.steps)), 0)
    INTO k_published
  FROM dp_stream.streams AS s
  WHERE s.publication = p.name AND s.name <> ALL (new_names);
  SELECT coalesce(array_agg(s.name), '{}') INTO behind
  FROM dp_stream.streams AS s
  WHERE s.publication = p.name AND s.first_period + s.period_length * s.steps < publish.period;
  IF missing = 0 AND k_published < k_from AND NOT publish.fill_missing THEN
    RAISE EXCEPTION 'publication "%" has released no period before %', p.name, publish.period
      USING ERRCODE = 'object_not_in_prerequisite_state',
            DETAIL = format('Its first period is %s; no partition has released %s.',
                            p.first_period, p.first_period + p.period_length * k_published),
            HINT = format('Publish from %s with the data of every period (through => %s), or pass fill_missing => true to release the periods before without data (marked filled_without_data).',
                          p.first_period + p.period_length * k_published, publish.period);
  END IF;
  IF missing > 0 AND NOT publish.fill_missing THEN
    RAISE EXCEPTION 'publication "%" has % partitions with periods before % not yet released',
                    p.name, missing, publish.period
      USING ERRCODE = 'object_not_in_prerequisite_state',
            DETAIL = format('The oldest is %s.', oldest),
            HINT = format('Catch up: publish from %s with the data of every missing period (through => %s), or pass fill_missing => true to release them without data (marked filled_without_data).',
                          oldest, publish.period);
  END IF;

  -- late observations are counted and dropped; person level keeps each
  -- person's first contributions up to k, across partitions and calls
  WITH o AS (
    SELECT x.*
    FROM unnest(publish.observations) AS x
    JOIN dp_stream.streams AS s ON s.publication = p.name AND s.partition = x.partition
    WHERE x.period >= s.first_period + s.period_length * s.steps
  )
  SELECT count(*) INTO done FROM o;
  result.late_observations := pg_catalog.cardinality(publish.observations) - done;
  IF p.privacy_unit = 'person' THEN
    WITH o AS (
      SELECT x.*, dp_stream.person_tag(p.name, x.person) AS tag
      FROM unnest(publish.observations) AS x
      JOIN dp_stream.streams AS s ON s.publication = p.name AND s.partition = x.partition
      WHERE x.period >= s.first_period + s.period_length * s.steps
    ), ranked AS (
      SELECT o.*, row_number() OVER (PARTITION BY o.tag
                                     ORDER BY o.period, o.partition, o.value) AS nth,
             coalesce(c.used, 0) AS used
      FROM o LEFT JOIN dp_stream.contributions AS c ON c.publication = p.name AND c.person = o.tag
    ), counted AS (
      INSERT INTO dp_stream.contributions AS c (publication, person, used)
      SELECT p.name, r.tag, count(*) FROM ranked AS r WHERE r.used + r.nth <= p.contributions
      GROUP BY r.tag
      ON CONFLICT (publication, person) DO UPDATE SET used = c.used + excluded.used
    )
    SELECT array_agg(ROW(r.partition, r.period,
                         CASE WHEN p.statistic = 'count' THEN least(greatest(r.value, 0), 1) ELSE r.value END,
                         NULL)::dp_stream.observation)
      INTO kept
    FROM ranked AS r WHERE r.used + r.nth <= p.contributions;
  ELSE
    SELECT array_agg(x) INTO kept
    FROM unnest(publish.observations) AS x
    JOIN dp_stream.streams AS s ON s.publication = p.name AND s.partition = x.partition
    WHERE x.period >= s.first_period + s.period_length * s.steps;
  END IF;
  kept := coalesce(kept, '{}');

  -- a statistic other than a count or a sum takes one observation per
  -- partition and period
  IF p.statistic NOT IN ('count', 'sum') THEN
    SELECT x.partition, x.period, count(*) AS n INTO bad
    FROM unnest(kept) AS x GROUP BY 1, 2 HAVING count(*) > 1 LIMIT 1;
    IF FOUND THEN
      RAISE EXCEPTION 'publication "%" takes one observation per partition and period', p.name
        USING ERRCODE = 'cardinality_violation',
              DETAIL = format('Partition %s has %s observations for %s.', bad.partition, bad.n, bad.period);
    END IF;
  END IF;

  -- period by period, every partition due at that period, in one statement
  SELECT min(dp_stream.period_index(p.first_period, p.period_length,
                                    s.first_period + s.period_length * s.steps))
    INTO k_first
  FROM dp_stream.streams AS s WHERE s.publication = p.name;
  result.periods := 0;
  result.releases := 0;
  result.filled_without_data := 0;
  k := least(k_first, k_from);
  WHILE k <= k_through LOOP
    at := p.first_period + p.period_length * k;
    -- the partitions with data, found through their (publication,
    -- partition) index whatever the planner thinks the array holds ...
    WITH pushed AS (
      UPDATE dp_stream.streams AS s
         SET steps = s.steps + 1,
             counter = CASE WHEN s.statistic = 'count'
                            THEN @extschema@.dp_push(s.counter, coalesce(d.value, 0::float8)) END,
             statistic_state = CASE WHEN s.statistic <> 'count'
                                    THEN @extschema@.dp_push(s.statistic_state, d.value) END
        FROM (SELECT x.partition, sum(x.value) AS value
              FROM unnest(kept) AS x WHERE x.period = at GROUP BY x.partition) AS d
       WHERE s.publication = p.name AND s.partition = d.partition
         AND s.first_period + s.period_length * s.steps = at
      RETURNING s.name, s.steps, s.statistic, s.counter, s.statistic_state
    )
    INSERT INTO dp_stream.releases (stream, step, period, estimate, error_bound, summary,
                                    filled_without_data)
    SELECT u.name, u.steps, at, r.estimate, r.error_bound, r.summary, false
    FROM pushed AS u, LATERAL dp_stream.release_values(u.statistic, u.counter, u.statistic_state) AS r;
    GET DIAGNOSTICS done = ROW_COUNT;
    -- ... then every other partition due at this period, without data:
    -- marked when the period is before the call's (fill_missing), unless
    -- the partition is new and the period was published for the others
    -- (it had no data in it)
    IF k < k_from THEN
      -- before the call's period only the partitions behind it can be
      -- due: found by name, so that a new partition's first publish, which
      -- goes back to first_period, does not read every partition once per
      -- period since (2000 partitions after 200 days: 2.0 s against 0.5 s)
      WITH pushed AS (
        UPDATE dp_stream.streams AS s
           SET steps = s.steps + 1,
               counter = CASE WHEN s.statistic = 'count' THEN @extschema@.dp_push(s.counter, 0::float8) END,
               statistic_state = CASE WHEN s.statistic <> 'count'
                                      THEN @extschema@.dp_push(s.statistic_state, NULL::float8) END
         WHERE s.name = ANY (behind) AND s.publication = p.name
           AND s.first_period + s.period_length * s.steps = at
        RETURNING s.name, s.steps, s.statistic, s.counter, s.statistic_state
      ), written AS (
        INSERT INTO dp_stream.releases AS x (stream, step, period, estimate, error_bound, summary,
                                             filled_without_data)
        SELECT u.name, u.steps, at, r.estimate, r.error_bound, r.summary,
               u.name <> ALL (new_names) OR k >= k_published
        FROM pushed AS u, LATERAL dp_stream.release_values(u.statistic, u.counter, u.statistic_state) AS r
        RETURNING x.filled_without_data
      )
      SELECT count(*), count(*) FILTER (WHERE w.filled_without_data) INTO missing, filled
      FROM written AS w;
    ELSE
      WITH pushed AS (
        UPDATE dp_stream.streams AS s
           SET steps = s.steps + 1,
               counter = CASE WHEN s.statistic = 'count' THEN @extschema@.dp_push(s.counter, 0::float8) END,
               statistic_state = CASE WHEN s.statistic <> 'count'
                                      THEN @extschema@.dp_push(s.statistic_state, NULL::float8) END
         WHERE s.publication = p.name AND s.first_period + s.period_length * s.steps = at
        RETURNING s.name, s.steps, s.statistic, s.counter, s.statistic_state
      ), written AS (
        INSERT INTO dp_stream.releases AS x (stream, step, period, estimate, error_bound, summary,
                                             filled_without_data)
        SELECT u.name, u.steps, at, r.estimate, r.error_bound, r.summary, false
        FROM pushed AS u, LATERAL dp_stream.release_values(u.statistic, u.counter, u.statistic_state) AS r
        RETURNING x.filled_without_data
      )
      SELECT count(*), count(*) FILTER (WHERE w.filled_without_data) INTO missing, filled
      FROM written AS w;
    END IF;
    done := done + missing;
    result.filled_without_data := result.filled_without_data + filled;
    IF done > 0 THEN
      result.periods := result.periods + 1;
      result.releases := result.releases + done;
    END IF;
    k := k + 1;
  END LOOP;
  SELECT count(*) INTO result.partitions FROM dp_stream.streams AS s WHERE s.publication = p.name;
  IF result.filled_without_data > 0 THEN
    RAISE WARNING 'publication "%": % made without data', p.name,
                  result.filled_without_data
                  || CASE WHEN result.filled_without_data = 1 THEN ' release' ELSE ' releases' END
      USING DETAIL = 'They are marked filled_without_data in dp_stream.releases.';
  END IF;
  RETURN result;
END $$;
COMMENT ON FUNCTION dp_stream_private.publish(publication text, period timestamp without time zone, observations dp_stream.observation[], through timestamp without time zone, fill_missing boolean) IS 'releases periods of every partition of a publication, each once, from observations of those periods';

CREATE FUNCTION dp_stream_private.register_publication(name text, mechanism @extschema@.dp_mechanism, used_by regrole, statistic text, lower double precision, upper double precision, integer_values boolean, computes text, partition_by text, privacy_unit text, contributions bigint, truncation text, partitions_per_person bigint, first_period timestamp without time zone, period_length interval, dataset text) RETURNS @extschema@.dp_mechanism
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
  keyed @extschema@.dp_mechanism;
  amount float8;
  charge_id bigint;
BEGIN
  IF EXISTS (SELECT 1 FROM dp_stream.publications AS p WHERE p.name = register_publication.name) THEN
    RAISE EXCEPTION 'publication "%" already exists', name USING ERRCODE = 'duplicate_object';
  END IF;
  -- administrators may call this directly: what publish relies on is
  -- checked here too (the grid's arithmetic, and that the key computes
  -- the publication's statistic)
  IF period_length IS NULL OR period_length <= interval '0' OR extract(month FROM period_length) <> 0
     OR extract(year FROM period_length) <> 0 OR first_period IS NULL THEN
    RAISE EXCEPTION 'the period_length of a publication must be positive and of a fixed length'
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF computes IS DISTINCT FROM dp_stream.key_computes(
       CASE statistic WHEN 'summary' THEN 'variance' ELSE statistic END, lower, upper,
       coalesce(integer_values, false)) THEN
    RAISE EXCEPTION 'publication "%" would compute "%", not its statistic', name, computes
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'Register publications with dp_stream.create_publication.';
  END IF;
  -- the key, under the publication's name, charged here rather than by
  -- register_key: the charge is the publication's, once for all partitions
  keyed := dp_stream.register_key(name, mechanism, NULL, used_by, computes);
  amount := @extschema@.dp_epsilon(keyed) * coalesce(partitions_per_person, 1);
  IF dataset IS NOT NULL THEN
    PERFORM dp_stream.charge(dataset, amount,
                             format('publication %s (%s%s, partitions by %s)', name,
                                    CASE privacy_unit WHEN 'event' THEN 'events'
                                         ELSE format('persons with at most %s contributions', contributions) END,
                                    CASE WHEN partitions_per_person IS NOT NULL
                                         THEN format(' in up to %s partitions each', partitions_per_person)
                                         ELSE '' END,
                                    partition_by));
    charge_id := pg_catalog.currval('dp_stream.charges_id_seq');
  END IF;
  INSERT INTO dp_stream.publications (name, mechanism, used_by, statistic, lower, upper,
      integer_values, partition_by, privacy_unit, contributions, truncation, partitions_per_person,
      first_period, period_length, dataset, epsilon, charge)
  VALUES (name, keyed, used_by, statistic, lower, upper, integer_values, partition_by,
      privacy_unit, contributions, truncation, partitions_per_person, first_period, period_length,
      dataset, dp_stream.ledger_amount(amount, 'up'), charge_id);
  RETURN keyed;
END $$;
COMMENT ON FUNCTION dp_stream_private.register_publication(name text, mechanism @extschema@.dp_mechanism, used_by regrole, statistic text, lower double precision, upper double precision, integer_values boolean, computes text, partition_by text, privacy_unit text, contributions bigint, truncation text, partitions_per_person bigint, first_period timestamp without time zone, period_length interval, dataset text) IS 'internal: writes a publication, its key and its charge, for create_publication';

-- =========================================================================
-- Citus
-- =========================================================================
-- One set of secrets and keys for every node of a Citus cluster
-- (docs/citus.md).

CREATE FUNCTION dp_stream.citus_absorb() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
DECLARE
  incoming_secrets dp_stream.secrets[];
  incoming_keys dp_stream.keys[];
  incoming_budgets dp_stream.budgets[];
  own_seal bigint[];
  own_noise bigint[];
  found_keys text;
  found_secret bigint;
  column_found record;
  replication_role text;
BEGIN
  IF (SELECT groupid FROM pg_catalog.pg_dist_local_group) = 0 THEN
    RETURN NULL;   -- the coordinator: the rows are its own
  END IF;
  PERFORM pg_catalog.set_config('citus.override_table_visibility', 'off', true);
  -- as rotate_secret: wait for every transaction that sealed under this
  -- node's secrets, so that the scan below sees what they sealed, and keep
  -- new sealing waiting until the node has the cluster's secrets
  LOCK TABLE dp_stream.secrets IN EXCLUSIVE MODE;
  EXECUTE format('SELECT array_agg(body::dp_stream.secrets ORDER BY position) FILTER (WHERE kind = ''secret''),
                         array_agg(body::dp_stream.keys ORDER BY position) FILTER (WHERE kind = ''key''),
                         array_agg(body::dp_stream.budgets ORDER BY position) FILTER (WHERE kind = ''budget'')
                  FROM %I.%I', TG_TABLE_SCHEMA, TG_TABLE_NAME)
    INTO incoming_secrets, incoming_keys, incoming_budgets;
  IF incoming_secrets IS NULL THEN
    RAISE EXCEPTION 'dp_stream.citus_sync_secrets() copied no secrets'
      USING ERRCODE = 'object_not_in_prerequisite_state';
  END IF;
  incoming_keys := coalesce(incoming_keys, '{}');
  incoming_budgets := coalesce(incoming_budgets, '{}');
  IF EXISTS (SELECT 1 FROM dp_stream.secrets AS l, unnest(incoming_secrets) AS i
             WHERE l.id = i.id AND (l.purpose, l.secret) IS DISTINCT FROM (i.purpose, i.secret)) THEN
    RAISE EXCEPTION 'dp_stream secret ids collide between the coordinator and this node'
      USING ERRCODE = 'data_corrupted';
  END IF;
  SELECT array_agg(l.id) FILTER (WHERE l.purpose = 'seal'),
         array_agg(l.id) FILTER (WHERE l.purpose <> 'seal')
    INTO own_seal, own_noise
    FROM dp_stream.secrets AS l
   WHERE l.id NOT IN (SELECT i.id FROM unnest(incoming_secrets) AS i);

  -- keys the coordinator does not have (registered here), or drawing under
  -- a noise secret only this node has
  SELECT string_agg(format('%L', l.key), ', ' ORDER BY l.key) INTO found_keys
    FROM dp_stream.keys AS l
   WHERE NOT EXISTS (SELECT 1 FROM unnest(incoming_keys) AS i
                     WHERE i.key = l.key AND i.mechanism::text = l.mechanism::text
                       AND i.used_by = l.used_by AND i.computes = l.computes
                       AND i.noise_secret IS NOT DISTINCT FROM l.noise_secret)
      OR l.noise_secret = ANY (own_noise);
  IF found_keys IS NOT NULL THEN
    RAISE EXCEPTION 'dp_stream''s secrets cannot be synced onto node %: it has released keyed noise under its own secrets', current_setting('port')
      USING ERRCODE = 'object_not_in_prerequisite_state',
            DETAIL = format('Keys %s were registered on this node, or draw under a noise secret the coordinator does not have: under the cluster''s secret their data would be released again with new noise.', found_keys),
            HINT = 'Register keys on the coordinator only. A superuser removes these keys on this node (ALTER TABLE dp_stream.keys DISABLE TRIGGER USER; DELETE FROM dp_stream.keys WHERE ...; ENABLE TRIGGER USER), accepting that what they released will be released once more, and runs SELECT dp_stream.citus_sync_secrets() on the coordinator again.';
  END IF;

  -- states sealed under a seal secret only this node has
  IF own_seal IS NOT NULL THEN
    FOR column_found IN
      SELECT a.attrelid::regclass AS relation, a.attname
        FROM pg_catalog.pg_attribute AS a
        JOIN pg_catalog.pg_class AS c ON c.oid = a.attrelid
       WHERE a.atttypid IN ('@extschema@.dp_counter'::regtype, '@extschema@.dp_statistic'::regtype)
         AND a.attnum > 0 AND NOT a.attisdropped AND c.relkind IN ('r', 'm')
         AND c.relpersistence <> 't'   -- other sessions' temporary tables: gone with them
         -- a Citus table's rows are in its shards, which are this node's tables
         AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_dist_partition AS d WHERE d.logicalrelid = a.attrelid)
       ORDER BY 1, 2
    LOOP
      EXECUTE format('SELECT dp_stream.sealed_secret_id(%I) FROM %s WHERE dp_stream.sealed_secret_id(%I) = ANY ($1) LIMIT 1',
                     column_found.attname, column_found.relation, column_found.attname)
        INTO found_secret USING own_seal;
      IF found_secret IS NOT NULL THEN
        RAISE EXCEPTION 'dp_stream''s secrets cannot be synced onto node %: it holds states sealed under its own secret', current_setting('port')
          USING ERRCODE = 'object_not_in_prerequisite_state',
                DETAIL = format('Column %s of %s holds states sealed under secret %s, which the coordinator does not have: they would no longer open.', column_found.attname, column_found.relation, found_secret),
                HINT = 'Drop those states on this node, or first give the coordinator this node''s sealing secret with an older created_at than its own (it then opens them everywhere and seals nothing new), then run SELECT dp_stream.citus_sync_secrets() on the coordinator again.';
      END IF;
    END LOOP;
  END IF;

  DELETE FROM dp_stream.secrets AS l
   WHERE l.id NOT IN (SELECT i.id FROM unnest(incoming_secrets) AS i);
  INSERT INTO dp_stream.secrets
  SELECT i.* FROM unnest(incoming_secrets) AS i
   WHERE NOT EXISTS (SELECT 1 FROM dp_stream.secrets AS l WHERE l.id = i.id);
  -- copies, exactly as the coordinator holds them: not checked again by
  -- the registry's triggers (a key registered before 0.14.0 without a
  -- stated max_per_step would stop every sync; budgets are refused on a
  -- worker but for these copies), which stay on for the rest of the
  -- transaction
  replication_role := current_setting('session_replication_role');
  PERFORM pg_catalog.set_config('session_replication_role', 'replica', true);
  INSERT INTO dp_stream.budgets
  SELECT i.* FROM unnest(incoming_budgets) AS i
  ON CONFLICT (dataset) DO NOTHING;
  INSERT INTO dp_stream.keys
  SELECT i.* FROM unnest(incoming_keys) AS i
   WHERE NOT EXISTS (SELECT 1 FROM dp_stream.keys AS l WHERE l.key = i.key);
  PERFORM pg_catalog.set_config('session_replication_role', replication_role, true);
  RETURN NULL;
END $_$;
COMMENT ON FUNCTION dp_stream.citus_absorb() IS 'internal: on a Citus worker, makes the secrets and keys copied by dp_stream.citus_sync_secrets() the node''s own';

CREATE FUNCTION dp_stream.citus_sync(explicit boolean) RETURNS integer
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
  nodes integer;
  placements integer;
  unsafe_triggers text;
  message text;
  detail text;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'citus') THEN
    IF explicit THEN
      RAISE EXCEPTION 'Citus is not installed in this database'
        USING ERRCODE = 'object_not_in_prerequisite_state',
              HINT = 'dp_stream.citus_sync_secrets() gives every node of a Citus cluster the coordinator''s secrets; run it on the coordinator.';
    END IF;
    RETURN 0;
  END IF;
  IF (SELECT groupid FROM pg_catalog.pg_dist_local_group) <> 0 THEN
    -- a worker: a key, secret or sampler of its own would be refused by
    -- the next sync, or replaced by it
    RAISE EXCEPTION '% runs on the coordinator of a Citus cluster',
                    CASE WHEN explicit THEN 'dp_stream.citus_sync_secrets()'
                         ELSE 'this function of dp_stream' END
      USING ERRCODE = 'object_not_in_prerequisite_state',
            DETAIL = 'The coordinator''s secrets and keys are the cluster''s: dp_stream.citus_sync_secrets() copies them to this node.',
            HINT = 'Connect to the coordinator and run it there.';
  END IF;
  SELECT count(*) INTO nodes FROM pg_catalog.pg_dist_node
   WHERE isactive AND noderole = 'primary' AND groupid <> 0;
  IF nodes = 0 THEN
    RETURN 0;
  END IF;
  unsafe_triggers := current_setting('citus.enable_unsafe_triggers');
  PERFORM set_config('citus.enable_unsafe_triggers', 'on', true);
  IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_dist_partition
                 WHERE logicalrelid = 'dp_stream.citus_transfer'::regclass) THEN
    PERFORM pg_catalog.create_reference_table('dp_stream.citus_transfer');
  END IF;
  -- a node added since: the reference table is copied to it first
  SELECT count(DISTINCT p.groupid) INTO placements
    FROM pg_catalog.pg_dist_placement AS p JOIN pg_catalog.pg_dist_shard AS s USING (shardid)
   WHERE s.logicalrelid = 'dp_stream.citus_transfer'::regclass AND p.groupid <> 0;
  IF placements < nodes THEN
    PERFORM pg_catalog.replicate_reference_tables('block_writes');
  END IF;
  TRUNCATE dp_stream.citus_transfer;
  BEGIN
    INSERT INTO dp_stream.citus_transfer (position, kind, body)
    SELECT row_number() OVER (), t.kind, t.body
      FROM (SELECT 'secret' AS kind, s::text AS body FROM dp_stream.secrets AS s
            UNION ALL
            SELECT 'budget', b::text FROM dp_stream.budgets AS b
             WHERE b.dataset IN (SELECT k.dataset FROM dp_stream.keys AS k)
            UNION ALL
            SELECT 'key', k::text FROM dp_stream.keys AS k) AS t;
  EXCEPTION WHEN OTHERS THEN
    -- a node's refusal comes back without its SQLSTATE and hint: both, here
    GET STACKED DIAGNOSTICS message = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL;
    IF message NOT LIKE 'dp_stream''s secrets cannot be synced onto node %' THEN
      RAISE;
    END IF;
    RAISE EXCEPTION '%', message
      USING ERRCODE = 'object_not_in_prerequisite_state', DETAIL = detail,
            HINT = CASE
              WHEN message LIKE '%released keyed noise%' THEN
                'Register keys on the coordinator only. A superuser removes these keys on that node (ALTER TABLE dp_stream.keys DISABLE TRIGGER USER; DELETE FROM dp_stream.keys WHERE ...; ENABLE TRIGGER USER), accepting that what they released will be released once more, and runs SELECT dp_stream.citus_sync_secrets() again.'
              WHEN message LIKE '%sealed under its own secret%' THEN
                'Drop those states on that node, or first give the coordinator that node''s sealing secret with an older created_at than its own (it then opens them everywhere and seals nothing new), then run SELECT dp_stream.citus_sync_secrets() again.'
            END;
  END;
  TRUNCATE dp_stream.citus_transfer;
  PERFORM set_config('citus.enable_unsafe_triggers', unsafe_triggers, true);
  RETURN nodes;
END $$;
COMMENT ON FUNCTION dp_stream.citus_sync(explicit boolean) IS 'internal: copies the coordinator''s secrets and keys to every node of a Citus cluster; nothing elsewhere (explicit: an error there)';

CREATE FUNCTION dp_stream.citus_sync_secrets() RETURNS integer
    LANGUAGE sql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  SELECT dp_stream.require_admin('dp_stream_private.citus_sync_secrets()');
  SELECT * FROM dp_stream_private.citus_sync_secrets();
$$;
COMMENT ON FUNCTION dp_stream.citus_sync_secrets() IS 'gives every node of a Citus cluster the coordinator''s secrets, keys and their budgets, in one transaction; returns the number of nodes (on the coordinator)';

CREATE FUNCTION dp_stream.citus_worker() RETURNS boolean
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'citus') THEN
    RETURN false;
  END IF;
  RETURN (SELECT groupid FROM pg_catalog.pg_dist_local_group) <> 0;
END $$;
COMMENT ON FUNCTION dp_stream.citus_worker() IS 'internal: whether this database is a worker of a Citus cluster rather than its coordinator';

CREATE FUNCTION dp_stream.require_coordinator(function text) RETURNS void
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
  IF dp_stream.citus_worker() THEN
    RAISE EXCEPTION '% runs on the coordinator of a Citus cluster', function
      USING ERRCODE = 'object_not_in_prerequisite_state',
            DETAIL = 'Budgets, keys, managed streams and publications are the coordinator''s: made or advanced on a worker, they would release and charge outside the cluster''s ledger.',
            HINT = 'Connect to the coordinator and run it there; feed it from queries over the distributed tables.';
  END IF;
END $$;
COMMENT ON FUNCTION dp_stream.require_coordinator(function text) IS 'internal: raises 55000 on a worker of a Citus cluster, naming the function that runs on the coordinator';

CREATE FUNCTION dp_stream_private.citus_sync_secrets() RETURNS integer
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$ SELECT dp_stream.citus_sync(true) $$;
COMMENT ON FUNCTION dp_stream_private.citus_sync_secrets() IS 'gives every node of a Citus cluster the coordinator''s secrets, keys and their budgets, in one transaction; returns the number of nodes (on the coordinator)';

-- =========================================================================
-- Views
-- =========================================================================
-- The catalog as its readers see it: streams, spending, publications and
-- their releases.

CREATE VIEW dp_stream.publication_list AS
 SELECT p.name,
    p.statistic,
    p.mechanism,
    p.lower,
    p.upper,
    p.partition_by,
    p.privacy_unit,
    p.contributions,
    p.truncation,
    p.partitions_per_person,
    p.dataset,
    p.epsilon,
    p.charge,
    ( SELECT count(*) AS count
           FROM dp_stream.streams s
          WHERE (s.publication = p.name)) AS partitions,
    ( SELECT max((s.first_period + (s.period_length * (s.steps)::double precision))) AS max
           FROM dp_stream.streams s
          WHERE (s.publication = p.name)) AS next_period,
    p.used_by,
    p.created_at,
    p.created_by
   FROM dp_stream.publications p;
COMMENT ON VIEW dp_stream.publication_list IS 'every publication: what it publishes, its privacy unit, its one charge and its managed partitions';

CREATE VIEW dp_stream.publication_releases AS
 SELECT s.publication,
    s.partition,
    r.step,
    r.period,
    r.estimate,
    r.error_bound,
    r.summary,
    r.filled_without_data,
    r.released_at
   FROM (dp_stream.releases r
     JOIN dp_stream.streams s ON ((s.name = r.stream)))
  WHERE (s.publication IS NOT NULL);
COMMENT ON VIEW dp_stream.publication_releases IS 'the releases of the partitions of managed publications';

CREATE VIEW dp_stream.spending AS
 SELECT c.dataset,
    c.epsilon,
    c.purpose,
    c.charged_by,
    c.charged_at,
    (b.total_epsilon - sum(c.epsilon) OVER (PARTITION BY c.dataset ORDER BY c.id)) AS remaining_after,
    l.name AS publication,
    l.privacy_unit,
    l.partitions
   FROM ((dp_stream.charges c
     JOIN dp_stream.budgets b USING (dataset))
     LEFT JOIN dp_stream.publication_list l ON ((l.charge = c.id)));
COMMENT ON VIEW dp_stream.spending IS 'every charge: how much, on what, by whom, when, and what was left';

CREATE VIEW dp_stream.stream_list AS
 SELECT streams.name,
    streams.statistic,
    streams.mechanism,
    streams.lower,
    streams.upper,
    streams.first_period,
    streams.period_length,
    streams.steps,
    (streams.first_period + (streams.period_length * (streams.steps)::double precision)) AS next_period,
    streams.created_at,
    streams.created_by,
    streams.publication,
    streams.partition
   FROM dp_stream.streams;
COMMENT ON VIEW dp_stream.stream_list IS 'the managed streams, without their states';

-- =========================================================================
-- Triggers
-- =========================================================================
-- Append-only tables that refuse UPDATE, DELETE and TRUNCATE, checks of names
-- and mechanisms on insert, and the Citus hooks.

CREATE TRIGGER budgets_on_coordinator BEFORE INSERT OR UPDATE ON dp_stream.budgets FOR EACH ROW EXECUTE FUNCTION dp_stream.catalog_on_coordinator();

CREATE TRIGGER charges_append_only BEFORE DELETE OR UPDATE ON dp_stream.charges FOR EACH ROW EXECUTE FUNCTION dp_stream.refuse_change();

CREATE TRIGGER charges_no_truncate BEFORE TRUNCATE ON dp_stream.charges FOR EACH STATEMENT EXECUTE FUNCTION dp_stream.refuse_change();

CREATE TRIGGER charges_on_coordinator BEFORE INSERT ON dp_stream.charges FOR EACH STATEMENT EXECUTE FUNCTION dp_stream.charges_on_coordinator();

CREATE TRIGGER citus_absorb AFTER INSERT ON dp_stream.citus_transfer FOR EACH STATEMENT EXECUTE FUNCTION dp_stream.citus_absorb();

CREATE TRIGGER keys_append_only BEFORE DELETE OR UPDATE ON dp_stream.keys FOR EACH ROW EXECUTE FUNCTION dp_stream.refuse_change();

CREATE TRIGGER keys_count_bound BEFORE INSERT ON dp_stream.keys FOR EACH ROW WHEN ((new.computes = 'count'::text)) EXECUTE FUNCTION dp_stream.check_key_mechanism();

CREATE TRIGGER keys_no_truncate BEFORE TRUNCATE ON dp_stream.keys FOR EACH STATEMENT EXECUTE FUNCTION dp_stream.refuse_change();

CREATE TRIGGER publications_append_only BEFORE DELETE OR UPDATE ON dp_stream.publications FOR EACH ROW EXECUTE FUNCTION dp_stream.refuse_change();

CREATE TRIGGER publications_mechanism_check BEFORE INSERT ON dp_stream.publications FOR EACH ROW EXECUTE FUNCTION dp_stream.check_publication_mechanism();

CREATE TRIGGER publications_name_check BEFORE INSERT ON dp_stream.publications FOR EACH ROW EXECUTE FUNCTION dp_stream.check_stream_name();

CREATE TRIGGER publications_no_truncate BEFORE TRUNCATE ON dp_stream.publications FOR EACH STATEMENT EXECUTE FUNCTION dp_stream.refuse_change();

CREATE TRIGGER publications_on_coordinator BEFORE INSERT OR DELETE OR UPDATE ON dp_stream.publications FOR EACH ROW EXECUTE FUNCTION dp_stream.catalog_on_coordinator();

CREATE TRIGGER releases_append_only BEFORE DELETE OR UPDATE ON dp_stream.releases FOR EACH ROW EXECUTE FUNCTION dp_stream.refuse_change();

CREATE TRIGGER releases_no_truncate BEFORE TRUNCATE ON dp_stream.releases FOR EACH STATEMENT EXECUTE FUNCTION dp_stream.refuse_change();

CREATE TRIGGER releases_on_coordinator BEFORE INSERT OR DELETE OR UPDATE ON dp_stream.releases FOR EACH ROW EXECUTE FUNCTION dp_stream.catalog_on_coordinator();

CREATE TRIGGER streams_name_check BEFORE INSERT ON dp_stream.streams FOR EACH ROW WHEN ((new.publication IS NULL)) EXECUTE FUNCTION dp_stream.check_stream_name();

CREATE TRIGGER streams_on_coordinator BEFORE INSERT OR DELETE OR UPDATE ON dp_stream.streams FOR EACH ROW EXECUTE FUNCTION dp_stream.catalog_on_coordinator();

-- =========================================================================
-- Grants
-- =========================================================================
-- PostgreSQL's defaults hold for everything not named here: PUBLIC may call
-- a function (every function of @extschema@, and dp_stream's entry points,
-- which check their caller), and a table or view is its owner's only.
-- dp_stream_admin runs the catalog's administrative functions,
-- dp_stream_reader reads releases.

-- Both catalog schemas are visible to every role; what they hold is not.
GRANT USAGE ON SCHEMA dp_stream TO PUBLIC;
GRANT USAGE ON SCHEMA dp_stream_private TO PUBLIC;

-- Internal functions of the catalog: called by the extension's own
-- functions and triggers, by no role directly.
REVOKE ALL ON FUNCTION dp_stream.bind_stream(state @extschema@.dp_counter, stream_id bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION dp_stream.bind_stream(state @extschema@.dp_statistic, stream_id bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION dp_stream.keyed_noise_secret() FROM PUBLIC;
REVOKE ALL ON FUNCTION dp_stream.period_index(first_period timestamp without time zone, period_length interval, t timestamp without time zone) FROM PUBLIC;
REVOKE ALL ON FUNCTION dp_stream.person_tag(publication text, person text) FROM PUBLIC;
REVOKE ALL ON FUNCTION dp_stream.random_id() FROM PUBLIC;
REVOKE ALL ON FUNCTION dp_stream.random_secret() FROM PUBLIC;
REVOKE ALL ON FUNCTION dp_stream.release_values(statistic text, counter @extschema@.dp_counter, statistic_state @extschema@.dp_statistic, OUT estimate double precision, OUT error_bound double precision, OUT summary @extschema@.dp_summary) FROM PUBLIC;
REVOKE ALL ON FUNCTION dp_stream.sealed_secret_id(state @extschema@.dp_counter) FROM PUBLIC;
REVOKE ALL ON FUNCTION dp_stream.sealed_secret_id(state @extschema@.dp_statistic) FROM PUBLIC;
REVOKE ALL ON FUNCTION dp_stream.state_stream(state @extschema@.dp_counter) FROM PUBLIC;
REVOKE ALL ON FUNCTION dp_stream.state_stream(state @extschema@.dp_statistic) FROM PUBLIC;
REVOKE ALL ON FUNCTION dp_stream.written_by_this_transaction(xmin xid) FROM PUBLIC;
REVOKE ALL ON FUNCTION dp_stream.catalog_on_coordinator() FROM PUBLIC;
REVOKE ALL ON FUNCTION dp_stream.charges_on_coordinator() FROM PUBLIC;
REVOKE ALL ON FUNCTION dp_stream.check_key_mechanism() FROM PUBLIC;
REVOKE ALL ON FUNCTION dp_stream.check_publication_mechanism() FROM PUBLIC;
REVOKE ALL ON FUNCTION dp_stream.check_stream_name() FROM PUBLIC;
REVOKE ALL ON FUNCTION dp_stream.refuse_change() FROM PUBLIC;
REVOKE ALL ON FUNCTION dp_stream.drop_secret(secret_id bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION dp_stream.rotate_secret() FROM PUBLIC;
REVOKE ALL ON FUNCTION dp_stream.use_table_sampler_for_keyed_noise() FROM PUBLIC;
REVOKE ALL ON FUNCTION dp_stream.push_period(s dp_stream.streams, period timestamp without time zone, value double precision, filled_without_data boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION dp_stream.stream_for_advance(name text) FROM PUBLIC;
REVOKE ALL ON FUNCTION dp_stream.citus_absorb() FROM PUBLIC;
REVOKE ALL ON FUNCTION dp_stream.citus_sync(explicit boolean) FROM PUBLIC;

-- The administrative functions behind dp_stream's wrappers: for
-- dp_stream_admin (the wrappers, which PUBLIC may call, check the caller
-- first: dp_stream.require_admin).
REVOKE ALL ON FUNCTION dp_stream_private.budget(dataset text, OUT total_epsilon numeric, OUT spent_epsilon numeric, OUT remaining_epsilon numeric, OUT charges bigint) FROM PUBLIC;
GRANT ALL ON FUNCTION dp_stream_private.budget(dataset text, OUT total_epsilon numeric, OUT spent_epsilon numeric, OUT remaining_epsilon numeric, OUT charges bigint) TO dp_stream_admin;
REVOKE ALL ON FUNCTION dp_stream_private.charge(dataset text, epsilon double precision, purpose text) FROM PUBLIC;
GRANT ALL ON FUNCTION dp_stream_private.charge(dataset text, epsilon double precision, purpose text) TO dp_stream_admin;
REVOKE ALL ON FUNCTION dp_stream_private.create_budget(dataset text, total_epsilon double precision) FROM PUBLIC;
GRANT ALL ON FUNCTION dp_stream_private.create_budget(dataset text, total_epsilon double precision) TO dp_stream_admin;
REVOKE ALL ON FUNCTION dp_stream_private.create_key(key text, mechanism @extschema@.dp_mechanism, dataset text, used_by regrole, statistic text, lower double precision, upper double precision, integer_values boolean) FROM PUBLIC;
GRANT ALL ON FUNCTION dp_stream_private.create_key(key text, mechanism @extschema@.dp_mechanism, dataset text, used_by regrole, statistic text, lower double precision, upper double precision, integer_values boolean) TO dp_stream_admin;
REVOKE ALL ON FUNCTION dp_stream_private.register_key(key text, mechanism @extschema@.dp_mechanism, dataset text, used_by regrole, computes text) FROM PUBLIC;
GRANT ALL ON FUNCTION dp_stream_private.register_key(key text, mechanism @extschema@.dp_mechanism, dataset text, used_by regrole, computes text) TO dp_stream_admin;
REVOKE ALL ON FUNCTION dp_stream_private.advance(name text, observations dp_stream.observation[]) FROM PUBLIC;
GRANT ALL ON FUNCTION dp_stream_private.advance(name text, observations dp_stream.observation[]) TO dp_stream_admin;
REVOKE ALL ON FUNCTION dp_stream_private.advance(name text, period timestamp without time zone, value double precision) FROM PUBLIC;
GRANT ALL ON FUNCTION dp_stream_private.advance(name text, period timestamp without time zone, value double precision) TO dp_stream_admin;
REVOKE ALL ON FUNCTION dp_stream_private.create_stream(name text, statistic text, mechanism @extschema@.dp_mechanism, lower double precision, upper double precision, first_period timestamp without time zone, period_length interval, dataset text) FROM PUBLIC;
GRANT ALL ON FUNCTION dp_stream_private.create_stream(name text, statistic text, mechanism @extschema@.dp_mechanism, lower double precision, upper double precision, first_period timestamp without time zone, period_length interval, dataset text) TO dp_stream_admin;
REVOKE ALL ON FUNCTION dp_stream_private.create_publication(name text, statistic text, mechanism @extschema@.dp_mechanism, lower double precision, upper double precision, partition_by text, privacy_unit text, contributions bigint, truncation text, partitions_per_person bigint, dataset text, used_by regrole, first_period timestamp without time zone, period_length interval, integer_values boolean) FROM PUBLIC;
GRANT ALL ON FUNCTION dp_stream_private.create_publication(name text, statistic text, mechanism @extschema@.dp_mechanism, lower double precision, upper double precision, partition_by text, privacy_unit text, contributions bigint, truncation text, partitions_per_person bigint, dataset text, used_by regrole, first_period timestamp without time zone, period_length interval, integer_values boolean) TO dp_stream_admin;
REVOKE ALL ON FUNCTION dp_stream_private.publish(publication text, period timestamp without time zone, observations dp_stream.observation[], through timestamp without time zone, fill_missing boolean) FROM PUBLIC;
GRANT ALL ON FUNCTION dp_stream_private.publish(publication text, period timestamp without time zone, observations dp_stream.observation[], through timestamp without time zone, fill_missing boolean) TO dp_stream_admin;
REVOKE ALL ON FUNCTION dp_stream_private.register_publication(name text, mechanism @extschema@.dp_mechanism, used_by regrole, statistic text, lower double precision, upper double precision, integer_values boolean, computes text, partition_by text, privacy_unit text, contributions bigint, truncation text, partitions_per_person bigint, first_period timestamp without time zone, period_length interval, dataset text) FROM PUBLIC;
GRANT ALL ON FUNCTION dp_stream_private.register_publication(name text, mechanism @extschema@.dp_mechanism, used_by regrole, statistic text, lower double precision, upper double precision, integer_values boolean, computes text, partition_by text, privacy_unit text, contributions bigint, truncation text, partitions_per_person bigint, first_period timestamp without time zone, period_length interval, dataset text) TO dp_stream_admin;
REVOKE ALL ON FUNCTION dp_stream_private.citus_sync_secrets() FROM PUBLIC;
GRANT ALL ON FUNCTION dp_stream_private.citus_sync_secrets() TO dp_stream_admin;

-- What the two roles read.
GRANT SELECT ON TABLE dp_stream.releases TO dp_stream_reader;
GRANT SELECT ON TABLE dp_stream.releases TO dp_stream_admin;
GRANT SELECT ON TABLE dp_stream.budgets TO dp_stream_admin;
GRANT SELECT ON TABLE dp_stream.charges TO dp_stream_admin;
GRANT SELECT ON TABLE dp_stream.keys TO dp_stream_admin;
GRANT SELECT ON TABLE dp_stream.publications TO dp_stream_admin;
GRANT SELECT ON TABLE dp_stream.publication_list TO dp_stream_admin;
GRANT SELECT ON TABLE dp_stream.publication_releases TO dp_stream_reader;
GRANT SELECT ON TABLE dp_stream.publication_releases TO dp_stream_admin;
GRANT SELECT ON TABLE dp_stream.spending TO dp_stream_admin;
GRANT SELECT ON TABLE dp_stream.stream_list TO dp_stream_reader;
GRANT SELECT ON TABLE dp_stream.stream_list TO dp_stream_admin;

-- The catalog's streams, secrets, persons' contributions and Citus's
-- transfer table: no privilege for PUBLIC, stated (as the update scripts
-- stated it) rather than left to the default.
REVOKE ALL ON dp_stream.streams, dp_stream.secrets, dp_stream.contributions,
    dp_stream.citus_transfer FROM PUBLIC;

-- =========================================================================
-- What an installation does once
-- =========================================================================
-- Rows and checks, not objects: an update script never repeats these.

-- A new database's secrets: one to seal stored states under, and the two
-- keyed noise draws under (the table sampler's is the one in use in every
-- new installation; docs/keyed_noise.md).
INSERT INTO dp_stream.secrets (id, purpose, secret)
VALUES (dp_stream.random_id(), 'seal', dp_stream.random_secret()),
       (dp_stream.random_id(), 'noise', dp_stream.random_secret()),
       (dp_stream.random_id(), 'table_noise', dp_stream.random_secret());

-- A schema where other roles can create objects is no place for the
-- extension's functions: a better-matching overload planted next to them
-- (public.dp_hybrid(numeric, integer), say) runs with the rights of whoever
-- types the docs' examples (README.md, "Install into an existing
-- PostgreSQL").  Warn at CREATE EXTENSION when a role that
-- is not a superuser owns the schema (public belongs to the database's
-- owner) or may create in it.
DO $$
DECLARE
  writer text;
BEGIN
  SELECT CASE WHEN g.grantee = 0 THEN 'PUBLIC' ELSE r.rolname::text END INTO writer
  FROM pg_catalog.pg_namespace n
  CROSS JOIN LATERAL (
      SELECT n.nspowner AS grantee
      UNION ALL
      SELECT a.grantee FROM pg_catalog.aclexplode(n.nspacl) a WHERE a.privilege_type = 'CREATE'
  ) g
  LEFT JOIN pg_catalog.pg_roles r
    ON r.oid = CASE WHEN g.grantee = 'pg_database_owner'::regrole
                    THEN (SELECT datdba FROM pg_catalog.pg_database
                          WHERE datname = pg_catalog.current_database())
                    ELSE g.grantee END
  WHERE n.oid = '@extschema@'::regnamespace AND (g.grantee = 0 OR NOT r.rolsuper)
  ORDER BY 1 LIMIT 1;
  IF FOUND THEN
    RAISE WARNING 'dp_stream is installed in schema %, where role % can create functions',
                  '@extschema@', writer
      USING DETAIL = 'A function created there that matches a call better than dp_stream''s runs with the rights of whoever makes the call.',
            HINT = 'Install it into a schema only superusers can write (CREATE SCHEMA dp; CREATE EXTENSION dp_stream SCHEMA dp;), or make this one such a schema (ALTER SCHEMA ... OWNER TO a superuser; REVOKE CREATE), and keep writable schemas off privileged roles'' search_path (README.md).';
  END IF;
END $$;

-- dp_stream 0.13.0 -> 0.14.0: no silent wrong answers.  One argument order
-- for every mechanism constructor, a count's bound on one step stated by
-- the user (never a default that clamps), refusals for what cannot mean
-- anything (FILTER, a window without ORDER BY), and messages that name
-- what to do.

\echo Use "ALTER EXTENSION dp_stream UPDATE TO '0.14.0'" to load this file. \quit

-- ===== section: arguments =====
-- One argument order (issue 25): every constructor takes (epsilon or rho,
-- horizon, max_per_step, then its own parameters), or (epsilon,
-- max_per_step, ...) without a horizon.  max_per_step defaults to NULL,
-- "not stated": a count refuses such a mechanism (22023), a sum, average
-- or variance needs none (its bound comes from lower and upper), and the
-- planning functions answer per unit of the bound.  Stored mechanisms keep
-- their meaning: none before 0.14.0 was without a bound.
--
-- Constructors whose positions moved get new definitions under their names
-- (their parameter names change, which CREATE OR REPLACE cannot do), on new
-- C functions.  The old definitions are not dropped but renamed to
-- <name>_before_0_14: a view or function that called one keeps calling it,
-- by its OID, with its old meaning (a positional call would change meaning
-- under the new order, and dropping would stop the update at the first such
-- view).  They are deprecated and go in a later release; nothing new should
-- call them.  The new constructors warn (01P01) when the values they got,
-- read in the old order, built another valid mechanism, unless
-- dp_stream.argument_order_warning is off: PostgreSQL does not tell a
-- function whether an argument was named.  The extension's own wrappers set
-- the warning off for their calls, which are written in the new order.

ALTER FUNCTION @extschema@.dp_kary(float8, bigint, bigint, bigint) RENAME TO dp_kary_before_0_14;
COMMENT ON FUNCTION @extschema@.dp_kary_before_0_14(float8, bigint, bigint, bigint) IS
    'deprecated: dp_kary in its order before 0.14.0, kept so that views created before keep their meaning; call dp_kary';
CREATE FUNCTION @extschema@.dp_kary(epsilon float8, horizon bigint, max_per_step bigint DEFAULT NULL,
                                     arity bigint DEFAULT NULL)
    RETURNS @extschema@.dp_mechanism
    AS 'MODULE_PATHNAME', 'dp_kary_construct_0_14' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.dp_kary(float8, bigint, bigint, bigint) IS
    'k-ary tree: k-adic intervals, arity chosen for the least mean variance by default (arity => k); T-bounded, error O(k log_k^1.5 T / epsilon)';

ALTER FUNCTION @extschema@.dp_balanced(float8, bigint, bigint, bigint) RENAME TO dp_balanced_before_0_14;
COMMENT ON FUNCTION @extschema@.dp_balanced_before_0_14(float8, bigint, bigint, bigint) IS
    'deprecated: dp_balanced in its order before 0.14.0, kept so that views created before keep their meaning; call dp_balanced';
CREATE FUNCTION @extschema@.dp_balanced(epsilon float8, horizon bigint, max_per_step bigint DEFAULT NULL,
                                         arity bigint DEFAULT NULL)
    RETURNS @extschema@.dp_mechanism
    AS 'MODULE_PATHNAME', 'dp_balanced_construct_0_14' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.dp_balanced(float8, bigint, bigint, bigint) IS
    'k-ary tree with balanced digits (odd arity, chosen by default; arity => k): the least variance of the pure epsilon-DP counters; T-bounded';

ALTER FUNCTION @extschema@.dp_honaker(float8, bigint, bigint, bigint) RENAME TO dp_honaker_before_0_14;
COMMENT ON FUNCTION @extschema@.dp_honaker_before_0_14(float8, bigint, bigint, bigint) IS
    'deprecated: dp_honaker in its order before 0.14.0, kept so that views created before keep their meaning; call dp_honaker';
CREATE FUNCTION @extschema@.dp_honaker(epsilon float8, horizon bigint, max_per_step bigint DEFAULT NULL,
                                        arity bigint DEFAULT NULL)
    RETURNS @extschema@.dp_mechanism
    AS 'MODULE_PATHNAME', 'dp_honaker_construct_0_14' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.dp_honaker(float8, bigint, bigint, bigint) IS
    'k-ary tree with Honaker''s streaming estimator (arity => k; arity 2: Binary at 0.58x its variance); pan-private and keyed options; T-bounded';

ALTER FUNCTION @extschema@.dp_two_level(float8, bigint, bigint, bigint) RENAME TO dp_two_level_before_0_14;
COMMENT ON FUNCTION @extschema@.dp_two_level_before_0_14(float8, bigint, bigint, bigint) IS
    'deprecated: dp_two_level in its order before 0.14.0, kept so that views created before keep their meaning; call dp_two_level';
CREATE FUNCTION @extschema@.dp_two_level(epsilon float8, horizon bigint, max_per_step bigint DEFAULT NULL,
                                          block bigint DEFAULT NULL)
    RETURNS @extschema@.dp_mechanism
    AS 'MODULE_PATHNAME', 'dp_two_level_construct_0_14' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.dp_two_level(float8, bigint, bigint, bigint) IS
    'Two-level: blocks of ceil(sqrt(T)) steps (block => b) plus singletons; T-bounded, error O(T^(1/4) / epsilon)';

ALTER FUNCTION @extschema@.dp_mechanism_of(text, float8, bigint, bigint, bigint) RENAME TO dp_mechanism_of_before_0_14;
COMMENT ON FUNCTION @extschema@.dp_mechanism_of_before_0_14(text, float8, bigint, bigint, bigint) IS
    'deprecated: dp_mechanism_of in its order before 0.14.0, kept so that views created before keep their meaning; call dp_mechanism_of';
CREATE FUNCTION @extschema@.dp_mechanism_of(kind text, epsilon float8, horizon bigint DEFAULT NULL,
                                             max_per_step bigint DEFAULT NULL, parameter bigint DEFAULT NULL)
    RETURNS @extschema@.dp_mechanism
    AS 'MODULE_PATHNAME', 'dp_mechanism_of_0_14' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.dp_mechanism_of(text, float8, bigint, bigint, bigint) IS
    'any mechanism by its name in the text form; a NULL horizon is none, a NULL max_per_step not stated, a NULL parameter the default block or arity';
-- dp_honaker's old body named dp_mechanism_of, which now has the new order: the old one
CREATE OR REPLACE FUNCTION @extschema@.dp_honaker_before_0_14(epsilon float8, horizon bigint,
                                                             arity bigint DEFAULT NULL,
                                                             max_per_step bigint DEFAULT 1)
    RETURNS @extschema@.dp_mechanism
    LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp
AS $$ SELECT @extschema@.dp_mechanism_of_before_0_14('honaker', epsilon, horizon, arity, max_per_step) $$;

ALTER FUNCTION @extschema@.dp_zcdp_mechanism_of(text, float8, bigint, bigint, bigint) RENAME TO dp_zcdp_mechanism_of_before_0_14;
COMMENT ON FUNCTION @extschema@.dp_zcdp_mechanism_of_before_0_14(text, float8, bigint, bigint, bigint) IS
    'deprecated: dp_zcdp_mechanism_of in its order before 0.14.0, kept so that views created before keep their meaning; call dp_zcdp_mechanism_of';
CREATE FUNCTION @extschema@.dp_zcdp_mechanism_of(kind text, rho float8, horizon bigint DEFAULT NULL,
                                                  max_per_step bigint DEFAULT NULL, parameter bigint DEFAULT NULL)
    RETURNS @extschema@.dp_mechanism
    AS 'MODULE_PATHNAME', 'dp_zcdp_mechanism_of_0_14' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.dp_zcdp_mechanism_of(text, float8, bigint, bigint, bigint) IS
    'a mechanism under rho-zCDP with discrete Gaussian noise: binary, kary, balanced, balanced_unbounded or blt';

ALTER FUNCTION @extschema@.dp_expiring(float8, float8, bigint, bigint) RENAME TO dp_expiring_before_0_14;
COMMENT ON FUNCTION @extschema@.dp_expiring_before_0_14(float8, float8, bigint, bigint) IS
    'deprecated: dp_expiring in its order before 0.14.0, kept so that views created before keep their meaning; call dp_expiring';
CREATE FUNCTION @extschema@.dp_expiring(epsilon float8, max_per_step bigint DEFAULT NULL,
                                         lambda float8 DEFAULT NULL, delay bigint DEFAULT 0)
    RETURNS @extschema@.dp_mechanism
    AS 'MODULE_PATHNAME', 'dp_expiring_construct_0_14' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.dp_expiring(float8, bigint, float8, bigint) IS
    'privacy expiration: an item d steps old loses epsilon g(d), g of order log(d)^lambda (lambda => x, required); no horizon, pan-private option, error O(log T / epsilon) for lambda > 3/2';

ALTER FUNCTION @extschema@.dp_expiring_baseline(float8, float8, bigint, bigint, bigint) RENAME TO dp_expiring_baseline_before_0_14;
COMMENT ON FUNCTION @extschema@.dp_expiring_baseline_before_0_14(float8, float8, bigint, bigint, bigint) IS
    'deprecated: dp_expiring_baseline in its order before 0.14.0, kept so that views created before keep their meaning; call dp_expiring_baseline';
CREATE FUNCTION @extschema@.dp_expiring_baseline(epsilon float8, horizon bigint,
                                                  max_per_step bigint DEFAULT NULL,
                                                  epsilon_past float8 DEFAULT NULL,
                                                  window_size bigint DEFAULT NULL)
    RETURNS @extschema@.dp_mechanism
    AS 'MODULE_PATHNAME', 'dp_expiring_baseline_construct_0_14' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.dp_expiring_baseline(float8, bigint, bigint, float8, bigint) IS
    'the baseline of privacy expiration: epsilon for the last window_size steps, epsilon + epsilon_past for older items (both required, by name); T-bounded';

-- positions kept: only the default of max_per_step changes (1 to NULL),
-- and a NULL epsilon or horizon still gives NULL (no longer STRICT, so
-- that NULL can mean "not stated")
CREATE OR REPLACE FUNCTION @extschema@.dp_binary(epsilon float8, horizon bigint, max_per_step bigint DEFAULT NULL)
    RETURNS @extschema@.dp_mechanism
    AS 'MODULE_PATHNAME', 'dp_binary_construct' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE OR REPLACE FUNCTION @extschema@.dp_simple_i(epsilon float8, horizon bigint, max_per_step bigint DEFAULT NULL)
    RETURNS @extschema@.dp_mechanism
    AS 'MODULE_PATHNAME', 'dp_simple_i_construct' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE OR REPLACE FUNCTION @extschema@.dp_simple_ii(epsilon float8, max_per_step bigint DEFAULT NULL)
    RETURNS @extschema@.dp_mechanism
    AS 'MODULE_PATHNAME', 'dp_simple_ii_construct' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE OR REPLACE FUNCTION @extschema@.dp_hybrid(epsilon float8, max_per_step bigint DEFAULT NULL)
    RETURNS @extschema@.dp_mechanism
    AS 'MODULE_PATHNAME', 'dp_hybrid_construct' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE OR REPLACE FUNCTION @extschema@.dp_ppcum(epsilon float8, horizon bigint, max_per_step bigint DEFAULT NULL)
    RETURNS @extschema@.dp_mechanism
    AS 'MODULE_PATHNAME', 'dp_ppcum_construct' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION @extschema@.dp_balanced_unbounded(epsilon float8, max_per_step bigint DEFAULT NULL,
                                                              arity bigint DEFAULT NULL)
    RETURNS @extschema@.dp_mechanism
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp SET dp_stream.argument_order_warning = off
AS $$ SELECT @extschema@.dp_mechanism_of('balanced_unbounded', epsilon, NULL::bigint, max_per_step, arity) $$;

CREATE OR REPLACE FUNCTION @extschema@.dp_blt(rho float8, horizon bigint, max_per_step bigint DEFAULT NULL)
    RETURNS @extschema@.dp_mechanism
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp SET dp_stream.argument_order_warning = off
AS $$ SELECT @extschema@.dp_zcdp_mechanism_of('blt', rho, horizon, max_per_step) $$;
CREATE OR REPLACE FUNCTION @extschema@.dp_gaussian_binary(rho float8, horizon bigint, max_per_step bigint DEFAULT NULL)
    RETURNS @extschema@.dp_mechanism
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp SET dp_stream.argument_order_warning = off
AS $$ SELECT @extschema@.dp_zcdp_mechanism_of('binary', rho, horizon, max_per_step) $$;
CREATE OR REPLACE FUNCTION @extschema@.dp_smooth_binary(rho float8, horizon bigint, max_per_step bigint DEFAULT NULL)
    RETURNS @extschema@.dp_mechanism
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp SET dp_stream.argument_order_warning = off
AS $$ SELECT @extschema@.dp_zcdp_mechanism_of('smooth_binary', rho, horizon, max_per_step) $$;

-- dp_auto's choice does not depend on the bound; with none stated, the
-- mechanism it returns is for a sum, average or variance (a count refuses it)
CREATE OR REPLACE FUNCTION @extschema@.dp_auto(epsilon float8, horizon bigint DEFAULT NULL,
                                                max_per_step bigint DEFAULT NULL)
    RETURNS @extschema@.dp_mechanism
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp SET dp_stream.argument_order_warning = off
AS $$
  SELECT CASE WHEN horizon IS NULL THEN @extschema@.dp_balanced_unbounded(epsilon, max_per_step)
              ELSE @extschema@.dp_balanced(epsilon, horizon, max_per_step) END
$$;
COMMENT ON FUNCTION @extschema@.dp_auto(float8, bigint, bigint) IS
    'the recommended mechanism: balanced digits for a known horizon, balanced digits on growing blocks for a stream without end; a count needs max_per_step';

-- no longer STRICT (max_per_step may be NULL): a NULL epsilon, horizon,
-- steps or confidence still gives no rows
CREATE OR REPLACE FUNCTION @extschema@.dp_compare_mechanisms(epsilon float8, horizon bigint, steps bigint,
                                                              max_per_step bigint DEFAULT NULL,
                                                              confidence float8 DEFAULT 0.95)
    RETURNS TABLE (mechanism @extschema@.dp_mechanism, error_sd float8, error_bound float8)
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp SET dp_stream.argument_order_warning = off
AS $$
  SELECT m, @extschema@.dp_error_sd(m, steps), @extschema@.dp_error_bound(m, steps, confidence)
  FROM (VALUES (@extschema@.dp_binary(epsilon, horizon, max_per_step)),
               (@extschema@.dp_kary(epsilon, horizon, max_per_step)),
               (@extschema@.dp_balanced(epsilon, horizon, max_per_step)),
               (@extschema@.dp_two_level(epsilon, horizon, max_per_step)),
               (@extschema@.dp_hybrid(epsilon, max_per_step)),
               (@extschema@.dp_balanced_unbounded(epsilon, max_per_step)),
               (@extschema@.dp_honaker(epsilon, horizon, max_per_step)),
               (@extschema@.dp_simple_i(epsilon, horizon, max_per_step)),
               (@extschema@.dp_simple_ii(epsilon, max_per_step)),
               (@extschema@.dp_ppcum(epsilon, horizon, max_per_step))) AS candidates (m)
  WHERE epsilon IS NOT NULL AND horizon IS NOT NULL AND steps IS NOT NULL AND confidence IS NOT NULL
  ORDER BY 3, 2
$$;
COMMENT ON FUNCTION @extschema@.dp_compare_mechanisms(float8, bigint, bigint, bigint, float8) IS
    'every mechanism at one epsilon and horizon: the error at a step, best first (draws no noise); per unit of the step bound when max_per_step is not stated';

COMMENT ON FUNCTION @extschema@.dp_error_bound(@extschema@.dp_mechanism, bigint, float8) IS
    'half-width of a two-sided interval for the release at a given step (draws no noise); per unit of the step bound when the mechanism states no max_per_step';
COMMENT ON FUNCTION @extschema@.dp_error_sd(@extschema@.dp_mechanism, bigint) IS
    'standard deviation of the error of the release at a given step (draws no noise); per unit of the step bound when the mechanism states no max_per_step';
COMMENT ON FUNCTION @extschema@.dp_error_bound_max(@extschema@.dp_mechanism, bigint, float8) IS
    'the widest error bound over steps 1..steps: a band that never narrows (at most 10^7 steps); per unit of the step bound when the mechanism states no max_per_step';
COMMENT ON FUNCTION @extschema@.dp_epsilon_for(@extschema@.dp_mechanism, float8, bigint, float8) IS
    'the smallest epsilon whose error bound at a step is at most half_width (the mechanism''s own epsilon is ignored); half_width per unit of the step bound when the mechanism states no max_per_step';

-- the count's refusal at registration, before anything is registered or charged
CREATE FUNCTION dp_stream.check_count_mechanism(mechanism @extschema@.dp_mechanism) RETURNS void
    AS 'MODULE_PATHNAME', 'dp_check_count_mechanism' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION dp_stream.check_count_mechanism(@extschema@.dp_mechanism) IS
    'internal: raises 22023 when a count''s mechanism states no max_per_step';

-- create_key and create_publication as in 0.12.0 and 0.13.0, and: a count
-- is refused a mechanism without a stated max_per_step before the key or
-- publication is registered and charged.  (create_stream refuses it
-- through dp_counter_new.)
CREATE OR REPLACE FUNCTION dp_stream.create_key(key text, mechanism @extschema@.dp_mechanism,
                                                dataset text DEFAULT NULL, used_by regrole DEFAULT NULL,
                                                statistic text DEFAULT 'count', lower float8 DEFAULT NULL,
                                                upper float8 DEFAULT NULL, integer_values boolean DEFAULT false)
RETURNS @extschema@.dp_mechanism
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
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

CREATE OR REPLACE FUNCTION dp_stream.create_publication(
    name text,
    statistic text,
    mechanism @extschema@.dp_mechanism,
    lower float8 DEFAULT NULL,
    upper float8 DEFAULT NULL,
    partition_by text DEFAULT 'partition',
    privacy_unit text DEFAULT 'event',
    contributions bigint DEFAULT NULL,
    truncation text DEFAULT NULL,
    partitions_per_person bigint DEFAULT NULL,
    dataset text DEFAULT NULL,
    used_by regrole DEFAULT NULL,
    first_period timestamp DEFAULT date_trunc('day', localtimestamp),
    period_length interval DEFAULT interval '1 day',
    integer_values boolean DEFAULT false)
RETURNS @extschema@.dp_mechanism
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
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
-- ===== end of section: arguments =====

-- ===== section: refusals =====
-- Messages that say what to do (issue 25, "smaller"); the refusals of
-- FILTER and of windows without ORDER BY are in the library.

-- create_stream as in 0.12.0, and: "an average stream", not "a average
-- stream", in the refusal of missing bounds.
CREATE OR REPLACE FUNCTION dp_stream.create_stream(
    name text,
    statistic text,
    mechanism @extschema@.dp_mechanism,
    lower float8 DEFAULT NULL,
    upper float8 DEFAULT NULL,
    first_period timestamp DEFAULT date_trunc('day', localtimestamp),
    period_length interval DEFAULT interval '1 day',
    dataset text DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
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

-- advance as in 0.13.0, and: an off-grid period names the stream's next
-- period (the one a call should ask for), not the grid point after the
-- period asked for.
CREATE OR REPLACE FUNCTION dp_stream.advance(name text, period timestamp, value float8)
RETURNS dp_stream.releases
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
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

-- register_key as in 0.6.0, and: its permission error names the role to
-- grant (on the lines of the old RAISE, so that the line numbers in the
-- CONTEXT of its other errors stay as they were).
CREATE OR REPLACE FUNCTION dp_stream.register_key(key text, mechanism @extschema@.dp_mechanism, dataset text,
                                       used_by regrole, computes text)
RETURNS @extschema@.dp_mechanism
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
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
  INSERT INTO dp_stream.keys (key, mechanism, used_by, computes, dataset)
  VALUES (key, keyed, used_by, computes, dataset);
  IF dataset IS NOT NULL THEN
    PERFORM dp_stream.charge(dataset, @extschema@.dp_epsilon(keyed), format('key %s', key));
  END IF;
  RETURN keyed;
EXCEPTION WHEN unique_violation THEN
  RAISE EXCEPTION 'key "%" already exists', key
    USING ERRCODE = 'duplicate_object',
          HINT = 'A key is registered once; use the mechanism it was registered with (see dp_stream.keys).';
END $$;

-- Permission errors that name the role to grant.  PostgreSQL refuses a
-- function its caller may not execute before any of the function's code
-- runs, with "permission denied for function advance" and nothing on what
-- to grant.  So each entry point granted to dp_stream_admin is moved,
-- unchanged and with its privileges, to the schema dp_stream_private, and
-- dp_stream keeps a thin wrapper of the same signature, executable by
-- everyone: it checks the caller's privilege on the real function, raises
-- the same error with a hint naming dp_stream_admin when it is missing,
-- and calls it (whose own privilege check applies as before, so nothing is
-- granted that was not).  A privilege granted on one function goes on
-- dp_stream_private's.  A later script that changes one of these functions
-- must replace dp_stream_private's: CREATE OR REPLACE of dp_stream's would
-- replace the wrapper.
CREATE SCHEMA dp_stream_private;
COMMENT ON SCHEMA dp_stream_private IS
    'dp_stream: the administrative functions behind dp_stream''s wrappers, with their privileges (granted to dp_stream_admin)';
GRANT USAGE ON SCHEMA dp_stream_private TO PUBLIC;

CREATE FUNCTION dp_stream.require_admin(function regprocedure) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
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
COMMENT ON FUNCTION dp_stream.require_admin(regprocedure) IS
    'internal: raises 42501, naming dp_stream_admin, unless the current role may execute the function';

ALTER FUNCTION dp_stream.advance(text,dp_stream.observation[]) SET SCHEMA dp_stream_private;
ALTER FUNCTION dp_stream.advance(text,timestamp without time zone,double precision) SET SCHEMA dp_stream_private;
ALTER FUNCTION dp_stream.budget(text) SET SCHEMA dp_stream_private;
ALTER FUNCTION dp_stream.charge(text,double precision,text) SET SCHEMA dp_stream_private;
ALTER FUNCTION dp_stream.create_budget(text,double precision) SET SCHEMA dp_stream_private;
ALTER FUNCTION dp_stream.create_key(text,@extschema@.dp_mechanism,text,regrole,text,double precision,double precision,boolean) SET SCHEMA dp_stream_private;
ALTER FUNCTION dp_stream.create_publication(text,text,@extschema@.dp_mechanism,double precision,double precision,text,text,bigint,text,bigint,text,regrole,timestamp without time zone,interval,boolean) SET SCHEMA dp_stream_private;
ALTER FUNCTION dp_stream.create_stream(text,text,@extschema@.dp_mechanism,double precision,double precision,timestamp without time zone,interval,text) SET SCHEMA dp_stream_private;
ALTER FUNCTION dp_stream.publish(text,timestamp without time zone,dp_stream.observation[],timestamp without time zone,boolean) SET SCHEMA dp_stream_private;
ALTER FUNCTION dp_stream.register_key(text,@extschema@.dp_mechanism,text,regrole,text) SET SCHEMA dp_stream_private;
ALTER FUNCTION dp_stream.register_publication(text,@extschema@.dp_mechanism,regrole,text,double precision,double precision,boolean,text,text,text,bigint,text,bigint,timestamp without time zone,interval,text) SET SCHEMA dp_stream_private;
CREATE FUNCTION dp_stream.advance(name text, observations dp_stream.observation[])
RETURNS dp_stream.advance_result
LANGUAGE sql SET search_path = pg_catalog, pg_temp
AS $$
  SELECT dp_stream.require_admin('dp_stream_private.advance(text, dp_stream.observation[])');
  SELECT * FROM dp_stream_private.advance(name, observations);
$$;

CREATE FUNCTION dp_stream.advance(name text, period timestamp without time zone, value double precision)
RETURNS dp_stream.releases
LANGUAGE sql SET search_path = pg_catalog, pg_temp
AS $$
  SELECT dp_stream.require_admin('dp_stream_private.advance(text, timestamp without time zone, double precision)');
  SELECT * FROM dp_stream_private.advance(name, period, value);
$$;

CREATE FUNCTION dp_stream.budget(dataset text, OUT total_epsilon numeric, OUT spent_epsilon numeric, OUT remaining_epsilon numeric, OUT charges bigint)
RETURNS record
LANGUAGE sql SET search_path = pg_catalog, pg_temp
AS $$
  SELECT dp_stream.require_admin('dp_stream_private.budget(text)');
  SELECT * FROM dp_stream_private.budget(dataset);
$$;

CREATE FUNCTION dp_stream.charge(dataset text, epsilon double precision, purpose text)
RETURNS numeric
LANGUAGE sql SET search_path = pg_catalog, pg_temp
AS $$
  SELECT dp_stream.require_admin('dp_stream_private.charge(text, double precision, text)');
  SELECT * FROM dp_stream_private.charge(dataset, epsilon, purpose);
$$;

CREATE FUNCTION dp_stream.create_budget(dataset text, total_epsilon double precision)
RETURNS void
LANGUAGE sql SET search_path = pg_catalog, pg_temp
AS $$
  SELECT dp_stream.require_admin('dp_stream_private.create_budget(text, double precision)');
  SELECT * FROM dp_stream_private.create_budget(dataset, total_epsilon);
$$;

CREATE FUNCTION dp_stream.create_key(key text, mechanism @extschema@.dp_mechanism, dataset text DEFAULT NULL::text, used_by regrole DEFAULT NULL::regrole, statistic text DEFAULT 'count'::text, lower double precision DEFAULT NULL::double precision, upper double precision DEFAULT NULL::double precision, integer_values boolean DEFAULT false)
RETURNS @extschema@.dp_mechanism
LANGUAGE sql SET search_path = pg_catalog, pg_temp
AS $$
  SELECT dp_stream.require_admin('dp_stream_private.create_key(text, @extschema@.dp_mechanism, text, regrole, text, double precision, double precision, boolean)');
  SELECT * FROM dp_stream_private.create_key(key, mechanism, dataset, used_by, statistic, lower, upper, integer_values);
$$;

CREATE FUNCTION dp_stream.create_publication(name text, statistic text, mechanism @extschema@.dp_mechanism, lower double precision DEFAULT NULL::double precision, upper double precision DEFAULT NULL::double precision, partition_by text DEFAULT 'partition'::text, privacy_unit text DEFAULT 'event'::text, contributions bigint DEFAULT NULL::bigint, truncation text DEFAULT NULL::text, partitions_per_person bigint DEFAULT NULL::bigint, dataset text DEFAULT NULL::text, used_by regrole DEFAULT NULL::regrole, first_period timestamp without time zone DEFAULT date_trunc('day'::text, LOCALTIMESTAMP), period_length interval DEFAULT '1 day'::interval, integer_values boolean DEFAULT false)
RETURNS @extschema@.dp_mechanism
LANGUAGE sql SET search_path = pg_catalog, pg_temp
AS $$
  SELECT dp_stream.require_admin('dp_stream_private.create_publication(text, text, @extschema@.dp_mechanism, double precision, double precision, text, text, bigint, text, bigint, text, regrole, timestamp without time zone, interval, boolean)');
  SELECT * FROM dp_stream_private.create_publication(name, statistic, mechanism, lower, upper, partition_by, privacy_unit, contributions, truncation, partitions_per_person, dataset, used_by, first_period, period_length, integer_values);
$$;

CREATE FUNCTION dp_stream.create_stream(name text, statistic text, mechanism @extschema@.dp_mechanism, lower double precision DEFAULT NULL::double precision, upper double precision DEFAULT NULL::double precision, first_period timestamp without time zone DEFAULT date_trunc('day'::text, LOCALTIMESTAMP), period_length interval DEFAULT '1 day'::interval, dataset text DEFAULT NULL::text)
RETURNS void
LANGUAGE sql SET search_path = pg_catalog, pg_temp
AS $$
  SELECT dp_stream.require_admin('dp_stream_private.create_stream(text, text, @extschema@.dp_mechanism, double precision, double precision, timestamp without time zone, interval, text)');
  SELECT * FROM dp_stream_private.create_stream(name, statistic, mechanism, lower, upper, first_period, period_length, dataset);
$$;

CREATE FUNCTION dp_stream.publish(publication text, period timestamp without time zone, observations dp_stream.observation[], through timestamp without time zone DEFAULT NULL::timestamp without time zone, fill_missing boolean DEFAULT false)
RETURNS dp_stream.advance_result
LANGUAGE sql SET search_path = pg_catalog, pg_temp
AS $$
  SELECT dp_stream.require_admin('dp_stream_private.publish(text, timestamp without time zone, dp_stream.observation[], timestamp without time zone, boolean)');
  SELECT * FROM dp_stream_private.publish(publication, period, observations, through, fill_missing);
$$;

CREATE FUNCTION dp_stream.register_key(key text, mechanism @extschema@.dp_mechanism, dataset text, used_by regrole, computes text)
RETURNS @extschema@.dp_mechanism
LANGUAGE sql SET search_path = pg_catalog, pg_temp
AS $$
  SELECT dp_stream.require_admin('dp_stream_private.register_key(text, @extschema@.dp_mechanism, text, regrole, text)');
  SELECT * FROM dp_stream_private.register_key(key, mechanism, dataset, used_by, computes);
$$;

CREATE FUNCTION dp_stream.register_publication(name text, mechanism @extschema@.dp_mechanism, used_by regrole, statistic text, lower double precision, upper double precision, integer_values boolean, computes text, partition_by text, privacy_unit text, contributions bigint, truncation text, partitions_per_person bigint, first_period timestamp without time zone, period_length interval, dataset text)
RETURNS @extschema@.dp_mechanism
LANGUAGE sql SET search_path = pg_catalog, pg_temp
AS $$
  SELECT dp_stream.require_admin('dp_stream_private.register_publication(text, @extschema@.dp_mechanism, regrole, text, double precision, double precision, boolean, text, text, text, bigint, text, bigint, timestamp without time zone, interval, text)');
  SELECT * FROM dp_stream_private.register_publication(name, mechanism, used_by, statistic, lower, upper, integer_values, computes, partition_by, privacy_unit, contributions, truncation, partitions_per_person, first_period, period_length, dataset);
$$;

-- each wrapper says what its function does
DO $$
DECLARE
  f record;
BEGIN
  FOR f IN SELECT p.oid, p.proname, pg_catalog.pg_get_function_identity_arguments(p.oid) AS arguments
           FROM pg_catalog.pg_proc AS p
           WHERE p.pronamespace = 'dp_stream_private'::regnamespace
  LOOP
    EXECUTE format('COMMENT ON FUNCTION dp_stream.%I(%s) IS %L', f.proname, f.arguments,
                   pg_catalog.obj_description(f.oid, 'pg_proc'));
  END LOOP;
END $$;
-- ===== end of section: refusals =====

-- ===== section: docs =====
-- The mechanism registry as a table: the docs' lists of mechanisms and of
-- the options each accepts are tested against it (test/docs.sh).
CREATE FUNCTION @extschema@.dp_mechanism_kinds(
    OUT kind text, OUT bounded boolean, OUT parameters text[],
    OUT epsilon boolean, OUT rho boolean, OUT pan_private boolean,
    OUT consistent boolean, OUT keyed boolean, OUT person_level boolean)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'dp_mechanism_kinds'
LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 16;
COMMENT ON FUNCTION @extschema@.dp_mechanism_kinds() IS
'every counting mechanism of this version: whether it needs a horizon, its own parameters (as in the text form), and the options it accepts (pure epsilon, rho-zCDP, dp_pan_private, dp_consistent, dp_keyed, dp_person_level)';
-- ===== end of section: docs =====

-- ===== section: biases =====
-- dp_error_bound_max is a per-step bound: say so where \df+ shows it
COMMENT ON FUNCTION @extschema@.dp_error_bound_max(@extschema@.dp_mechanism, bigint, float8) IS
    'the widest error bound over steps 1..steps: a band that never narrows (at most 10^7 steps); '
    'per step, not for the whole stream: at confidence 1 - (1 - c) / steps it holds at every step at once with probability >= c';
-- ===== end of section: biases =====

-- ===== section: demo =====
-- ===== end of section: demo =====

-- ===== section: review =====
-- A count's key or publication is refused a mechanism without a stated
-- max_per_step where it is stored, not only in create_key and
-- create_publication: dp_stream.register_key and register_publication
-- (also entry points of dp_stream_admin) registered such a key and charged
-- its dataset, and the refusal came only when the key was first used.
-- Both insert the key into dp_stream.keys (a publication under its own
-- name, computing its statistic), so one trigger covers both; an error
-- undoes the registration and its charge.
CREATE FUNCTION dp_stream.check_key_mechanism() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  PERFORM dp_stream.check_count_mechanism(NEW.mechanism);
  RETURN NEW;
END $$;
REVOKE ALL ON FUNCTION dp_stream.check_key_mechanism() FROM PUBLIC;
COMMENT ON FUNCTION dp_stream.check_key_mechanism() IS
    'internal: refuses a count''s key without a stated max_per_step (trigger on dp_stream.keys)';
CREATE TRIGGER keys_count_bound BEFORE INSERT ON dp_stream.keys
    FOR EACH ROW WHEN (NEW.computes = 'count') EXECUTE FUNCTION dp_stream.check_key_mechanism();
-- ===== end of section: review =====

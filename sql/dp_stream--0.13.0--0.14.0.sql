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
-- Constructors whose positions moved are dropped and created again (their
-- parameter names change, which CREATE OR REPLACE cannot do); the new ones
-- call new C functions, so that a database not yet updated keeps the old
-- definitions with their old meaning.  They warn (01P01) when the values
-- they got, read in the old order, built another valid mechanism, unless
-- dp_stream.argument_order_warning is off: PostgreSQL does not tell a
-- function whether an argument was named.  A view that calls one of them
-- makes the update stop (PostgreSQL's "cannot drop function" error names
-- it): its call, positional, would change meaning under the new order, so
-- it is left to its owner to drop the view and create it again with named
-- arguments.  The extension's own wrappers set the warning off for their
-- calls, which are written in the new order.

DROP FUNCTION @extschema@.dp_kary(float8, bigint, bigint, bigint);
CREATE FUNCTION @extschema@.dp_kary(epsilon float8, horizon bigint, max_per_step bigint DEFAULT NULL,
                                     arity bigint DEFAULT NULL)
    RETURNS @extschema@.dp_mechanism
    AS 'MODULE_PATHNAME', 'dp_kary_construct_0_14' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.dp_kary(float8, bigint, bigint, bigint) IS
    'k-ary tree: k-adic intervals, arity chosen for the least mean variance by default (arity => k); T-bounded, error O(k log_k^1.5 T / epsilon)';

DROP FUNCTION @extschema@.dp_balanced(float8, bigint, bigint, bigint);
CREATE FUNCTION @extschema@.dp_balanced(epsilon float8, horizon bigint, max_per_step bigint DEFAULT NULL,
                                         arity bigint DEFAULT NULL)
    RETURNS @extschema@.dp_mechanism
    AS 'MODULE_PATHNAME', 'dp_balanced_construct_0_14' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.dp_balanced(float8, bigint, bigint, bigint) IS
    'k-ary tree with balanced digits (odd arity, chosen by default; arity => k): the least variance of the pure epsilon-DP counters; T-bounded';

DROP FUNCTION @extschema@.dp_honaker(float8, bigint, bigint, bigint);
CREATE FUNCTION @extschema@.dp_honaker(epsilon float8, horizon bigint, max_per_step bigint DEFAULT NULL,
                                        arity bigint DEFAULT NULL)
    RETURNS @extschema@.dp_mechanism
    AS 'MODULE_PATHNAME', 'dp_honaker_construct_0_14' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.dp_honaker(float8, bigint, bigint, bigint) IS
    'k-ary tree with Honaker''s streaming estimator (arity => k; arity 2: Binary at 0.58x its variance); pan-private and keyed options; T-bounded';

DROP FUNCTION @extschema@.dp_two_level(float8, bigint, bigint, bigint);
CREATE FUNCTION @extschema@.dp_two_level(epsilon float8, horizon bigint, max_per_step bigint DEFAULT NULL,
                                          block bigint DEFAULT NULL)
    RETURNS @extschema@.dp_mechanism
    AS 'MODULE_PATHNAME', 'dp_two_level_construct_0_14' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.dp_two_level(float8, bigint, bigint, bigint) IS
    'Two-level: blocks of ceil(sqrt(T)) steps (block => b) plus singletons; T-bounded, error O(T^(1/4) / epsilon)';

DROP FUNCTION @extschema@.dp_mechanism_of(text, float8, bigint, bigint, bigint);
CREATE FUNCTION @extschema@.dp_mechanism_of(kind text, epsilon float8, horizon bigint DEFAULT NULL,
                                             max_per_step bigint DEFAULT NULL, parameter bigint DEFAULT NULL)
    RETURNS @extschema@.dp_mechanism
    AS 'MODULE_PATHNAME', 'dp_mechanism_of_0_14' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.dp_mechanism_of(text, float8, bigint, bigint, bigint) IS
    'any mechanism by its name in the text form; a NULL horizon is none, a NULL max_per_step not stated, a NULL parameter the default block or arity';

DROP FUNCTION @extschema@.dp_zcdp_mechanism_of(text, float8, bigint, bigint, bigint);
CREATE FUNCTION @extschema@.dp_zcdp_mechanism_of(kind text, rho float8, horizon bigint DEFAULT NULL,
                                                  max_per_step bigint DEFAULT NULL, parameter bigint DEFAULT NULL)
    RETURNS @extschema@.dp_mechanism
    AS 'MODULE_PATHNAME', 'dp_zcdp_mechanism_of_0_14' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.dp_zcdp_mechanism_of(text, float8, bigint, bigint, bigint) IS
    'a mechanism under rho-zCDP with discrete Gaussian noise: binary, kary, balanced, balanced_unbounded or blt';

DROP FUNCTION @extschema@.dp_expiring(float8, float8, bigint, bigint);
CREATE FUNCTION @extschema@.dp_expiring(epsilon float8, max_per_step bigint DEFAULT NULL,
                                         lambda float8 DEFAULT NULL, delay bigint DEFAULT 0)
    RETURNS @extschema@.dp_mechanism
    AS 'MODULE_PATHNAME', 'dp_expiring_construct_0_14' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.dp_expiring(float8, bigint, float8, bigint) IS
    'privacy expiration: an item d steps old loses epsilon g(d), g of order log(d)^lambda (lambda => x, required); no horizon, pan-private option, error O(log T / epsilon) for lambda > 3/2';

DROP FUNCTION @extschema@.dp_expiring_baseline(float8, float8, bigint, bigint, bigint);
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
-- ===== end of section: refusals =====

-- ===== section: docs =====
-- ===== end of section: docs =====

-- ===== section: biases =====
-- ===== end of section: biases =====

-- ===== section: demo =====
-- ===== end of section: demo =====

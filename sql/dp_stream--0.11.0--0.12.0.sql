-- dp_stream 0.11.0 -> 0.12.0: the holes between versions, roles and
-- partitions closed (docs/threat_model.md): NULL-safe functions, states
-- bound to the role that may use them, keyed noise per partition, content-
-- keyed repeatable states, a ledger that serializes at every isolation
-- level, secrets and rotation, a safe install.

\echo Use "ALTER EXTENSION dp_stream UPDATE TO '0.12.0'" to load this file. \quit

-- ===== section: functions and NULL arguments =====
-- Every function of the extension either is STRICT or checks each argument
-- it reads for NULL (test/null_sweep.sh calls each with NULL in every
-- position).  dp_stream.key_computes read a NULL statistic (SIGSEGV, any
-- role); it now raises 22004 and checks the bounds as the statistics'
-- constructors do, before create_key charges or stores anything (C only:
-- the declaration is unchanged).

-- Every argument of these is required, as for dp_binary: NULL gives NULL.
ALTER FUNCTION @extschema@.dp_blt(float8, bigint, bigint) STRICT;
ALTER FUNCTION @extschema@.dp_gaussian_binary(float8, bigint, bigint) STRICT;
ALTER FUNCTION @extschema@.dp_smooth_binary(float8, bigint, bigint) STRICT;

-- The curve's length is the caller's: bounded, so that max_age => 2^62
-- fails at once instead of filling temporary space (docs/reference.md).
CREATE OR REPLACE FUNCTION @extschema@.dp_privacy_loss_curve(mechanism @extschema@.dp_mechanism,
                                                             max_age bigint)
    RETURNS TABLE(age bigint, loss float8)
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE SET search_path = pg_catalog, pg_temp
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

-- ===== end of section: functions and NULL arguments =====



-- ===== section: states bound to a role and a stream =====

-- ===== end of section: states bound to a role and a stream =====



-- ===== section: keys and partitions =====

-- ===== end of section: keys and partitions =====



-- ===== section: repeatable noise and the ledger =====

-- ===== end of section: repeatable noise and the ledger =====



-- ===== section: secrets, rotation, restore, install =====

-- ===== end of section: secrets, rotation, restore, install =====

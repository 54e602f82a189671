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
-- dp_keyed(mechanism, key, partition => value): one key for the partitions
-- of one publication, each drawing noise of its own (docs/keyed_noise.md).
-- Not STRICT: a NULL partition is refused with its own message.  A query
-- that draws under one key and partition for two streams with different
-- data is refused by the aggregates themselves (0A000).
CREATE FUNCTION @extschema@.dp_keyed(mechanism @extschema@.dp_mechanism, key text,
                                     partition anycompatible)
    RETURNS @extschema@.dp_mechanism
    AS 'MODULE_PATHNAME', 'dp_keyed_partition_option' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.dp_keyed(@extschema@.dp_mechanism, text, anycompatible) IS
    'the mechanism with keyed noise under a registered key, for one partition of a publication '
    '(text, integer, numeric, boolean or uuid); the partition enters the noise, not the registration';

-- ===== end of section: keys and partitions =====



-- ===== section: repeatable noise and the ledger =====

-- The ledger's amounts (src/pg/dp_ledger.c): an epsilon given as a double,
-- its exact value rounded to a multiple of 1e-12: up for a charge (what a
-- mechanism spends is its double), to nearest for a budget's total (the
-- decimal that was typed).  epsilon::numeric kept 15 significant digits,
-- rounded to nearest, so a charge could be recorded below what the
-- mechanism spends (and 1e-320 printed 330 digits).
CREATE FUNCTION dp_stream.ledger_amount(epsilon float8, rounding text) RETURNS numeric
    AS 'MODULE_PATHNAME', 'dp_ledger_amount' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dp_stream.ledger_amount(float8, text) IS
    'epsilon as the ledger records it: its exact value rounded (up, down or nearest) to a multiple of 1e-12';

CREATE OR REPLACE FUNCTION dp_stream.create_budget(dataset text, total_epsilon float8)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
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

-- Charges epsilon against a dataset's budget, or refuses (nothing charged).
-- The budget's row is UPDATEd (to itself), not only locked: a lock alone
-- makes a concurrent charge wait, but under REPEATABLE READ or SERIALIZABLE
-- the waiter then goes on with its old snapshot, which lacks the charge it
-- waited for, and overspends.  After an update, PostgreSQL refuses the
-- waiter (and any transaction whose snapshot predates a charge it did not
-- see) with a serialization failure (40001), to be retried; under READ
-- COMMITTED the waiter reads the committed charges afresh.  A real column
-- (say spent_epsilon) would do the same, but a 0.11.0 dump restored here
-- would leave it at 0 beside the restored charges, and a 0.12.0 dump would
-- no longer restore into an older version: the charges stay the ledger.
CREATE OR REPLACE FUNCTION dp_stream.charge(dataset text, epsilon float8, purpose text)
RETURNS numeric
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
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

-- create_key checks, before anything is registered or charged, that the
-- computation it names is one an aggregate can run: bounds finite and in
-- order, and a mechanism that suits the statistic (the checks of
-- dp_statistic_new, the same as the aggregates'); integer values only for
-- sums with integer bounds.  0.11.0 registered and charged keys (lower 10,
-- upper 0; -Infinity; NaN) that nothing could ever draw under.
CREATE OR REPLACE FUNCTION dp_stream.create_key(key text, mechanism @extschema@.dp_mechanism,
                                                dataset text DEFAULT NULL, used_by regrole DEFAULT NULL,
                                                statistic text DEFAULT 'count', lower float8 DEFAULT NULL,
                                                upper float8 DEFAULT NULL, integer_values boolean DEFAULT false)
RETURNS @extschema@.dp_mechanism
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  IF key IS NULL OR mechanism IS NULL OR statistic IS NULL THEN
    RAISE EXCEPTION 'key, mechanism and statistic must not be null'
      USING ERRCODE = 'null_value_not_allowed';
  END IF;
  IF statistic <> 'count' THEN
    IF lower IS NULL OR upper IS NULL THEN
      RAISE EXCEPTION 'a % key needs lower and upper', statistic
        USING ERRCODE = 'null_value_not_allowed',
              HINT = 'Pass the bounds the computation clamps its values into.';
    END IF;
    PERFORM @extschema@.dp_statistic_new(statistic, lower, upper, mechanism);
    IF coalesce(integer_values, false)
       AND (statistic <> 'sum' OR lower <> floor(lower) OR upper <> floor(upper)) THEN
      RAISE EXCEPTION 'integer values are computed by sums with integer bounds only'
        USING ERRCODE = 'invalid_parameter_value',
              DETAIL = format('statistic was %s, lower %s, upper %s.', statistic, lower, upper),
              HINT = 'Leave integer_values out for an average or a variance, or for real bounds.';
    END IF;
  END IF;
  -- the default role is the caller's current role (under SET ROLE too):
  -- this function runs as the caller, register_key as the owner
  RETURN dp_stream.register_key(key, mechanism, dataset,
                                coalesce(used_by, current_user::regrole),
                                dp_stream.key_computes(statistic, lower, upper,
                                                       coalesce(integer_values, false)));
END $$;


-- ===== end of section: repeatable noise and the ledger =====



-- ===== section: secrets, rotation, restore, install =====

-- Rotation never leaves a value sealed under a dropped secret
-- (src/pg/dp_secret.c).  Sealing holds a RowShareLock on dp_stream.secrets
-- to the end of its transaction and reads the newest secret with a fresh
-- snapshot; rotate_secret takes an ExclusiveLock first, so it waits for
-- every transaction that sealed under the old secret, and every later
-- sealing waits for it to commit and then sees the new secret.  Openers
-- (AccessShareLock) never wait.  In REPEATABLE READ or SERIALIZABLE the
-- function's own snapshot would predate the writers it waited for, and a
-- reseal in the same transaction would miss their values: refused there.
CREATE OR REPLACE FUNCTION dp_stream.rotate_secret() RETURNS bigint
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
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
  RETURN new_id;
END $$;
COMMENT ON FUNCTION dp_stream.rotate_secret() IS
    'creates a new sealing secret, after every transaction that sealed under the old one has ended; reseals the stream catalog under it and returns its id (superusers)';
REVOKE ALL ON FUNCTION dp_stream.rotate_secret() FROM PUBLIC;


-- ANALYZE keeps no statistics on the secrets themselves: pg_stats shows
-- them to whoever may read the table (members of pg_read_all_data, who read
-- the table anyway: docs/threat_model.md, "Who can read the secrets"), and
-- pg_statistic would keep copies of dropped secrets until the next ANALYZE.
ALTER TABLE dp_stream.secrets ALTER COLUMN secret SET STATISTICS 0;
DELETE FROM pg_catalog.pg_statistic
 WHERE starelid = 'dp_stream.secrets'::regclass
   AND staattnum = (SELECT attnum FROM pg_catalog.pg_attribute
                    WHERE attrelid = 'dp_stream.secrets'::regclass AND attname = 'secret');

-- A schema where other roles can create objects is no place for the
-- extension's functions: a better-matching overload planted next to them
-- (public.dp_hybrid(numeric, integer), say) runs with the rights of whoever
-- types the docs' examples (README.md, "Install into an existing
-- PostgreSQL").  Warn at CREATE EXTENSION and at the update when a role that
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

-- ===== end of section: secrets, rotation, restore, install =====

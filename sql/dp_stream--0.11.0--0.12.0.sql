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

-- dp_stream.drop_secret(NULL) answered "secret <NULL> does not exist": no
-- secret is named so, and dropping none is nothing to do.
ALTER FUNCTION dp_stream.drop_secret(bigint) STRICT;

-- ===== end of section: functions and NULL arguments =====



-- ===== section: states bound to a role and a stream =====

-- A sealed state names, authenticated and hidden, the role that may use it
-- (seal version 2): by default the role that created it, kept by every
-- dp_push.  Whoever may open a state can run its mechanism with its hidden
-- noise, and two versions of it give the exact change between them, so
-- every function that opens a state refuses other roles (42501); the
-- public fields (dp_mechanism, dp_steps) stay readable by anyone.  States
-- sealed before 0.12.0 name no role: they belong to the extension's owner
-- (and superusers) until one of them hands them over with dp_bind.
-- docs/threat_model.md, "Sealed states".
CREATE FUNCTION @extschema@.dp_bind(state @extschema@.dp_counter, role regrole)
    RETURNS @extschema@.dp_counter
    AS 'MODULE_PATHNAME', 'dp_counter_bind' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
CREATE FUNCTION @extschema@.dp_bind(state @extschema@.dp_statistic, role regrole)
    RETURNS @extschema@.dp_statistic
    AS 'MODULE_PATHNAME', 'dp_statistic_bind' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.dp_bind(@extschema@.dp_counter, regrole) IS
    'the same state, usable by another role from now on (needs the privileges of the state''s role and of the new one)';
COMMENT ON FUNCTION @extschema@.dp_bind(@extschema@.dp_statistic, regrole) IS
    'the same state, usable by another role from now on (needs the privileges of the state''s role and of the new one)';
COMMENT ON FUNCTION @extschema@.dp_reseal(@extschema@.dp_counter) IS
    'the same state, for the same role, sealed under the newest secret (after a rotation, or for a state written before 0.6.0)';
COMMENT ON FUNCTION @extschema@.dp_reseal(@extschema@.dp_statistic) IS
    'the same state, for the same role, sealed under the newest secret (after a rotation, or for a state written before 0.6.0)';

-- A managed stream's state carries the stream's random id inside its seal;
-- advance refuses a state of another stream, or one whose step count is not
-- the catalog's and the releases'.
CREATE FUNCTION dp_stream.bind_stream(state @extschema@.dp_counter, stream_id bigint)
    RETURNS @extschema@.dp_counter
    AS 'MODULE_PATHNAME', 'dp_counter_bind_stream' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
CREATE FUNCTION dp_stream.bind_stream(state @extschema@.dp_statistic, stream_id bigint)
    RETURNS @extschema@.dp_statistic
    AS 'MODULE_PATHNAME', 'dp_statistic_bind_stream' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
CREATE FUNCTION dp_stream.state_stream(state @extschema@.dp_counter) RETURNS bigint
    AS 'MODULE_PATHNAME', 'dp_counter_stream_id' LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
CREATE FUNCTION dp_stream.state_stream(state @extschema@.dp_statistic) RETURNS bigint
    AS 'MODULE_PATHNAME', 'dp_statistic_stream_id' LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
REVOKE ALL ON FUNCTION dp_stream.bind_stream(@extschema@.dp_counter, bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION dp_stream.bind_stream(@extschema@.dp_statistic, bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION dp_stream.state_stream(@extschema@.dp_counter) FROM PUBLIC;
REVOKE ALL ON FUNCTION dp_stream.state_stream(@extschema@.dp_statistic) FROM PUBLIC;
-- advance refuses to draw in the transaction that created the stream (a
-- stream whose creation rolls back draws nothing): its catalog row, at
-- step 0, was written by this transaction.
CREATE FUNCTION dp_stream.written_by_this_transaction(xmin xid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'dp_written_by_this_transaction' LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
REVOKE ALL ON FUNCTION dp_stream.written_by_this_transaction(xid) FROM PUBLIC;
COMMENT ON FUNCTION dp_stream.written_by_this_transaction(xid) IS
    'internal: whether a row version was written by the current transaction, for advance';
COMMENT ON FUNCTION dp_stream.bind_stream(@extschema@.dp_counter, bigint) IS
    'internal: the state tied to a managed stream''s id, for create_stream';
COMMENT ON FUNCTION dp_stream.bind_stream(@extschema@.dp_statistic, bigint) IS
    'internal: the state tied to a managed stream''s id, for create_stream';
COMMENT ON FUNCTION dp_stream.state_stream(@extschema@.dp_counter) IS
    'internal: the managed stream id a state is tied to (0 for none), for advance';
COMMENT ON FUNCTION dp_stream.state_stream(@extschema@.dp_statistic) IS
    'internal: the managed stream id a state is tied to (0 for none), for advance';

-- stream_id: random, inside each state's seal.
ALTER TABLE dp_stream.streams ADD COLUMN stream_id bigint;
UPDATE dp_stream.streams AS t
   SET (stream_id, counter, statistic_state) =
       (SELECT x.id, dp_stream.bind_stream(t.counter, x.id),
               dp_stream.bind_stream(t.statistic_state, x.id)
        FROM (SELECT dp_stream.random_id() AS id) AS x);
ALTER TABLE dp_stream.streams ALTER COLUMN stream_id SET NOT NULL;
ALTER TABLE dp_stream.streams ADD CONSTRAINT streams_stream_id_key UNIQUE (stream_id);

-- Streams made before 0.12.0 drew position-keyed noise unless their
-- mechanism was pan-private: they keep working, and advance warns about
-- them on every call (docs/managed_streams.md, "Retries").
DO $$
DECLARE
  old_streams text;
BEGIN
  SELECT pg_catalog.string_agg(pg_catalog.quote_ident(name), ', ' ORDER BY name) INTO old_streams
  FROM dp_stream.streams
  WHERE pg_catalog.strpos(mechanism::text, 'pan_private=true') = 0;
  IF old_streams IS NOT NULL THEN
    RAISE WARNING 'managed streams with position-keyed noise: %', old_streams
      USING DETAIL = 'A rolled-back advance of these streams, or a retry with another value, shows the noise of the real release.',
            HINT = 'Recreate them with dp_stream.create_stream (0.12.0 makes every new stream pan-private and content-keyed).';
  END IF;
END $$;

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
      RAISE EXCEPTION 'a % stream needs lower and upper', statistic
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

-- advance as in 0.5.0, and: a stream created in this transaction is
-- refused; the state must be the stream's own (its id) at the step of the
-- catalog and of the releases; a stream with position-keyed noise (made
-- before 0.12.0) is advanced with a warning.
CREATE OR REPLACE FUNCTION dp_stream.advance(name text, period timestamp, value float8)
RETURNS dp_stream.releases
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  s dp_stream.streams;
  r dp_stream.releases;
  next_period timestamp;
  row_xmin xid;
  state_id bigint;
  state_steps bigint;
  released bigint;
  mechanism_text text;
BEGIN
  IF name IS NULL OR period IS NULL THEN
    RAISE EXCEPTION 'stream name and period must not be null' USING ERRCODE = 'null_value_not_allowed';
  END IF;
  -- a release that was returned must survive a crash: with asynchronous
  -- commit it could be lost and the period released again with new noise
  PERFORM pg_catalog.set_config('synchronous_commit', 'on', true);
  -- serializes the advances of one stream; other streams are not blocked
  SELECT * INTO s FROM dp_stream.streams AS t WHERE t.name = advance.name FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'stream "%" does not exist', name USING ERRCODE = 'undefined_object';
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
  -- exactly once: a released period is answered from the table
  SELECT * INTO r FROM dp_stream.releases AS x WHERE x.stream = s.name AND x.period = advance.period;
  IF FOUND THEN
    RETURN r;
  END IF;
  -- the state must be this stream's, at the step of its last release
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
  -- a far-away period is refused before any work: one call fills at most
  -- 1000 missing periods
  IF period > s.first_period + s.period_length * (s.steps + 1000) THEN
    RAISE EXCEPTION 'stream "%" would skip more than 1000 periods', s.name
      USING ERRCODE = 'program_limit_exceeded',
            DETAIL = format('The next period is %s; %s was asked for.',
                            s.first_period + s.period_length * s.steps, period),
            HINT = 'Advance the missing periods in several calls.';
  END IF;
  LOOP
    next_period := s.first_period + s.period_length * s.steps;
    EXIT WHEN next_period >= period;
    s := dp_stream.push_period(s, next_period, NULL);
  END LOOP;
  IF next_period <> period THEN
    RAISE EXCEPTION 'period % of stream "%" is not a period of the stream, or was passed without a release',
                    period, s.name
      USING ERRCODE = 'invalid_parameter_value',
            DETAIL = format('Periods are %s + k * %s; the next one is %s.', s.first_period,
                            s.period_length, next_period);
  END IF;
  s := dp_stream.push_period(s, period, value);
  UPDATE dp_stream.streams AS t SET steps = s.steps, counter = s.counter,
         statistic_state = s.statistic_state
  WHERE t.name = s.name;
  SELECT * INTO r FROM dp_stream.releases AS x WHERE x.stream = s.name AND x.step = s.steps;
  RETURN r;
END $$;

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
-- computation it names is one an aggregate can run: the statistic, its
-- bounds and its value domain (key_computes: bounds finite and in order,
-- integer values only for sums with integer bounds), and a mechanism that
-- suits the statistic (dp_statistic_new, the aggregates' check).  0.11.0 registered and charged keys (lower 10,
-- upper 0; -Infinity; NaN) that nothing could ever draw under.
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
  IF statistic <> 'count' THEN
    PERFORM @extschema@.dp_statistic_new(statistic, lower, upper, mechanism);
  END IF;
  -- the default role is the caller's current role (under SET ROLE too):
  -- this function runs as the caller, register_key as the owner
  RETURN dp_stream.register_key(key, mechanism, dataset,
                                coalesce(used_by, current_user::regrole), computes);
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

-- dp_stream 0.11.0 -> 0.12.0: the holes between versions, roles and
-- partitions closed (docs/threat_model.md): NULL-safe functions, states
-- bound to the role that may use them, keyed noise per partition, content-
-- keyed repeatable states, a ledger that serializes at every isolation
-- level, secrets and rotation, a safe install.

\echo Use "ALTER EXTENSION dp_stream UPDATE TO '0.12.0'" to load this file. \quit

-- ===== section: functions and NULL arguments =====

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

-- ===== end of section: keys and partitions =====



-- ===== section: repeatable noise and the ledger =====

-- ===== end of section: repeatable noise and the ledger =====



-- ===== section: secrets, rotation, restore, install =====

-- ===== end of section: secrets, rotation, restore, install =====

-- dp_stream 0.13.0 -> 0.14.0: no silent wrong answers.  One argument order
-- for every mechanism constructor, a count's bound on one step stated by
-- the user (never a default that clamps), refusals for what cannot mean
-- anything (FILTER, a window without ORDER BY), and messages that name
-- what to do.

\echo Use "ALTER EXTENSION dp_stream UPDATE TO '0.14.0'" to load this file. \quit

-- ===== section: arguments =====
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
-- ===== end of section: refusals =====

-- ===== section: docs =====
-- ===== end of section: docs =====

-- ===== section: biases =====
-- ===== end of section: biases =====

-- ===== section: demo =====
-- ===== end of section: demo =====

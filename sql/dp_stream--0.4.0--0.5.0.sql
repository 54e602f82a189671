-- dp_stream 0.4.0 -> 0.5.0: managed streams.  A named stream keeps its
-- state in a catalog only the extension's owner can read, consumes one
-- period per call of dp_stream.advance(), and releases each period exactly
-- once into an append-only table: re-running or retrying a job returns the
-- stored release and draws no noise.  See docs/managed_streams.md.

\echo Use "ALTER EXTENSION dp_stream UPDATE TO '0.5.0'" to load this file. \quit

-- States to start a stream from (they draw the noise of step 0).
CREATE FUNCTION @extschema@.dp_counter_new(mechanism @extschema@.dp_mechanism)
    RETURNS @extschema@.dp_counter
    AS 'MODULE_PATHNAME', 'dp_counter_new' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.dp_counter_new(@extschema@.dp_mechanism) IS
    'a counter state at step 0, to be advanced with dp_push';
CREATE FUNCTION @extschema@.dp_statistic_new(statistic text, lower float8, upper float8,
                                              mechanism @extschema@.dp_mechanism)
    RETURNS @extschema@.dp_statistic
    AS 'MODULE_PATHNAME', 'dp_statistic_new' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.dp_statistic_new(text, float8, float8, @extschema@.dp_mechanism) IS
    'a real-valued sum, average or variance state at step 0, to be advanced with dp_push';

CREATE FUNCTION @extschema@.dp_epsilon(mechanism @extschema@.dp_mechanism) RETURNS float8
    AS 'MODULE_PATHNAME', 'dp_mechanism_epsilon' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.dp_epsilon(@extschema@.dp_mechanism) IS
    'the epsilon a stream of this mechanism spends (all its releases together)';

CREATE SCHEMA dp_stream;
COMMENT ON SCHEMA dp_stream IS 'dp_stream managed streams: catalog, releases, advance()';
REVOKE ALL ON SCHEMA dp_stream FROM PUBLIC;
GRANT USAGE ON SCHEMA dp_stream TO PUBLIC;

-- The catalog.  It holds the states: only the extension's owner reads it
-- (two versions of a state give the exact sum between them).
CREATE TABLE dp_stream.streams (
    name text PRIMARY KEY,
    statistic text NOT NULL
        CHECK (statistic IN ('count', 'sum', 'average', 'variance', 'summary')),
    mechanism @extschema@.dp_mechanism NOT NULL,
    lower float8,
    upper float8,
    first_period timestamp NOT NULL,
    period_length interval NOT NULL CHECK (period_length > interval '0'),
    steps bigint NOT NULL DEFAULT 0 CHECK (steps >= 0),
    counter @extschema@.dp_counter,
    statistic_state @extschema@.dp_statistic,
    created_at timestamptz NOT NULL DEFAULT now(),
    created_by name NOT NULL DEFAULT current_user,
    CHECK ((statistic = 'count') = (counter IS NOT NULL)),
    CHECK ((statistic = 'count') = (statistic_state IS NULL)),
    CHECK ((statistic = 'count') = (lower IS NULL AND upper IS NULL))
);
REVOKE ALL ON dp_stream.streams FROM PUBLIC;

-- The releases: one row per stream and period, never changed once written.
CREATE TABLE dp_stream.releases (
    stream text NOT NULL REFERENCES dp_stream.streams (name),
    step bigint NOT NULL CHECK (step >= 1),
    period timestamp NOT NULL,
    estimate float8,
    error_bound float8,
    summary @extschema@.dp_summary,
    released_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (stream, step),
    UNIQUE (stream, period)
);
REVOKE ALL ON dp_stream.releases FROM PUBLIC;
-- pg_dump must carry the catalog and the releases: a restored database
-- continues its streams instead of releasing every period again
SELECT pg_catalog.pg_extension_config_dump('dp_stream.streams', '');
SELECT pg_catalog.pg_extension_config_dump('dp_stream.releases', '');
COMMENT ON TABLE dp_stream.releases IS
    'append-only: one release per stream and period (grant SELECT to readers)';

CREATE FUNCTION dp_stream.refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '%.% is append-only', TG_TABLE_SCHEMA, TG_TABLE_NAME
    USING ERRCODE = 'insufficient_privilege',
          DETAIL = 'A release or a budget charge, once made, is final: removing it would let the same period be released again with new noise, or the same epsilon be spent twice.',
          HINT = 'Releases are written by dp_stream.advance() and charges by dp_stream.charge() only.';
END $$;
CREATE TRIGGER releases_append_only BEFORE UPDATE OR DELETE ON dp_stream.releases
    FOR EACH ROW EXECUTE FUNCTION dp_stream.refuse_change();
CREATE TRIGGER releases_no_truncate BEFORE TRUNCATE ON dp_stream.releases
    FOR EACH STATEMENT EXECUTE FUNCTION dp_stream.refuse_change();

-- The privacy-budget ledger: a total epsilon per dataset, and every charge
-- against it.  Charges of one dataset are serialized by a row lock on its
-- budget, so parallel charges never overspend; amounts are numeric, so
-- that sums of charges are exact.
CREATE TABLE dp_stream.budgets (
    dataset text PRIMARY KEY,
    total_epsilon numeric NOT NULL CHECK (total_epsilon > 0),
    created_at timestamptz NOT NULL DEFAULT now(),
    created_by name NOT NULL DEFAULT current_user
);
CREATE TABLE dp_stream.charges (
    id bigserial PRIMARY KEY,
    dataset text NOT NULL REFERENCES dp_stream.budgets (dataset),
    epsilon numeric NOT NULL CHECK (epsilon > 0),
    purpose text NOT NULL,
    charged_by name NOT NULL DEFAULT session_user,
    charged_at timestamptz NOT NULL DEFAULT now()
);
REVOKE ALL ON dp_stream.budgets, dp_stream.charges FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('dp_stream.budgets', '');
SELECT pg_catalog.pg_extension_config_dump('dp_stream.charges', '');
SELECT pg_catalog.pg_extension_config_dump('dp_stream.charges_id_seq', '');
CREATE TRIGGER charges_append_only BEFORE UPDATE OR DELETE ON dp_stream.charges
    FOR EACH ROW EXECUTE FUNCTION dp_stream.refuse_change();
CREATE TRIGGER charges_no_truncate BEFORE TRUNCATE ON dp_stream.charges
    FOR EACH STATEMENT EXECUTE FUNCTION dp_stream.refuse_change();

CREATE FUNCTION dp_stream.create_budget(dataset text, total_epsilon float8)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  IF dataset IS NULL OR total_epsilon IS NULL THEN
    RAISE EXCEPTION 'dataset and total_epsilon must not be null' USING ERRCODE = 'null_value_not_allowed';
  END IF;
  IF NOT (total_epsilon > 0 AND total_epsilon < 'Infinity') THEN
    RAISE EXCEPTION 'total_epsilon must be positive and finite'
      USING ERRCODE = 'invalid_parameter_value', DETAIL = format('total_epsilon was %s.', total_epsilon);
  END IF;
  INSERT INTO dp_stream.budgets (dataset, total_epsilon) VALUES (dataset, total_epsilon::numeric);
EXCEPTION WHEN unique_violation THEN
  RAISE EXCEPTION 'budget "%" already exists', dataset USING ERRCODE = 'duplicate_object';
END $$;

-- Charges epsilon against a dataset's budget, or refuses (nothing charged).
CREATE FUNCTION dp_stream.charge(dataset text, epsilon float8, purpose text)
RETURNS numeric
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  total numeric;
  spent numeric;
BEGIN
  IF dataset IS NULL OR epsilon IS NULL OR purpose IS NULL THEN
    RAISE EXCEPTION 'dataset, epsilon and purpose must not be null' USING ERRCODE = 'null_value_not_allowed';
  END IF;
  IF NOT (epsilon > 0 AND epsilon < 'Infinity') THEN
    RAISE EXCEPTION 'a charge must be positive and finite'
      USING ERRCODE = 'invalid_parameter_value', DETAIL = format('epsilon was %s.', epsilon);
  END IF;
  -- a charge must survive a crash (see advance)
  PERFORM pg_catalog.set_config('synchronous_commit', 'on', true);
  -- the row lock serializes the charges of one dataset
  SELECT b.total_epsilon INTO total FROM dp_stream.budgets AS b WHERE b.dataset = charge.dataset FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'budget "%" does not exist', dataset
      USING ERRCODE = 'undefined_object', HINT = 'Create it with dp_stream.create_budget().';
  END IF;
  SELECT coalesce(sum(c.epsilon), 0) INTO spent FROM dp_stream.charges AS c WHERE c.dataset = charge.dataset;
  IF spent + epsilon::numeric > total THEN
    RAISE EXCEPTION 'privacy budget of "%" exceeded', dataset
      USING ERRCODE = 'insufficient_resources',
            DETAIL = format('%s is spent of %s; %s more was asked for %s.', spent, total, epsilon, purpose),
            HINT = 'Spend less epsilon, or raise the budget deliberately (it bounds what all releases of the dataset reveal together).';
  END IF;
  INSERT INTO dp_stream.charges (dataset, epsilon, purpose) VALUES (dataset, epsilon::numeric, purpose);
  RETURN total - spent - epsilon::numeric;
END $$;
COMMENT ON FUNCTION dp_stream.charge(text, float8, text) IS
    'charges epsilon against a dataset''s budget and returns what is left; refused beyond the budget';

CREATE FUNCTION dp_stream.budget(dataset text,
    OUT total_epsilon numeric, OUT spent_epsilon numeric, OUT remaining_epsilon numeric, OUT charges bigint)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
  SELECT b.total_epsilon, coalesce(sum(c.epsilon), 0), b.total_epsilon - coalesce(sum(c.epsilon), 0),
         count(c.id)
  FROM dp_stream.budgets b LEFT JOIN dp_stream.charges c ON c.dataset = b.dataset
  WHERE b.dataset = budget.dataset
  GROUP BY b.total_epsilon $$;
COMMENT ON FUNCTION dp_stream.budget(text) IS 'total, spent and remaining epsilon of a dataset';

-- create_stream: registers a stream.  statistic is count (mechanism's
-- max_per_step bounds a step), or sum, average, variance or summary (lower
-- and upper bound a value; the mechanism must not set max_per_step).
CREATE FUNCTION dp_stream.create_stream(
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
BEGIN
  IF name IS NULL OR statistic IS NULL OR mechanism IS NULL OR first_period IS NULL
     OR period_length IS NULL THEN
    RAISE EXCEPTION 'dp_stream.create_stream arguments must not be null'
      USING ERRCODE = 'null_value_not_allowed';
  END IF;
  IF period_length <= interval '0' THEN
    RAISE EXCEPTION 'period_length must be positive' USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF statistic = 'count' THEN
    IF lower IS NOT NULL OR upper IS NOT NULL THEN
      RAISE EXCEPTION 'a count stream takes no bounds'
        USING ERRCODE = 'invalid_parameter_value',
              HINT = 'A count clamps each period into [0, max_per_step] of its mechanism.';
    END IF;
    INSERT INTO dp_stream.streams (name, statistic, mechanism, first_period, period_length, counter)
    VALUES (name, statistic, mechanism, first_period, period_length,
            @extschema@.dp_counter_new(mechanism));
  ELSIF statistic IN ('sum', 'average', 'variance', 'summary') THEN
    IF lower IS NULL OR upper IS NULL THEN
      RAISE EXCEPTION 'a % stream needs lower and upper', statistic
        USING ERRCODE = 'null_value_not_allowed',
              HINT = 'Pass the range every value is clamped into.';
    END IF;
    INSERT INTO dp_stream.streams (name, statistic, mechanism, lower, upper, first_period,
                                   period_length, statistic_state)
    VALUES (name, statistic, mechanism, lower, upper, first_period, period_length,
            @extschema@.dp_statistic_new(CASE statistic WHEN 'summary' THEN 'variance' ELSE statistic END,
                                         lower, upper, mechanism));
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
COMMENT ON FUNCTION dp_stream.create_stream(text, text, @extschema@.dp_mechanism, float8, float8,
                                            timestamp, interval, text) IS
    'registers a managed stream; its state stays in dp_stream.streams';

-- advance: consumes one period and returns its release.  A period already
-- released returns the stored release and draws no noise; periods missing
-- before it are advanced with no data (0 for counts and sums, no
-- observation otherwise), each with its own release.
CREATE FUNCTION dp_stream.advance(name text, period timestamp, value float8)
RETURNS dp_stream.releases
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  s dp_stream.streams;
  r dp_stream.releases;
  next_period timestamp;
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
COMMENT ON FUNCTION dp_stream.advance(text, timestamp, float8) IS
    'consumes one period of a managed stream and returns its release, exactly once per period';

-- One step: the state moves on (the caller stores it) and the release is
-- written, in the caller's transaction (a rollback leaves neither).
CREATE FUNCTION dp_stream.push_period(s dp_stream.streams, period timestamp, value float8)
RETURNS dp_stream.streams
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  estimate float8;
  bound float8;
  summary @extschema@.dp_summary;
BEGIN
  s.steps := s.steps + 1;
  IF s.statistic = 'count' THEN
    s.counter := @extschema@.dp_push(s.counter, coalesce(value, 0));
    estimate := @extschema@.dp_estimate(s.counter);
    bound := @extschema@.dp_error_bound(s.counter, 0.95);
  ELSE
    s.statistic_state := @extschema@.dp_push(s.statistic_state, value);
    IF s.statistic = 'summary' THEN
      summary := @extschema@.dp_summary(s.statistic_state);
      estimate := (summary).count;
    ELSE
      estimate := @extschema@.dp_estimate(s.statistic_state);
      IF s.statistic IN ('sum', 'average') THEN
        bound := @extschema@.dp_error_bound(s.statistic_state, 0.95);
      END IF;
    END IF;
  END IF;
  INSERT INTO dp_stream.releases (stream, step, period, estimate, error_bound, summary)
  VALUES (s.name, s.steps, period, estimate, bound, summary);
  RETURN s;
END $$;
REVOKE ALL ON FUNCTION dp_stream.push_period(dp_stream.streams, timestamp, float8) FROM PUBLIC;

-- Administration is the owner's: grant EXECUTE to the roles that run jobs,
-- and SELECT on dp_stream.releases to readers.
REVOKE ALL ON FUNCTION dp_stream.create_stream(text, text, @extschema@.dp_mechanism, float8, float8,
                                               timestamp, interval, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION dp_stream.create_budget(text, float8) FROM PUBLIC;
REVOKE ALL ON FUNCTION dp_stream.charge(text, float8, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION dp_stream.budget(text) FROM PUBLIC;
REVOKE ALL ON FUNCTION dp_stream.advance(text, timestamp, float8) FROM PUBLIC;
REVOKE ALL ON FUNCTION dp_stream.refuse_change() FROM PUBLIC;

-- dp_stream 0.12.0 -> 0.13.0: partitioned publications (docs/publications.md):
-- one registration, one key, one budget charge for thousands of partitions;
-- set-based advances with missed periods marked and caught up.

\echo Use "ALTER EXTENSION dp_stream UPDATE TO '0.13.0'" to load this file. \quit

-- ===== section: publications =====
-- A publication (docs/publications.md): thousands of streams, one per
-- partition (a meter, a ward), published together under one registration,
-- one key and one charge.  Partitions whose data are disjoint per privacy
-- unit compose in parallel: events, each in one partition; persons,
-- truncated to k contributions across all partitions together.  Noise is
-- keyed per (publication, partition value), so partitions never share
-- noise, re-running repeats every release, and a partition that appears
-- later draws noise of its own without a new charge.

-- The registry.  `mechanism` is the keyed mechanism (key = name; person
-- level for a person unit), as registered in dp_stream.keys; dp_publication
-- (C) reads name, mechanism and used_by, the first three columns.
CREATE TABLE dp_stream.publications (
    name text PRIMARY KEY REFERENCES dp_stream.keys (key),
    mechanism @extschema@.dp_mechanism NOT NULL,
    used_by regrole NOT NULL,
    statistic text NOT NULL
        CHECK (statistic IN ('count', 'sum', 'average', 'variance', 'summary')),
    lower float8,
    upper float8,
    integer_values boolean NOT NULL DEFAULT false,
    partition_by text NOT NULL,
    privacy_unit text NOT NULL CHECK (privacy_unit IN ('event', 'person')),
    contributions bigint CHECK (contributions >= 1),
    truncation text NOT NULL
        CHECK (truncation IN ('none', 'across_partitions', 'per_partition')),
    partitions_per_person bigint CHECK (partitions_per_person >= 1),
    first_period timestamp NOT NULL,
    period_length interval NOT NULL CHECK (period_length > interval '0'),
    dataset text REFERENCES dp_stream.budgets (dataset),
    epsilon numeric NOT NULL CHECK (epsilon > 0),
    charge bigint REFERENCES dp_stream.charges (id),
    created_at timestamptz NOT NULL DEFAULT now(),
    created_by name NOT NULL DEFAULT session_user,
    CHECK ((privacy_unit = 'person') = (contributions IS NOT NULL)),
    CHECK ((privacy_unit = 'event') = (truncation = 'none')),
    CHECK ((truncation = 'per_partition') = (partitions_per_person IS NOT NULL)),
    CHECK ((dataset IS NULL) = (charge IS NULL))
);
REVOKE ALL ON dp_stream.publications FROM PUBLIC;
-- a publish updates every partition's row once a period: room on each page
-- keeps those updates HOT (no new index entries)
ALTER TABLE dp_stream.streams SET (fillfactor = 50);
COMMENT ON TABLE dp_stream.publications IS
    'partitioned publications: what is published, for which privacy unit, and its one charge (append-only)';
SELECT pg_catalog.pg_extension_config_dump('dp_stream.publications', '');
CREATE TRIGGER publications_append_only BEFORE UPDATE OR DELETE ON dp_stream.publications
    FOR EACH ROW EXECUTE FUNCTION dp_stream.refuse_change();
CREATE TRIGGER publications_no_truncate BEFORE TRUNCATE ON dp_stream.publications
    FOR EACH STATEMENT EXECUTE FUNCTION dp_stream.refuse_change();

-- A partition of a managed publication is a managed stream of its own
-- (its state, steps and releases), named publication/partition.
ALTER TABLE dp_stream.streams
    ADD COLUMN publication text REFERENCES dp_stream.publications (name),
    ADD COLUMN partition text,
    ADD CONSTRAINT streams_partition_check CHECK ((publication IS NULL) = (partition IS NULL)),
    ADD CONSTRAINT streams_publication_partition_key UNIQUE (publication, partition);

-- Whether a release was made without data: a period that advance filled
-- because a later one was asked for (a skipped job), or that publish filled
-- with fill_missing.  NULL for releases made before 0.13.0, which did not
-- record it.
ALTER TABLE dp_stream.releases ADD COLUMN filled_without_data boolean;
ALTER TABLE dp_stream.releases ALTER COLUMN filled_without_data SET DEFAULT false;
COMMENT ON COLUMN dp_stream.releases.filled_without_data IS
    'true for a period released with no data because a later period was released first (NULL before 0.13.0)';

-- How many contributions each person has made to a person-level
-- publication, for the truncation across partitions and periods.  A person
-- is a keyed tag (dp_stream.person_tag), never the identifier itself.
CREATE TABLE dp_stream.contributions (
    publication text NOT NULL REFERENCES dp_stream.publications (name),
    person bytea NOT NULL,
    used bigint NOT NULL CHECK (used >= 1),
    PRIMARY KEY (publication, person)
);
REVOKE ALL ON dp_stream.contributions FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('dp_stream.contributions', '');
COMMENT ON TABLE dp_stream.contributions IS
    'per person-level publication and person (a keyed tag), the contributions used so far';

CREATE FUNCTION dp_stream.person_tag(publication text, person text) RETURNS bytea
    AS 'MODULE_PATHNAME', 'dp_person_tag' LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
REVOKE ALL ON FUNCTION dp_stream.person_tag(text, text) FROM PUBLIC;
COMMENT ON FUNCTION dp_stream.person_tag(text, text) IS
    'internal: a keyed 16-byte tag of a person within a publication, for publish';

-- dp_publication(name, partition): the mechanism of a publication for one
-- partition, dp_keyed(its mechanism, name, partition => partition) without
-- restating the mechanism.  STABLE: it reads the registry.
CREATE FUNCTION @extschema@.dp_publication(name text, partition anycompatible)
    RETURNS @extschema@.dp_mechanism
    AS 'MODULE_PATHNAME', 'dp_publication_option' LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.dp_publication(text, anycompatible) IS
    'the keyed mechanism of a registered publication for one partition (text, integer, numeric, boolean or uuid)';

-- One row of data for publish and advance: a partition, a period, a value
-- and, for person-level publications, the person it belongs to.
CREATE TYPE dp_stream.observation AS (
    partition text,
    period timestamp,
    value float8,
    person text
);
COMMENT ON TYPE dp_stream.observation IS
    'a value of one period (and partition, and person) for dp_stream.publish and dp_stream.advance';
CREATE FUNCTION dp_stream.observation(partition text, period timestamp, value float8 DEFAULT 1,
                                      person text DEFAULT NULL)
RETURNS dp_stream.observation
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT ROW(partition, period, value, person)::dp_stream.observation $$;
COMMENT ON FUNCTION dp_stream.observation(text, timestamp, float8, text) IS
    'an observation: partition, period, value (1: one event), person (person-level publications)';

-- What a publish or a catch-up did.  No figure here depends on a person
-- (the number of contributions truncated is private: it is not reported).
CREATE TYPE dp_stream.advance_result AS (
    periods bigint,               -- periods released, missing ones included
    partitions bigint,            -- partitions advanced
    new_partitions bigint,        -- partitions that started in this call
    releases bigint,              -- rows written to dp_stream.releases
    filled_without_data bigint,   -- of which, released with no data
    late_observations bigint      -- observations of periods released before (not used)
);
COMMENT ON TYPE dp_stream.advance_result IS
    'what dp_stream.publish or a catch-up released: periods, partitions, releases, fills, late observations';

-- The release of a state, as advance and publish store it.  One SQL
-- SELECT without settings, so that publish's set-based statements inline it
-- (callers run with a fixed search_path; every name here is qualified).
CREATE FUNCTION dp_stream.release_values(statistic text, counter @extschema@.dp_counter,
                                         statistic_state @extschema@.dp_statistic,
                                         OUT estimate float8, OUT error_bound float8,
                                         OUT summary @extschema@.dp_summary)
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
REVOKE ALL ON FUNCTION dp_stream.release_values(text, @extschema@.dp_counter, @extschema@.dp_statistic)
    FROM PUBLIC;
COMMENT ON FUNCTION dp_stream.release_values(text, @extschema@.dp_counter, @extschema@.dp_statistic) IS
    'internal: the estimate, 95% error bound and summary a release records, for advance and publish';

-- push_period now records whether the period had data.
DROP FUNCTION dp_stream.push_period(dp_stream.streams, timestamp, float8);
CREATE FUNCTION dp_stream.push_period(s dp_stream.streams, period timestamp, value float8,
                                      filled_without_data boolean)
RETURNS dp_stream.streams
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
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
REVOKE ALL ON FUNCTION dp_stream.push_period(dp_stream.streams, timestamp, float8, boolean) FROM PUBLIC;
COMMENT ON FUNCTION dp_stream.push_period(dp_stream.streams, timestamp, float8, boolean) IS
    'internal: pushes one period into a stream and records its release, for advance';

-- The checks advance makes before it pushes (0.12.0), shared with the
-- catch-up form: the stream exists (and is locked), was not created in
-- this transaction, and its state is its own at the step of its releases.
CREATE FUNCTION dp_stream.stream_for_advance(name text) RETURNS dp_stream.streams
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
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
REVOKE ALL ON FUNCTION dp_stream.stream_for_advance(text) FROM PUBLIC;
COMMENT ON FUNCTION dp_stream.stream_for_advance(text) IS
    'internal: the stream locked and checked for advance';

-- advance as in 0.12.0, and: the periods it fills because a later one was
-- asked for are marked (filled_without_data) and counted in a warning, so a
-- skipped job is seen the day after, not when a report shows a zero.
CREATE OR REPLACE FUNCTION dp_stream.advance(name text, period timestamp, value float8)
RETURNS dp_stream.releases
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  s dp_stream.streams;
  r dp_stream.releases;
  next_period timestamp;
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
            DETAIL = format('Periods are %s + k * %s; the next one is %s.', s.first_period,
                            s.period_length, next_period);
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

-- The catch-up: every period from the stream's next one to the last
-- observation's, in order, each with its observations (a count or sum adds
-- them; an average or variance takes at most one per period), in one call.
-- Observations of periods released before are counted, not used.
CREATE FUNCTION dp_stream.advance(name text, observations dp_stream.observation[])
RETURNS dp_stream.advance_result
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
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
COMMENT ON FUNCTION dp_stream.advance(text, dp_stream.observation[]) IS
    'catches a stream up: releases every period to the last observation''s, each with its data, in one call';


-- The index of a period on a publication's grid (first_period + k *
-- period_length), NULL when the timestamp is not on it.  Publications take
-- periods of a fixed length (no months), so that k is exact arithmetic.
-- (One expression, so that the planner inlines it.)
CREATE FUNCTION dp_stream.period_index(first_period timestamp, period_length interval, t timestamp)
RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT CASE WHEN extract(epoch FROM t - first_period) % extract(epoch FROM period_length) = 0
              THEN (extract(epoch FROM t - first_period) / extract(epoch FROM period_length))::bigint END
$$;
REVOKE ALL ON FUNCTION dp_stream.period_index(timestamp, interval, timestamp) FROM PUBLIC;
COMMENT ON FUNCTION dp_stream.period_index(timestamp, interval, timestamp) IS
    'internal: k such that t = first_period + k * period_length, or NULL, for publish';

-- create_publication runs as the caller, so that used_by defaults to the
-- caller's current role; register_publication, as the owner, writes.
CREATE FUNCTION dp_stream.create_publication(
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
  END IF;
  RETURN dp_stream.register_publication(name, published, coalesce(used_by, current_user::regrole),
                                        statistic, lower, upper, coalesce(integer_values, false),
                                        computes, partition_by, privacy_unit, contributions,
                                        truncation, partitions_per_person, first_period,
                                        period_length, dataset);
END $$;
COMMENT ON FUNCTION dp_stream.create_publication(text, text, @extschema@.dp_mechanism, float8, float8, text,
                                                 text, bigint, text, bigint, text, regrole, timestamp,
                                                 interval, boolean) IS
    'registers a partitioned publication: its key, its privacy unit, and one charge for all its partitions';

CREATE FUNCTION dp_stream.register_publication(name text, mechanism @extschema@.dp_mechanism,
    used_by regrole, statistic text, lower float8, upper float8, integer_values boolean,
    computes text, partition_by text, privacy_unit text, contributions bigint, truncation text,
    partitions_per_person bigint, first_period timestamp, period_length interval, dataset text)
RETURNS @extschema@.dp_mechanism
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
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
REVOKE ALL ON FUNCTION dp_stream.register_publication(text, @extschema@.dp_mechanism, regrole, text,
    float8, float8, boolean, text, text, text, bigint, text, bigint, timestamp, interval, text) FROM PUBLIC;
COMMENT ON FUNCTION dp_stream.register_publication(text, @extschema@.dp_mechanism, regrole, text,
    float8, float8, boolean, text, text, text, bigint, text, bigint, timestamp, interval, text) IS
    'internal: writes a publication, its key and its charge, for create_publication';

-- publish: one call releases the periods period .. through (default: just
-- period) of every partition of a publication, each (partition, period)
-- exactly once, from a set of observations that is all the data of those
-- periods (a partition without observations in a period had none).
--   - Only a session whose user is a member of the publication's used_by
--     role publishes it (42501, before anything is read or written).
--   - Every partition's stream starts at the publication's first period; a
--     partition first seen here gets noise of its own (keyed by publication
--     and partition), no data for the periods before it appeared, and no
--     new charge.
--   - Periods before `period` that were never released are refused (55000),
--     unless fill_missing: then they are released without data and marked
--     (filled_without_data).  Catch up instead: start the call at the
--     oldest missing period and pass its data.
--   - Observations of a (partition, period) released before are late: they
--     are counted in the result and not used.
--   - Person level: each person keeps at most k contributions to the whole
--     publication, the first ones by (period, partition, value), whatever the
--     order of the array; what a person used in earlier calls is counted.
-- Locks every partition's row (FOR UPDATE, in name order) for the rest of
-- the transaction, and for person level the publication's row too.
CREATE FUNCTION dp_stream.publish(publication text, period timestamp,
                                  observations dp_stream.observation[],
                                  through timestamp DEFAULT NULL,
                                  fill_missing boolean DEFAULT false)
RETURNS dp_stream.advance_result
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
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
COMMENT ON FUNCTION dp_stream.publish(text, timestamp, dp_stream.observation[], timestamp, boolean) IS
    'releases periods of every partition of a publication, each once, from observations of those periods';

-- The list of streams shows which are partitions of a publication.
CREATE OR REPLACE VIEW dp_stream.stream_list AS
  SELECT name, statistic, mechanism, lower, upper, first_period, period_length, steps,
         first_period + period_length * steps AS next_period, created_at, created_by,
         publication, partition
  FROM dp_stream.streams;

-- What readers see of publications: every partition's releases.
CREATE VIEW dp_stream.publication_releases AS
  SELECT s.publication, s.partition, r.step, r.period, r.estimate, r.error_bound, r.summary,
         r.filled_without_data, r.released_at
  FROM dp_stream.releases AS r JOIN dp_stream.streams AS s ON s.name = r.stream
  WHERE s.publication IS NOT NULL;
COMMENT ON VIEW dp_stream.publication_releases IS
    'the releases of the partitions of managed publications';

-- The publications with what they cost: one charge each, whatever the
-- number of partitions.
CREATE VIEW dp_stream.publication_list AS
  SELECT p.name, p.statistic, p.mechanism, p.lower, p.upper, p.partition_by, p.privacy_unit,
         p.contributions, p.truncation, p.partitions_per_person, p.dataset, p.epsilon, p.charge,
         (SELECT count(*) FROM dp_stream.streams AS s WHERE s.publication = p.name) AS partitions,
         (SELECT max(s.first_period + s.period_length * s.steps) FROM dp_stream.streams AS s
          WHERE s.publication = p.name) AS next_period,
         p.used_by, p.created_at, p.created_by
  FROM dp_stream.publications AS p;
COMMENT ON VIEW dp_stream.publication_list IS
    'every publication: what it publishes, its privacy unit, its one charge and its managed partitions';

-- spending as in 0.6.0, and for a publication's charge its name, privacy
-- unit and partitions (the managed ones; NULL for others' charges).
CREATE OR REPLACE VIEW dp_stream.spending AS
  SELECT c.dataset, c.epsilon, c.purpose, c.charged_by, c.charged_at,
         b.total_epsilon - sum(c.epsilon) OVER (PARTITION BY c.dataset ORDER BY c.id)
           AS remaining_after,
         l.name AS publication, l.privacy_unit, l.partitions
  FROM dp_stream.charges c JOIN dp_stream.budgets b USING (dataset)
  LEFT JOIN dp_stream.publication_list AS l ON l.charge = c.id;

GRANT SELECT ON dp_stream.publication_releases TO dp_stream_reader, dp_stream_admin;
GRANT SELECT ON dp_stream.publication_list, dp_stream.publications TO dp_stream_admin;
GRANT EXECUTE ON FUNCTION
    dp_stream.create_publication(text, text, @extschema@.dp_mechanism, float8, float8, text, text, bigint,
                                 text, bigint, text, regrole, timestamp, interval, boolean),
    dp_stream.register_publication(text, @extschema@.dp_mechanism, regrole, text, float8, float8, boolean,
                                   text, text, text, bigint, text, bigint, timestamp, interval, text),
    dp_stream.publish(text, timestamp, dp_stream.observation[], timestamp, boolean),
    dp_stream.advance(text, dp_stream.observation[])
    TO dp_stream_admin;
REVOKE ALL ON FUNCTION dp_stream.create_publication(text, text, @extschema@.dp_mechanism, float8, float8,
    text, text, bigint, text, bigint, text, regrole, timestamp, interval, boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION dp_stream.publish(text, timestamp, dp_stream.observation[], timestamp, boolean)
    FROM PUBLIC;
REVOKE ALL ON FUNCTION dp_stream.advance(text, dp_stream.observation[]) FROM PUBLIC;

-- ----- Fixes from the attacks on publications (sql/publication_attacks.sql) -----

-- Fix 1: only members of a publication's role publish it.  publish runs as
-- the extension's owner, who may draw under every key, and a partition's
-- noise is the noise dp_publication gives the used_by role over the same
-- data (managed and view-form releases agree).  An administrator outside
-- that role, refused by dp_publication (42704), could otherwise publish
-- data of its choosing, read the releases and roll back: one guess of a
-- period's data tested per call against that role's published view.  (The
-- rule 0.12.0 kept for create_stream, which refuses keyed mechanisms for
-- this reason.)  publish checks it first (see its body): the session user
-- must be a member of used_by, as register_key requires.  publish is the
-- only way to write a partition: advance refuses a partition's stream,
-- create_stream cannot name a publication, and the catalog is the owner's.

-- Fix 2: a publication's mechanism protects its privacy unit.
-- register_publication is executable by administrators (create_publication
-- calls it as the caller) and took the mechanism as given: called directly
-- with a plain mechanism and privacy_unit => 'person', contributions => 50,
-- it registered a publication charged epsilon whose releases are
-- 50 epsilon-DP for a person (publish keeps 50 contributions of each).
-- Every row must carry the person-level mechanism of its k, and an
-- event-level one none.
CREATE FUNCTION dp_stream.check_publication_mechanism() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
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
REVOKE ALL ON FUNCTION dp_stream.check_publication_mechanism() FROM PUBLIC;
COMMENT ON FUNCTION dp_stream.check_publication_mechanism() IS
    'internal trigger: a publication''s mechanism is person-level with its k exactly when its privacy unit is a person';
CREATE TRIGGER publications_mechanism_check BEFORE INSERT ON dp_stream.publications
    FOR EACH ROW EXECUTE FUNCTION dp_stream.check_publication_mechanism();

-- Fix 3: publish's call dp_publication(name, partition), with a text
-- partition, could not be hijacked.  dp_publication takes anycompatible, and
-- PostgreSQL prefers an exact match: a database owner who is not a
-- superuser (public belongs to pg_database_owner) could create
-- public.dp_publication(text, text), and publish, running as the
-- extension's owner, called it with a superuser's rights.  The extension
-- now owns that exact signature itself (same C function), so it cannot be
-- created by anyone else; other partition types keep the polymorphic form.
CREATE FUNCTION @extschema@.dp_publication(name text, partition text)
    RETURNS @extschema@.dp_mechanism
    AS 'MODULE_PATHNAME', 'dp_publication_option' LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.dp_publication(text, text) IS
    'the keyed mechanism of a registered publication for one partition given as text';

-- ----- Fixes from the review of publications (sql/publication_review.sql) -----

-- Fix 4 (review, sql/publication_review.sql section 1): a partition starts
-- at the publication's first period.  publish started new partitions
-- "where the publication's partitions started", which for the first ones
-- was the first call's period: a first publish after first_period (the
-- job's first night two days after the registration) released nothing for
-- the periods before, marked nothing and refused nothing, and every
-- partition's steps were shifted against the view form over the
-- publication's axis, whose releases then drew other noise: a reader of
-- both forms held two independent noisy versions of each release.  Two
-- first publishes at once, for different periods, gave partitions
-- different starts the same way (test/isolation/specs/publications.spec).
-- Now new partitions start at first_period, and the periods before the
-- call's that no partition has released are missing, for new partitions
-- too: refused (55000) unless fill_missing, which marks them.  The
-- periods before the call's are released for the partitions behind only,
-- found by name (a new partition goes back to first_period).
-- publish (defined above, with these fixes) also carries fix 6 (a session
-- outside used_by is refused first; see its comment in the body).

-- Fix 5 (review, sql/publication_review.sql section 2): no stream outside
-- a publication takes a partition's name.  A partition of publication P
-- is the managed stream "P/partition", and publish refuses a partition
-- whose name an ordinary stream has.  Any administrator could create that
-- stream first with create_stream, outside the publication's role: the
-- partition could then never be published (streams are never dropped),
-- and every publish whose data named it failed for all partitions.  Key
-- names, and so publication names, have no "/", so partitions of two
-- publications never share a name; what remains is an ordinary stream
-- named "P/...": refused when P is a publication, and a publication P is
-- refused while such a stream exists (at its registration, whose charge
-- rolls back with it, rather than at its first publish).  Partitions' own rows are not checked, so a restore
-- loads them in any order.
CREATE FUNCTION dp_stream.check_stream_name() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
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
REVOKE ALL ON FUNCTION dp_stream.check_stream_name() FROM PUBLIC;
COMMENT ON FUNCTION dp_stream.check_stream_name() IS
    'internal trigger: an ordinary stream never has the name of a publication''s partition (publication/partition)';
CREATE TRIGGER streams_name_check BEFORE INSERT ON dp_stream.streams
    FOR EACH ROW WHEN (NEW.publication IS NULL)
    EXECUTE FUNCTION dp_stream.check_stream_name();
CREATE TRIGGER publications_name_check BEFORE INSERT ON dp_stream.publications
    FOR EACH ROW EXECUTE FUNCTION dp_stream.check_stream_name();

-- ===== end of section: publications =====

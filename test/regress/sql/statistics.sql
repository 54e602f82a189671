-- dp_sum, dp_avg, dp_variance, dp_stddev: the issue's example, window,
-- aggregate and two-step forms over every mechanism, clamping, NULL and NaN
-- values, integer sums, large magnitudes, stored states and bad input.
CREATE EXTENSION IF NOT EXISTS dp_stream;
SET extra_float_digits = 0;
SET dp_stream.seed = 'statistics';

CREATE TABLE readings AS
  SELECT m AS meter, d AS day,
         CASE WHEN d % 7 = 0 THEN NULL ELSE round((2 + 1.5 * sin(d / 2.0) + m)::numeric, 2)::float8 END AS kwh
  FROM generate_series(1, 2) m, generate_series(1, 12) d;

-- the example of the issue: running releases per meter
SELECT meter, day, kwh,
       round(dp_sum(kwh, 0, 20, dp_hybrid(1.0, 1)) OVER w ::numeric, 3) AS sum,
       round(dp_avg(kwh, 0, 20, dp_hybrid(1.0, 1)) OVER w ::numeric, 3) AS avg,
       round(dp_variance(kwh, 0, 20, dp_hybrid(1.0, 1)) OVER w ::numeric, 3) AS variance
FROM readings WINDOW w AS (PARTITION BY meter ORDER BY day) ORDER BY meter, day;

-- window, aggregate, state and stored-then-continued forms agree, for every
-- mechanism and for sums, averages and variances.  (One statistic per query:
-- two aggregates in one query draw their noise interleaved.)
CREATE FUNCTION statistic_forms_agree(m dp_mechanism, aggregate text, state_aggregate text)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  w float8; a float8; s float8; p float8;
BEGIN
  PERFORM set_config('dp_stream.seed', 'forms', false);
  EXECUTE format('SELECT x FROM (SELECT day, %s(kwh, 0, 5, $1) OVER (ORDER BY day) AS x
                  FROM readings WHERE meter = 1) q WHERE day = 12', aggregate) INTO w USING m;
  PERFORM set_config('dp_stream.seed', 'forms', false);
  EXECUTE format('SELECT %s(kwh, 0, 5, $1 ORDER BY day) FROM readings WHERE meter = 1', aggregate)
    INTO a USING m;
  PERFORM set_config('dp_stream.seed', 'forms', false);
  EXECUTE format('SELECT dp_estimate(%s(kwh, 0, 5, $1 ORDER BY day)) FROM readings WHERE meter = 1',
                 state_aggregate) INTO s USING m;
  -- stored after 11 steps (sealed, through text), then continued with the last value
  PERFORM set_config('dp_stream.seed', 'forms', false);
  EXECUTE format('SELECT dp_estimate(dp_push(s::text::dp_statistic,
                    (SELECT kwh FROM readings WHERE meter = 1 AND day = 12)))
                  FROM (SELECT %s(kwh, 0, 5, $1 ORDER BY day) s FROM readings
                        WHERE meter = 1 AND day < 12) q', state_aggregate) INTO p USING m;
  RETURN CASE WHEN w IS NOT DISTINCT FROM a AND a IS NOT DISTINCT FROM s
               AND s IS NOT DISTINCT FROM p
              THEN 'agree' ELSE format('%s %s %s %s', w, a, s, p) END;
END $$;
SELECT name, f.agg, statistic_forms_agree(m, f.agg, f.state)
FROM (VALUES
  ('binary', dp_binary(1, 30, 1)), ('simple_i', dp_simple_i(1, 30, 1)),
  ('simple_ii', dp_simple_ii(1, 1)), ('two_level', dp_two_level(1, 30, 1, block => 4)),
  ('hybrid', dp_hybrid(1, 1)), ('ppcum', dp_ppcum(1, 30, 1)),
  ('binary pan-private', dp_pan_private(dp_binary(1, 30, 1))),
  ('two_level pan-private consistent', dp_consistent(dp_pan_private(dp_two_level(1, 30, 1, block => 4)))),
  ('hybrid consistent', dp_consistent(dp_hybrid(1, 1)))) v(name, m),
  (VALUES ('dp_sum', 'dp_sum_state'), ('dp_avg', 'dp_avg_state'),
          ('dp_variance', 'dp_variance_state')) f(agg, state)
ORDER BY name, f.agg;

-- stored states round-trip through text and through binary COPY (send/recv)
CREATE TEMP TABLE states AS
  SELECT 'sum' AS k, dp_sum_state(day, -3, 9, dp_pan_private(dp_binary(1, 30, 1)) ORDER BY day) AS s FROM readings WHERE meter = 1
  UNION ALL SELECT 'avg', dp_avg_state(kwh, 0, 5, dp_consistent(dp_two_level(1, 30, 1)) ORDER BY day) FROM readings WHERE meter = 1
  UNION ALL SELECT 'variance', dp_variance_state(kwh, -1e15, 1e15, dp_hybrid(1, 1) ORDER BY day) FROM readings WHERE meter = 1;
-- (a file of the server's own data directory: no name shared with other runs)
SELECT current_setting('data_directory') || '/dp_stream_regress_states.bin' AS states_file \gset
COPY states TO :'states_file' (FORMAT binary);
CREATE TEMP TABLE states_back (k text, s dp_statistic);
COPY states_back FROM :'states_file' (FORMAT binary);
SELECT a.k, a.s::text = b.s::text AS binary_round_trip,
       dp_statistic_send(a.s) = dp_statistic_send(a.s::text::dp_statistic) AS text_round_trip
FROM states a JOIN states_back b USING (k) ORDER BY a.k;

-- releases stay inside their ranges even when the noise is huge: averages in
-- [lower, upper], population variances in [0, ((upper - lower) / 2)^2],
-- sample variances below that times c / (c - 1); NULL while the noisy count
-- is below 1 (2 for sample variances)
SET dp_stream.seed = 'clamping';
SELECT count(*) FILTER (WHERE a < 2 OR a > 6) AS average_outside,
       count(*) FILTER (WHERE vp < 0 OR vp > 4) AS var_pop_outside,
       count(*) FILTER (WHERE abs(sp - sqrt(vp)) > 1e-12) AS stddev_not_sqrt,
       count(*) FILTER (WHERE a IN (2, 6)) > 0 AS some_average_at_a_bound,
       count(*) FILTER (WHERE vp IN (0, 4)) > 0 AS some_variance_at_a_bound,
       count(*) FILTER (WHERE a IS NULL) > 0 AS some_undefined,
       count(*) FILTER (WHERE a IS NOT NULL) > 0 AS some_defined
FROM (SELECT a, (s).var_pop AS vp, (s).stddev_pop AS sp
      FROM (SELECT dp_avg(v, 2, 6, dp_hybrid(0.05, 1)) OVER w AS a,
                   dp_summary(v, 2, 6, dp_hybrid(0.05, 1)) OVER w AS s
            FROM (SELECT k, t, (t * 37 % 7)::float8 AS v
                  FROM generate_series(1, 40) k, generate_series(1, 30) t) d
            WINDOW w AS (PARTITION BY k ORDER BY t)) x) q;
SELECT count(*) FILTER (WHERE c >= 2 AND dp_estimate(s, 'var_samp') > 4 * c / greatest(c - 1, 1)) AS var_samp_outside,
       count(*) FILTER (WHERE c < 2 AND dp_estimate(s, 'var_samp') IS NOT NULL) AS var_samp_defined_below_2,
       count(*) FILTER (WHERE c >= 2 AND dp_estimate(s, 'var_samp') IS NULL) AS var_samp_undefined_above_2
FROM (SELECT s, dp_estimate(s, 'count') AS c
      FROM (SELECT k, dp_variance_state(v, 2, 6, dp_hybrid(0.05, 1) ORDER BY t) AS s
            FROM (SELECT k, t, (t % 5)::float8 AS v FROM generate_series(1, 200) k, generate_series(1, 5) t) d
            GROUP BY k) x) y;

-- a NULL or NaN value is a step without an observation, +-Infinity is
-- clamped: the same seed gives the same release
SET dp_stream.seed = 'values';
CREATE TEMP TABLE with_nan AS SELECT dp_avg(v, 0, 10, dp_binary(100, 10, 1) ORDER BY t) AS r
  FROM (VALUES (1, 4::float8), (2, 'NaN'), (3, 8)) d(t, v);
SET dp_stream.seed = 'values';
CREATE TEMP TABLE with_null AS SELECT dp_avg(v, 0, 10, dp_binary(100, 10, 1) ORDER BY t) AS r
  FROM (VALUES (1, 4::float8), (2, NULL), (3, 8)) d(t, v);
SET dp_stream.seed = 'values';
CREATE TEMP TABLE with_infinities AS SELECT dp_variance(v, 0, 10, dp_binary(100, 10, 1) ORDER BY t) AS r
  FROM (VALUES (1, 'Infinity'::float8), (2, '-Infinity'), (3, 3)) d(t, v);
SET dp_stream.seed = 'values';
CREATE TEMP TABLE with_bounds AS SELECT dp_variance(v, 0, 10, dp_binary(100, 10, 1) ORDER BY t) AS r
  FROM (VALUES (1, 10::float8), (2, 0), (3, 3)) d(t, v);
SELECT (SELECT r FROM with_nan) = (SELECT r FROM with_null) AS nan_is_null,
       (SELECT r FROM with_infinities) = (SELECT r FROM with_bounds) AS infinities_clamp,
       (SELECT r FROM with_bounds) > 10 AS variance_is_informative;

-- integer sums: bigint releases, integer noise, int4/int8/numeric inputs
SET dp_stream.seed = 'integers';
SELECT pg_typeof(dp_sum(n, 0, 10, dp_binary(1, 16, 1))) AS int4_input,
       pg_typeof(dp_sum(n::bigint, 0, 10, dp_binary(1, 16, 1))) AS int8_input,
       pg_typeof(dp_sum(n::smallint, 0, 10, dp_binary(1, 16, 1))) AS int2_input,
       pg_typeof(dp_sum(n::numeric, 0, 10, dp_binary(1, 16, 1))) AS numeric_input,
       pg_typeof(dp_sum(n + 0.5, 0, 10, dp_binary(1, 16, 1))) AS fractional_input
FROM generate_series(1, 16) n;
SELECT dp_estimate(s) = round(dp_estimate(s)) AS integral, dp_estimate(dp_push(s, 3)) = round(dp_estimate(dp_push(s, 3))) AS integer_state
FROM (SELECT dp_sum_state(n, -5, 7, dp_hybrid(1, 1) ORDER BY n) s FROM generate_series(1, 30) n) q;

-- large magnitudes: bounds up to +-1e15 keep the guarantee and do not overflow
SET dp_stream.seed = 'large';
SELECT abs(dp_estimate(s) - truth) <= dp_error_bound(s, 0.999999) AS sum_within_bound,
       dp_error_bound(s, 0.5) > 1e15 AS noise_scaled_to_range
FROM (SELECT dp_sum_state(v, -1e15, 1e15, dp_binary(1, 64, 1) ORDER BY t) s,
             sum(greatest(least(v, 1e15), -1e15)) truth
      FROM (SELECT t, (t % 5 - 2) * 6e14 AS v FROM generate_series(1, 60) t) d) q;
SELECT abs(dp_estimate(s) - 9e14) <= dp_error_bound(s, 0.999999) AS average_within_bound
FROM (SELECT dp_avg_state(9e14, 0, 1e15, dp_binary(50, 1024, 1) ORDER BY t) s FROM generate_series(1, 1000) t) q;
SELECT dp_sum(v, 0, 9007199254740992, dp_hybrid(1, 1))
FROM (SELECT 9007199254740992::bigint AS v FROM generate_series(1, 1100)) d;

-- error bounds: sums exact, averages a union bound, variances refused
SET dp_stream.seed = 'bounds';
SELECT round(dp_error_bound(s, 0.95)::numeric, 2) AS sum_bound
FROM (SELECT dp_sum_state(kwh, 0, 20, dp_binary(1, 16, 1) ORDER BY day) s FROM readings WHERE meter = 1) q;
SELECT round(dp_error_bound(s, 0.95)::numeric, 2) AS sum_bound_integer
FROM (SELECT dp_sum_state(day, 0, 20, dp_binary(1, 16, 1) ORDER BY day) s FROM readings WHERE meter = 1) q;
SELECT dp_error_bound(s, 0.9) <= 20 AS average_bound_within_range
FROM (SELECT dp_avg_state(kwh, 0, 20, dp_binary(1, 16, 1) ORDER BY day) s FROM readings WHERE meter = 1) q;
SELECT dp_error_bound(dp_variance_state(kwh, 0, 20, dp_hybrid(1, 1))) FROM readings;
SELECT dp_error_bound(dp_sum_state(kwh, 0, 20, dp_hybrid(1, 1)), 1.5) FROM readings;

-- estimates by name
SET dp_stream.seed = 'names';
SELECT e, dp_estimate(s, e) IS NOT NULL AS defined
FROM (SELECT dp_variance_state(v, 0, 10, dp_binary(5, 1024, 1) ORDER BY t) s
      FROM (SELECT t, (t % 11)::float8 v FROM generate_series(1, 1000) t) d) q,
     unnest(ARRAY['sum', 'count', 'avg', 'var_pop', 'var_samp', 'stddev_pop', 'stddev_samp']) e;
SELECT dp_estimate(dp_sum_state(kwh, 0, 20, dp_hybrid(1, 1)), 'avg') FROM readings;
SELECT dp_estimate(dp_avg_state(kwh, 0, 20, dp_hybrid(1, 1)), 'var_pop') FROM readings;
SELECT dp_estimate(dp_avg_state(kwh, 0, 20, dp_hybrid(1, 1)), 'median') FROM readings;
SELECT dp_steps(s), dp_mechanism(s) FROM (SELECT dp_avg_state(kwh, 0, 20, dp_two_level(1, 30, 1) ORDER BY day) s FROM readings) q;

-- bad input
SELECT dp_sum(kwh, 5, 5, dp_hybrid(1, 1)) FROM readings;
SELECT dp_avg(kwh, 6, 5, dp_hybrid(1, 1)) FROM readings;
SELECT dp_avg(kwh, 'NaN', 5, dp_hybrid(1, 1)) FROM readings;
SELECT dp_variance(kwh, 0, 'Infinity', dp_hybrid(1, 1)) FROM readings;
SELECT dp_sum(kwh, '-Infinity', 0, dp_hybrid(1, 1)) FROM readings;
SELECT dp_sum(kwh, 0, 1e16, dp_hybrid(1, 1)) FROM readings;
SELECT dp_sum(kwh, NULL, 5, dp_hybrid(1, 1)) FROM readings;
SELECT dp_sum(kwh, 0, NULL, dp_hybrid(1, 1)) FROM readings;
SELECT dp_sum(kwh, 0, 5, NULL) FROM readings;
SELECT dp_sum(kwh, 0, day, dp_hybrid(1, 1)) OVER (ORDER BY day) FROM readings;
SELECT dp_avg(kwh, 0, 5, CASE WHEN day < 3 THEN dp_hybrid(1, 1) ELSE dp_hybrid(2, 1) END) OVER (ORDER BY day) FROM readings;
SELECT dp_avg(kwh, 0, 5, dp_hybrid(1, 3)) FROM readings;
SELECT dp_variance(kwh, 0, 5, dp_binary(1, 10, 1)) FROM readings;
SELECT dp_variance(kwh, 0, 5, dp_binary(0.000000000001, 10, 1)) FROM readings;
SELECT dp_sum(kwh, 0, 5, dp_hybrid(1, 1)) OVER (ORDER BY day ROWS 2 PRECEDING) FROM readings;
SELECT dp_sum(kwh, 0, 5, dp_simple_i(1, 4611686018427387904, 1)) FROM readings;
-- the decoder of unsealed text (a superuser's upgrade path, test/regress/sql/sealing.sql)
SET dp_stream.read_unsealed = on;
SELECT 'v1 sum(lower=0,upper=1,values=real) hybrid(epsilon=1)'::dp_statistic;
SELECT 'v9 sum(lower=0,upper=1,values=real) hybrid(epsilon=1)'::dp_statistic;
SELECT 'v1 median(lower=0,upper=1,values=real) hybrid(epsilon=1)'::dp_statistic;
SELECT 'v1 sum(lower=1,upper=0,values=real) hybrid(epsilon=1) sum: v2 hybrid(epsilon=1,max_per_step=1) steps=0 nodes=[]'::dp_statistic;
SELECT 'v1 sum(lower=0,upper=1,values=real) hybrid(epsilon=1) sum: v2 hybrid(epsilon=1,max_per_step=1) steps=0 nodes=[]'::dp_statistic;
SELECT 'v1 average(lower=0,upper=1,values=real,estimator=midpoint) binary(epsilon=1,horizon=4) count: v2 binary(epsilon=0.5,horizon=4,max_per_step=1) steps=1 nodes=[0,0,0] sum: v2 binary(epsilon=0.5,horizon=4,max_per_step=1099511627776) steps=2 nodes=[0,0,0]'::dp_statistic;
RESET dp_stream.read_unsealed;

-- every variance-family aggregate releases what its state's named estimate
-- gives from the same noise; dp_push takes bigint values too
CREATE FUNCTION aggregate_matches_state(aggregate text, estimate text) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE by_aggregate float8; by_state float8;
BEGIN
  PERFORM set_config('dp_stream.seed', 'family', false);
  EXECUTE format('SELECT %s(v, 0, 10, dp_binary(5, 1024, 1) ORDER BY t)
                  FROM (SELECT t, (t %% 11)::float8 v FROM generate_series(1, 500) t) d', aggregate)
    INTO by_aggregate;
  PERFORM set_config('dp_stream.seed', 'family', false);
  SELECT dp_estimate(dp_variance_state(v, 0, 10, dp_binary(5, 1024, 1) ORDER BY t), estimate) INTO by_state
    FROM (SELECT t, (t % 11)::float8 v FROM generate_series(1, 500) t) d;
  RETURN by_aggregate = by_state;
END $$;
SELECT a, e, aggregate_matches_state(a, e) FROM (VALUES
  ('dp_var_pop', 'var_pop'), ('dp_var_samp', 'var_samp'), ('dp_variance', 'var_samp'),
  ('dp_stddev_pop', 'stddev_pop'), ('dp_stddev_samp', 'stddev_samp'), ('dp_stddev', 'stddev_samp')) x(a, e);
SELECT dp_var_pop(kwh, 3, 3, dp_hybrid(1, 1)) FROM readings;
SELECT dp_stddev(kwh, 0, 'NaN', dp_hybrid(1, 1)) FROM readings;
SELECT dp_stddev_pop(kwh, NULL, 5, dp_hybrid(1, 1)) FROM readings;
SET dp_stream.seed = 'push';
SELECT dp_steps(dp_push(s, 4::bigint)) AS steps,
       dp_estimate(dp_push(s, 4::bigint)) = round(dp_estimate(dp_push(s, 4::bigint))) AS integral,
       dp_push(NULL::dp_statistic, 4::bigint) IS NULL AS null_state
FROM (SELECT dp_sum_state(n::bigint, 0, 10::bigint, dp_hybrid(1, 1) ORDER BY n) s FROM generate_series(1, 5) n) q;
DROP FUNCTION aggregate_matches_state(text, text);

-- The per-row check that a stream's mechanism does not change is skipped
-- only when the argument is a constant of the plan (issue 29): a second
-- call of the same aggregate in the same window whose mechanism changes is
-- still refused, whichever comes first, and so is a plain call with a
-- changing mechanism; a prepared statement's parameter is constant.
SELECT dp_sum(kwh, 0, 5, dp_hybrid(1, 1)) OVER w AS constant,
       dp_sum(kwh, 0, 5, CASE WHEN day < 3 THEN dp_hybrid(1, 1) ELSE dp_hybrid(2, 1) END) OVER w AS changing
FROM readings WINDOW w AS (ORDER BY meter, day);
SELECT dp_sum(kwh, 0, 5, CASE WHEN day < 3 THEN dp_hybrid(1, 1) ELSE dp_hybrid(2, 1) END) OVER w AS changing,
       dp_sum(kwh, 0, 5, dp_hybrid(1, 1)) OVER w AS constant
FROM readings WINDOW w AS (ORDER BY meter, day);
SELECT dp_count(1, dp_binary(1, 100, 1)) OVER w AS constant,
       dp_count(1, CASE WHEN day < 3 THEN dp_binary(1, 100, 1) ELSE dp_binary(2, 100, 1) END) OVER w AS changing
FROM readings WINDOW w AS (ORDER BY meter, day);
SELECT dp_avg(kwh, 0, 5, CASE WHEN day < 3 THEN dp_hybrid(1, 1) ELSE dp_hybrid(2, 1) END ORDER BY day)
FROM readings;
SELECT dp_count(1, CASE WHEN day < 3 THEN dp_binary(1, 100, 1) ELSE dp_binary(2, 100, 1) END ORDER BY day)
FROM readings;
SET dp_stream.seed = 'constant arguments';
PREPARE constant_mechanism(dp_mechanism) AS
  SELECT count(*) AS releases, count(DISTINCT r) > 1 AS moving
  FROM (SELECT dp_sum(kwh, 0, 5, $1) OVER (PARTITION BY meter ORDER BY day) r FROM readings) q;
EXECUTE constant_mechanism(dp_hybrid(1, 1));
DEALLOCATE constant_mechanism;
-- review18: the skipped check cannot be reached with a value that changes
-- within one execution.  A PL/pgSQL variable is a parameter whose value a
-- cursor's portal copies when it opens (changing the variable between
-- FETCHes changes nothing); a generic plan's parameter; a NULL parameter is
-- refused at the first row; a rolling state's changing width and a changing
-- mechanism beside a constant one in one plain aggregate are still refused.
DO $$
DECLARE
  v dp_mechanism := dp_hybrid(1, 1);
  c refcursor;
  r record;
  n int := 0;
BEGIN
  OPEN c FOR SELECT day, v::text AS seen, dp_sum(kwh, 0, 5, v) OVER (ORDER BY meter, day) AS s FROM readings;
  LOOP
    FETCH c INTO r;
    EXIT WHEN NOT FOUND;
    n := n + 1;
    IF r.seen <> 'hybrid(epsilon=1,max_per_step=1)' THEN
      RAISE EXCEPTION 'the cursor saw the changed variable: %', r.seen;
    END IF;
    v := dp_hybrid(n + 1, 1);
  END LOOP;
  RAISE NOTICE 'cursor: % rows under the mechanism it opened with', n;
END $$;
SET plan_cache_mode = force_generic_plan;
PREPARE generic_mechanism(dp_mechanism, bigint) AS
  SELECT count(s) FROM (SELECT dp_rolling_sum(kwh, 0, 5, $2, $1) OVER (PARTITION BY meter ORDER BY day) s FROM readings) q;
EXECUTE generic_mechanism(dp_hybrid(1, 1), 3);
EXECUTE generic_mechanism(NULL, 3);
EXECUTE generic_mechanism(dp_hybrid(1, 1), NULL);
DEALLOCATE generic_mechanism;
RESET plan_cache_mode;
SELECT dp_rolling_count_state(1, CASE WHEN day < 3 THEN 3 ELSE 4 END::bigint, dp_hybrid(1, 1) ORDER BY day) IS NULL
FROM readings GROUP BY meter;
SELECT dp_count_state(1, dp_hybrid(1, 1) ORDER BY day) IS NULL AS constant,
       dp_count_state(1, CASE WHEN day < 3 THEN dp_hybrid(1, 1) ELSE dp_hybrid(2, 1) END ORDER BY day) IS NULL AS changing
FROM readings GROUP BY meter;

-- leave the shared regression database as we found it
DROP FUNCTION statistic_forms_agree(dp_mechanism, text, text);
DROP TABLE readings;

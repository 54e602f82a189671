-- Pinned values (issue 29, item 6): what every mechanism kind releases for a
-- seeded stream (SET dp_stream.seed) and for a keyed stream (fixed secrets),
-- in window, aggregate and stored-state form, for the count, the sum, the
-- average, the variance and dp_summary.  Each cell is the md5 of the
-- released values' text, step by step; the expected output was recorded
-- from the code of 0.15.0 before any optimisation of the per-step paths, so
-- a change that moves any released value, even in its last bit, fails here.
-- A refusal is pinned as its SQLSTATE.  Runs in a database of its own.
\set regress_database :DBNAME
CREATE DATABASE dp_pinned_values;
\c dp_pinned_values
SET client_min_messages = warning;
CREATE EXTENSION dp_stream;
RESET client_min_messages;
SET dp_stream.argument_order_warning = off;
SET extra_float_digits = 1;  -- the shortest text that reads back to the same bits

-- one mechanism of each kind, bounded kinds with horizon 64, one item per step
CREATE FUNCTION pin_mechanism(kind text) RETURNS dp_mechanism LANGUAGE plpgsql AS $$
DECLARE
  bounded boolean := (SELECT k.bounded FROM dp_mechanism_kinds() k WHERE k.kind = $1);
BEGIN
  IF kind = 'auto' THEN
    RETURN dp_auto(1.0, 64, 1);
  ELSIF kind = 'auto_2e6' THEN
    -- the default at the benchmark's horizon: more digits, a larger arity
    RETURN dp_auto(1.0, 2000000, 1);
  ELSIF kind = 'expiring' THEN
    RETURN dp_expiring(1.0, 1, lambda => 2);
  ELSIF kind = 'expiring_baseline' THEN
    RETURN dp_expiring_baseline(1.0, 64, 1, epsilon_past => 0.5, window_size => 7);
  ELSIF kind = 'rolling' THEN
    RETURN dp_rolling(1.0, 7, 1);
  ELSIF kind = 'decayed' THEN
    -- read by dp_decayed_count and dp_decayed_sum only (pinned below); the
    -- running aggregates refuse it before drawing anything
    RETURN dp_decayed(1.0, 1, gamma => 0.9);
  END IF;
  BEGIN
    RETURN dp_mechanism_of(kind, 1.0, CASE WHEN bounded THEN 64 END, 1);
  EXCEPTION WHEN others THEN
    -- the kinds defined under rho-zCDP only
    RETURN dp_zcdp_mechanism_of(kind, 0.5, CASE WHEN bounded THEN 64 END, 1);
  END;
END $$;

CREATE TABLE pin_kinds AS
SELECT kind, keyed FROM dp_mechanism_kinds()
UNION ALL SELECT 'auto', false UNION ALL SELECT 'auto_2e6', false;
-- kinds added after the seeded digests were recorded: each is seeded in
-- statements of its own (below), so that adding a kind moves no digest of
-- the seeded stream the others share
CREATE TABLE pin_new_kinds (kind text PRIMARY KEY);
INSERT INTO pin_new_kinds VALUES ('rolling');

-- 40 steps: a 0/1 count and a value in [0, 10]
CREATE TABLE pin_data AS
SELECT t, (t * 7 % 3 = 0)::int AS x, ((t * 13) % 11)::float8 AS v
FROM generate_series(1, 40) t;

-- the md5 of a query's single text result, or the SQLSTATE of its refusal
CREATE FUNCTION pin_digest(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  result text;
BEGIN
  EXECUTE query INTO result;
  RETURN left(md5(coalesce(result, 'NULL')), 10);
EXCEPTION WHEN others THEN
  RETURN 'E' || SQLSTATE;
END $$;

-- the five releases of one mechanism in one form, as digests
CREATE FUNCTION pin_release(form text, m text, key_prefix text DEFAULT NULL)
RETURNS TABLE (count text, sum text, avg text, variance text, summary text)
LANGUAGE plpgsql AS $$
DECLARE
  mc text := m;
  ms text := m;
  ma text := m;
  mv text := m;
  mx text := m;
  agg text;
  stat text;
  q text;
  w constant text := 'OVER (ORDER BY t ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)';
  parts text[] := '{}';
BEGIN
  IF key_prefix IS NOT NULL THEN
    mc := format('dp_keyed(%s, %L)', m, key_prefix || '_count');
    ms := format('dp_keyed(%s, %L)', m, key_prefix || '_sum');
    ma := format('dp_keyed(%s, %L)', m, key_prefix || '_average');
    mv := format('dp_keyed(%s, %L)', m, key_prefix || '_variance');
    mx := mv;
  END IF;
  FOREACH agg IN ARRAY ARRAY['count', 'sum', 'avg', 'variance', 'summary'] LOOP
    stat := CASE agg WHEN 'count' THEN format('dp_count(x, %s', mc)
                     WHEN 'sum' THEN format('dp_sum(v, 0, 10, %s', ms)
                     WHEN 'avg' THEN format('dp_avg(v, 0, 10, %s', ma)
                     WHEN 'variance' THEN format('dp_variance(v, 0, 10, %s', mv)
                     ELSE format('dp_summary(v, 0, 10, %s', mx) END;
    IF form = 'window' THEN
      q := format('SELECT string_agg(coalesce(r::text, ''-''), '' '' ORDER BY t) FROM (SELECT t, %s) %s AS r FROM pin_data) s',
                  stat, w);
    ELSIF form = 'aggregate' THEN
      -- the released value of every prefix of the stream, as an ordered aggregate
      q := format('SELECT string_agg(coalesce(r::text, ''-''), '' '' ORDER BY n) FROM generate_series(1, 40) n, '
                  'LATERAL (SELECT %s ORDER BY t) AS r FROM pin_data WHERE t <= n) s', stat);
    ELSE
      -- stored states: the state of each prefix, then its estimate (dp_summary: its summary)
      stat := replace(replace(replace(replace(replace(stat,
                'dp_count(', 'dp_count_state('), 'dp_sum(', 'dp_sum_state('),
                'dp_avg(', 'dp_avg_state('), 'dp_variance(', 'dp_variance_state('),
                'dp_summary(', 'dp_variance_state(');
      q := format('SELECT string_agg(coalesce(%s::text, ''-''), '' '' ORDER BY n) FROM generate_series(1, 40) n, '
                  'LATERAL (SELECT %s ORDER BY t) AS r FROM pin_data WHERE t <= n) s',
                  CASE agg WHEN 'summary' THEN 'dp_summary(r)' ELSE 'dp_estimate(r)' END, stat);
    END IF;
    parts := parts || pin_digest(q);
  END LOOP;
  RETURN QUERY SELECT parts[1], parts[2], parts[3], parts[4], parts[5];
END $$;

-- the push path: a new state, one dp_push per step, the estimate after each
CREATE FUNCTION pin_push(m dp_mechanism) RETURNS TABLE (count text, sum text, avg text, variance text,
                                                       summary text)
LANGUAGE plpgsql AS $$
DECLARE
  c dp_counter;
  s dp_statistic;
  a dp_statistic;
  va dp_statistic;
  r record;
  out_c text := '';
  out_s text := '';
  out_a text := '';
  out_v text := '';
  out_x text := '';
BEGIN
  BEGIN
    c := dp_counter_new(m);
    FOR r IN SELECT * FROM pin_data ORDER BY t LOOP
      c := dp_push(c, r.x::bigint);
      out_c := out_c || ' ' || coalesce(dp_estimate(c)::text, '-');
    END LOOP;
    out_c := left(md5(out_c), 10);
  EXCEPTION WHEN others THEN
    out_c := 'E' || SQLSTATE;
  END;
  BEGIN
    s := dp_statistic_new('sum', 0, 10, m);
    a := dp_statistic_new('average', 0, 10, m);
    va := dp_statistic_new('variance', 0, 10, m);
    FOR r IN SELECT * FROM pin_data ORDER BY t LOOP
      s := dp_push(s, r.v);
      a := dp_push(a, r.v);
      va := dp_push(va, r.v);
      out_s := out_s || ' ' || coalesce(dp_estimate(s)::text, '-');
      out_a := out_a || ' ' || coalesce(dp_estimate(a)::text, '-');
      out_v := out_v || ' ' || coalesce(dp_estimate(va)::text, '-');
      out_x := out_x || ' ' || coalesce(dp_summary(va)::text, '-');
    END LOOP;
    out_s := left(md5(out_s), 10);
    out_a := left(md5(out_a), 10);
    out_v := left(md5(out_v), 10);
    out_x := left(md5(out_x), 10);
  EXCEPTION WHEN others THEN
    out_s := 'E' || SQLSTATE;
    out_a := out_s;
    out_v := out_s;
    out_x := out_s;
  END;
  RETURN QUERY SELECT out_c, out_s, out_a, out_v, out_x;
END $$;

-- Keys for the keyed kinds, committed before the releases (a key draws no
-- noise in the transaction that registers it).
SELECT dp_stream.create_budget('pin_values', 1000000);
SELECT count(*) AS keys
FROM pin_kinds k, unnest(ARRAY['count', 'sum', 'average', 'variance']) s,
     LATERAL dp_stream.create_key('pin_' || k.kind || '_' || s, pin_mechanism(k.kind), 'pin_values',
                                  statistic => s,
                                  lower => CASE WHEN s <> 'count' THEN 0 END,
                                  upper => CASE WHEN s <> 'count' THEN 10 END)
WHERE k.keyed AND k.kind <> 'decayed';  -- no running state takes a decayed mechanism

-- fixed secrets, so that keyed noise is the same on every run
BEGIN;
INSERT INTO dp_stream.secrets (id, purpose, secret, created_at)
VALUES (101, 'table_noise', decode(repeat('5a', 32), 'hex'), '2000-01-01'),
       (102, 'noise', decode(repeat('3c', 32), 'hex'), '2000-01-01');
ALTER TABLE dp_stream.keys DISABLE TRIGGER keys_append_only;
-- derivation 1: keys registered before 0.17.0 (whose releases are pinned
-- below as they were); derivation 2 is pinned after them
UPDATE dp_stream.keys SET noise_secret = dp_stream.keyed_noise_secret(), derivation = 1;
ALTER TABLE dp_stream.keys ENABLE TRIGGER keys_append_only;

SET dp_stream.seed = 'pinned values';
-- seeded streams
SELECT k.kind, f.form, r.*
FROM pin_kinds k, unnest(ARRAY['window', 'aggregate', 'state']) WITH ORDINALITY f (form, o),
     LATERAL pin_release(f.form, format('%L::dp_mechanism', pin_mechanism(k.kind))) r
WHERE k.kind NOT IN (SELECT kind FROM pin_new_kinds)
ORDER BY k.kind, f.o;
-- (decayed: dp_counter_new starts its counter, drawing the opening noise,
-- which would move the kinds after it; its push digest is below)
SELECT k.kind, 'push' AS form, r.*
FROM pin_kinds k, LATERAL pin_push(pin_mechanism(k.kind)) r
WHERE k.kind NOT IN (SELECT kind FROM pin_new_kinds) AND k.kind <> 'decayed'
ORDER BY k.kind;
-- the decayed sums (0.17.0): dp_decayed_count and dp_decayed_sum in window
-- and ordered-aggregate form, for a gamma with K = 0 and one with K = 7
SELECT g.gamma, f.form,
       pin_digest(CASE f.form WHEN 'window' THEN
         format('SELECT string_agg(r::text, '' '' ORDER BY t) FROM (SELECT t, dp_decayed_count(x, %s, dp_hybrid(1.0, 1)) OVER (ORDER BY t) AS r FROM pin_data) s', g.gamma)
         ELSE format('SELECT string_agg(r::text, '' '' ORDER BY n) FROM generate_series(1, 40) n, LATERAL (SELECT dp_decayed_count(x, %s, dp_hybrid(1.0, 1) ORDER BY t) AS r FROM pin_data WHERE t <= n) s', g.gamma) END) AS count,
       pin_digest(CASE f.form WHEN 'window' THEN
         format('SELECT string_agg(r::text, '' '' ORDER BY t) FROM (SELECT t, dp_decayed_sum(v, 0, 10, %s, dp_hybrid(1.0)) OVER (ORDER BY t) AS r FROM pin_data) s', g.gamma)
         ELSE format('SELECT string_agg(r::text, '' '' ORDER BY n) FROM generate_series(1, 40) n, LATERAL (SELECT dp_decayed_sum(v, 0, 10, %s, dp_hybrid(1.0) ORDER BY t) AS r FROM pin_data WHERE t <= n) s', g.gamma) END) AS sum
FROM unnest(ARRAY[0.9, 0.999]) WITH ORDINALITY g (gamma, o), unnest(ARRAY['window', 'aggregate']) WITH ORDINALITY f (form, p)
ORDER BY g.o, f.p;
-- and a decayed count's state: dp_counter_new, one dp_push per step,
-- dp_decayed_estimate after each
CREATE FUNCTION pin_decayed_push(m dp_mechanism) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  c dp_counter := dp_counter_new(m);
  r record;
  out text := '';
BEGIN
  FOR r IN SELECT * FROM pin_data ORDER BY t LOOP
    c := dp_push(c, r.x::bigint);
    out := out || ' ' || dp_decayed_estimate(c)::text;
  END LOOP;
  RETURN left(md5(out), 10);
END $$;
SELECT pin_decayed_push(dp_decayed(1.0, 1, gamma => 0.9)) AS push_k0,
       pin_decayed_push(dp_decayed(1.0, 1, gamma => 0.999)) AS push_k7;
-- the rolling kind (0.17.0), seeded on its own
SET dp_stream.seed = 'pinned values: rolling';
SELECT k.kind, f.form, r.*
FROM pin_kinds k, unnest(ARRAY['window', 'aggregate', 'state']) WITH ORDINALITY f (form, o),
     LATERAL pin_release(f.form, format('%L::dp_mechanism', pin_mechanism(k.kind))) r
WHERE k.kind = 'rolling'
ORDER BY k.kind, f.o;
SELECT k.kind, 'push' AS form, r.*
FROM pin_kinds k, LATERAL pin_push(pin_mechanism(k.kind)) r
WHERE k.kind = 'rolling';
-- the rolling forms (0.17.0) over a running mechanism, in window form
SET dp_stream.seed = 'pinned values: rolling forms';
SELECT f.o, pin_digest(format('SELECT string_agg(coalesce(r::text, ''-''), '' '' ORDER BY t) '
                              'FROM (SELECT t, %s OVER (ORDER BY t) AS r FROM pin_data) s', f.call)) AS digest,
       f.call
FROM unnest(ARRAY['dp_rolling_count(x, 7, dp_binary(1.0, 64, 1))',
                  'dp_rolling_sum(v, 0, 10, 7, dp_binary(1.0, 64))',
                  'dp_rolling_avg(v, 0, 10, 7, dp_binary(1.0, 64))',
                  'dp_rolling_variance(v, 0, 10, 7, dp_binary(1.0, 64))',
                  'dp_rolling_summary(v, 0, 10, 7, dp_binary(1.0, 64))',
                  'dp_count(x, dp_rolling(1.0, 7, 1, levels => 3))',
                  'dp_count(x, dp_rolling(1.0, 28, 1, levels => 2))']) WITH ORDINALITY f (call, o)
ORDER BY f.o;
RESET dp_stream.seed;

-- keyed streams: the same without a seed, under the fixed secrets
SELECT k.kind, f.form, r.*
FROM pin_kinds k, unnest(ARRAY['window', 'aggregate', 'state']) WITH ORDINALITY f (form, o),
     LATERAL pin_release(f.form, format('%L::dp_mechanism', pin_mechanism(k.kind)), 'pin_' || k.kind) r
WHERE k.keyed
ORDER BY k.kind, f.o;

-- keyed streams under keys of derivation 2 (registered since 0.17.0): the
-- same keys and data, other noise (recorded from the code of 0.17.0)
ALTER TABLE dp_stream.keys DISABLE TRIGGER keys_append_only;
UPDATE dp_stream.keys SET derivation = 2;
ALTER TABLE dp_stream.keys ENABLE TRIGGER keys_append_only;
SELECT k.kind, f.form, r.*
FROM pin_kinds k, unnest(ARRAY['window', 'aggregate', 'state']) WITH ORDINALITY f (form, o),
     LATERAL pin_release(f.form, format('%L::dp_mechanism', pin_mechanism(k.kind)), 'pin_' || k.kind) r
WHERE k.keyed
ORDER BY k.kind, f.o;
ROLLBACK;

\c :regress_database
DROP DATABASE dp_pinned_values;

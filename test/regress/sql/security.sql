-- The holes of the 0.3.0 security review, each with the query that found
-- it: every one must now be refused with an SQLSTATE, quickly, without
-- crashing or hanging the backend.
SET client_min_messages = warning;	-- the same output whether or not the extension exists
CREATE EXTENSION IF NOT EXISTS dp_stream;
RESET client_min_messages;
\set VERBOSITY default
SET dp_stream.seed = 'security';
-- Most holes below were reached through crafted state literals.  Since 0.6.0
-- every stored state is sealed and an unsealed one is refused outright
-- (test/regress/sql/sealing.sql); the decoders behind the superuser's upgrade path
-- (dp_stream.read_unsealed) must still refuse every crafted value, so that
-- is what this file exercises.
SET dp_stream.read_unsealed = on;

-- 1. A state aggregate as a window function released the raw stream: the
-- open accumulator moves by exactly x_t between consecutive rows.
CREATE TEMP TABLE daily AS
  SELECT day, (hashint4(day) & 31) AS n FROM generate_series(1, 365) day;
SELECT day, dp_count_state(n, dp_binary(1.0, 365, 1)) OVER (ORDER BY day) FROM daily;
SELECT day, dp_count_state(n::float8, dp_pan_private(dp_binary(1.0, 365, 1))) OVER (ORDER BY day) FROM daily;
SELECT day, dp_sum_state(n, 0, 31, dp_hybrid(1.0, 1)) OVER (ORDER BY day) FROM daily;
SELECT day, dp_avg_state(n, 0, 31, dp_hybrid(1.0, 1)) OVER (ORDER BY day) FROM daily;
SELECT day, dp_variance_state(n, 0, 31, dp_hybrid(1.0, 1)) OVER (ORDER BY day) FROM daily;
-- ... also next to a release aggregate on the same window, and over a frame
-- that covers the whole partition
SELECT day, dp_count(n, dp_binary(1.0, 365, 1)) OVER w, dp_count_state(n, dp_binary(1.0, 365, 1)) OVER w
FROM daily WINDOW w AS (ORDER BY day);
SELECT dp_count_state(n, dp_binary(1.0, 365, 1))
       OVER (ORDER BY day ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM daily;
-- as plain aggregates they still return one state per stream
SELECT dp_steps(dp_count_state(n, dp_binary(1.0, 365, 1) ORDER BY day)) AS steps FROM daily;
SELECT dp_steps(dp_variance_state(n, 0, 31, dp_hybrid(1.0, 1) ORDER BY day)) AS steps FROM daily;

-- dp_summary: every statistic per row from one epsilon, releases only.  The
-- same seed gives dp_summary exactly the releases of the variance family
-- (the same three counters at epsilon / 3).
SET dp_stream.seed = 'summary';
CREATE TEMP TABLE by_variance AS
  SELECT day, dp_var_samp(n, 0, 31, dp_binary(1.0, 365, 1)) OVER (ORDER BY day) AS v FROM daily;
SET dp_stream.seed = 'summary';
CREATE TEMP TABLE by_summary AS
  SELECT day, dp_summary(n, 0, 31, dp_binary(1.0, 365, 1)) OVER (ORDER BY day) AS s FROM daily;
SELECT count(*) AS rows,
       count(*) FILTER (WHERE (s).var_samp IS NOT DISTINCT FROM v) AS same_var_samp,
       count(*) FILTER (WHERE abs((s).stddev_pop - sqrt((s).var_pop)) >= 1e-9) AS stddev_not_root,
       count(*) FILTER (WHERE ((s).var_pop IS NULL) <> ((s).avg IS NULL)) AS nulls_disagree,
       count(*) FILTER (WHERE (s).avg < 0 OR (s).avg > 31) AS avg_outside_bounds
FROM by_summary JOIN by_variance USING (day);
SELECT pg_typeof(s) AS type, (s).count IS NOT NULL AS count_defined, (s).sum IS NOT NULL AS sum_defined
FROM by_summary WHERE day = 365;
-- the function form reads a stored state; fields the state lacks are NULL
SELECT (dp_summary(s)).sum IS NOT NULL AS sum, (dp_summary(s)).count IS NULL AS no_count
FROM (SELECT dp_sum_state(n, 0, 31, dp_hybrid(1.0, 1) ORDER BY day) s FROM daily) q;
SELECT (x).avg IS NOT NULL AS avg, (x).count IS NOT NULL AS count, (x).var_pop IS NULL AS no_var_pop,
       (x).stddev_samp IS NULL AS no_stddev_samp
FROM (SELECT dp_summary(dp_avg_state(n, 0, 31, dp_hybrid(1.0, 1) ORDER BY day)) x FROM daily) q;

-- 2. A dp_statistic whose channel declares a mechanism with more nodes
-- than the layout its bounds imply overflowed the heap (text and binary).
SELECT replace(replace(s::text, 'horizon=4,max_per_step=549755813888) steps=3',
                       'horizon=1099511627776,max_per_step=549755813888) steps=3'),
               'nodes=[5,6,7]', 'nodes=[' || array_to_string(array_fill(0, ARRAY[41]), ',') || ']')::dp_statistic
FROM (SELECT 'v1 average(lower=0,upper=1,values=real,estimator=midpoint) binary(epsilon=1,horizon=4,max_per_step=1) count: v2 binary(epsilon=0.5,horizon=4,max_per_step=1) steps=3 nodes=[1,2,3] sum: v2 binary(epsilon=0.5,horizon=4,max_per_step=549755813888) steps=3 nodes=[5,6,7]'::text AS s) q;
-- the same with a channel of another kind: 65 Hybrid nodes into the slot of 3
SELECT ('v1 average(lower=0,upper=1,values=real,estimator=midpoint) binary(epsilon=1,horizon=4,max_per_step=1) count: v2 binary(epsilon=0.5,horizon=4,max_per_step=1) steps=3 nodes=[1,2,3] sum: v2 hybrid(epsilon=0.5,max_per_step=549755813888) steps=3 nodes=['
        || array_to_string(array_fill(7, ARRAY[65]), ',') || ']')::dp_statistic;
-- the binary form, through COPY: the binary form of a statistic is sealed
-- since 0.6.0, so the forgery that reached the decoder (a sum channel with
-- 41 nodes behind a genuine header) now has to get past the seal first: a
-- genuine sealed state with one byte of its ciphertext changed.  (The
-- decoders behind the seal are covered by test/unit and test/fuzz.)
CREATE TEMP TABLE forged AS
SELECT set_byte(b, 150, get_byte(b, 150) # 1) AS bytes
FROM (SELECT dp_statistic_send(dp_avg_state(0.5, 0, 1, dp_binary(1, 4, 1))) AS b) x;
CREATE TEMP TABLE received (s dp_statistic);
-- COPY wants an absolute path: a file in the data directory, private to this cluster
-- (the error is caught so that the path, which differs per run, is not printed)
CREATE FUNCTION pg_temp.round_trip() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  path text := current_setting('data_directory') || '/dp_stream_security_forged.bin';
  state text;
  message text;
  detail text;
BEGIN
  EXECUTE format('COPY forged TO %L (FORMAT binary)', path);
  EXECUTE format('COPY received FROM %L (FORMAT binary)', path);
  RETURN 'read';
EXCEPTION WHEN others THEN
  GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, message = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL;
  RETURN state || ': ' || message || ' (' || detail || ')';
END $$;
SELECT pg_temp.round_trip();
-- the genuine bytes of the same shape are read
TRUNCATE forged;
INSERT INTO forged SELECT dp_statistic_send(dp_avg_state(0.5, 0, 1, dp_binary(1, 4, 1)));
SELECT pg_temp.round_trip();
SELECT dp_steps(s) FROM received;

-- 3. A horizon beyond 2^62 spun forever in the default block size
-- (uncancellable); now refused at once, and any bigint is answered.
SET statement_timeout = '10s';
SELECT dp_two_level(1.0, 9223372036854775807, 1);
SELECT dp_two_level(1.0, 9223372036854775807, 1, block => 3);
SELECT 'two_level(epsilon=1,horizon=9223372036854775807)'::dp_mechanism;
SELECT dp_two_level(1.0, 4611686018427387904, 1);
SELECT dp_error_bound(dp_two_level(1.0, 4611686018427387904, 1), 4611686018427387904, 0.95) > 0 AS bounded;
RESET statement_timeout;

-- 4. A stored dp_mechanism was used before validation: an invalid kind
-- crashed dp_count, a zero horizon sized a 25 GB allocation.  Forge such
-- values through a binary-coercible cast (superuser only) and use them.
CREATE TYPE forged_bytes;
-- (the shell-type NOTICEs quiet: PostgreSQL 18 adds a position to them)
SET client_min_messages = warning;
CREATE FUNCTION forged_bytes_in(cstring) RETURNS forged_bytes AS 'byteain' LANGUAGE internal IMMUTABLE STRICT;
CREATE FUNCTION forged_bytes_out(forged_bytes) RETURNS cstring AS 'byteaout' LANGUAGE internal IMMUTABLE STRICT;
RESET client_min_messages;
CREATE TYPE forged_bytes (INPUT = forged_bytes_in, OUTPUT = forged_bytes_out,
                          INTERNALLENGTH = VARIABLE, ALIGNMENT = double, STORAGE = plain);
CREATE CAST (forged_bytes AS dp_mechanism) WITHOUT FUNCTION;
CREATE TEMP TABLE bad_mechanisms AS
SELECT name, bytes::forged_bytes::dp_mechanism AS m FROM (VALUES
  ('kind 99', '\x020000000000000000000000' || '63000000' || '00000000' || '000000000000f03f'
              || '0a00000000000000' || '0100000000000000' || '0000000000000000'),
  ('horizon 0', '\x020000000000000000000000' || '01000000' || '00000000' || '000000000000f03f'
              || '0000000000000000' || '0100000000000000' || '0000000000000000'),
  ('epsilon NaN', '\x020000000000000000000000' || '01000000' || '00000000' || '000000000000f87f'
              || '0a00000000000000' || '0100000000000000' || '0000000000000000')
) v(name, bytes);
DROP TYPE forged_bytes CASCADE;
SELECT dp_count(1, m) FROM bad_mechanisms WHERE name = 'kind 99';
SELECT dp_count(1, m) OVER (ORDER BY name) FROM bad_mechanisms WHERE name = 'horizon 0';
SELECT dp_sum(1.0, 0, 1, m) FROM bad_mechanisms WHERE name = 'epsilon NaN';
SELECT m FROM bad_mechanisms WHERE name = 'kind 99';
SELECT dp_pan_private(m) FROM bad_mechanisms WHERE name = 'horizon 0';
SELECT dp_error_bound(m, 1) FROM bad_mechanisms WHERE name = 'epsilon NaN';

-- 5. Node values near 2^127 were accepted and then wrapped.  A genuine
-- state never gets near 2^120: beyond it every decoder refuses.
SELECT 'v2 binary(epsilon=1,horizon=4,max_per_step=1) steps=3 nodes=[170141183460469231731687303715884105727,1,-170141183460469231731687303715884105728]'::dp_counter;
SELECT 'v2 simple_ii(epsilon=1,max_per_step=1) steps=3 nodes=[1329227995784915872903807060280344577]'::dp_counter;
SELECT dp_steps('v2 simple_ii(epsilon=1,max_per_step=1) steps=3 nodes=[1329227995784915872903807060280344576]'::dp_counter) AS at_the_limit_is_read;
SELECT dp_estimate(dp_push('v2 simple_ii(epsilon=1,max_per_step=1) steps=3 nodes=[1329227995784915872903807060280343576]'::dp_counter, 1)) > 0 AS near_the_limit_continues;
-- a forged node at the limit, pushed past it: refused, not stored unreadable
SELECT dp_push('v2 binary(epsilon=1,horizon=4,max_per_step=1) steps=0 nodes=[1329227995784915872903807060280344576,0,0]'::dp_counter, 1);
SELECT 'v2 two_level(epsilon=1,horizon=9,block=3,max_per_step=1) steps=2 nodes=[-1329227995784915872903807060280344577,0,0]'::dp_counter;
SELECT 'v1 sum(lower=0,upper=1,values=real) simple_ii(epsilon=1,max_per_step=1) sum: v2 simple_ii(epsilon=1,max_per_step=1099511627776) steps=1 nodes=[1329227995784915872903807060280344577]'::dp_statistic;

-- 6. Smaller defects.
-- an average's error bound at the largest confidence below 1 was the
-- distance of the release from the lower bound (0 for data at that bound)
SET dp_stream.seed = 'security bound';
SELECT dp_error_bound(s, 0.9999999999999999) > 0 AS positive,
       dp_error_bound(s, 0.9999999999999999) >= dp_error_bound(s, 0.999999) AS not_below_six_nines
FROM (SELECT dp_avg_state(0, 0, 10, dp_binary(1, 1024, 1) ORDER BY v) s FROM generate_series(1, 1000) v) q;
-- a range too narrow to represent spoke of max_per_step
SELECT dp_sum(1e-301, 0, 1e-300, dp_binary(1, 10, 1));
SELECT dp_variance(1e-301, 0, 1e-300, dp_binary(1, 10, 1));
SELECT dp_avg(0.5, 0, 1e-70, dp_binary(1, 10, 1)) IS NOT NULL AS narrow_but_representable;
-- block=0 in text was replaced by the default
SELECT 'two_level(epsilon=1,horizon=100,block=0)'::dp_mechanism;
SELECT 'two_level(epsilon=1,horizon=100)'::dp_mechanism AS default_block_when_absent;
-- hex floats, inf and nan were accepted
SELECT 'binary(epsilon=0x1p-3,horizon=100)'::dp_mechanism;
SELECT 'binary(epsilon=inf,horizon=100)'::dp_mechanism;
SELECT 'v1 sum(lower=0,upper=nan,values=real) hybrid(epsilon=1)'::dp_statistic;
SELECT 'binary(epsilon=.5e0,horizon=100)'::dp_mechanism AS plain_decimals_are_fine;
-- duplicate parameters: last one won
SELECT 'binary(epsilon=1,horizon=10,epsilon=50)'::dp_mechanism;
SELECT 'hybrid(epsilon=1,pan_private=true,pan_private=false)'::dp_mechanism;
-- a v1 header for a mechanism version 1 never had
SELECT ('v1 hybrid(epsilon=1,max_per_step=1) steps=0 nodes=[' || array_to_string(array_fill(0, ARRAY[65]), ',') || ']')::dp_counter;
SELECT dp_steps('v1 binary(epsilon=1,horizon=4,max_per_step=1) steps=0 nodes=[0,0,0]'::dp_counter) AS version_1_binary_still_read;

-- 7. Found by the review of 0.4.0 itself.
-- the noise terms of a pan-private Two-level with block 1 at 2^62 steps
-- (2^63 of them) overflowed int64: the bound was 0
SELECT dp_error_bound(m, 4611686018427387904) > 0 AS positive,
       dp_error_bound(m, 4611686018427387904) >= dp_error_bound(m, 4611686018427387903) AS not_below_one_step_earlier
FROM (SELECT dp_pan_private(dp_two_level(1, 4611686018427387904, 1, block => 1)) m) q;
-- a confidence so small that 1 - confidence rounds to 1 gave NaN; the
-- smallest half-width meeting it is 0
SELECT dp_error_bound(dp_binary(1, 10, 1), 5, 1e-17) AS binary_tiny_confidence,
       dp_error_bound(dp_pan_private(dp_hybrid(100, 1)), 4611686018427387903, 1e-300) AS hybrid_tiny_confidence,
       dp_error_bound(dp_simple_ii(1, 1), 1000, 1e-17) AS expansion_tiny_confidence;
-- a bigint pushed into a real-valued state was clamped to truncated bounds
-- (2 instead of 2.5); the state holds no noise, so the release is exact
SELECT dp_estimate(dp_push(s, 3::bigint)) AS bigint_push, dp_estimate(dp_push(s, 3::float8)) AS float_push,
       dp_estimate(dp_push(s, 0::bigint)) AS bigint_below
FROM (SELECT 'v1 sum(lower=0.5,upper=2.5,values=real) binary(epsilon=1,horizon=1,max_per_step=1) sum: v2 binary(epsilon=1,horizon=1,max_per_step=687194767360) steps=0 nodes=[0]'::dp_statistic s) q;

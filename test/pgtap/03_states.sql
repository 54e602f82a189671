-- Stored states: round trips (text and binary COPY) and pan-privacy of what
-- is stored.
BEGIN;
SELECT plan(6);
SET LOCAL dp_stream.seed = 'pgtap states';

CREATE TEMP TABLE states AS
SELECT s, dp_count_state((hashint4(s * 100 + t) & 1)::bigint, dp_binary(0.5, 100, 1) ORDER BY t) AS state
FROM generate_series(1, 50) s, generate_series(1, 37) t GROUP BY s;

SELECT is((SELECT count(*) FROM states WHERE state::text::dp_counter::text <> state::text), 0::bigint,
          'text form round-trips for 50 states');

-- binary I/O through COPY (FORMAT binary) uses dp_counter_send/recv
CREATE TEMP TABLE copied (s int, state dp_counter);
-- (a file of the server's own data directory: no name shared with other runs)
SELECT current_setting('data_directory') || '/dp_stream_pgtap_states.bin' AS states_file \gset
COPY states TO :'states_file' (FORMAT binary);
COPY copied FROM :'states_file' (FORMAT binary);
SELECT is((SELECT count(*) FROM states JOIN copied USING (s) WHERE states.state::text = copied.state::text),
          50::bigint, 'binary form round-trips through COPY for 50 states');

SELECT is((SELECT count(*) FROM states WHERE dp_steps(state) <> 37), 0::bigint,
          'every state records 37 steps');

-- 37 = 100101b: levels 0, 2, 5 are closed nodes in the release; the others
-- hold open accumulators, which must differ from the raw partial sums
SELECT ok((SELECT count(*) FROM states WHERE dp_estimate(state) <> (
             SELECT sum((hashint4(states.s * 100 + t) & 1)) FROM generate_series(1, 37) t)) >= 40,
          'releases are noisy (node scale 14: at most a few of 50 equal the truth)');

-- stored states are sealed: their text form shows no node (that the nodes
-- inside are noisy, open accumulators included, is tested in test/unit)
SELECT is((SELECT count(*) FROM states WHERE state::text LIKE 'sealed:%' AND state::text NOT LIKE '%nodes%'),
          50::bigint, 'stored states are sealed: their text shows no node');

-- a state continued with dp_push keeps its mechanism and horizon
SELECT is((SELECT dp_mechanism(dp_push(state, 1))::text FROM states LIMIT 1),
          'binary(epsilon=0.5,horizon=100,max_per_step=1)', 'dp_push keeps the mechanism');

SELECT * FROM finish();
ROLLBACK;

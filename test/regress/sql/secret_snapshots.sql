-- Sealing reads the newest sealing secret with a fresh snapshot, after a
-- lock on dp_stream.secrets (0.12.0; docs/threat_model.md, "Rotating the
-- sealing secret"; the concurrent writers are in
-- test/isolation/specs/rotation.spec).  That must also work where a fresh
-- snapshot is hard to get: in the leader of a parallel query, which is in
-- parallel mode while it evaluates dp_push above a Gather
-- (GetLatestSnapshot() refuses to run there), and in a REPEATABLE READ
-- transaction; and the lock is held to the end of the transaction.
SET client_min_messages = warning;	-- the same output whether or not the extension exists
CREATE EXTENSION IF NOT EXISTS dp_stream;
RESET client_min_messages;
CREATE TABLE snapshot_states AS SELECT dp_counter_new(dp_binary(1, 1000, 1)) AS c;
CREATE TABLE snapshot_rows AS SELECT i FROM generate_series(1, 2000) i;
ANALYZE snapshot_states, snapshot_rows;

SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
-- the plan runs part of the query in parallel workers (where the Gather
-- sits differs between PostgreSQL majors)
CREATE FUNCTION snapshot_plan_is_parallel() RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  line text;
  parallel boolean := false;
BEGIN
  FOR line IN EXPLAIN (COSTS OFF)
      SELECT count(dp_push(c, 1)) FROM snapshot_states, snapshot_rows WHERE i % 100 = 0 LOOP
    parallel := parallel OR line ~ 'Gather';
  END LOOP;
  RETURN parallel;
END $$;
SELECT snapshot_plan_is_parallel() AS runs_in_parallel_workers;
DROP FUNCTION snapshot_plan_is_parallel();
SELECT count(dp_push(c, 1)) AS sealed_in_parallel_mode, min(dp_steps(dp_push(c, 1))) AS steps
FROM snapshot_states, snapshot_rows WHERE i % 100 = 0;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;

-- a REPEATABLE READ transaction seals, opens what it sealed, and holds a
-- ROW SHARE lock on dp_stream.secrets until it ends
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT count(*) FROM snapshot_rows;
UPDATE snapshot_states SET c = dp_push(c, 3);
SELECT dp_steps(c) AS steps, dp_estimate(c) IS NOT NULL AS opens FROM snapshot_states;
SELECT mode, granted FROM pg_locks
WHERE relation = 'dp_stream.secrets'::regclass AND pid = pg_backend_pid() AND mode = 'RowShareLock';
-- rotate_secret refuses REPEATABLE READ: its snapshot would predate the
-- writers it waits for
\set VERBOSITY sqlstate
SELECT dp_stream.rotate_secret();
\set VERBOSITY default
ROLLBACK;
SELECT count(*) AS locks_after_the_transaction FROM pg_locks
WHERE relation = 'dp_stream.secrets'::regclass AND pid = pg_backend_pid();
DROP TABLE snapshot_states, snapshot_rows;

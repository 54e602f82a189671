-- The privacy-budget ledger and the key registry (0.12.0): epsilon recorded
-- exactly and charged rounded up, keys refused in the transaction that
-- registers them, and key names and roles hidden from the roles that may
-- not use them.  Every step runs as a LOGIN role of its own: an
-- administrator that publishes (member of dp_stream_admin) and a role with
-- no grants.  Concurrent charges: test/isolation/specs/ledger_*.spec.
\set SHOW_CONTEXT never
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS dp_stream;
DROP ROLE IF EXISTS ledger_publisher;
DROP ROLE IF EXISTS ledger_prober;
RESET client_min_messages;
SET dp_stream.seed = 'ledger';
CREATE ROLE ledger_publisher LOGIN IN ROLE dp_stream_admin;
CREATE ROLE ledger_prober LOGIN;

-- the SQLSTATE and the texts of the error a statement raises (run as the
-- caller: not SECURITY DEFINER)
CREATE FUNCTION ledger_error(statement text,
    OUT code text, OUT message text, OUT detail text, OUT hint text)
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE statement;
  code := 'no error';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS code = RETURNED_SQLSTATE, message = MESSAGE_TEXT,
                          detail = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT;
END $$;

-- 1. Amounts.  A charge is the double's exact value rounded UP to a multiple
-- of 1e-12: 0.1 is 0.1000000000000000055..., charged 0.100000000001;
-- 1/3 is 0.33333333333333331483..., charged 0.333333333334 (0.11.0 recorded
-- 0.1 and 0.333333333333333, below what the mechanisms spend).  Charges
-- below one unit cost one unit (0.11.0 recorded 1e-320 with 330 digits).
SET SESSION AUTHORIZATION ledger_publisher;
SELECT dp_stream.create_budget('ledger_edges', 10);
SELECT dp_stream.charge('ledger_edges', 0.1, 'one tenth');
SELECT dp_stream.charge('ledger_edges', 1.0 / 3, 'a third');
SELECT dp_stream.charge('ledger_edges', 1e-300, 'tiny');
SELECT dp_stream.charge('ledger_edges', 1e-320, 'subnormal');
SELECT dp_stream.charge('ledger_edges', 0.5, 'a binary fraction, exact');
SELECT dp_stream.charge('ledger_edges', 0.3, 'three tenths, whose double is below 0.3');
SELECT epsilon, purpose, charged_by FROM dp_stream.charges WHERE dataset = 'ledger_edges' ORDER BY id;
SELECT total_epsilon, spent_epsilon, remaining_epsilon, charges,
       scale(spent_epsilon) <= 12 AS at_most_12_places
FROM dp_stream.budget('ledger_edges');
-- the spending view agrees with budget()
SELECT remaining_after = (SELECT remaining_epsilon FROM dp_stream.budget('ledger_edges'))
       AS view_agrees_with_budget
FROM dp_stream.spending WHERE dataset = 'ledger_edges' AND purpose LIKE 'three tenths%';

-- 0.8 + 0.2 against 1.0: both doubles are above their decimals, so together
-- they spend 1.0000000000000000555 > 1: the second is refused.  Binary
-- fractions add up exactly.  A total is the decimal that was typed (0.3 is
-- recorded 0.3), so a stream of 0.3 fits a budget of 0.3.
SELECT dp_stream.create_budget('ledger_tenths', 1.0);
SELECT dp_stream.charge('ledger_tenths', 0.8, 'eight tenths');
SELECT dp_stream.charge('ledger_tenths', 0.2, 'two tenths');
SELECT dp_stream.create_budget('ledger_halves', 1.0);
SELECT dp_stream.charge('ledger_halves', 0.75, 'three quarters');
SELECT dp_stream.charge('ledger_halves', 0.25, 'a quarter');
SELECT dp_stream.charge('ledger_halves', 1e-320, 'nothing more fits');
SELECT dp_stream.create_budget('ledger_typed', 0.3);
SELECT dp_stream.create_stream('ledger_stream', 'count', dp_hybrid(0.3, 1), dataset => 'ledger_typed');
SELECT * FROM dp_stream.budget('ledger_typed');
-- a total too small for the ledger's unit, and the conversion's own checks
SELECT dp_stream.create_budget('ledger_nothing', 1e-13);
SELECT dp_stream.ledger_amount(0.1, 'up') AS up, dp_stream.ledger_amount(0.1, 'down') AS down,
       dp_stream.ledger_amount(0.1, 'nearest') AS nearest,
       dp_stream.ledger_amount(2.0 / 3, 'nearest') AS two_thirds;
SELECT dp_stream.ledger_amount(0, 'up');
SELECT dp_stream.ledger_amount('Infinity', 'up');
SELECT dp_stream.ledger_amount(1, 'sideways');

-- 2. create_key refuses, before registering or charging anything, a
-- computation no aggregate can run (0.11.0 registered and charged these).
SELECT dp_stream.create_budget('ledger_bad_keys', 4);
SELECT dp_stream.create_key('ledger_bad_order', dp_hybrid(1, 1), 'ledger_bad_keys',
                            statistic => 'sum', lower => 10, upper => 0);
SELECT dp_stream.create_key('ledger_bad_infinite', dp_hybrid(1, 1), 'ledger_bad_keys',
                            statistic => 'average', lower => '-Infinity', upper => 0);
SELECT dp_stream.create_key('ledger_bad_nan', dp_hybrid(1, 1), 'ledger_bad_keys',
                            statistic => 'variance', lower => 0, upper => 'NaN');
SELECT dp_stream.create_key('ledger_bad_integers', dp_hybrid(1, 1), 'ledger_bad_keys',
                            statistic => 'average', lower => 0, upper => 7, integer_values => true);
SELECT dp_stream.create_key('ledger_bad_missing', dp_hybrid(1, 1), 'ledger_bad_keys', statistic => 'sum');
SELECT count(*) AS bad_keys_registered FROM dp_stream.keys WHERE key LIKE 'ledger_bad%';
SELECT * FROM dp_stream.budget('ledger_bad_keys');

-- 3. A key registered, used and rolled back: the use is refused inside the
-- registering transaction (0.11.0 drew the releases and the rollback then
-- removed the charge), and nothing stays charged.
SELECT dp_stream.create_budget('ledger_keys', 4);
BEGIN;
SELECT dp_stream.create_key('ledger_rolled_back', dp_binary(1, 64, 1), 'ledger_keys');
SELECT code, message FROM ledger_error($$
  SELECT dp_count(v, dp_keyed(dp_binary(1, 64, 1), 'ledger_rolled_back') ORDER BY t)
  FROM (VALUES (1, 3), (2, 4)) d(t, v) $$);
SELECT code, message FROM ledger_error($$
  SELECT dp_counter_new(dp_keyed(dp_binary(1, 64, 1), 'ledger_rolled_back')) $$);
ROLLBACK;
SELECT count(*) AS rolled_back_key, (SELECT count(*) FROM dp_stream.charges
                                     WHERE purpose = 'key ledger_rolled_back') AS rolled_back_charges
FROM dp_stream.keys WHERE key = 'ledger_rolled_back';
SELECT * FROM dp_stream.budget('ledger_keys');
-- in a subtransaction of it too: released, it is still this transaction's
BEGIN;
SAVEPOINT registering;
SELECT dp_stream.create_key('ledger_savepoint', dp_binary(1, 64, 1), 'ledger_keys');
RELEASE SAVEPOINT registering;
SELECT dp_count(v, dp_keyed(dp_binary(1, 64, 1), 'ledger_savepoint')) OVER (ORDER BY t)
FROM (VALUES (1, 3), (2, 4)) d(t, v);
ROLLBACK;
-- committed first, the key works in the next transaction
SELECT dp_stream.create_key('ledger_ward_counts', dp_binary(1, 64, 1), 'ledger_keys');
SELECT count(c) AS releases FROM (
  SELECT dp_count(v, dp_keyed(dp_binary(1, 64, 1), 'ledger_ward_counts')) OVER (ORDER BY t) AS c
  FROM (VALUES (1, 3), (2, 4)) d(t, v)) r;
SELECT * FROM dp_stream.budget('ledger_keys');
RESET SESSION AUTHORIZATION;

-- 4. A role with no grants probing key names: a key that exists (registered
-- for ledger_publisher), with its mechanism, with another mechanism, for
-- another computation, and a key that does not exist all raise the same
-- error, which names neither the key's role nor anything registered.
-- 0.11.0 answered "only role ledger_publisher may draw noise under key ..."
-- (42501) for the first three and "not registered" (42704) for the last.
SET SESSION AUTHORIZATION ledger_prober;
CREATE TEMP TABLE probes AS
SELECT p.probe, p.key, e.*
FROM (VALUES
  ('existing key', 'ledger_ward_counts',
   'SELECT dp_count(v, dp_keyed(dp_binary(1, 64, 1), %L) ORDER BY t) FROM (VALUES (1, 3), (2, 4)) d(t, v)'),
  ('existing key, other mechanism', 'ledger_ward_counts',
   'SELECT dp_count(v, dp_keyed(dp_binary(2, 64, 1), %L) ORDER BY t) FROM (VALUES (1, 3), (2, 4)) d(t, v)'),
  ('existing key, other computation', 'ledger_ward_counts',
   'SELECT dp_sum(v, 0, 7, dp_keyed(dp_binary(1, 64, 1), %L) ORDER BY t) FROM (VALUES (1, 3), (2, 4)) d(t, v)'),
  ('missing key', 'ledger_no_such_key',
   'SELECT dp_count(v, dp_keyed(dp_binary(1, 64, 1), %L) ORDER BY t) FROM (VALUES (1, 3), (2, 4)) d(t, v)'),
  ('missing key, as a stored state', 'ledger_no_such_key',
   'SELECT dp_counter_new(dp_keyed(dp_binary(1, 64, 1), %L))'),
  ('existing key, as a stored state', 'ledger_ward_counts',
   'SELECT dp_counter_new(dp_keyed(dp_binary(1, 64, 1), %L))')
) p(probe, key, statement),
LATERAL ledger_error(format(p.statement, p.key)) e;
SELECT probe, code, replace(message, key, '<key>') AS message FROM probes ORDER BY probe;
SELECT count(DISTINCT (code, replace(message, key, '<key>'), detail, hint)) AS distinct_answers,
       bool_or(concat(message, detail, hint) LIKE '%ledger_publisher%') AS names_the_role,
       bool_or(concat(detail, hint) LIKE '%ledger_ward_counts%') AS names_a_registered_key
FROM probes;
SELECT DISTINCT detail, hint FROM probes;
-- the registry itself is not readable either
SELECT key FROM dp_stream.keys;
DROP TABLE probes;
RESET SESSION AUTHORIZATION;

-- the rows of this test leave the ledger, so that the tests after it see
-- their own only (a superuser lifts the append-only triggers to do it)
ALTER TABLE dp_stream.charges DISABLE TRIGGER USER;
ALTER TABLE dp_stream.keys DISABLE TRIGGER USER;
DELETE FROM dp_stream.charges WHERE dataset LIKE 'ledger\_%';
DELETE FROM dp_stream.keys WHERE key LIKE 'ledger\_%';
DELETE FROM dp_stream.streams WHERE name = 'ledger_stream';
DELETE FROM dp_stream.budgets WHERE dataset LIKE 'ledger\_%';
ALTER TABLE dp_stream.charges ENABLE TRIGGER USER;
ALTER TABLE dp_stream.keys ENABLE TRIGGER USER;
DROP FUNCTION ledger_error(text);
DROP ROLE ledger_prober;
DROP ROLE ledger_publisher;

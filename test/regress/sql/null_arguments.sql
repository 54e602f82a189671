-- Issue 23: a NULL that crashed the server (hole 0), and the low findings
-- of the same review, each run as the roles that found them.  On 0.11.0
-- the first query below killed the backend (SIGSEGV) and every session of
-- the cluster with it.  test/null_sweep.sh calls every function of the
-- extension with NULL in each argument; this file keeps the cases that
-- crashed or misled, with their SQLSTATEs.
SET client_min_messages = warning;	-- the same output whether or not the extension exists
CREATE EXTENSION IF NOT EXISTS dp_stream;
DROP ROLE IF EXISTS null_analyst;
DROP ROLE IF EXISTS null_keymaker;
RESET client_min_messages;
\set VERBOSITY default
\set SHOW_CONTEXT never
-- a role with no grants at all, and an administrator that registers keys
CREATE ROLE null_analyst LOGIN;
CREATE ROLE null_keymaker LOGIN IN ROLE dp_stream_admin;

-- 1. Hole 0: dp_stream.key_computes read a NULL statistic.  Any role may
-- call it (it is not revoked from PUBLIC).
SET SESSION AUTHORIZATION null_analyst;
SELECT dp_stream.key_computes(NULL, 0, 10, false);
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
SELECT dp_stream.key_computes(NULL);
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
-- the session is still there, and the function still works
SELECT current_user, dp_stream.key_computes('count') AS count_key,
       dp_stream.key_computes('average', 0, 10) AS average_key;

-- 2. key_computes checks bounds as the statistics' constructors do
-- (0.11.0 accepted all of these)
SELECT dp_stream.key_computes('sum', 10, 0);
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
SELECT dp_stream.key_computes('sum', '-Infinity', 'NaN');
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
SELECT dp_stream.key_computes('variance', 0, 'Infinity');
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
SELECT dp_stream.key_computes('sum', 5, 5);
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
SELECT dp_stream.key_computes('sum', 0.5, 10, true);
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
SELECT dp_stream.key_computes('sum', 0, 1e300);
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
SELECT dp_stream.key_computes('sum', 0, NULL);
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
SELECT dp_stream.key_computes('count', 0, 10);
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
-- ... and what the constructors accept, it accepts
SELECT dp_stream.key_computes('sum', -5, 5, true) AS integer_sum,
       dp_stream.key_computes('variance', -1e6, 1e6) AS wide_variance;
RESET SESSION AUTHORIZATION;

-- 3. create_key with such bounds charged the budget and stored a key no
-- stream could use, for good (the keys table is append-only): now nothing
-- is charged or stored.  Rolled back at the end, like the budget.
BEGIN;
\set ON_ERROR_ROLLBACK on
SELECT dp_stream.create_budget('null_arguments', 10);
SET SESSION AUTHORIZATION null_keymaker;
SELECT dp_stream.create_key('null_reversed', dp_hybrid(1, 1), 'null_arguments', NULL, 'sum', 10, 0);
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
SELECT dp_stream.create_key('null_not_a_number', dp_hybrid(1, 1), 'null_arguments', NULL,
                            'average', '-Infinity', 'NaN');
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
SELECT dp_stream.create_key('null_no_statistic', dp_hybrid(1, 1), 'null_arguments', NULL, NULL, 0, 10);
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
SELECT spent_epsilon, charges FROM dp_stream.budget('null_arguments');
SELECT count(*) AS keys_stored FROM dp_stream.keys WHERE key LIKE 'null\_%';
RESET SESSION AUTHORIZATION;
\set ON_ERROR_ROLLBACK off
ROLLBACK;

-- 4. Constructors: a NULL required argument gives NULL, as for the strict
-- dp_binary, and the aggregates then refuse the NULL mechanism; a NULL
-- value is a step.  (dp_blt(0.5, NULL) and dp_honaker(1, NULL) raised a
-- range error about a horizon nobody gave.)  A NULL max_per_step is not
-- stated (0.14.0): a mechanism, which a count refuses
-- (test/regress/sql/argument_order.sql).
SET SESSION AUTHORIZATION null_analyst;
SELECT dp_binary(1, NULL, 1) IS NULL AS binary_null,
       dp_blt(0.5, NULL, 1) IS NULL AS blt_null,
       dp_gaussian_binary(NULL, 100, 1) IS NULL AS gaussian_null,
       dp_smooth_binary(0.5, 100, NULL) IS NOT NULL AS smooth_bound_not_stated,
       dp_honaker(1, NULL, 1) IS NULL AS honaker_null,
       dp_mechanism_of('kary', 1, NULL, 1) IS NULL AS kary_by_name_null,
       dp_mechanism_of('balanced_unbounded', 1, max_per_step => 1) AS unbounded_takes_no_horizon;
SELECT dp_count(1, dp_blt(0.5, NULL, 1)) OVER (ORDER BY g) FROM generate_series(1, 3) g;
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
SELECT dp_sum(g, 0, 10, NULL::dp_mechanism) FROM generate_series(1, 3) g;
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
SELECT dp_steps(dp_count_state(NULL::int, dp_binary(1, 10, 1))) AS null_values_are_steps
  FROM generate_series(1, 3) g;
SELECT dp_push(NULL::dp_counter, 1) IS NULL AS null_state_gives_null;

-- 5. Horizons beyond what balanced digits hold: the error named an arity
-- ("arity was 3 ... leave arity out") that nobody had given.  The longest
-- horizon is (3^36 - 1) / 2, about 2^56.06 (docs/reference.md).
SELECT dp_balanced(1, 75047317648499560, 1) AS longest_balanced;
SELECT dp_balanced(1, 75047317648499561, 1);
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
SELECT dp_auto(1, 4611686018427387904, 1);
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
SELECT dp_mechanism_of('balanced', 1, 4611686018427387904, 1);
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
SELECT dp_zcdp_mechanism_of('balanced', 0.5, 4611686018427387904, 1);
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
SELECT count(*) FROM dp_compare_mechanisms(1, 4611686018427387904, 10);
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
-- an arity that was given is still the culprit
SELECT dp_balanced(1, 1000000, 1, arity => 63);
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
-- without a horizon dp_auto has no limit; dp_kary takes 2^62
SELECT dp_auto(1, max_per_step => 1) AS auto_unbounded, dp_kary(1, 4611686018427387904, 1) AS kary_longest;

-- 6. dp_epsilon_for at the top of the range: the threshold lies exactly at
-- epsilon = 100 here (a target met by 100 and by nothing below it), and
-- 0.11.0 returned 100.00000000000016, which every constructor refuses.
CREATE TEMP TABLE edge AS
  SELECT dp_error_bound(dp_binary(100, 4096, 1000000000), 7) AS target;
SELECT e <= 100 AS accepted, e > 99.999999 AS at_the_top,
       dp_error_bound(dp_binary(e, 4096, 1000000000), 7) <= target AS meets_target,
       dp_binary(e, 4096, 1000000000) IS NOT NULL AS binary_round_trip
  FROM edge, LATERAL (SELECT dp_epsilon_for(dp_binary(1, 4096, 1000000000), target, 7) AS e) f;
SELECT dp_hybrid(dp_epsilon_for(dp_hybrid(1, 1000000000), dp_error_bound(dp_hybrid(100, 1000000000), 1), 1), 1000000000) IS NOT NULL AS hybrid_round_trip;
-- and at the bottom: any width is met by the smallest epsilon, 2^-40
SELECT e = 2 ^ -40 AS smallest, dp_binary(e, 4096, 1) IS NOT NULL AS round_trip
  FROM (SELECT dp_epsilon_for(dp_binary(1, 4096, 1), 1e300, 7) AS e) f;
-- a width no epsilon reaches is refused, as before
SELECT dp_epsilon_for(dp_binary(1, 4096, 1000000000), 1, 7);
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;

-- 7. dp_privacy_loss_curve(m, 2^62) filled temporary space until a
-- timeout; the curve is bounded to ages 0..1,000,000 (0.11.0 reaches the
-- timeout here instead of the error).
SET statement_timeout = '20s';
SELECT count(*) FROM dp_privacy_loss_curve(dp_expiring(1, 1, lambda => 2), 4611686018427387904);
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
SELECT count(*) FROM dp_privacy_loss_curve(dp_expiring(1, 1, lambda => 2), 1000001);
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
SELECT count(*) AS ages, max(age) AS oldest FROM dp_privacy_loss_curve(dp_binary(1, 2000000, 1), 1000000);
SELECT * FROM dp_privacy_loss_curve(dp_expiring(1, 1, lambda => 2), 3);
SELECT count(*) AS no_age FROM dp_privacy_loss_curve(dp_binary(1, 10, 1), -1);
RESET statement_timeout;
DROP TABLE edge;
RESET SESSION AUTHORIZATION;

DROP ROLE null_analyst;
DROP ROLE null_keymaker;

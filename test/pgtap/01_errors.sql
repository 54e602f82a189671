-- Every class of bad input raises an error with the right SQLSTATE.
BEGIN;
SELECT plan(28);

SELECT throws_ok($$SELECT dp_binary(0, 365, 1)$$, '22023', NULL, 'epsilon 0: 22023');
SELECT throws_ok($$SELECT dp_binary(-0.5, 365, 1)$$, '22023', NULL, 'negative epsilon: 22023');
SELECT throws_ok($$SELECT dp_binary('NaN', 365, 1)$$, '22023', NULL, 'NaN epsilon: 22023');
SELECT throws_ok($$SELECT dp_binary('Infinity', 365, 1)$$, '22023', NULL, 'infinite epsilon: 22023');
SELECT throws_ok($$SELECT dp_binary(1000, 365, 1)$$, '22023', NULL, 'absurdly large epsilon: 22023');
SELECT throws_ok($$SELECT dp_binary(1e-13, 365, 1)$$, '22023', NULL, 'epsilon below 2^-40: 22023');
SELECT throws_ok($$SELECT dp_binary(1, 0, 1)$$, '22023', NULL, 'horizon 0: 22023');
SELECT throws_ok($$SELECT dp_binary(1, 4611686018427387905, 1)$$, '22023', NULL, 'horizon beyond 2^62: 22023');
SELECT throws_ok($$SELECT dp_binary(1, 10, -1)$$, '22023', NULL, 'negative max_per_step: 22023');
SELECT lives_ok($$SELECT dp_binary(0.0000000000009094947017729282, 4611686018427387904, 1125899906842624)$$,
                'the extreme valid parameters are accepted');

SELECT throws_ok($$SELECT 'binary(epsilon=1'::dp_mechanism$$, '22P02', NULL, 'truncated mechanism text: 22P02');
SELECT throws_ok($$SELECT 'binary(epsilon=0,horizon=3)'::dp_mechanism$$, '22P02', NULL, 'mechanism text out of range: 22P02');
-- an unsealed state is refused unless a superuser reads it for the upgrade
SELECT throws_ok($$SELECT 'v1 binary(epsilon=1,horizon=2,max_per_step=1) steps=0 nodes=[0,0]'::dp_counter$$,
                 '42501', 'unsealed dp_counter value refused', 'unsealed state text: 42501');
SET dp_stream.read_unsealed = on;
SELECT throws_ok($$SELECT 'v1 binary(epsilon=1,horizon=2) steps=1'::dp_counter$$, '22P02',
                 NULL, 'truncated state text: 22P02');
SELECT throws_ok($$SELECT 'v1 binary(epsilon=1,horizon=2) steps=1 nodes=[1,2,3]'::dp_counter$$, '22P02',
                 NULL, 'state with the wrong node count: 22P02');

SELECT throws_ok($$SELECT dp_count(1, dp_binary(1, 3, 1)) FROM generate_series(1, 4)$$, '54000',
                 'binary mechanism horizon of 3 time steps exceeded', 'step T + 1 in an aggregate: 54000, names T');
SELECT throws_ok($$SELECT dp_push('v1 binary(epsilon=1,horizon=1,max_per_step=1) steps=1 nodes=[5]'::dp_counter, 1)$$,
                 '54000', NULL, 'a state pushed past its horizon: 54000');
RESET dp_stream.read_unsealed;
SELECT throws_ok($$SELECT dp_count(1, dp_binary(1, 9, 1)) OVER (ORDER BY g ROWS 1 PRECEDING) FROM generate_series(1, 3) g$$,
                 '42P20', NULL, 'a frame whose start moves: 42P20');
SELECT throws_ok($$SELECT dp_count(1, dp_binary(1, 9, 1)) OVER (ORDER BY g RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM generate_series(1, 3) g$$,
                 '42P20', NULL, 'a RANGE frame with an offset start: 42P20');
SELECT throws_ok($$SELECT dp_count(1, dp_binary(1, 9, 1)) OVER (ORDER BY g GROUPS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM generate_series(1, 3) g$$,
                 '42P20', NULL, 'a GROUPS frame starting at the current row: 42P20');
SELECT throws_ok($$SELECT dp_count(1, NULL::dp_mechanism) FROM generate_series(1, 3)$$, '22004', NULL,
                 'a NULL mechanism: 22004');
SELECT throws_ok($$SELECT dp_count(1, dp_binary(1, 9 + g, 1)) OVER (ORDER BY g) FROM generate_series(1, 3) g$$,
                 '22023', NULL, 'a mechanism that changes within a stream: 22023');
SELECT throws_ok($$SELECT dp_error_bound(dp_binary(1, 9, 1), 3, 1.0)$$, '22023', NULL, 'confidence 1: 22023');
SELECT throws_ok($$SELECT dp_error_bound(dp_binary(1, 9, 1), 3, 0)$$, '22023', NULL, 'confidence 0: 22023');
SELECT throws_ok($$SELECT dp_error_bound(dp_binary(1, 9, 1), 10, 0.9)$$, '22023', NULL, 'bound past the horizon: 22023');

-- values never raise errors: a data-dependent error would itself leak
SELECT lives_ok($$SELECT dp_count(v, dp_binary(1, 9, 1)) FROM unnest(ARRAY['NaN', 'Infinity', '-Infinity', -5, 1e308]::float8[]) v$$,
                'NaN, infinities and huge values are clamped, never an error');
SELECT lives_ok($$SELECT dp_count(v, dp_binary(1, 9, 1)) FROM unnest(ARRAY[NULL, -9223372036854775808, 9223372036854775807]::bigint[]) v$$,
                'NULL and extreme integers are steps, never an error');
SELECT is((SELECT dp_count(v, dp_binary(1, 9, 1)) FROM (SELECT 1 WHERE false) e(v)), NULL,
          'an empty stream releases NULL');

SELECT * FROM finish();
ROLLBACK;

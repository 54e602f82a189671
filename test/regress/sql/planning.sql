-- Choosing parameters before spending epsilon (0.7.0): the error of every
-- mechanism at a step, the epsilon for a wanted error, and the widest bound
-- up to a step.  Public inputs only: the output is the same on every run.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS dp_stream;
RESET client_min_messages;
SET extra_float_digits = 0;

-- a year of daily counts of at most 50: which mechanism, and how wide
SELECT mechanism, round(error_sd::numeric, 1) AS error_sd, error_bound
FROM dp_compare_mechanisms(epsilon => 1.0, horizon => 365, steps => 365, max_per_step => 50);
SELECT mechanism, round(error_sd::numeric, 1) AS error_sd, error_bound
FROM dp_compare_mechanisms(epsilon => 1.0, horizon => 65536, steps => 65535);

-- the standard deviation agrees with the bound's distribution: Binary at
-- t = 2^k - 1 has k terms of variance 2 (L N / eps)^2 ... (e^(1/b) form)
SELECT round(dp_error_sd(dp_binary(1, 1024, 1), 1023)::numeric, 3) AS sd_at_1023,
       round(sqrt(10 * 2 * exp(1.0 / 11) / (exp(1.0 / 11) - 1) ^ 2)::numeric, 3) AS ten_terms_of_scale_11;

-- "what epsilon gives +-50 at day 365 with 95% confidence?"
SELECT m, round(e::numeric, 4) AS epsilon,
       dp_error_bound(dp_binary(e, 365, 50), 365) <= 50 AS meets_it,
       dp_error_bound(dp_binary(e * (1 - 1e-6), 365, 50), 365) > 50 AS smallest
FROM (SELECT 'binary' AS m, dp_epsilon_for(dp_binary(1, 365, 50), 50, 365) AS e) x;
-- ... and +-500, for each mechanism and at 99%
SELECT round(dp_epsilon_for(dp_binary(1, 365, 50), 500, 365)::numeric, 4) AS binary,
       round(dp_epsilon_for(dp_two_level(1, 365, 50), 500, 365)::numeric, 4) AS two_level,
       round(dp_epsilon_for(dp_hybrid(1, 50), 500, 365)::numeric, 4) AS hybrid,
       round(dp_epsilon_for(dp_binary(1, 365, 50), 500, 365, 0.99)::numeric, 4) AS binary_99;
-- the floor of discrete noise: no epsilon up to 100 brings Hybrid to +-50
SELECT dp_epsilon_for(dp_hybrid(1, 50), 50, 365);

-- the bound follows the binary digits of t; the smoothed bound is the
-- maximum up to t, checked against every step
SELECT t, dp_error_bound(dp_binary(1, 365, 1), t) AS at_t, dp_error_bound_max(dp_binary(1, 365, 1), t) AS up_to_t
FROM (VALUES (1), (2), (3), (127), (128), (255), (256), (365)) v(t);
SELECT count(*) FILTER (WHERE up_to_t <> running_max) AS not_the_maximum,
       count(*) FILTER (WHERE up_to_t < previous) AS narrows
FROM (SELECT t, dp_error_bound_max(m, t) AS up_to_t,
             max(dp_error_bound(m, t)) OVER (PARTITION BY name ORDER BY t) AS running_max,
             lag(dp_error_bound_max(m, t)) OVER (PARTITION BY name ORDER BY t) AS previous
      FROM (VALUES ('binary', dp_binary(1, 365, 1)), ('two_level', dp_two_level(1, 365, 1)),
                   ('hybrid', dp_hybrid(1, 1)), ('ppcum', dp_ppcum(1, 365, 1)),
                   ('binary pan-private', dp_pan_private(dp_binary(1, 365, 1)))) ms(name, m),
           generate_series(1, 365) t) x;

-- refusals
SELECT dp_epsilon_for(dp_binary(1, 365, 50), 0.001, 365);
SELECT dp_epsilon_for(dp_binary(1, 365, 1), -1, 365);
SELECT dp_epsilon_for(dp_binary(1, 365, 1), 10, 366);
SELECT dp_error_sd(dp_binary(1, 365, 1), 366);
SELECT dp_error_bound_max(dp_hybrid(1, 1), 10000001);

-- rho-zCDP mechanisms (0.9.0): discrete Gaussian noise, rho instead of
-- epsilon, the BLT factorization; an opt-in approximate-DP guarantee
CREATE EXTENSION IF NOT EXISTS dp_stream;
SET dp_stream.seed = 'zcdp';
SELECT dp_blt(0.5, 365, 1) AS blt, dp_gaussian_binary(0.5, 365, 3) AS gaussian_binary,
       dp_zcdp_mechanism_of('balanced', 0.5, 1000, 1) AS balanced,
       dp_zcdp_mechanism_of('balanced_unbounded', 0.25, max_per_step => 1) AS unbounded;
SELECT 'blt(rho=0.5,horizon=1000)'::dp_mechanism, 'binary(rho=0.5,horizon=10,pan_private=true)'::dp_mechanism;
-- rho is never read as an epsilon; the conversion to (epsilon, delta)
SELECT dp_rho(dp_blt(0.5, 365, 1)) AS rho, dp_rho(dp_binary(1, 365, 1)) IS NULL AS pure_has_no_rho;
SELECT round(dp_zcdp_epsilon(0.5, 1e-9)::numeric, 4) AS eps_at_1e_9,
       dp_zcdp_epsilon(0.5, 1e-9) < 0.5 + 2 * sqrt(0.5 * ln(1e9)) AS below_classical,
       round(dp_zcdp_epsilon(dp_blt(0.5, 365, 1), 1e-6)::numeric, 4) AS blt_eps,
       dp_zcdp_epsilon(dp_binary(1, 365, 1), 1e-6) IS NULL AS pure_gives_null;
SELECT dp_epsilon(dp_blt(0.5, 365, 1));
SELECT dp_zcdp_epsilon(0, 1e-6);
SELECT dp_zcdp_epsilon(0.5, 1);
-- the figures: mean variance over t <= 2^10 at rho = 1/2 is about 9.35 for
-- BLT against 55 for Gaussian Binary (19.2 and 136 at 2^16: docs/benchmarks.md)
SELECT round(avg(dp_error_sd(dp_blt(0.5, 1024, 1), t) ^ 2)::numeric, 2) AS blt_mean_variance,
       round(avg(dp_error_sd(dp_gaussian_binary(0.5, 1024, 1), t) ^ 2)::numeric, 2) AS binary_mean_variance
FROM generate_series(1, 1024) t;
SELECT t, round(dp_error_sd(dp_blt(0.5, 65536, 1), t)::numeric, 3) AS sd,
       round(dp_error_bound(dp_blt(0.5, 65536, 1), t)::numeric, 3) AS bound,
       dp_error_bound_max(dp_blt(0.5, 65536, 1), t) = dp_error_bound(dp_blt(0.5, 65536, 1), t) AS band_is_last
FROM (VALUES (1), (1000), (65536)) v(t);
-- Smooth Binary: the same variance at every step, below Gaussian Binary's mean
SELECT dp_smooth_binary(0.5, 1024, 1) AS smooth,
       round(min(dp_error_sd(dp_smooth_binary(0.5, 1024, 1), t) ^ 2)::numeric, 2) AS min_variance,
       round(max(dp_error_sd(dp_smooth_binary(0.5, 1024, 1), t) ^ 2)::numeric, 2) AS max_variance
FROM generate_series(1, 1024) t;
SELECT count(*) AS streams,
       abs(avg(c - truth)) < 5 * dp_error_sd(dp_smooth_binary(0.5, 100, 2), 77) / sqrt(400) AS unbiased
FROM (SELECT t, sum(x) OVER w AS truth, dp_count(x, dp_smooth_binary(0.5, 100, 2)) OVER w AS c
      FROM (SELECT k, t, (k + t) % 3 AS x FROM generate_series(1, 400) k, generate_series(1, 100) t) s
      WINDOW w AS (PARTITION BY k ORDER BY t)) q
WHERE t = 77;
SELECT dp_mechanism_of('smooth_binary', 1, 100, 1);
SELECT dp_smooth_binary(0.5, 0, 1);
SELECT dp_smooth_binary(0, 100, 1);
SELECT dp_smooth_binary(0.5, 100, 33554432);
SELECT dp_gaussian_binary(0.5, 0, 1);
SELECT dp_gaussian_binary(200, 100, 1);
SELECT dp_gaussian_binary(NULL, 100, 1) IS NULL AS null_rho_gives_null;
-- releases are integers, unbiased over 400 streams within 5 standard errors
SELECT count(*) AS streams,
       abs(avg(c - truth)) < 5 * dp_error_sd(dp_blt(0.5, 100, 2), 77) / sqrt(400) AS unbiased
FROM (SELECT t, sum(x) OVER w AS truth, dp_count(x, dp_blt(0.5, 100, 2)) OVER w AS c
      FROM (SELECT k, t, (k + t) % 3 AS x FROM generate_series(1, 400) k, generate_series(1, 100) t) s
      WINDOW w AS (PARTITION BY k ORDER BY t)) q
WHERE t = 77;
-- a stored state keeps its mechanism and steps public
SELECT dp_steps(s) AS steps, dp_mechanism(s) AS mechanism
FROM (SELECT dp_count_state(1, dp_blt(0.5, 50, 1) ORDER BY t) AS s FROM generate_series(1, 29) t) x;
-- refusals
SELECT dp_mechanism_of('blt', 1, 365, 1);
SELECT dp_zcdp_mechanism_of('hybrid', 1, max_per_step => 1);
SELECT dp_zcdp_mechanism_of('two_level', 1, 100, 1);
SELECT dp_keyed(dp_gaussian_binary(0.5, 365, 1), 'k');
SELECT dp_blt(0.5, 2000000000000, 1);
SELECT dp_blt(0.5, 365, 100000000);
SELECT dp_blt(0, 365, 1);
SELECT 'binary(epsilon=1,rho=0.5,horizon=10)'::dp_mechanism;
SELECT dp_avg(x::float8, 0, 10, dp_blt(0.5, 100, 1)) FROM generate_series(1, 100) x;
-- repeatable states (and managed streams) account in epsilon
SELECT dp_counter_new(dp_blt(0.5, 100, 1), true);
SELECT dp_epsilon_for(dp_blt(0.5, 1000, 1), 5, 1000);
-- a person-level BLT takes any step value up to max_per_step (an encoder
-- refusing a large one would fail on private data)
SELECT max(c) > 8000 AS counted
FROM (SELECT dp_count(v, dp_person_level(dp_blt(0.5, 100, 1000000), 1)) OVER (ORDER BY t) AS c
      FROM (SELECT t, CASE WHEN t = 50 THEN 1000000 ELSE 0 END AS v FROM generate_series(1, 100) t) s) q;

-- Randomized response: the per-row randomizer and the debiasing aggregate.
CREATE EXTENSION IF NOT EXISTS dp_stream;
SET dp_stream.seed = 'randomized response';

-- 10,000 respondents, 3,000 of whom answer yes, each randomized locally
CREATE TABLE survey AS
  SELECT i, dp_randomized_response(i <= 3000, 1.0) AS reported FROM generate_series(1, 10000) i;
SELECT count(*) FILTER (WHERE reported) AS reported_yes FROM survey;
SELECT round((r).estimate::numeric, 1) AS estimate, round((r).standard_deviation::numeric, 2) AS sd,
       (r).reports, abs((r).estimate - 3000) <= 4.89 * (r).standard_deviation AS within_band
FROM (SELECT dp_rr_count(reported, 1.0) AS r FROM survey) x;
-- NULL reports are not counted; an empty input gives NULL
SELECT (dp_rr_count(v, 0.5)).reports FROM (VALUES (true), (NULL), (false)) t(v);
SELECT dp_rr_count(v, 0.5) IS NULL AS empty_is_null FROM (SELECT true WHERE false) t(v);
SELECT dp_randomized_response(NULL, 1.0) IS NULL AS null_stays_null;
-- running estimate in window form
SELECT i, round((r).estimate::numeric, 1) AS estimate, round((r).standard_deviation::numeric, 2) AS sd
FROM (SELECT i, dp_rr_count(reported, 1.0) OVER (ORDER BY i) AS r FROM survey) x
WHERE i % 2500 = 0 ORDER BY i;
-- bad input
SELECT dp_randomized_response(true, 0);
SELECT dp_randomized_response(true, 'NaN');
SELECT dp_rr_count(reported, -1) FROM survey;
SELECT dp_rr_count(reported, NULL) FROM survey;
SELECT dp_rr_count(reported, (i % 2 + 1)::float8) FROM survey;

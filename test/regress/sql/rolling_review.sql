-- Adversarial review of the rolling windows (issue 30): what a stored
-- rolling state protects against its own role (docs/threat_model.md, "By
-- mechanism"), and the refusals that keep one key from releasing the same
-- data at two widths or two numbers of levels (one registration, one
-- charge).  Runs in a database of its own.
\set regress_database :DBNAME
CREATE DATABASE dp_rolling_review;
\c dp_rolling_review
SET client_min_messages = warning;
CREATE EXTENSION dp_stream;
RESET client_min_messages;
SET dp_stream.seed = 'rolling review';
\set SHOW_CONTEXT never
CREATE TABLE review_days AS
  SELECT d AS day, ((d * 7) % 11)::bigint AS n FROM generate_series(1, 20) d;
-- ===== one snapshot of a rolling state, with later releases =====
-- Two continuations of one stored state (forks, or the state read once and
-- the real continuation's next release): without dp_pan_private the
-- interval that closes at the next step carries only its opening noise,
-- which the snapshot holds, so the difference of the two releases is the
-- difference of the values pushed, exactly, for every pair; with
-- dp_pan_private (or dp_keyed) the closing term is drawn over the complete
-- content and the difference is noisy.
CREATE TABLE review_states AS
SELECT levels, pan_private,
       dp_rolling_count_state(n, 7, CASE WHEN pan_private
                                         THEN dp_pan_private(dp_rolling(1.0, 7, 11, levels => levels))
                                         ELSE dp_rolling(1.0, 7, 11, levels => levels) END
                              ORDER BY day) AS state
FROM review_days, generate_series(1, 3) levels, (VALUES (false), (true)) p (pan_private)
GROUP BY levels, pan_private;
SELECT levels, pan_private,
       count(*) AS pairs,
       bool_and(dp_estimate(dp_push(state, a)) - dp_estimate(dp_push(state, b)) = a - b)
         AS every_difference_exact
FROM review_states, generate_series(0, 11, 3) a, generate_series(0, 11, 4) b
WHERE a <> b
GROUP BY levels, pan_private
ORDER BY pan_private, levels;
-- ===== one key, one rolling mechanism =====
SELECT dp_stream.create_budget('review_budget', 5.0);
SELECT dp_stream.create_key('review_three_levels', dp_rolling(1.0, 7, 11, levels => 3),
                            dataset => 'review_budget') IS NOT NULL AS registered;
SELECT spent_epsilon FROM dp_stream.budget('review_budget');
-- the registered mechanism draws, the same on every execution
SELECT count(*) AS rows, bool_and(a.r = b.r) AS repeatable
FROM (SELECT day, dp_count(n, dp_keyed(dp_rolling(1.0, 7, 11, levels => 3), 'review_three_levels'))
                    OVER (ORDER BY day) AS r FROM review_days) a
JOIN (SELECT day, dp_count(n, dp_keyed(dp_rolling(1.0, 7, 11, levels => 3), 'review_three_levels'))
                    OVER (ORDER BY day) AS r FROM review_days) b USING (day);
-- other levels, another width, and the rolling form (whose dp_rolling_of
-- takes the default levels, 1 at this width) are other mechanisms under the
-- key: independent noise for the same data, so each is refused
SELECT max(r) FROM (SELECT dp_count(n, dp_keyed(dp_rolling(1.0, 7, 11, levels => 1), 'review_three_levels'))
                             OVER (ORDER BY day) AS r FROM review_days) x;
SELECT max(r) FROM (SELECT dp_count(n, dp_keyed(dp_rolling(1.0, 7, 11, levels => 2), 'review_three_levels'))
                             OVER (ORDER BY day) AS r FROM review_days) x;
SELECT max(r) FROM (SELECT dp_count(n, dp_keyed(dp_rolling(1.0, 6, 11, levels => 3), 'review_three_levels'))
                             OVER (ORDER BY day) AS r FROM review_days) x;
SELECT max(r) FROM (SELECT dp_rolling_count(n, 7, dp_keyed(dp_rolling(1.0, 7, 11, levels => 3), 'review_three_levels'))
                             OVER (ORDER BY day) AS r FROM review_days) x;
SELECT max(r) FROM (SELECT dp_count(n, dp_keyed(dp_binary(1.0, 100, 11), 'review_three_levels'))
                             OVER (ORDER BY day) AS r FROM review_days) x;
SELECT spent_epsilon FROM dp_stream.budget('review_budget');
-- ===== a rolling aggregate call orders its steps =====
-- The last 7 rows of a group exist only in an order: a plain or state call
-- without ORDER BY (or ordered by a constant) summed whichever rows the
-- plan read last (another plan, another window of the same data, and a
-- stored state that continues it).  Refused (42P20) for the rolling forms and for
-- a running form given a rolling mechanism; with ORDER BY, and the window
-- form, unchanged.
\set VERBOSITY default
SELECT dp_rolling_count(n, 7, dp_auto(1.0, 365, 11)) FROM review_days;
SELECT dp_rolling_count(n, 7, dp_auto(1.0, 365, 11) ORDER BY 'day') FROM review_days;
SELECT dp_count(n, dp_rolling(1.0, 7, 11)) FROM review_days;
SELECT dp_rolling_sum(n, 0, 11, 7, dp_hybrid(1.0)) FROM review_days;
\set VERBOSITY terse
SELECT dp_rolling_count_state(n, 7, dp_auto(1.0, 365, 11)) FROM review_days;
SELECT dp_rolling_avg_state(n, 0, 11, 7, dp_hybrid(1.0)) FROM review_days;
SELECT dp_sum_state(n, 0, 11, dp_rolling(1.0, 7)) FROM review_days;
SELECT dp_rolling_count(n, 7, dp_auto(1.0, 365, 11)) FROM review_days GROUP BY day % 2;
SELECT dp_rolling_summary(n, 0, 11, 7, dp_hybrid(1.0)) FROM review_days;
-- ordered: accepted (a running mechanism without ORDER BY is unchanged)
SELECT dp_rolling_count(n, 7, dp_auto(1.0, 365, 11) ORDER BY day) IS NOT NULL AS ordered_call,
       dp_count(n, dp_rolling(1.0, 7, 11) ORDER BY day) IS NOT NULL AS ordered_running_form,
       dp_rolling_count_state(n, 7, dp_auto(1.0, 365, 11) ORDER BY day) IS NOT NULL AS ordered_state,
       dp_count(n, dp_auto(1.0, 365, 11)) IS NOT NULL AS running_unordered
FROM review_days;
SELECT count(r) AS window_rows
FROM (SELECT dp_rolling_count(n, 7, dp_auto(1.0, 365, 11)) OVER (ORDER BY day) AS r FROM review_days) x;
\c :regress_database
DROP DATABASE dp_rolling_review;

-- Who can read dp_stream.secrets (0.12.0; docs/threat_model.md, "Who can
-- read the secrets"), with real LOGIN roles: a member of pg_read_all_data
-- reads the secrets, and with them could open every sealed state and
-- compute every keyed release's noise (the docs say so: it is equivalent
-- to a superuser for dp_stream); a role without it, and the dp_stream
-- roles, are refused (42501).  ANALYZE keeps no statistics on the secret
-- column, so pg_stats never shows secret values (0.11.0 showed them to the
-- member, in histogram_bounds).
SET client_min_messages = warning;	-- the same output whether or not the extension exists
CREATE EXTENSION IF NOT EXISTS dp_stream;
DROP ROLE IF EXISTS dp_test_all_data;
DROP ROLE IF EXISTS dp_test_plain;
DROP ROLE IF EXISTS dp_test_stream_admin;
RESET client_min_messages;
CREATE ROLE dp_test_all_data LOGIN IN ROLE pg_read_all_data;
CREATE ROLE dp_test_plain LOGIN;
CREATE ROLE dp_test_stream_admin LOGIN IN ROLE dp_stream_admin;
-- enough secrets for a histogram
SELECT count(dp_stream.rotate_secret()) AS rotations FROM generate_series(1, 5);
ANALYZE dp_stream.secrets;
SELECT count(*) AS statistics_on_secret_values
FROM pg_stats
WHERE schemaname = 'dp_stream' AND tablename = 'secrets' AND attname = 'secret';

\c - dp_test_all_data
-- reads every secret, the 32 bytes of each
SELECT purpose, bool_and(length(secret) = 32) AS all_32_bytes, count(*) > 0 AS some
FROM dp_stream.secrets GROUP BY purpose ORDER BY purpose;
-- the ids sealed states name are there to be looked up
SELECT count(*) = count(DISTINCT id) AS ids_unique FROM dp_stream.secrets;
-- statistics of the other columns, none of the secret values
SELECT attname FROM pg_stats
WHERE schemaname = 'dp_stream' AND tablename = 'secrets' ORDER BY attname;

\c - dp_test_plain
\set VERBOSITY sqlstate
SELECT count(*) FROM dp_stream.secrets;
SELECT count(*) AS statistics_seen FROM pg_stats
WHERE schemaname = 'dp_stream' AND tablename = 'secrets';

\c - dp_test_stream_admin
SELECT count(*) FROM dp_stream.secrets;
\set VERBOSITY default

\c - postgres
DROP ROLE dp_test_all_data;
DROP ROLE dp_test_plain;
DROP ROLE dp_test_stream_admin;

-- dp_stream 0.12.0 -> 0.13.0: partitioned publications (docs/publications.md):
-- one registration, one key, one budget charge for thousands of partitions;
-- set-based advances with missed periods marked and caught up.

\echo Use "ALTER EXTENSION dp_stream UPDATE TO '0.13.0'" to load this file. \quit

-- ===== section: publications =====

-- ===== end of section: publications =====

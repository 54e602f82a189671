-- The extension as PostgreSQL users expect to find it: every type, function,
-- aggregate, table, view and schema has a comment (\df+ and \dT+ explain it), and the version
-- installed is the default one.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS dp_stream;
RESET client_min_messages;
SELECT extversion = (SELECT default_version FROM pg_available_extensions WHERE name = 'dp_stream')
       AS default_version_installed
FROM pg_extension WHERE extname = 'dp_stream';
-- members of the extension without a comment: none
SELECT pg_describe_object(d.classid, d.objid, 0) AS without_comment
FROM pg_depend d JOIN pg_extension e ON d.refclassid = 'pg_extension'::regclass
                                    AND d.refobjid = e.oid AND e.extname = 'dp_stream'
WHERE d.deptype = 'e'
  AND d.classid IN ('pg_proc'::regclass, 'pg_type'::regclass, 'pg_class'::regclass,
                    'pg_namespace'::regclass)
  AND obj_description(d.objid, d.classid::regclass::name) IS NULL
  -- array types and the row types of tables and views come with their
  -- element or relation (PostgreSQL 17 records them as members too)
  AND NOT EXISTS (SELECT 1 FROM pg_type t WHERE d.classid = 'pg_type'::regclass
                  AND t.oid = d.objid AND (t.typcategory = 'A' OR t.typrelid <> 0))
ORDER BY 1;
SELECT count(*) FILTER (WHERE p.prokind = 'a') AS aggregates,
       count(*) FILTER (WHERE p.prokind = 'f') AS functions
FROM pg_depend d JOIN pg_extension e ON d.refobjid = e.oid AND e.extname = 'dp_stream'
JOIN pg_proc p ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
WHERE d.deptype = 'e';

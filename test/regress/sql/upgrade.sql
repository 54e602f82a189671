-- Upgrading from 0.1.0 keeps stored mechanisms and states usable.  (The
-- objects are 0.1.0's; the library is the current one, which writes states
-- unsealed, in the current format, until the database's extension reaches
-- 0.6.0, as the older libraries did.  Reading 0.1.0's version-1 bytes and
-- text is tested in test/unit/test_binary.c and test/regress/sql/mechanisms.sql.)
DROP EXTENSION IF EXISTS dp_stream CASCADE;
CREATE EXTENSION dp_stream VERSION '0.1.0';
SET dp_stream.seed = 'upgrade';
CREATE TABLE kept AS
  SELECT dp_binary(1, 100, 1) AS m, dp_count_state(v, dp_binary(1, 100, 1) ORDER BY v) AS s
  FROM generate_series(1, 10) v;
SELECT s AS state_stored_under_0_1_0 FROM kept;
ALTER EXTENSION dp_stream UPDATE TO '0.2.0';
SELECT extversion FROM pg_extension WHERE extname = 'dp_stream';
SELECT m, dp_steps(s), dp_estimate(s), dp_mechanism(s)::text = m::text AS same_mechanism FROM kept;
SELECT dp_steps(dp_push(s, 1)) AS continued FROM kept;
SELECT dp_count(1, m) IS NOT NULL AS counted FROM kept;
SELECT dp_hybrid(1, 1) IS NOT NULL AS new_functions_present;
-- and on to 0.5.0 (sums, averages, variances, managed streams): the stored
-- counters still work, and a managed stream keeps an unsealed state
ALTER EXTENSION dp_stream UPDATE TO '0.5.0';
SELECT extversion FROM pg_extension WHERE extname = 'dp_stream';
SELECT dp_steps(dp_push(s, 1)) AS continued_after_0_5_0 FROM kept;
SELECT dp_sum(v, 0, 10, dp_binary(1, 100, 1)) IS NOT NULL AS sums_present FROM generate_series(1, 10) v;
SELECT dp_stream.create_stream('visits', 'count', dp_binary(1, 100, 1), first_period => '2026-01-01');
SELECT step FROM dp_stream.advance('visits', '2026-01-01', 3);
SELECT step FROM dp_stream.advance('visits', '2026-01-02', 4);
SELECT left(counter::text, 3) AS unsealed_catalog_state FROM dp_stream.streams;
-- 0.6.0 seals: the update seals the catalog's states; the stream continues
ALTER EXTENSION dp_stream UPDATE;
SELECT extversion = (SELECT default_version FROM pg_available_extensions WHERE name = 'dp_stream')
       AS updated_to_the_default_version
FROM pg_extension WHERE extname = 'dp_stream';
SELECT left(counter::text, 7) AS sealed_catalog_state, dp_steps(counter) FROM dp_stream.streams;
SELECT step FROM dp_stream.advance('visits', '2026-01-03', 5);
-- a state in a user's table stays unsealed and is refused until a superuser
-- reseals it (dp_stream.read_unsealed, then dp_reseal)
\set VERBOSITY terse
SELECT dp_steps(s) FROM kept;
\set VERBOSITY default
SET dp_stream.read_unsealed = on;
UPDATE kept SET s = dp_reseal(s);
RESET dp_stream.read_unsealed;
SELECT dp_steps(dp_push(s, 1)) AS continued_after_0_6_0, left(s::text, 7) AS sealed FROM kept;
-- a state that named no role (unsealed, or sealed before 0.12.0) belongs to
-- the extension's owner: another role gets 42501 until it is handed over
CREATE ROLE dp_upgrade_job;
GRANT SELECT ON kept TO dp_upgrade_job;
SET ROLE dp_upgrade_job;
\set VERBOSITY terse
SELECT dp_estimate(s) FROM kept;
\set VERBOSITY default
RESET ROLE;
UPDATE kept SET s = dp_bind(s, 'dp_upgrade_job');
SET ROLE dp_upgrade_job;
SELECT dp_steps(dp_push(s, 1)) AS continued_by_its_role FROM kept;
RESET ROLE;
-- The upgraded catalog is the one a fresh install makes: CREATE EXTENSION
-- runs the full script of the current version (sql/dp_stream.sql), the
-- update ran 0.1.0's script and every update script.  dp_catalog() lists
-- every member of the extension with what defines it: functions with their
-- bodies and attributes, aggregates, types, casts, operators, tables, views
-- and sequences, columns, constraints, indexes, triggers, policies, rules,
-- privileges (and the initial privileges pg_dump starts from), comments,
-- what pg_dump dumps with the data, the roles and the secrets an
-- installation starts with.
CREATE FUNCTION pg_temp.dp_catalog() RETURNS TABLE (kind text, object text, definition text)
LANGUAGE sql AS $fp$
  WITH members AS (
    SELECT d.classid, d.objid FROM pg_depend d JOIN pg_extension e ON d.refobjid = e.oid
    WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e' AND e.extname = 'dp_stream'),
  ext AS (SELECT * FROM pg_extension WHERE extname = 'dp_stream'),
  rels AS (SELECT c.* FROM pg_class c JOIN members m ON m.classid = 'pg_class'::regclass AND m.objid = c.oid)
  -- which objects are members, by kind
  SELECT 'member', pg_describe_object(classid, objid, 0), (pg_identify_object(classid, objid, 0)).type
  FROM members
  -- functions and aggregates: the whole definition, comment and privileges
  UNION ALL
  SELECT 'function', p.oid::regprocedure::text,
         row(CASE WHEN p.prokind = 'a' THEN 'aggregate' ELSE pg_get_functiondef(p.oid) END,
                   pg_get_function_arguments(p.oid), pg_get_function_result(p.oid),
                   p.prokind, p.provolatile, p.proparallel, p.proisstrict, p.prosecdef, p.proleakproof,
                   p.procost, p.prorows, p.proconfig::text, p.prosrc, p.probin,
                   p.proacl::text, obj_description(p.oid, 'pg_proc'))::text
  FROM pg_proc p JOIN members m ON m.classid = 'pg_proc'::regclass AND m.objid = p.oid
  UNION ALL
  SELECT 'aggregate', a.aggfnoid::regprocedure::text,
         row(a.aggkind, a.aggnumdirectargs, a.aggtransfn::regprocedure, a.aggfinalfn::regprocedure,
                   a.aggcombinefn::regprocedure, a.aggserialfn::regprocedure, a.aggdeserialfn::regprocedure,
                   a.aggmtransfn::regprocedure, a.aggminvtransfn::regprocedure, a.aggmfinalfn::regprocedure,
                   a.aggfinalextra, a.aggmfinalextra, a.aggfinalmodify, a.aggmfinalmodify,
                   a.aggsortop::regoperator, format_type(a.aggtranstype, NULL), a.aggtransspace,
                   format_type(a.aggmtranstype, NULL), a.aggmtransspace, a.agginitval, a.aggminitval)::text
  FROM pg_aggregate a JOIN members m ON m.classid = 'pg_proc'::regclass AND m.objid = a.aggfnoid
  -- types: storage, support functions, comment, privileges, attributes
  UNION ALL
  SELECT 'type', format_type(t.oid, NULL),
         row(t.typtype, t.typlen, t.typbyval, t.typalign, t.typstorage, t.typcategory,
                   t.typispreferred, t.typdelim, t.typinput::regproc, t.typoutput::regproc,
                   t.typreceive::regproc, t.typsend::regproc, t.typmodin::regproc, t.typmodout::regproc,
                   t.typanalyze::regproc, t.typsubscript::regproc, t.typnotnull, t.typdefault,
                   t.typcollation, t.typacl::text, obj_description(t.oid, 'pg_type'))::text
  FROM pg_type t JOIN members m ON m.classid = 'pg_type'::regclass AND m.objid = t.oid
  -- columns of tables, views and row types (dropped ones aside: position
  -- among the visible columns)
  UNION ALL
  SELECT 'column', c.oid::regclass::text || '.' || a.attname,
         row(row_number() OVER (PARTITION BY c.oid ORDER BY a.attnum), format_type(a.atttypid, a.atttypmod),
                   a.attnotnull, pg_get_expr(ad.adbin, ad.adrelid), a.attidentity, a.attgenerated,
                   a.attstattarget, a.attstorage, a.attcollation, a.attacl::text,
                   col_description(c.oid, a.attnum))::text
  FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
  LEFT JOIN pg_attrdef ad ON ad.adrelid = c.oid AND ad.adnum = a.attnum
  WHERE c.oid IN (SELECT oid FROM rels)
     OR c.oid IN (SELECT t.typrelid FROM pg_type t JOIN members m ON m.classid = 'pg_type'::regclass AND m.objid = t.oid)
  -- tables, views and sequences: kind, options, privileges, comment, view text
  UNION ALL
  SELECT 'relation', c.oid::regclass::text,
         row(c.relkind, c.relpersistence, c.relrowsecurity, c.relforcerowsecurity,
                   c.reloptions::text, c.relacl::text, c.relreplident, obj_description(c.oid, 'pg_class'),
                   CASE WHEN c.relkind = 'v' THEN pg_get_viewdef(c.oid) END,
                   (SELECT concat_ws(',', format_type(s.seqtypid, NULL), s.seqstart, s.seqincrement, s.seqmax,
                                     s.seqmin, s.seqcache, s.seqcycle)
                    FROM pg_sequence s WHERE s.seqrelid = c.oid))::text
  FROM rels c
  UNION ALL
  SELECT 'constraint', r.conrelid::regclass::text || '.' || r.conname,
         row(r.contype, pg_get_constraintdef(r.oid), r.condeferrable, r.condeferred, r.convalidated,
                   obj_description(r.oid, 'pg_constraint'))::text
  FROM pg_constraint r WHERE r.conrelid IN (SELECT oid FROM rels)
  UNION ALL
  SELECT 'index', i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid)
  FROM pg_index i WHERE i.indrelid IN (SELECT oid FROM rels)
  UNION ALL
  SELECT 'trigger', g.tgrelid::regclass::text || '.' || g.tgname,
         row(pg_get_triggerdef(g.oid), g.tgenabled, obj_description(g.oid, 'pg_trigger'))::text
  FROM pg_trigger g WHERE g.tgrelid IN (SELECT oid FROM rels) AND NOT g.tgisinternal
  UNION ALL
  SELECT 'policy', p.polrelid::regclass::text || '.' || p.polname,
         row(p.polcmd, p.polpermissive, p.polroles::regrole[]::text,
                   pg_get_expr(p.polqual, p.polrelid), pg_get_expr(p.polwithcheck, p.polrelid))::text
  FROM pg_policy p WHERE p.polrelid IN (SELECT oid FROM rels)
  UNION ALL
  SELECT 'rule', r.ev_class::regclass::text || '.' || r.rulename, pg_get_ruledef(r.oid)
  FROM pg_rewrite r WHERE r.ev_class IN (SELECT oid FROM rels) AND r.rulename <> '_RETURN'
  UNION ALL
  SELECT 'schema', n.nspname, row(n.nspowner::regrole, n.nspacl::text, obj_description(n.oid, 'pg_namespace'))::text
  FROM pg_namespace n JOIN members m ON m.classid = 'pg_namespace'::regclass AND m.objid = n.oid
  -- casts, operators, operator classes and families
  UNION ALL
  SELECT 'cast', format_type(c.castsource, NULL) || ' -> ' || format_type(c.casttarget, NULL),
         row(c.castfunc::regprocedure, c.castcontext, c.castmethod)::text
  FROM pg_cast c JOIN members m ON m.classid = 'pg_cast'::regclass AND m.objid = c.oid
  UNION ALL
  SELECT 'operator', o.oid::regoperator::text,
         row(o.oprcode::regproc, o.oprcom::regoperator, o.oprnegate::regoperator, o.oprrest, o.oprjoin,
                   o.oprcanmerge, o.oprcanhash, obj_description(o.oid, 'pg_operator'))::text
  FROM pg_operator o JOIN members m ON m.classid = 'pg_operator'::regclass AND m.objid = o.oid
  UNION ALL
  SELECT 'operator class', pg_describe_object(m.classid, m.objid, 0), NULL
  FROM members m WHERE m.classid IN ('pg_opclass'::regclass, 'pg_opfamily'::regclass, 'pg_amop'::regclass,
                                    'pg_amproc'::regclass, 'pg_event_trigger'::regclass, 'pg_ts_config'::regclass,
                                    'pg_foreign_data_wrapper'::regclass, 'pg_collation'::regclass)
  -- the initial privileges pg_dump starts from
  UNION ALL
  SELECT 'initial privileges', pg_describe_object(i.classoid, i.objoid, i.objsubid), i.privtype::text || ' ' || i.initprivs::text
  FROM pg_init_privs i JOIN members m ON m.classid = i.classoid AND m.objid = i.objoid
  -- the extension itself: what pg_dump dumps with the data
  UNION ALL
  SELECT 'extension', 'dp_stream',
         row(x.extrelocatable, x.extnamespace::regnamespace,
                   (SELECT string_agg(c::regclass::text || ' ' || coalesce(w, ''), ', ' ORDER BY c::regclass::text)
                    FROM unnest(x.extconfig, x.extcondition) AS u(c, w)))::text
  FROM ext x
  -- the roles the grants name, and the rows an installation starts with
  UNION ALL
  SELECT 'role', r.rolname, row(r.rolcanlogin, r.rolinherit, shobj_description(r.oid, 'pg_authid'))::text
  FROM pg_roles r WHERE r.rolname IN ('dp_stream_admin', 'dp_stream_reader')
  UNION ALL
  SELECT 'secrets', s.purpose, count(*)::text FROM dp_stream.secrets s GROUP BY s.purpose
$fp$;
CREATE TEMP TABLE upgraded AS SELECT * FROM pg_temp.dp_catalog();
DROP TABLE kept;
DROP ROLE dp_upgrade_job;
DROP EXTENSION dp_stream;
CREATE EXTENSION dp_stream;
-- the full script's own settings end with it
SELECT current_setting('check_function_bodies') AS check_function_bodies,
       current_setting('search_path') AS search_path;
CREATE TEMP TABLE fresh AS SELECT * FROM pg_temp.dp_catalog();
CREATE FUNCTION pg_temp.dp_catalog_differences()
RETURNS TABLE (kind text, object text, only_in text) LANGUAGE sql AS $$
  (SELECT kind, object, 'the updated catalog' FROM (SELECT * FROM upgraded EXCEPT ALL SELECT * FROM pg_temp.dp_catalog()) u)
  UNION ALL
  (SELECT kind, object, 'a fresh install' FROM (SELECT * FROM pg_temp.dp_catalog() EXCEPT ALL SELECT * FROM upgraded) f)
  ORDER BY 1, 2, 3
$$;
-- nothing differs
SELECT * FROM pg_temp.dp_catalog_differences();
-- every kind of object the extension has is listed
SELECT kind, count(*) > 0 AS listed FROM fresh GROUP BY kind ORDER BY kind;
-- and the comparison sees a change of any kind (undone at once)
BEGIN;
SET LOCAL client_min_messages = warning;
COMMENT ON FUNCTION dp_binary(float8, bigint, bigint) IS 'changed';
UPDATE pg_catalog.pg_aggregate SET agginitval = '0'
 WHERE aggfnoid = 'dp_count(bigint, dp_mechanism)'::regprocedure;
COMMENT ON TYPE dp_counter IS 'changed';
ALTER TABLE dp_stream.budgets ALTER COLUMN created_at SET DEFAULT clock_timestamp();
ALTER TABLE dp_stream.budgets ADD CONSTRAINT changed CHECK (total_epsilon < 1000);
CREATE INDEX changed ON dp_stream.charges (charged_at);
ALTER TABLE dp_stream.keys DISABLE TRIGGER keys_append_only;
CREATE POLICY changed ON dp_stream.releases USING (true);
CREATE RULE changed AS ON DELETE TO dp_stream.budgets DO INSTEAD NOTHING;
GRANT SELECT ON dp_stream.secrets TO dp_stream_reader;
COMMENT ON SCHEMA dp_stream_private IS 'changed';
UPDATE pg_catalog.pg_extension SET extcondition[1] = 'WHERE false' WHERE extname = 'dp_stream';
CREATE FUNCTION dp_changed(dp_counter) RETURNS bigint LANGUAGE sql AS 'SELECT 1::bigint';
CREATE CAST (dp_counter AS bigint) WITH FUNCTION dp_changed(dp_counter);
CREATE OPERATOR ## (RIGHTARG = dp_counter, FUNCTION = dp_changed);
ALTER EXTENSION dp_stream ADD CAST (dp_counter AS bigint);
ALTER EXTENSION dp_stream ADD OPERATOR ## (NONE, dp_counter);
COMMENT ON ROLE dp_stream_reader IS 'changed';
DELETE FROM dp_stream.secrets WHERE purpose = 'table_noise';
UPDATE pg_catalog.pg_init_privs SET privtype = 'i' WHERE objoid = 'dp_stream.budgets'::regclass;
SELECT kind, count(*) AS changed FROM pg_temp.dp_catalog_differences() GROUP BY kind ORDER BY kind;
ROLLBACK;
SELECT count(*) AS differences_after_rollback FROM pg_temp.dp_catalog_differences();
-- 0.14.0 moved max_per_step to the third place of dp_kary, dp_balanced,
-- dp_honaker, dp_two_level, dp_expiring, dp_expiring_baseline and
-- dp_mechanism_of.  A view written for 0.13.0 keeps its meaning: its calls
-- go to the old definitions, renamed <name>_before_0_14, and the update
-- does not stop at it.
DROP EXTENSION dp_stream;
CREATE EXTENSION dp_stream VERSION '0.13.0';
CREATE VIEW written_for_0_13 AS
  SELECT dp_kary(1, 64, 4)::text AS kary, dp_balanced(1, 64, 5, 2)::text AS balanced,
         dp_honaker(1, 64, 2)::text AS honaker, dp_two_level(1, 100, 20)::text AS two_level,
         dp_expiring(1, 2)::text AS expiring,
         dp_expiring_baseline(1, 0.5, 30, 365)::text AS expiring_baseline,
         dp_mechanism_of('kary', 1, 64, 4)::text AS mechanism_of;
CREATE TEMP TABLE before_update AS SELECT * FROM written_for_0_13;
ALTER EXTENSION dp_stream UPDATE;
SELECT extversion = (SELECT default_version FROM pg_available_extensions WHERE name = 'dp_stream')
       AS updated_to_the_default_version
FROM pg_extension WHERE extname = 'dp_stream';
SELECT (SELECT row(w.*)::text FROM written_for_0_13 w) = (SELECT row(b.*)::text FROM before_update b)
       AS same_mechanisms_after_the_update;
SELECT * FROM written_for_0_13;
SELECT pg_get_viewdef('written_for_0_13') LIKE '%dp_kary_before_0_14(%' AS calls_the_old_definition;
-- the same calls written now mean the new order (and warn)
SELECT dp_kary(1, 64, 4)::text AS kary_now;
DROP VIEW written_for_0_13;
DROP EXTENSION dp_stream;
CREATE EXTENSION dp_stream;

-- dp_stream 0.11.0 -> 0.12.0: the holes between versions, roles and
-- partitions closed (docs/threat_model.md): NULL-safe functions, states
-- bound to the role that may use them, keyed noise per partition, content-
-- keyed repeatable states, a ledger that serializes at every isolation
-- level, secrets and rotation, a safe install.

\echo Use "ALTER EXTENSION dp_stream UPDATE TO '0.12.0'" to load this file. \quit

-- ===== section: functions and NULL arguments =====

-- ===== end of section: functions and NULL arguments =====



-- ===== section: states bound to a role and a stream =====

-- ===== end of section: states bound to a role and a stream =====



-- ===== section: keys and partitions =====

-- ===== end of section: keys and partitions =====



-- ===== section: repeatable noise and the ledger =====

-- ===== end of section: repeatable noise and the ledger =====



-- ===== section: secrets, rotation, restore, install =====

-- Rotation never leaves a value sealed under a dropped secret
-- (src/pg/dp_secret.c).  Sealing holds a RowShareLock on dp_stream.secrets
-- to the end of its transaction and reads the newest secret with a fresh
-- snapshot; rotate_secret takes an ExclusiveLock first, so it waits for
-- every transaction that sealed under the old secret, and every later
-- sealing waits for it to commit and then sees the new secret.  Openers
-- (AccessShareLock) never wait.  In REPEATABLE READ or SERIALIZABLE the
-- function's own snapshot would predate the writers it waited for, and a
-- reseal in the same transaction would miss their values: refused there.
CREATE OR REPLACE FUNCTION dp_stream.rotate_secret() RETURNS bigint
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  new_id bigint;
BEGIN
  IF current_setting('transaction_isolation') <> 'read committed' THEN
    RAISE EXCEPTION 'dp_stream.rotate_secret() must run in a READ COMMITTED transaction'
      USING ERRCODE = 'invalid_transaction_state',
            DETAIL = 'Its snapshot would predate the writers it waits for, and a reseal in the same transaction would miss what they sealed.',
            HINT = 'Run it alone (autocommit) at the default isolation level, then reseal.';
  END IF;
  LOCK TABLE dp_stream.secrets IN EXCLUSIVE MODE;
  new_id := dp_stream.random_id();
  INSERT INTO dp_stream.secrets (id, purpose, secret)
  VALUES (new_id, 'seal', dp_stream.random_secret());
  -- the catalog's states move to the new secret at once; values in other
  -- tables keep opening under the old one until they are resealed
  UPDATE dp_stream.streams
     SET counter = @extschema@.dp_reseal(counter),
         statistic_state = @extschema@.dp_reseal(statistic_state);
  RETURN new_id;
END $$;
COMMENT ON FUNCTION dp_stream.rotate_secret() IS
    'creates a new sealing secret, after every transaction that sealed under the old one has ended; reseals the stream catalog under it and returns its id (superusers)';
REVOKE ALL ON FUNCTION dp_stream.rotate_secret() FROM PUBLIC;


-- ANALYZE keeps no statistics on the secrets themselves: pg_stats shows
-- them to whoever may read the table (members of pg_read_all_data, who read
-- the table anyway: docs/threat_model.md, "Who can read the secrets"), and
-- pg_statistic would keep copies of dropped secrets until the next ANALYZE.
ALTER TABLE dp_stream.secrets ALTER COLUMN secret SET STATISTICS 0;
DELETE FROM pg_catalog.pg_statistic
 WHERE starelid = 'dp_stream.secrets'::regclass
   AND staattnum = (SELECT attnum FROM pg_catalog.pg_attribute
                    WHERE attrelid = 'dp_stream.secrets'::regclass AND attname = 'secret');

-- A schema where other roles can create objects is no place for the
-- extension's functions: a better-matching overload planted next to them
-- (public.dp_hybrid(numeric, integer), say) runs with the rights of whoever
-- types the docs' examples (README.md, "Install into an existing
-- PostgreSQL").  Warn at CREATE EXTENSION and at the update when a role that
-- is not a superuser owns the schema (public belongs to the database's
-- owner) or may create in it.
DO $$
DECLARE
  writer text;
BEGIN
  SELECT CASE WHEN g.grantee = 0 THEN 'PUBLIC' ELSE r.rolname::text END INTO writer
  FROM pg_catalog.pg_namespace n
  CROSS JOIN LATERAL (
      SELECT n.nspowner AS grantee
      UNION ALL
      SELECT a.grantee FROM pg_catalog.aclexplode(n.nspacl) a WHERE a.privilege_type = 'CREATE'
  ) g
  LEFT JOIN pg_catalog.pg_roles r
    ON r.oid = CASE WHEN g.grantee = 'pg_database_owner'::regrole
                    THEN (SELECT datdba FROM pg_catalog.pg_database
                          WHERE datname = pg_catalog.current_database())
                    ELSE g.grantee END
  WHERE n.oid = '@extschema@'::regnamespace AND (g.grantee = 0 OR NOT r.rolsuper)
  ORDER BY 1 LIMIT 1;
  IF FOUND THEN
    RAISE WARNING 'dp_stream is installed in schema %, where role % can create functions',
                  '@extschema@', writer
      USING DETAIL = 'A function created there that matches a call better than dp_stream''s runs with the rights of whoever makes the call.',
            HINT = 'Install it into a schema only superusers can write (CREATE SCHEMA dp; CREATE EXTENSION dp_stream SCHEMA dp;), or make this one such a schema (ALTER SCHEMA ... OWNER TO a superuser; REVOKE CREATE), and keep writable schemas off privileged roles'' search_path (README.md).';
  END IF;
END $$;

-- ===== end of section: secrets, rotation, restore, install =====

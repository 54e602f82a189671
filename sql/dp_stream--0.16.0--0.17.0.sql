-- dp_stream 0.16.0 -> 0.17.0.  The sections below are what this update
-- changes; each object's final form is in sql/dp_stream.sql too, and
-- test/regress/sql/upgrade.sql checks that a database updated from 0.16.0
-- has the objects of a fresh install.

\echo Use "ALTER EXTENSION dp_stream UPDATE TO '0.17.0'" to load this file. \quit

-- ===== section: keyed29 =====
-- Keyed derivation 2 (issue 29 item 4, docs/keyed_noise.md): a key records
-- how its noise terms are derived.  Every key registered before 0.17.0
-- keeps derivation 1 for good (its releases must never be drawn again with
-- other noise); register_key writes 2 for the keys registered from now on.
-- The column's default stays 1, so that rows restored from a dump of an
-- older version, which lack the column, keep the derivation they drew with.
ALTER TABLE dp_stream.keys ADD COLUMN derivation smallint DEFAULT 1 NOT NULL;
ALTER TABLE dp_stream.keys
    ADD CONSTRAINT keys_derivation_check CHECK ((derivation = ANY (ARRAY[1, 2])));
COMMENT ON COLUMN dp_stream.keys.derivation IS 'how the key''s noise terms are derived: 1 (keys registered before 0.17.0), 2 (registered since: one PRF evaluation a term); fixed for the key''s life';

CREATE OR REPLACE FUNCTION dp_stream_private.register_key(key text, mechanism @extschema@.dp_mechanism, dataset text, used_by regrole, computes text) RETURNS @extschema@.dp_mechanism
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
  keyed @extschema@.dp_mechanism;
BEGIN
  IF key IS NULL OR mechanism IS NULL OR used_by IS NULL OR computes IS NULL THEN
    RAISE EXCEPTION 'key, mechanism, used_by and computes must not be null'
      USING ERRCODE = 'null_value_not_allowed';
  END IF;
  IF NOT pg_catalog.pg_has_role(session_user, used_by, 'MEMBER') THEN
    RAISE EXCEPTION 'a key can be registered only for a role one is a member of'
      USING ERRCODE = 'insufficient_privilege', DETAIL = format('Role %s is not a member of %s.', session_user, used_by), HINT = format('Register the key for a role %s is a member of, or have a superuser run GRANT %s TO %s first.', session_user, used_by, pg_catalog.quote_ident(session_user));
  END IF;
  keyed := @extschema@.dp_keyed(mechanism, key);
  INSERT INTO dp_stream.keys (key, mechanism, used_by, computes, dataset, noise_secret, derivation)
  VALUES (key, keyed, used_by, computes, dataset, dp_stream.keyed_noise_secret(), 2);
  IF dataset IS NOT NULL THEN
    PERFORM dp_stream.charge(dataset, @extschema@.dp_epsilon(keyed), format('key %s', key));
  END IF;
  PERFORM dp_stream.citus_sync(false); RETURN keyed;
EXCEPTION WHEN unique_violation THEN
  RAISE EXCEPTION 'key "%" already exists', key
    USING ERRCODE = 'duplicate_object',
          HINT = 'A key is registered once; use the mechanism it was registered with (see dp_stream.keys).';
END $$;
-- ===== end of section: keyed29 =====

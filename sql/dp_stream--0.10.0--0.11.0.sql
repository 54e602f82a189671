-- dp_stream 0.10.0 -> 0.11.0: keyed noise drawn by the constant-time table
-- sampler (docs/noise.md).

\echo Use "ALTER EXTENSION dp_stream UPDATE TO '0.11.0'" to load this file. \quit

-- A "table_noise" secret: keyed noise derives its keys from it, instead of
-- the "noise" secret, and draws with the table sampler.  The two samplers
-- never draw under one key, so no key's noise ever changes.
ALTER TABLE dp_stream.secrets DROP CONSTRAINT secrets_purpose_check;
ALTER TABLE dp_stream.secrets ADD CONSTRAINT secrets_purpose_check
    CHECK (purpose IN ('seal', 'noise', 'table_noise'));

-- Where no key has been registered yet, no keyed release exists: switch at
-- once (every new installation).  Elsewhere keyed streams keep their noise
-- until a superuser switches (use_table_sampler_for_keyed_noise below).
INSERT INTO dp_stream.secrets (id, purpose, secret)
SELECT dp_stream.random_id(), 'table_noise', dp_stream.random_secret()
WHERE NOT EXISTS (SELECT 1 FROM dp_stream.keys);

CREATE FUNCTION dp_stream.use_table_sampler_for_keyed_noise() RETURNS bigint
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  found_id bigint;
BEGIN
  SELECT id INTO found_id FROM dp_stream.secrets WHERE purpose = 'table_noise'
   ORDER BY created_at, id LIMIT 1;
  IF FOUND THEN
    RETURN found_id;
  END IF;
  found_id := dp_stream.random_id();
  INSERT INTO dp_stream.secrets (id, purpose, secret)
  VALUES (found_id, 'table_noise', dp_stream.random_secret());
  RAISE WARNING 'keyed noise now draws with the table sampler under a new secret'
    USING DETAIL = 'Every keyed stream computed again from its data releases new noise once: '
                   'with the releases seen before, that is a second epsilon for each of them.',
          HINT = 'Switch before anything keyed is published, or charge the registered budgets once more.';
  RETURN found_id;
END $$;
COMMENT ON FUNCTION dp_stream.use_table_sampler_for_keyed_noise() IS
    'keyed noise draws with the constant-time table sampler under a new secret, from now on; returns its id (superusers; once for good)';
REVOKE ALL ON FUNCTION dp_stream.use_table_sampler_for_keyed_noise() FROM PUBLIC;

CREATE OR REPLACE FUNCTION dp_stream.drop_secret(secret_id bigint) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  s dp_stream.secrets;
BEGIN
  SELECT * INTO s FROM dp_stream.secrets WHERE id = secret_id;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'dp_stream secret % does not exist', secret_id USING ERRCODE = 'undefined_object';
  END IF;
  IF s.purpose IN ('noise', 'table_noise') THEN
    RAISE EXCEPTION 'a noise secret cannot be dropped'
      USING ERRCODE = 'object_in_use',
            DETAIL = 'Every keyed release depends on it: without it, the same data would be released again with new noise.';
  END IF;
  IF NOT EXISTS (SELECT 1 FROM dp_stream.secrets t
                 WHERE t.purpose = 'seal' AND (t.created_at, t.id) > (s.created_at, s.id)) THEN
    RAISE EXCEPTION 'the newest sealing secret cannot be dropped'
      USING ERRCODE = 'object_in_use', HINT = 'Rotate first: SELECT dp_stream.rotate_secret().';
  END IF;
  DELETE FROM dp_stream.secrets WHERE id = secret_id;
END $$;

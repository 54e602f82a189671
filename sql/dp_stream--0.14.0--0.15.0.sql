-- dp_stream 0.14.0 -> 0.15.0: one set of secrets and keys for a Citus
-- cluster (dp_stream.citus_sync_secrets), and keyed noise that cannot change
-- silently: a key records the noise secret it draws under.  See
-- docs/keyed_noise.md and docs/threat_model.md.

\echo Use "ALTER EXTENSION dp_stream UPDATE TO '0.15.0'" to load this file. \quit

-- The id of the secret keyed noise draws under now.
CREATE FUNCTION dp_stream.keyed_noise_secret() RETURNS bigint
    AS 'MODULE_PATHNAME', 'dp_keyed_noise_secret' LANGUAGE C STABLE PARALLEL RESTRICTED;
REVOKE ALL ON FUNCTION dp_stream.keyed_noise_secret() FROM PUBLIC;
COMMENT ON FUNCTION dp_stream.keyed_noise_secret() IS
    'internal: the id of the secret keyed noise draws under in this database, which a key records';

-- The id of the secret a stored state is sealed under (a public field of
-- its header), NULL when it is not sealed.
CREATE FUNCTION dp_stream.sealed_secret_id(state @extschema@.dp_counter) RETURNS bigint
    AS 'MODULE_PATHNAME', 'dp_sealed_secret_id' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dp_stream.sealed_secret_id(state @extschema@.dp_statistic) RETURNS bigint
    AS 'MODULE_PATHNAME', 'dp_sealed_secret_id' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
REVOKE ALL ON FUNCTION dp_stream.sealed_secret_id(@extschema@.dp_counter) FROM PUBLIC;
REVOKE ALL ON FUNCTION dp_stream.sealed_secret_id(@extschema@.dp_statistic) FROM PUBLIC;
COMMENT ON FUNCTION dp_stream.sealed_secret_id(@extschema@.dp_counter) IS
    'internal: the id of the secret a stored dp_counter is sealed under (NULL: not sealed)';
COMMENT ON FUNCTION dp_stream.sealed_secret_id(@extschema@.dp_statistic) IS
    'internal: the id of the secret a stored dp_statistic is sealed under (NULL: not sealed)';

-- A key records the noise secret it draws under; a draw where keyed noise
-- would come from another secret is refused (never drawn anew).  Keys
-- registered before keep the secret they draw under now.  NULL (a key
-- restored from a dump older than 0.15.0) records nothing.
ALTER TABLE dp_stream.keys ADD COLUMN noise_secret bigint;
COMMENT ON COLUMN dp_stream.keys.noise_secret IS
    'the id of the noise secret (dp_stream.secrets) the key draws under; a draw under any other is refused';
ALTER TABLE dp_stream.keys DISABLE TRIGGER keys_append_only;
DO $$
BEGIN
  UPDATE dp_stream.keys SET noise_secret = dp_stream.keyed_noise_secret();
EXCEPTION WHEN object_not_in_prerequisite_state THEN
  -- keys restored without their secrets: their draws are refused already
  NULL;
END $$;
ALTER TABLE dp_stream.keys ENABLE TRIGGER keys_append_only;

-- register_key as in 0.14.0, and: the key records its noise secret; on the
-- coordinator of a Citus cluster the registry reaches every node (on the
-- lines of the old ones, so that the CONTEXT of its errors stays as it was).
CREATE OR REPLACE FUNCTION dp_stream_private.register_key(key text, mechanism @extschema@.dp_mechanism, dataset text,
                                       used_by regrole, computes text)
RETURNS @extschema@.dp_mechanism
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
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
  INSERT INTO dp_stream.keys (key, mechanism, used_by, computes, dataset, noise_secret)
  VALUES (key, keyed, used_by, computes, dataset, dp_stream.keyed_noise_secret());
  IF dataset IS NOT NULL THEN
    PERFORM dp_stream.charge(dataset, @extschema@.dp_epsilon(keyed), format('key %s', key));
  END IF;
  PERFORM dp_stream.citus_sync(false); RETURN keyed;
EXCEPTION WHEN unique_violation THEN
  RAISE EXCEPTION 'key "%" already exists', key
    USING ERRCODE = 'duplicate_object',
          HINT = 'A key is registered once; use the mechanism it was registered with (see dp_stream.keys).';
END $$;

-- The switch to the table sampler moves every key to the new secret: a
-- decision taken with the warning below, not a silent change.
CREATE OR REPLACE FUNCTION dp_stream.use_table_sampler_for_keyed_noise() RETURNS bigint
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
  ALTER TABLE dp_stream.keys DISABLE TRIGGER keys_append_only;
  UPDATE dp_stream.keys SET noise_secret = found_id;
  ALTER TABLE dp_stream.keys ENABLE TRIGGER keys_append_only;
  PERFORM dp_stream.citus_sync(false);
  RETURN found_id;
END $$;

-- ---------------------------------------------------------------------
-- Citus: one set of secrets and keys for the whole cluster.
--
-- The coordinator's dp_stream.secrets, dp_stream.keys and the budgets its
-- keys charge are copied to every other node through citus_transfer, a
-- Citus reference table (made one at the first sync).  Citus writes a
-- reference table's rows to every node with COPY, in the distributed
-- transaction, so the secrets never appear in SQL text that log_statement
-- or citus.log_remote_commands logs, nor in bind parameters; a trigger on
-- each node's placement merges them into its own tables, and the table is
-- emptied (TRUNCATE: a new file) before the transaction ends.
CREATE TABLE dp_stream.citus_transfer (
    position int NOT NULL,
    kind text NOT NULL CHECK (kind IN ('secret', 'budget', 'key')),
    body text NOT NULL
);
REVOKE ALL ON dp_stream.citus_transfer FROM PUBLIC;
COMMENT ON TABLE dp_stream.citus_transfer IS
    'internal: empty; dp_stream.citus_sync_secrets() passes the coordinator''s secrets and keys through it to every node of a Citus cluster';

-- On every node but the coordinator: the rows just copied become the
-- node's secrets and keys.  Refused where that would change what the node
-- released: keys of its own, keys drawing under a noise secret of its own,
-- states sealed under a secret of its own.
CREATE FUNCTION dp_stream.citus_absorb() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  incoming_secrets dp_stream.secrets[];
  incoming_keys dp_stream.keys[];
  incoming_budgets dp_stream.budgets[];
  own_seal bigint[];
  own_noise bigint[];
  found_keys text;
  found_secret bigint;
  column_found record;
  replication_role text;
BEGIN
  IF (SELECT groupid FROM pg_catalog.pg_dist_local_group) = 0 THEN
    RETURN NULL;   -- the coordinator: the rows are its own
  END IF;
  PERFORM pg_catalog.set_config('citus.override_table_visibility', 'off', true);
  -- as rotate_secret: wait for every transaction that sealed under this
  -- node's secrets, so that the scan below sees what they sealed, and keep
  -- new sealing waiting until the node has the cluster's secrets
  LOCK TABLE dp_stream.secrets IN EXCLUSIVE MODE;
  EXECUTE format('SELECT array_agg(body::dp_stream.secrets ORDER BY position) FILTER (WHERE kind = ''secret''),
                         array_agg(body::dp_stream.keys ORDER BY position) FILTER (WHERE kind = ''key''),
                         array_agg(body::dp_stream.budgets ORDER BY position) FILTER (WHERE kind = ''budget'')
                  FROM %I.%I', TG_TABLE_SCHEMA, TG_TABLE_NAME)
    INTO incoming_secrets, incoming_keys, incoming_budgets;
  IF incoming_secrets IS NULL THEN
    RAISE EXCEPTION 'dp_stream.citus_sync_secrets() copied no secrets'
      USING ERRCODE = 'object_not_in_prerequisite_state';
  END IF;
  incoming_keys := coalesce(incoming_keys, '{}');
  incoming_budgets := coalesce(incoming_budgets, '{}');
  IF EXISTS (SELECT 1 FROM dp_stream.secrets AS l, unnest(incoming_secrets) AS i
             WHERE l.id = i.id AND (l.purpose, l.secret) IS DISTINCT FROM (i.purpose, i.secret)) THEN
    RAISE EXCEPTION 'dp_stream secret ids collide between the coordinator and this node'
      USING ERRCODE = 'data_corrupted';
  END IF;
  SELECT array_agg(l.id) FILTER (WHERE l.purpose = 'seal'),
         array_agg(l.id) FILTER (WHERE l.purpose <> 'seal')
    INTO own_seal, own_noise
    FROM dp_stream.secrets AS l
   WHERE l.id NOT IN (SELECT i.id FROM unnest(incoming_secrets) AS i);

  -- keys the coordinator does not have (registered here), or drawing under
  -- a noise secret only this node has
  SELECT string_agg(format('%L', l.key), ', ' ORDER BY l.key) INTO found_keys
    FROM dp_stream.keys AS l
   WHERE NOT EXISTS (SELECT 1 FROM unnest(incoming_keys) AS i
                     WHERE i.key = l.key AND i.mechanism::text = l.mechanism::text
                       AND i.used_by = l.used_by AND i.computes = l.computes
                       AND i.noise_secret IS NOT DISTINCT FROM l.noise_secret)
      OR l.noise_secret = ANY (own_noise);
  IF found_keys IS NOT NULL THEN
    RAISE EXCEPTION 'dp_stream''s secrets cannot be synced onto node %: it has released keyed noise under its own secrets', current_setting('port')
      USING ERRCODE = 'object_not_in_prerequisite_state',
            DETAIL = format('Keys %s were registered on this node, or draw under a noise secret the coordinator does not have: under the cluster''s secret their data would be released again with new noise.', found_keys),
            HINT = 'Register keys on the coordinator only. A superuser removes these keys on this node (ALTER TABLE dp_stream.keys DISABLE TRIGGER USER; DELETE FROM dp_stream.keys WHERE ...; ENABLE TRIGGER USER), accepting that what they released will be released once more, and runs SELECT dp_stream.citus_sync_secrets() on the coordinator again.';
  END IF;

  -- states sealed under a seal secret only this node has
  IF own_seal IS NOT NULL THEN
    FOR column_found IN
      SELECT a.attrelid::regclass AS relation, a.attname
        FROM pg_catalog.pg_attribute AS a
        JOIN pg_catalog.pg_class AS c ON c.oid = a.attrelid
       WHERE a.atttypid IN ('@extschema@.dp_counter'::regtype, '@extschema@.dp_statistic'::regtype)
         AND a.attnum > 0 AND NOT a.attisdropped AND c.relkind IN ('r', 'm')
         AND c.relpersistence <> 't'   -- other sessions' temporary tables: gone with them
         -- a Citus table's rows are in its shards, which are this node's tables
         AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_dist_partition AS d WHERE d.logicalrelid = a.attrelid)
       ORDER BY 1, 2
    LOOP
      EXECUTE format('SELECT dp_stream.sealed_secret_id(%I) FROM %s WHERE dp_stream.sealed_secret_id(%I) = ANY ($1) LIMIT 1',
                     column_found.attname, column_found.relation, column_found.attname)
        INTO found_secret USING own_seal;
      IF found_secret IS NOT NULL THEN
        RAISE EXCEPTION 'dp_stream''s secrets cannot be synced onto node %: it holds states sealed under its own secret', current_setting('port')
          USING ERRCODE = 'object_not_in_prerequisite_state',
                DETAIL = format('Column %s of %s holds states sealed under secret %s, which the coordinator does not have: they would no longer open.', column_found.attname, column_found.relation, found_secret),
                HINT = 'Drop those states on this node, or first give the coordinator this node''s sealing secret with an older created_at than its own (it then opens them everywhere and seals nothing new), then run SELECT dp_stream.citus_sync_secrets() on the coordinator again.';
      END IF;
    END LOOP;
  END IF;

  DELETE FROM dp_stream.secrets AS l
   WHERE l.id NOT IN (SELECT i.id FROM unnest(incoming_secrets) AS i);
  INSERT INTO dp_stream.secrets
  SELECT i.* FROM unnest(incoming_secrets) AS i
   WHERE NOT EXISTS (SELECT 1 FROM dp_stream.secrets AS l WHERE l.id = i.id);
  -- copies, exactly as the coordinator holds them: not checked again by
  -- the registry's triggers (a key registered before 0.14.0 without a
  -- stated max_per_step would stop every sync; budgets are refused on a
  -- worker but for these copies), which stay on for the rest of the
  -- transaction
  replication_role := current_setting('session_replication_role');
  PERFORM pg_catalog.set_config('session_replication_role', 'replica', true);
  INSERT INTO dp_stream.budgets
  SELECT i.* FROM unnest(incoming_budgets) AS i
  ON CONFLICT (dataset) DO NOTHING;
  INSERT INTO dp_stream.keys
  SELECT i.* FROM unnest(incoming_keys) AS i
   WHERE NOT EXISTS (SELECT 1 FROM dp_stream.keys AS l WHERE l.key = i.key);
  PERFORM pg_catalog.set_config('session_replication_role', replication_role, true);
  RETURN NULL;
END $$;
REVOKE ALL ON FUNCTION dp_stream.citus_absorb() FROM PUBLIC;
COMMENT ON FUNCTION dp_stream.citus_absorb() IS
    'internal: on a Citus worker, makes the secrets and keys copied by dp_stream.citus_sync_secrets() the node''s own';
CREATE TRIGGER citus_absorb AFTER INSERT ON dp_stream.citus_transfer
    FOR EACH STATEMENT EXECUTE FUNCTION dp_stream.citus_absorb();

-- The sync, on the coordinator; returns the number of other nodes it
-- reached.  Outside a Citus cluster (or with no other node) it does
-- nothing, or, called for itself (explicit), says why.  On a worker it is
-- an error: there create_key, rotate_secret, drop_secret and the sampler
-- switch, which call it, are refused too.
CREATE FUNCTION dp_stream.citus_sync(explicit boolean) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  nodes integer;
  placements integer;
  unsafe_triggers text;
  message text;
  detail text;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'citus') THEN
    IF explicit THEN
      RAISE EXCEPTION 'Citus is not installed in this database'
        USING ERRCODE = 'object_not_in_prerequisite_state',
              HINT = 'dp_stream.citus_sync_secrets() gives every node of a Citus cluster the coordinator''s secrets; run it on the coordinator.';
    END IF;
    RETURN 0;
  END IF;
  IF (SELECT groupid FROM pg_catalog.pg_dist_local_group) <> 0 THEN
    -- a worker: a key, secret or sampler of its own would be refused by
    -- the next sync, or replaced by it
    RAISE EXCEPTION '% runs on the coordinator of a Citus cluster',
                    CASE WHEN explicit THEN 'dp_stream.citus_sync_secrets()'
                         ELSE 'this function of dp_stream' END
      USING ERRCODE = 'object_not_in_prerequisite_state',
            DETAIL = 'The coordinator''s secrets and keys are the cluster''s: dp_stream.citus_sync_secrets() copies them to this node.',
            HINT = 'Connect to the coordinator and run it there.';
  END IF;
  SELECT count(*) INTO nodes FROM pg_catalog.pg_dist_node
   WHERE isactive AND noderole = 'primary' AND groupid <> 0;
  IF nodes = 0 THEN
    RETURN 0;
  END IF;
  unsafe_triggers := current_setting('citus.enable_unsafe_triggers');
  PERFORM set_config('citus.enable_unsafe_triggers', 'on', true);
  IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_dist_partition
                 WHERE logicalrelid = 'dp_stream.citus_transfer'::regclass) THEN
    PERFORM pg_catalog.create_reference_table('dp_stream.citus_transfer');
  END IF;
  -- a node added since: the reference table is copied to it first
  SELECT count(DISTINCT p.groupid) INTO placements
    FROM pg_catalog.pg_dist_placement AS p JOIN pg_catalog.pg_dist_shard AS s USING (shardid)
   WHERE s.logicalrelid = 'dp_stream.citus_transfer'::regclass AND p.groupid <> 0;
  IF placements < nodes THEN
    PERFORM pg_catalog.replicate_reference_tables('block_writes');
  END IF;
  TRUNCATE dp_stream.citus_transfer;
  BEGIN
    INSERT INTO dp_stream.citus_transfer (position, kind, body)
    SELECT row_number() OVER (), t.kind, t.body
      FROM (SELECT 'secret' AS kind, s::text AS body FROM dp_stream.secrets AS s
            UNION ALL
            SELECT 'budget', b::text FROM dp_stream.budgets AS b
             WHERE b.dataset IN (SELECT k.dataset FROM dp_stream.keys AS k)
            UNION ALL
            SELECT 'key', k::text FROM dp_stream.keys AS k) AS t;
  EXCEPTION WHEN OTHERS THEN
    -- a node's refusal comes back without its SQLSTATE and hint: both, here
    GET STACKED DIAGNOSTICS message = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL;
    IF message NOT LIKE 'dp_stream''s secrets cannot be synced onto node %' THEN
      RAISE;
    END IF;
    RAISE EXCEPTION '%', message
      USING ERRCODE = 'object_not_in_prerequisite_state', DETAIL = detail,
            HINT = CASE
              WHEN message LIKE '%released keyed noise%' THEN
                'Register keys on the coordinator only. A superuser removes these keys on that node (ALTER TABLE dp_stream.keys DISABLE TRIGGER USER; DELETE FROM dp_stream.keys WHERE ...; ENABLE TRIGGER USER), accepting that what they released will be released once more, and runs SELECT dp_stream.citus_sync_secrets() again.'
              WHEN message LIKE '%sealed under its own secret%' THEN
                'Drop those states on that node, or first give the coordinator that node''s sealing secret with an older created_at than its own (it then opens them everywhere and seals nothing new), then run SELECT dp_stream.citus_sync_secrets() again.'
            END;
  END;
  TRUNCATE dp_stream.citus_transfer;
  PERFORM set_config('citus.enable_unsafe_triggers', unsafe_triggers, true);
  RETURN nodes;
END $$;
REVOKE ALL ON FUNCTION dp_stream.citus_sync(boolean) FROM PUBLIC;
COMMENT ON FUNCTION dp_stream.citus_sync(boolean) IS
    'internal: copies the coordinator''s secrets and keys to every node of a Citus cluster; nothing elsewhere (explicit: an error there)';

CREATE FUNCTION dp_stream_private.citus_sync_secrets() RETURNS integer
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$ SELECT dp_stream.citus_sync(true) $$;
REVOKE ALL ON FUNCTION dp_stream_private.citus_sync_secrets() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION dp_stream_private.citus_sync_secrets() TO dp_stream_admin;
CREATE FUNCTION dp_stream.citus_sync_secrets() RETURNS integer
LANGUAGE sql SET search_path = pg_catalog, pg_temp
AS $$
  SELECT dp_stream.require_admin('dp_stream_private.citus_sync_secrets()');
  SELECT * FROM dp_stream_private.citus_sync_secrets();
$$;
COMMENT ON FUNCTION dp_stream_private.citus_sync_secrets() IS
    'gives every node of a Citus cluster the coordinator''s secrets, keys and their budgets, in one transaction; returns the number of nodes (on the coordinator)';
COMMENT ON FUNCTION dp_stream.citus_sync_secrets() IS
    'gives every node of a Citus cluster the coordinator''s secrets, keys and their budgets, in one transaction; returns the number of nodes (on the coordinator)';

-- Whether this database is a worker of a Citus cluster (not its
-- coordinator).  Two statements: without Citus, pg_dist_local_group does
-- not exist.
CREATE FUNCTION dp_stream.citus_worker() RETURNS boolean
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'citus') THEN
    RETURN false;
  END IF;
  RETURN (SELECT groupid FROM pg_catalog.pg_dist_local_group) <> 0;
END $$;
COMMENT ON FUNCTION dp_stream.citus_worker() IS
    'internal: whether this database is a worker of a Citus cluster rather than its coordinator';

-- The ledger is the coordinator's: a charge on a worker would count
-- against a copy of a budget that nobody reads.
CREATE FUNCTION dp_stream.charges_on_coordinator() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  IF dp_stream.citus_worker() THEN
    RAISE EXCEPTION 'epsilon is charged on the coordinator of a Citus cluster'
      USING ERRCODE = 'object_not_in_prerequisite_state',
            DETAIL = 'The budgets are the coordinator''s: a charge made on a worker would not count against them.',
            HINT = 'Connect to the coordinator: charge, and create keys, publications and streams that charge a dataset, there.';
  END IF;
  RETURN NULL;
END $$;
REVOKE ALL ON FUNCTION dp_stream.charges_on_coordinator() FROM PUBLIC;
COMMENT ON FUNCTION dp_stream.charges_on_coordinator() IS
    'internal: refuses a charge on a Citus worker (trigger on dp_stream.charges)';
CREATE TRIGGER charges_on_coordinator BEFORE INSERT ON dp_stream.charges
    FOR EACH STATEMENT EXECUTE FUNCTION dp_stream.charges_on_coordinator();

-- rotate_secret and drop_secret as in 0.12.0 and 0.11.0, and: on the
-- coordinator of a Citus cluster every node follows in the same transaction.
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
  PERFORM dp_stream.citus_sync(false);
  RETURN new_id;
END $$;

CREATE OR REPLACE FUNCTION dp_stream.drop_secret(secret_id bigint) RETURNS void
LANGUAGE plpgsql STRICT SET search_path = pg_catalog, pg_temp
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
  -- every node drops it too, unless one still holds states sealed under it
  PERFORM dp_stream.citus_sync(false);
END $$;

-- ===== section: citus2 =====
-- Budgets, managed streams and publications live on the coordinator of a
-- Citus cluster.  Their administrative functions are refused on a worker
-- before they do anything (55000, with a hint), and the catalogs refuse
-- rows written on a worker by any other way (dp_stream_private's functions
-- called directly): a stream advanced on a worker would release outside
-- the coordinator's ledger, a budget created there would be charged by
-- nobody.
CREATE FUNCTION dp_stream.require_coordinator(function text) RETURNS void
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  IF dp_stream.citus_worker() THEN
    RAISE EXCEPTION '% runs on the coordinator of a Citus cluster', function
      USING ERRCODE = 'object_not_in_prerequisite_state',
            DETAIL = 'Budgets, keys, managed streams and publications are the coordinator''s: made or advanced on a worker, they would release and charge outside the cluster''s ledger.',
            HINT = 'Connect to the coordinator and run it there; feed it from queries over the distributed tables.';
  END IF;
END $$;
COMMENT ON FUNCTION dp_stream.require_coordinator(text) IS
    'internal: raises 55000 on a worker of a Citus cluster, naming the function that runs on the coordinator';

-- each administrative wrapper checks where it runs, right after who runs it
-- (with search_path pg_catalog only: the extension's schema may hold
-- functions or operators a database owner planted, such as a format(text,
-- text) that would match better than pg_catalog's variadic one)
DO $$
DECLARE
  f record;
  definition text;
  script_path text := pg_catalog.current_setting('search_path');
BEGIN
  PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
  FOR f IN SELECT p.oid, p.proname
             FROM pg_catalog.pg_proc AS p
            WHERE p.pronamespace = 'dp_stream'::regnamespace
              AND p.proname IN ('advance', 'charge', 'create_budget', 'create_key', 'create_publication',
                                'create_stream', 'publish', 'register_key', 'register_publication')
  LOOP
    definition := pg_get_functiondef(f.oid);
    IF definition !~ 'SELECT dp_stream\.require_admin\([^;]*\);' THEN
      RAISE EXCEPTION 'dp_stream.% is not a wrapper of dp_stream_private', f.proname;
    END IF;
    -- in the same statement: the CONTEXT of the function's errors
    -- ("statement 2") stays as it was
    EXECUTE regexp_replace(definition, '(SELECT dp_stream\.require_admin\([^;]*\));',
                           format('\1, dp_stream.require_coordinator(%L);', 'dp_stream.' || f.proname));
  END LOOP;
  PERFORM pg_catalog.set_config('search_path', script_path, true);
END $$;

CREATE FUNCTION dp_stream.catalog_on_coordinator() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  IF dp_stream.citus_worker() THEN
    RAISE EXCEPTION 'dp_stream.% is written on the coordinator of a Citus cluster', TG_TABLE_NAME
      USING ERRCODE = 'object_not_in_prerequisite_state',
            DETAIL = 'Budgets, managed streams and publications are the coordinator''s: made or advanced on a worker, they would release and charge outside the cluster''s ledger.',
            HINT = 'Connect to the coordinator and run it there.';
  END IF;
  IF TG_OP = 'DELETE' THEN
    RETURN OLD;
  END IF;
  RETURN NEW;
END $$;
REVOKE ALL ON FUNCTION dp_stream.catalog_on_coordinator() FROM PUBLIC;
COMMENT ON FUNCTION dp_stream.catalog_on_coordinator() IS
    'internal: refuses rows of budgets, streams, publications and releases written on a Citus worker (trigger)';
-- per row: an update script that touches these catalogs on a worker (no
-- rows there) still runs
CREATE TRIGGER streams_on_coordinator BEFORE INSERT OR UPDATE OR DELETE ON dp_stream.streams
    FOR EACH ROW EXECUTE FUNCTION dp_stream.catalog_on_coordinator();
CREATE TRIGGER publications_on_coordinator BEFORE INSERT OR UPDATE OR DELETE ON dp_stream.publications
    FOR EACH ROW EXECUTE FUNCTION dp_stream.catalog_on_coordinator();
CREATE TRIGGER releases_on_coordinator BEFORE INSERT OR UPDATE OR DELETE ON dp_stream.releases
    FOR EACH ROW EXECUTE FUNCTION dp_stream.catalog_on_coordinator();
-- budgets: the copies citus_absorb makes (as a replica) are the only ones
CREATE TRIGGER budgets_on_coordinator BEFORE INSERT OR UPDATE ON dp_stream.budgets
    FOR EACH ROW EXECUTE FUNCTION dp_stream.catalog_on_coordinator();
-- ===== end of section: citus2 =====

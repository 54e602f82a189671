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
-- dp_keyed(mechanism, key, partition => value): one key for the partitions
-- of one publication, each drawing noise of its own (docs/keyed_noise.md).
-- Not STRICT: a NULL partition is refused with its own message.  A query
-- that draws under one key and partition for two streams with different
-- data is refused by the aggregates themselves (0A000).
CREATE FUNCTION @extschema@.dp_keyed(mechanism @extschema@.dp_mechanism, key text,
                                     partition anycompatible)
    RETURNS @extschema@.dp_mechanism
    AS 'MODULE_PATHNAME', 'dp_keyed_partition_option' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.dp_keyed(@extschema@.dp_mechanism, text, anycompatible) IS
    'the mechanism with keyed noise under a registered key, for one partition of a publication '
    '(text, integer, numeric, boolean or uuid); the partition enters the noise, not the registration';

-- ===== end of section: keys and partitions =====



-- ===== section: repeatable noise and the ledger =====

-- ===== end of section: repeatable noise and the ledger =====



-- ===== section: secrets, rotation, restore, install =====

-- ===== end of section: secrets, rotation, restore, install =====

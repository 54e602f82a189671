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

-- ===== end of section: secrets, rotation, restore, install =====

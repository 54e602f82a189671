-- dp_stream 0.9.0 -> 0.10.0: continual counting with gradual privacy
-- expiration and its window baseline (docs/expiration.md).

\echo Use "ALTER EXTENSION dp_stream UPDATE TO '0.10.0'" to load this file. \quit

CREATE FUNCTION @extschema@.dp_expiring(epsilon float8, lambda float8, delay bigint DEFAULT 0,
                                         max_per_step bigint DEFAULT 1)
    RETURNS @extschema@.dp_mechanism
    AS 'MODULE_PATHNAME', 'dp_expiring_construct' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.dp_expiring(float8, float8, bigint, bigint) IS
    'privacy expiration: an item d steps old loses epsilon g(d), g of order log(d)^lambda; no horizon, pan-private option, error O(log T / epsilon) for lambda > 3/2';

CREATE FUNCTION @extschema@.dp_expiring_baseline(epsilon_current float8, epsilon_past float8,
                                                  window_size bigint, horizon bigint,
                                                  max_per_step bigint DEFAULT 1)
    RETURNS @extschema@.dp_mechanism
    AS 'MODULE_PATHNAME', 'dp_expiring_baseline_construct' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.dp_expiring_baseline(float8, float8, bigint, bigint, bigint) IS
    'the baseline of privacy expiration: epsilon_current for the last window steps, epsilon_current + epsilon_past for older items; T-bounded';

CREATE FUNCTION @extschema@.dp_privacy_loss(mechanism @extschema@.dp_mechanism, age bigint)
    RETURNS float8
    AS 'MODULE_PATHNAME', 'dp_privacy_loss_sql' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.dp_privacy_loss(@extschema@.dp_mechanism, bigint) IS
    'the guaranteed privacy loss of an item (or a person''s oldest contribution) released age steps ago, by all releases so far';

CREATE FUNCTION @extschema@.dp_privacy_loss_curve(mechanism @extschema@.dp_mechanism, max_age bigint)
    RETURNS TABLE(age bigint, loss float8)
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE SET search_path = pg_catalog, pg_temp
AS $$ SELECT a, @extschema@.dp_privacy_loss(mechanism, a) FROM generate_series(0::bigint, max_age) AS a $$;
COMMENT ON FUNCTION @extschema@.dp_privacy_loss_curve(@extschema@.dp_mechanism, bigint) IS
    'dp_privacy_loss for every age from 0 to max_age';

-- dp_mechanism_kinds() (0.14.0): the registry as a table.  The docs' tables
-- of kinds and options are compared with it (test/docs.sh); here it is
-- compared with what the constructors and options actually accept, so a
-- column that says yes where the code refuses (or the reverse) fails.
SET client_min_messages = warning;  -- the extension may exist already (an earlier test)
CREATE EXTENSION IF NOT EXISTS dp_stream;
RESET client_min_messages;
SET dp_stream.argument_order_warning = off;  -- the calls below are in 0.14.0's order

-- every kind of the registry, once, with its columns
SELECT * FROM dp_mechanism_kinds() ORDER BY kind;

-- whether a statement runs (any error: no)
CREATE FUNCTION kinds_accepts(statement text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE statement;
  RETURN true;
EXCEPTION WHEN OTHERS THEN
  RETURN false;
END $$;

-- a mechanism of the kind with a pure epsilon form (the expiring and
-- decayed kinds need their real parameter, which dp_mechanism_of cannot pass), or NULL
CREATE FUNCTION kinds_epsilon_form(kind text, bounded boolean) RETURNS dp_mechanism
LANGUAGE plpgsql AS $$
BEGIN
  IF kind = 'expiring' THEN
    RETURN dp_expiring(1.0, 1, lambda => 2);
  ELSIF kind = 'expiring_baseline' THEN
    RETURN dp_expiring_baseline(1.0, 1024, 1, epsilon_past => 0.5, window_size => 7);
  ELSIF kind = 'rolling' THEN
    RETURN dp_rolling(1.0, 9, 1, levels => 2, arity => 3);  -- every parameter written
  ELSIF kind = 'decayed' THEN
    RETURN dp_decayed(1.0, 1, gamma => 0.9);
  END IF;
  -- balanced with an arity of its own: dp_auto's choice (the default arity)
  -- is chosen again under an option it refuses (registry.sql)
  RETURN dp_mechanism_of(kind, 1.0, CASE WHEN bounded THEN 1024 END, 1,
                         CASE WHEN kind LIKE 'balanced%' THEN 5 END);
EXCEPTION WHEN OTHERS THEN
  RETURN NULL;
END $$;

CREATE FUNCTION kinds_rho_form(kind text, bounded boolean) RETURNS dp_mechanism
LANGUAGE plpgsql AS $$
BEGIN
  IF kind = 'rolling' THEN
    RETURN 'rolling(rho=0.5,width=7,max_per_step=1)'::dp_mechanism;
  END IF;
  RETURN dp_zcdp_mechanism_of(kind, 0.5, CASE WHEN bounded THEN 1024 END, 1);
EXCEPTION WHEN OTHERS THEN
  RETURN NULL;
END $$;

-- what the code does, kind by kind: each option tried on the epsilon form
-- (the rho form for the kinds that have no other)
CREATE TEMP TABLE observed AS
SELECT k.kind,
       e IS NOT NULL AS epsilon,
       r IS NOT NULL AS rho,
       kinds_accepts(format('SELECT dp_pan_private(%L::dp_mechanism)', coalesce(e, r))) AS pan_private,
       kinds_accepts(format('SELECT dp_consistent(%L::dp_mechanism)', coalesce(e, r))) AS consistent,
       kinds_accepts(format('SELECT dp_keyed(%L::dp_mechanism, %L)', coalesce(e, r), 'registry_check')) AS keyed,
       kinds_accepts(format('SELECT dp_person_level(%L::dp_mechanism, 3)', coalesce(e, r))) AS person_level,
       coalesce(e, r)::text AS built
FROM dp_mechanism_kinds() k,
     LATERAL kinds_epsilon_form(k.kind, k.bounded) e,
     LATERAL kinds_rho_form(k.kind, k.bounded) r;

-- every kind could be built, and as the kind it names
SELECT kind, built FROM observed WHERE built IS NULL OR built NOT LIKE kind || '(%';

-- the registry's columns against the behaviour: no row
SELECT k.kind, k.epsilon, o.epsilon AS epsilon_observed, k.rho, o.rho AS rho_observed,
       k.pan_private, o.pan_private AS pan_private_observed,
       k.consistent, o.consistent AS consistent_observed,
       k.keyed, o.keyed AS keyed_observed,
       k.person_level, o.person_level AS person_level_observed
FROM dp_mechanism_kinds() k JOIN observed o USING (kind)
WHERE (k.epsilon, k.rho, k.pan_private, k.consistent, k.keyed, k.person_level)
      IS DISTINCT FROM (o.epsilon, o.rho, o.pan_private, o.consistent, o.keyed, o.person_level);

-- the parameters are the ones the text form names
SELECT k.kind, p AS parameter
FROM dp_mechanism_kinds() k, unnest(k.parameters) p, observed o
WHERE o.kind = k.kind AND o.built NOT LIKE '%' || p || '=%';

-- each kind once
SELECT count(*) AS kinds, count(DISTINCT kind) AS distinct_kinds FROM dp_mechanism_kinds();

DROP FUNCTION kinds_accepts(text);
DROP FUNCTION kinds_epsilon_form(text, boolean);
DROP FUNCTION kinds_rho_form(text, boolean);

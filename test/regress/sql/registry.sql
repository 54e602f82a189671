-- dp_mechanisms() (0.16.0): the registry with the facts each kind declares,
-- and what reads it: dp_compare_mechanisms's candidates, dp_auto's choice,
-- and the refusals formatted from a kind's declared parameters.
SET client_min_messages = warning;  -- the extension may exist already (an earlier test)
CREATE EXTENSION IF NOT EXISTS dp_stream;
RESET client_min_messages;
SET dp_stream.argument_order_warning = off;

SELECT kind, constructor, bounded, epsilon, rho, options, parameters, parameter_defaults, auto_rank
FROM dp_mechanisms() ORDER BY kind;
SELECT kind, parameters, parameter_ranges FROM dp_mechanisms()
WHERE cardinality(parameters) > 0 ORDER BY kind;

-- dp_mechanism_kinds() and dp_mechanisms() agree on every kind
SELECT count(*) AS kinds,
       count(*) FILTER (WHERE k.bounded = m.bounded AND k.parameters = m.parameters
                        AND k.epsilon = m.epsilon AND k.rho = m.rho
                        AND k.pan_private = ('pan_private' = ANY (m.options))
                        AND k.keyed = ('keyed' = ANY (m.options))
                        AND k.person_level = ('person_level' = ANY (m.options))) AS agreeing
FROM dp_mechanism_kinds() k JOIN dp_mechanisms() m USING (kind);

-- dp_compare_mechanisms: one row per kind with an epsilon form and defaults
-- for all its parameters
SELECT split_part(mechanism::text, '(', 1) AS kind
FROM dp_compare_mechanisms(1.0, 1000, 500, 1) ORDER BY 1;
SELECT count(*) = (SELECT count(*) FROM dp_mechanisms()
                   WHERE epsilon AND array_position(parameter_defaults, NULL) IS NULL) AS one_per_candidate
FROM dp_compare_mechanisms(1.0, 1000, 500, 1);

-- dp_auto: the kind of lowest rank that fits the horizon
SELECT dp_auto(1.0, 365, 1)::text = dp_balanced(1.0, 365, 1)::text AS bounded_is_balanced,
       dp_auto(1.0, NULL, 1)::text = dp_balanced_unbounded(1.0, 1)::text AS unbounded_is_balanced_unbounded;
SELECT kind AS auto_bounded FROM dp_mechanisms() WHERE bounded AND auto_rank IS NOT NULL ORDER BY auto_rank LIMIT 1;

-- refusals worded from the registry's declared parameters and limits
SELECT dp_expiring(1.0, 1, lambda => 17);
SELECT dp_expiring(1.0, 1, lambda => 2, delay => 300);
SELECT dp_expiring_baseline(1.0, 100, 1, epsilon_past => 0.5, window_size => 0);
SELECT dp_expiring(1e-11, 1, lambda => 0.1);
SELECT dp_blt(rho => 0.5, horizon => 2199023255553);
SELECT dp_pan_private(dp_ppcum(1, 10, 1));

-- dp_auto with options: a wrapper whose option dp_auto's kind refuses
-- chooses again among the kinds that accept it (lowest rank), says so in
-- a NOTICE, and the text shows the kind
SELECT dp_keyed(dp_auto(1.0, 365, 50), 'k');
SELECT dp_pan_private(dp_auto(1.0, 365, 50));
SELECT dp_pan_private(dp_auto(1.0, NULL, 50));
SELECT dp_keyed(dp_person_level(dp_auto(1.0, 365, 100), 3), 'k');
SELECT dp_person_level(dp_keyed(dp_auto(1.0, NULL, 100), 'k'), 3);
-- the choice is the registry's: the lowest rank among the kinds with the options
SELECT (SELECT kind FROM dp_mechanisms() WHERE bounded AND auto_rank IS NOT NULL
          AND options @> '{keyed,pan_private}' ORDER BY auto_rank LIMIT 1)
       = split_part(dp_keyed(dp_auto(1.0, 365, 50), 'k')::text, '(', 1) AS keyed_choice_is_the_registrys;
-- options dp_auto's kind accepts keep it
SELECT dp_person_level(dp_auto(1.0, 365, 100), 3), dp_consistent(dp_auto(1.0, 365, 50));
-- a balanced mechanism with an arity of its own is refused as before
SELECT dp_keyed(dp_balanced(1.0, 365, 50, arity => 5), 'k');
SELECT dp_pan_private(dp_balanced_unbounded(1.0, 50, 7));
-- rho: dp_auto is epsilon only, a rho mechanism is never chosen again
SELECT dp_pan_private(dp_zcdp_mechanism_of('balanced', 0.5, 365, 1));
-- counting with dp_auto and an option runs end to end
SELECT split_part(dp_mechanism(dp_count_state(v, dp_pan_private(dp_auto(1.0, 30, 5)) ORDER BY t))::text, '(', 1) AS kind,
       dp_steps(dp_count_state(v, dp_pan_private(dp_auto(1.0, 30, 5)) ORDER BY t)) AS steps
FROM (VALUES (1, 2), (2, 3), (3, 1)) AS d(t, v);

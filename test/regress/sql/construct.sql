-- The generic constructor (0.16.0): every constructor written in C is one C
-- function, dp_mechanism_construct, which takes the kind from the name of
-- the function called and reads its arguments by their declared names.
SET client_min_messages = warning;  -- the extension may exist already (an earlier test)
CREATE EXTENSION IF NOT EXISTS dp_stream;
RESET client_min_messages;
-- the warning for calls whose meaning 0.14.0 changed: once, at the end
SET dp_stream.argument_order_warning = off;

-- the C constructors of the extension: every one of this version names the
-- generic symbol; only the definitions kept from before 0.14.0 (another
-- argument order) keep theirs
SELECT p.proname, p.prosrc
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'dp_stream'
WHERE p.prolang = (SELECT oid FROM pg_language WHERE lanname = 'c')
  AND p.prosrc ~ '(construct|mechanism_of)'
ORDER BY p.prosrc = 'dp_mechanism_construct' DESC, 1;

-- the kind is the function's name; the arguments are found by name, so a
-- declaration with its arguments in another order builds the same mechanism
CREATE SCHEMA construct_test;
CREATE FUNCTION construct_test.dp_kary(arity bigint, max_per_step bigint, horizon bigint, epsilon float8)
RETURNS dp_mechanism LANGUAGE c IMMUTABLE AS '$libdir/dp_stream', 'dp_mechanism_construct';
SELECT construct_test.dp_kary(4, 50, 365, 1.0) AS reordered,
       construct_test.dp_kary(4, 50, 365, 1.0)::text = dp_kary(1.0, 365, 50, arity => 4)::text AS same;
-- an unbounded kind without a horizon argument, and the rho of a zCDP kind
CREATE FUNCTION construct_test.dp_hybrid(max_per_step bigint, epsilon float8)
RETURNS dp_mechanism LANGUAGE c IMMUTABLE AS '$libdir/dp_stream', 'dp_mechanism_construct';
SELECT construct_test.dp_hybrid(3, 0.5)::text = dp_hybrid(0.5, 3)::text AS same_hybrid;
CREATE FUNCTION construct_test.dp_binary(rho float8, horizon bigint, max_per_step bigint)
RETURNS dp_mechanism LANGUAGE c IMMUTABLE AS '$libdir/dp_stream', 'dp_mechanism_construct';
SELECT construct_test.dp_binary(0.5, 100, 2)::text = dp_gaussian_binary(0.5, 100, 2)::text AS same_as_gaussian;
-- a kind with a real parameter, read by the registry's name for it
CREATE FUNCTION construct_test.dp_expiring(lambda float8, epsilon float8, max_per_step bigint, delay bigint)
RETURNS dp_mechanism LANGUAGE c IMMUTABLE AS '$libdir/dp_stream', 'dp_mechanism_construct';
SELECT construct_test.dp_expiring(2, 1.0, 5, 0)::text = dp_expiring(1.0, 5, lambda => 2)::text AS same_expiring;
-- errors and NULLs are those of the extension's constructor
SELECT construct_test.dp_kary(1, 50, 365, 1.0);
SELECT construct_test.dp_kary(4, 50, NULL, 1.0) IS NULL AS null_horizon;

-- a name that is no kind, and a kind's declaration without the argument it needs
CREATE FUNCTION construct_test.dp_no_such_kind(epsilon float8)
RETURNS dp_mechanism LANGUAGE c IMMUTABLE AS '$libdir/dp_stream', 'dp_mechanism_construct';
SELECT construct_test.dp_no_such_kind(1.0);
CREATE FUNCTION construct_test.dp_two_level(epsilon float8, horizon bigint, max_per_step bigint)
RETURNS dp_mechanism LANGUAGE c IMMUTABLE AS '$libdir/dp_stream', 'dp_mechanism_construct';
SELECT construct_test.dp_two_level(1.0, 100, 1);

-- the symbols of 0.15.0, which a database not yet updated declares, are
-- the generic constructor too
CREATE FUNCTION construct_test.dp_balanced(epsilon float8, horizon bigint, max_per_step bigint DEFAULT NULL, arity bigint DEFAULT NULL)
RETURNS dp_mechanism LANGUAGE c IMMUTABLE AS '$libdir/dp_stream', 'dp_balanced_construct_0_14';
SELECT construct_test.dp_balanced(1.0, 365, 50)::text = dp_balanced(1.0, 365, 50)::text AS same_balanced;
CREATE FUNCTION construct_test.dp_mechanism_of(kind text, epsilon float8, horizon bigint DEFAULT NULL, max_per_step bigint DEFAULT NULL, parameter bigint DEFAULT NULL)
RETURNS dp_mechanism LANGUAGE c IMMUTABLE AS '$libdir/dp_stream', 'dp_mechanism_of_0_14';
RESET dp_stream.argument_order_warning;
SELECT construct_test.dp_mechanism_of('two_level', 1.0, 100, 2, 7) AS by_name;
SELECT construct_test.dp_mechanism_of('no_such', 1.0);

DROP SCHEMA construct_test CASCADE;

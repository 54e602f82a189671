#!/usr/bin/env bash
# A database owner who is not a superuser plants functions for a superuser
# (issue 23, hole 6; README.md, "Install into an existing PostgreSQL").
#
# The owner of a database owns its schema public, and may create schemas
# (one named like a superuser is that superuser's "$user" schema).  After
# the extension is installed, the owner plants, for every function of the
# extension, an overload in public whose float8 and bigint arguments are
# numeric and integer (a better match for literals such as
# dp_hybrid(epsilon => 1.0, max_per_step => 50)), and an exact copy in a
# schema named after the superuser.  Each one, if it ever runs, warns
# "TROJAN", logs itself and makes the owner a superuser.  Then, in a new
# session, the superuser runs the examples of README.md and
# docs/managed_streams.md.
#
#   - the install README.md documents (its "Install" section, run as
#     written, the database and role names replaced): no planted function
#     runs, the owner stays an ordinary role, and the examples run without
#     an error;
#   - the control, `CREATE EXTENSION dp_stream;` as README.md said before
#     0.12.0: planted functions run (so the plant works; with that README,
#     the first test fails), and CREATE EXTENSION warns (0.12.0) that the
#     owner can create functions in public.
#
# Runs in the cluster of scripts/test.sh (PGHOST, PGPORT, PGUSER of a
# superuser); creates and drops its own databases and roles.  Prints TAP.
set -uo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d "${TMPDIR:-/tmp}/dp_stream_safe_install.XXXXXX")
superuser=${PGUSER:-$(id -un)}
owner=dp_si_db_owner
created_roles=()

psql_super() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }

cleanup() {
  for db in dp_si_documented dp_si_old; do
    dropdb --if-exists "$db" >/dev/null 2>&1
  done
  for role in "${created_roles[@]}" "$owner"; do
    psql -X -q -d postgres -c "DROP ROLE IF EXISTS $role" >/dev/null 2>&1
  done
  rm -rf "$work"
}
trap cleanup EXIT

# the ```sql blocks of a page, skipped ones included when $2 = all, between
# the heading $3 (a regex) and the next heading of the same level; a block
# whose stated output (the ```text block right after it, test/docs.sh)
# shows an ERROR is a refusal shown on purpose, and is left out
blocks() {
  awk -v all="$2" -v from="$3" '
    function flush() { if (held != "" && !refused) printf "%s", held; held = ""; refused = 0 }
    $0 ~ from { on = 1; level = index($0, " "); next }
    on && /^#+ / && index($0, " ") <= level { on = 0 }
    !on { next }
    /^<!-- docs-test: skip/ { flush(); skip = 1; next }
    /^```sql[[:space:]]*$/ { flush(); if (skip && all != "all") { skipping = 1 } else { inside = 1 }; skip = 0; next }
    /^```text[[:space:]]*$/ && !inside && !skipping { stated = 1; next }
    /^```/ { inside = 0; skipping = 0; stated = 0; next }
    stated && /^ERROR:/ { refused = 1; next }
    stated { next }
    NF > 0 && !inside && !skipping { skip = 0; flush() }
    inside { held = held $0 "\n" }
    END { flush() }
  ' "$1"
}

echo "1..5"

# the roles README.md grants to, unless they exist; the owner, no superuser
for role in reporting_job analyst; do
  if [ "$(psql -X -At -d postgres -c "SELECT count(*) FROM pg_roles WHERE rolname = '$role'")" = 0 ]; then
    psql_super -d postgres -c "CREATE ROLE $role LOGIN" && created_roles+=("$role")
  fi
done
psql_super -d postgres -c "SET client_min_messages = warning; DROP ROLE IF EXISTS $owner" \
  -c "CREATE ROLE $owner LOGIN NOSUPERUSER NOCREATEROLE"

# What the owner plants, once the extension exists, wherever it is.
cat >"$work/plant.sql" <<SQL
CREATE TABLE public.trojan_log (fn text, ran_as name);
GRANT INSERT ON public.trojan_log TO PUBLIC;
CREATE SCHEMA "$superuser";
GRANT USAGE ON SCHEMA "$superuser" TO PUBLIC;
DO \$plant\$
DECLARE
  f record;
  arguments text;
  body text;
  planted int := 0;
BEGIN
  FOR f IN
    SELECT p.oid, p.proname, pg_get_function_arguments(p.oid) AS arguments,
           pg_get_function_result(p.oid) AS result,
           p.proretset OR p.proargmodes IS NOT NULL AS bare_return
    FROM pg_proc p
    JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
                    AND d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
    JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'dp_stream'
    WHERE p.prokind = 'f'
  LOOP
    body := format(\$b\$ BEGIN
        RAISE WARNING 'TROJAN %%(%%) ran as %%', %L, %L, current_user;
        INSERT INTO public.trojan_log VALUES (%L, current_user);
        IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
          EXECUTE 'ALTER ROLE $owner SUPERUSER';
        END IF;
        RETURN%s;
      END \$b\$, f.proname, f.arguments, f.proname, CASE WHEN f.bare_return THEN '' ELSE ' NULL' END);
    -- a better match for literals, in public
    arguments := replace(replace(f.arguments, 'double precision', 'numeric'), 'bigint', 'integer');
    BEGIN
      EXECUTE format('CREATE FUNCTION public.%I(%s) RETURNS %s LANGUAGE plpgsql AS %L',
                     f.proname, arguments, f.result, body);
      planted := planted + 1;
    EXCEPTION WHEN others THEN NULL;
    END;
    -- the same signature, in the superuser's "\$user" schema
    BEGIN
      EXECUTE format('CREATE FUNCTION %I.%I(%s) RETURNS %s LANGUAGE plpgsql AS %L',
                     '$superuser', f.proname, f.arguments, f.result, body);
      planted := planted + 1;
    EXCEPTION WHEN others THEN NULL;
    END;
  END LOOP;
  RAISE NOTICE 'planted % functions', planted;
END \$plant\$;
-- the owner also sets the database's search_path its way
SELECT format('ALTER DATABASE %I SET search_path = "\$user", public, dp', current_database()) \gexec
SQL

# README.md's install, as written (names replaced), or the old one
blocks README.md all '^## Install into an existing PostgreSQL' |
  sed -e "s/\\bmydb\\b/dp_si_documented/g" -e "s/ROLE postgres /ROLE \"$superuser\" /g" \
  >"$work/install_documented.sql"
echo 'CREATE EXTENSION dp_stream;' >"$work/install_old.sql"

# the examples: README.md from "A first query" on, and the managed streams
{
  echo "SET client_min_messages = warning;"
  blocks README.md some '^## A first query'
  echo "DROP TABLE admissions CASCADE;   -- docs/managed_streams.md makes its own"
  # the page begins with the install, done above (as README.md or the old way),
  # and creates the roles README.md grants to, made above
  blocks docs/managed_streams.md some '^# ' |
    grep -vE '^(CREATE SCHEMA dp;|GRANT USAGE ON SCHEMA dp TO PUBLIC;|CREATE EXTENSION dp_stream SCHEMA dp;|CREATE ROLE (reporting_job|analyst) LOGIN IN ROLE dp_stream_(admin|reader);)'
  echo "SELECT dp_hybrid(epsilon => 1.0, max_per_step => 50) IS NOT NULL AS typed_as_in_the_docs;"
} >"$work/examples.sql"

attack() {
  local name=$1 db=dp_si_$1
  dropdb --if-exists "$db" >/dev/null 2>&1
  createdb -O "$owner" "$db" || return 1
  # the superuser installs
  psql -X -v ON_ERROR_STOP=1 -d "$db" -f "$work/install_$name.sql" >"$work/$name.install.out" 2>&1 ||
    { echo "# the install of $name failed:"; sed 's/^/#   /' "$work/$name.install.out"; }
  # the owner plants
  psql -X -v ON_ERROR_STOP=1 -U "$owner" -d "$db" -f "$work/plant.sql" >"$work/$name.plant.out" 2>&1 ||
    { echo "# planting failed:"; sed 's/^/#   /' "$work/$name.plant.out"; }
  # the superuser, in a new session, runs the examples of the docs
  psql -X -v ON_ERROR_STOP=0 -d "$db" -f "$work/examples.sql" >"$work/$name.out" 2>&1
  grep -c 'TROJAN' "$work/$name.out"
}

documented=$(attack documented)
planted=$(grep -oE 'planted [0-9]+' "$work/documented.plant.out" | grep -oE '[0-9]+' || echo 0)
if [ "$documented" = 0 ] && [ "${planted:-0}" -gt 100 ]; then
  echo "ok 1 - documented install: none of the $planted planted functions ran in the docs' examples"
else
  echo "not ok 1 - documented install: planted functions ran $documented times ($planted planted)"
  grep -m 5 TROJAN "$work/documented.out" | sed 's/^/# /'
fi

super=$(psql -X -At -d postgres -c "SELECT rolsuper FROM pg_roles WHERE rolname = '$owner'")
if [ "$super" = f ]; then
  echo "ok 2 - documented install: the database owner is still no superuser"
else
  echo "not ok 2 - documented install: the database owner became a superuser"
fi

if ! grep -qE '^psql:.*ERROR:' "$work/documented.out" &&
   grep -q 'typed_as_in_the_docs' "$work/documented.out"; then
  echo "ok 3 - documented install: every example runs without an error"
else
  echo "not ok 3 - documented install: an example fails"
  grep -m 5 -B2 'ERROR:' "$work/documented.out" | sed 's/^/# /'
fi

old=$(attack old)
if [ "$old" -gt 0 ]; then
  echo "ok 4 - control: after the pre-0.12.0 install (CREATE EXTENSION dp_stream;) planted functions ran ($old warnings)"
else
  echo "not ok 4 - control: the planted functions never ran after the old install: the test cannot fail"
fi

if grep -q "WARNING:  dp_stream is installed in schema public, where role $owner can create functions" \
     "$work/old.install.out" && ! grep -q WARNING "$work/documented.install.out"; then
  echo "ok 5 - the old install warns that the database owner can create functions in public; the documented one does not"
else
  echo "not ok 5 - no warning at the old install, or one at the documented install"
  sed 's/^/# /' "$work/old.install.out" "$work/documented.install.out" | head -10
fi

#!/usr/bin/env bash
# dp_stream on the PostgreSQL majors other than the installed 15 (issue 26):
# for each version of DP_PG_VERSIONS that is not 15, PostgreSQL is built once
# from its release tarball, postgresql-<version>.tar.bz2 in the folder
# DP_PG_SOURCES, into /var/cache/dp_stream/pg-<version> (kept between runs:
# a second run does not rebuild; DP_PG_CACHE moves it), with its isolation
# tester; then dp_stream is built against it with -Wall -Wextra -Werror in a
# copy of the tree, and the whole pg_regress suite and every isolation spec
# run in a throwaway cluster of that version.
#
# The rest of the suite (pgTAP, the cluster-level shell tests) runs on 15
# only so far: each such part is reported as skipped, with
# the reason, never as passed.  A version whose tarball is missing, or that
# does not build, is reported as such.  Prints TAP.
#
#   DP_PG_VERSIONS="17.11 18.6" test/majors.sh
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

versions=${DP_PG_VERSIONS:-"15 17.11 18.6"}
sources=${DP_PG_SOURCES:-}
cache=${DP_PG_CACHE:-/var/cache/dp_stream}
n=0
failures=0

tap() {                         # tap ok|not-ok|skip text
  n=$((n + 1))
  case "$1" in
    ok) echo "ok $n - $2" ;;
    skip) echo "ok $n # SKIP $2" ;;
    *) echo "not ok $n - $2"; failures=$((failures + 1)) ;;
  esac
}

# PostgreSQL <version> built once into the cache; prints its prefix
build_postgres() {
  local version=$1 prefix="$cache/pg-$version" tarball work
  # the stamp names what the build includes (2: the isolation tester)
  if [ -x "$prefix/bin/pg_config" ] && [ -f "$prefix/.dp_stream_built-2" ]; then
    echo "$prefix"
    return 0
  fi
  tarball="$sources/postgresql-$version.tar.bz2"
  [ -n "$sources" ] && [ -f "$tarball" ] || return 2
  mkdir -p "$cache"
  work=$(mktemp -d "$cache/build.XXXXXX")
  if tar -xjf "$tarball" -C "$work" &&
     (cd "$work/postgresql-$version" &&
      ./configure --quiet --prefix="$prefix" --without-icu --without-readline --without-zlib &&
      make -s -j"$(nproc)" && make -s install &&
      make -s -C src/test/isolation && make -s -C src/test/isolation install) >"$work/build.log" 2>&1; then
    touch "$prefix/.dp_stream_built-2"
    rm -rf "$work"
    echo "$prefix"
    return 0
  fi
  tail -20 "$work/build.log" >&2
  rm -rf "$work"
  return 1
}

for version in $versions; do
  major=${version%%.*}
  [ "$major" = 15 ] && continue      # the installed 15 runs the whole suite (scripts/test.sh)
  prefix=$(build_postgres "$version")
  status=$?
  if [ "$status" -eq 2 ]; then
    tap skip "PostgreSQL $version: no postgresql-$version.tar.bz2 in DP_PG_SOURCES (${sources:-unset}); set DP_PG_SOURCES to the folder of the release tarballs"
    continue
  elif [ "$status" -ne 0 ]; then
    tap not-ok "PostgreSQL $version: building the server from its tarball failed"
    continue
  fi

  # dp_stream in a copy of the tree, so that 15's objects are not reused
  copy=$(mktemp -d "${TMPDIR:-/tmp}/dp_stream_pg$major.XXXXXX")
  if [ -d .git ]; then
    git ls-files -z | tar --null -cf - -T - | tar -xf - -C "$copy"
  else
    tar --exclude='*.o' --exclude='*.bc' --exclude='*.so' --exclude=results -cf - . | tar -xf - -C "$copy"
  fi
  if (cd "$copy" && make -s -j"$(nproc)" PG_CONFIG="$prefix/bin/pg_config" DP_WERROR=-Werror &&
      make -s PG_CONFIG="$prefix/bin/pg_config" install) >"$copy/build.log" 2>&1; then
    tap ok "PostgreSQL $version: dp_stream builds with -Wall -Wextra -Werror and installs"
  else
    tap not-ok "PostgreSQL $version: dp_stream does not build"
    sed 's/^/# /' "$copy/build.log" | tail -20
    rm -rf "$copy"
    continue
  fi

  # pg_regress in a throwaway cluster of this version
  (
    cd "$copy"
    export DP_PG_BIN="$prefix/bin"
    export PATH="$prefix/bin:$PATH"
    . scripts/cluster.sh
    dp_cluster_start >/dev/null 2>&1 || { echo "cluster did not start"; exit 3; }
    tests=$(ls sql/*.sql | grep -v -- '--' | xargs -n1 basename | sed 's/\.sql$//' | sort)
    "$prefix/lib/postgresql/pgxs/src/test/regress/pg_regress" --inputdir=. --outputdir=. \
      --bindir="$DP_PG_BIN" --host="$PGHOST" --port="$PGPORT" --user=postgres \
      --dbname=dp_stream_regress $tests >regress.out 2>&1
    specs=$(ls test/isolation/specs/*.spec | xargs -n1 basename | sed 's/\.spec$//' | sort)
    mkdir -p isolation_out
    "$prefix/lib/postgresql/pgxs/src/test/isolation/pg_isolation_regress" --inputdir=test/isolation \
      --outputdir=isolation_out --bindir="$DP_PG_BIN" --host="$PGHOST" --port="$PGPORT" \
      --user=postgres --dbname=dp_stream_isolation --load-extension=dp_stream $specs \
      >isolation.out 2>&1
  ) >"$copy/cluster.out" 2>&1
  [ -f "$copy/regress.out" ] || cp "$copy/cluster.out" "$copy/regress.out"
  # pg_regress of 16+ prints TAP: one line per test, named
  while IFS= read -r line; do
    name=$(echo "$line" | sed -E 's/^(not )?ok [0-9]+ +[-+] +([a-z0-9_]+).*/\2/')
    case "$line" in
      ok*) tap ok "PostgreSQL $version: pg_regress $name" ;;
      *) tap not-ok "PostgreSQL $version: pg_regress $name" ;;
    esac
  done < <(grep -E '^(not )?ok [0-9]+ ' "$copy/regress.out")
  if ! grep -qE '^ok [0-9]+ ' "$copy/regress.out"; then
    tap not-ok "PostgreSQL $version: pg_regress did not run"
    tail -20 "$copy/regress.out" | sed 's/^/# /'
  fi
  [ -f "$copy/regression.diffs" ] && head -60 "$copy/regression.diffs" | sed 's/^/# /'
  # the isolation specs, the same way
  while IFS= read -r line; do
    name=$(echo "$line" | sed -E 's/^(not )?ok [0-9]+ +[-+] +([a-z0-9_]+).*/\2/')
    case "$line" in
      ok*) tap ok "PostgreSQL $version: isolation $name" ;;
      *) tap not-ok "PostgreSQL $version: isolation $name" ;;
    esac
  done < <(grep -E '^(not )?ok [0-9]+ ' "$copy/isolation.out" 2>/dev/null)
  if ! grep -qE '^ok [0-9]+ ' "$copy/isolation.out" 2>/dev/null; then
    tap not-ok "PostgreSQL $version: the isolation specs did not run"
    tail -20 "$copy/isolation.out" 2>/dev/null | sed 's/^/# /'
  fi
  [ -f "$copy/isolation_out/regression.diffs" ] && head -60 "$copy/isolation_out/regression.diffs" | sed 's/^/# /'
  for part in "pgTAP" "the cluster-level shell tests (docs, crash, dump and restore, pg_cron, NULL sweep)"; do
    tap skip "PostgreSQL $version: $part run on 15 only so far (issue 26)"
  done
  rm -rf "$copy"
done
echo "1..$n"
[ "$failures" -eq 0 ]

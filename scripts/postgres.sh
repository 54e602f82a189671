# Sourced by scripts/test.sh: PostgreSQL majors other than the installed 15,
# built once from their release tarballs (postgresql-<version>.tar.bz2 in
# the folder DP_PG_SOURCES) into DP_PG_CACHE (default /var/cache/dp_stream),
# where a second run finds them and does not rebuild.

DP_PG_CACHE=${DP_PG_CACHE:-/var/cache/dp_stream}

# dp_build_postgres VERSION: prints the installation's prefix.  Returns 2
# when the tarball is not there, 1 when the build fails (its log's tail on
# stderr).
dp_build_postgres() {
  local version=$1 prefix="$DP_PG_CACHE/pg-$1" tarball work
  # the stamp names what the build includes (2: the isolation tester; 3:
  # zlib, so that its pg_restore reads the compressed dumps of 15's pg_dump)
  if [ -x "$prefix/bin/pg_config" ] && [ -f "$prefix/.dp_stream_built-3" ]; then
    echo "$prefix"
    return 0
  fi
  tarball="${DP_PG_SOURCES:-}/postgresql-$version.tar.bz2"
  [ -n "${DP_PG_SOURCES:-}" ] && [ -f "$tarball" ] || return 2
  mkdir -p "$DP_PG_CACHE"
  work=$(mktemp -d "$DP_PG_CACHE/build.XXXXXX")
  # Under `make test` the environment carries the outer make's MAKELEVEL and
  # MAKEFLAGS; PostgreSQL's build makes its generated headers (errcodes.h,
  # ...) only when it is the top-level make, so both are dropped here.
  if tar -xjf "$tarball" -C "$work" &&
     (unset MAKELEVEL MAKEFLAGS MFLAGS &&
      cd "$work/postgresql-$version" &&
      ./configure --quiet --prefix="$prefix" --without-icu --without-readline &&
      make -s -j"$(nproc)" && make -s install &&
      make -s -C src/test/isolation && make -s -C src/test/isolation install) >"$work/build.log" 2>&1; then
    touch "$prefix/.dp_stream_built-3"
    rm -rf "$work"
    echo "$prefix"
    return 0
  fi
  tail -20 "$work/build.log" >&2
  rm -rf "$work"
  return 1
}

# dp_copy_tree DIR: the repository's files (not its build products) in DIR,
# so that one major's objects are never linked into another's library
dp_copy_tree() {
  local dir=$1
  if [ -d .git ]; then
    git ls-files -z --cached --others --exclude-standard | tar --null -cf - -T - | tar -xf - -C "$dir"
  else
    tar --exclude='*.o' --exclude='*.bc' --exclude='*.so' --exclude=results -cf - . | tar -xf - -C "$dir"
  fi
}

# dp_add_pgtap PREFIX: pgTAP is SQL only; Debian packages it for 15, and its
# scripts need nothing version-specific, so the built server gets 15's copy
dp_add_pgtap() {
  local prefix=$1 from to
  from="$(/usr/lib/postgresql/15/bin/pg_config --sharedir 2>/dev/null)/extension"
  to="$("$prefix/bin/pg_config" --sharedir)/extension"
  ls "$from"/pgtap.control >/dev/null 2>&1 || return 1
  [ -f "$to/pgtap.control" ] || cp "$from"/pgtap* "$to"/
}

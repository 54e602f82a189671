# Sourced by test/citus.sh: Citus built once from its release tarball and a
# throwaway Citus cluster (a coordinator and workers), each node a PostgreSQL
# cluster in a temporary directory, run by an unprivileged user, reachable
# only through a private Unix socket, stopped and deleted on exit, on error
# and on Ctrl-C.
#
#   DP_PG_SOURCES   folder with citus-<version>.tar.gz (and the patch for
#                   PostgreSQL 15.20's headers, citus-13.2.2-pg15.20.patch)
#   DP_PG_CACHE     where the build is kept (default /var/cache/dp_stream)
#   DP_CITUS_VERSION  the Citus release (default: 13.2.2 for PostgreSQL 15,
#                   14.0.1 for 16 and later)
#
# The PostgreSQL served is the one `pg_config` names (DP_PG_BIN its bin).

DP_PG_BIN=${DP_PG_BIN:-$(pg_config --bindir)}
DP_CITUS_DIR=""
DP_CITUS_USER=""
DP_CITUS_PORTS=()
DP_CITUS_WHY=""
DP_CITUS_BUILT=""

dp_citus_as_owner() {
  if [ -n "$DP_CITUS_USER" ]; then
    runuser -u "$DP_CITUS_USER" -- "$@"
  else
    "$@"
  fi
}

# The Citus release for this PostgreSQL major.
dp_citus_version() {
  local major
  major=$(pg_config --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
  if [ -n "${DP_CITUS_VERSION:-}" ]; then
    echo "$DP_CITUS_VERSION"
  elif [ "$major" -le 15 ]; then
    echo 13.2.2
  else
    echo 14.0.1
  fi
}

# Builds Citus once into the cache: $cache/citus-<version>-pg<major>/ holds
# lib/ (the modules) and extension/ (control and scripts), and a stamp naming
# the PostgreSQL it was built against.  Sets DP_CITUS_BUILT to the cache
# folder; returns 2 (DP_CITUS_WHY says why) when there is nothing to build
# from, 1 (and DP_CITUS_WHY) when the build fails.  Call it in the shell
# itself, not in $(...), to keep the variables.
dp_citus_build() {
  local version major pgversion cache dir tarball work src patch stage
  version=$(dp_citus_version)
  major=$(pg_config --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
  pgversion=$(pg_config --version)
  cache=${DP_PG_CACHE:-/var/cache/dp_stream}
  dir="$cache/citus-$version-pg$major"
  if [ -f "$dir/.dp_stream_built" ] && [ "$(cat "$dir/.dp_stream_built")" = "$pgversion" ]; then
    DP_CITUS_BUILT=$dir
    return 0
  fi
  tarball="${DP_PG_SOURCES:-}/citus-$version.tar.gz"
  if [ -z "${DP_PG_SOURCES:-}" ] || [ ! -f "$tarball" ]; then
    DP_CITUS_WHY="no citus-$version.tar.gz in DP_PG_SOURCES (${DP_PG_SOURCES:-unset}); set DP_PG_SOURCES to the folder of the source tarballs"
    return 2
  fi
  mkdir -p "$cache"
  work=$(mktemp -d "$cache/citus-build.XXXXXX")
  if ! tar -xzf "$tarball" -C "$work" 2>/dev/null; then
    DP_CITUS_WHY="$tarball does not unpack"
    rm -rf "$work"
    return 1
  fi
  src=$(find "$work" -mindepth 1 -maxdepth 1 -type d | head -1)
  # PostgreSQL 15.20 declares have_createdb_privilege() extern, Citus 13.2.2
  # defines a static one: patch only when the headers clash
  if grep -q 'have_createdb_privilege' "$(pg_config --includedir-server)/commands/dbcommands.h" 2>/dev/null &&
     grep -q '^have_createdb_privilege(void)' "$src/src/include/pg_version_compat.h" 2>/dev/null; then
    patch=$(ls "${DP_PG_SOURCES}"/citus-"$version"-pg*.patch 2>/dev/null | head -1)
    if [ -z "$patch" ] || ! (cd "$src" && patch -s -p1 <"$patch") >"$work/patch.log" 2>&1; then
      DP_CITUS_WHY="Citus $version clashes with $pgversion's headers and no patch in DP_PG_SOURCES applies"
      rm -rf "$work"
      return 2
    fi
  fi
  stage="$work/stage"
  if (cd "$src" &&
      PG_CONFIG=$(command -v pg_config) ./configure --quiet --without-libcurl &&
      make -s -j"$(nproc)" with_llvm=no &&
      make -s install with_llvm=no DESTDIR="$stage") >"$work/build.log" 2>&1; then
    rm -rf "$dir"
    mkdir -p "$dir/lib" "$dir/extension"
    cp -a "$stage$(pg_config --pkglibdir)"/*.so "$dir/lib/" &&
      cp -a "$stage$(pg_config --sharedir)/extension"/. "$dir/extension/" &&
      echo "$pgversion" >"$dir/.dp_stream_built"
    rm -rf "$work"
    DP_CITUS_BUILT=$dir
    return 0
  fi
  tail -20 "$work/build.log" >&2
  DP_CITUS_WHY="Citus $version does not build against $pgversion: $(grep -m1 -iE 'error' "$work/build.log" | cut -c1-160) (scripts/setup.sh test installs the headers it needs)"
  rm -rf "$work"
  return 1
}

# Copies the cached build into the PostgreSQL that pg_config names.
dp_citus_install() {
  local dir=$1 run=()
  [ "$(id -u)" -ne 0 ] && [ ! -w "$(pg_config --pkglibdir)" ] && run=(sudo)
  "${run[@]}" cp "$dir"/lib/*.so "$(pg_config --pkglibdir)/" &&
    "${run[@]}" cp "$dir"/extension/* "$(pg_config --sharedir)/extension/"
}

dp_citus_stop() {
  local d
  if [ -n "$DP_CITUS_DIR" ] && [ -d "$DP_CITUS_DIR" ]; then
    for d in "$DP_CITUS_DIR"/node*; do
      [ -f "$d/data/postmaster.pid" ] &&
        dp_citus_as_owner "$DP_PG_BIN/pg_ctl" -D "$d/data" -m immediate -w stop >/dev/null 2>&1
    done
    rm -rf "$DP_CITUS_DIR"
  fi
  DP_CITUS_DIR=""
}

# dp_citus_node I: initialises and starts node I (0 = coordinator) on a
# private port; its socket directory is $DP_CITUS_DIR, its log
# $DP_CITUS_DIR/nodeI/server.log.
dp_citus_node() {
  local i=$1 d port
  d="$DP_CITUS_DIR/node$i"
  port=$(( DP_CITUS_BASE_PORT + i ))
  mkdir -p "$d"
  [ -n "$DP_CITUS_USER" ] && chown "$DP_CITUS_USER" "$d"
  dp_citus_as_owner "$DP_PG_BIN/initdb" -D "$d/data" -U postgres \
    --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$d/initdb.log" 2>&1 || {
    cat "$d/initdb.log" >&2; return 1; }
  cat >>"$d/data/postgresql.conf" <<CONF
listen_addresses = ''
port = $port
unix_socket_directories = '$DP_CITUS_DIR'
shared_preload_libraries = 'citus'
fsync = off
full_page_writes = off
synchronous_commit = off
shared_buffers = 64MB
max_parallel_workers_per_gather = 0
max_worker_processes = 16
wal_level = logical
max_replication_slots = 10
max_wal_senders = 10
citus.node_conninfo = 'sslmode=disable'
citus.local_hostname = '$DP_CITUS_DIR'
${DP_CITUS_CONF:-}
CONF
  dp_citus_as_owner "$DP_PG_BIN/pg_ctl" -D "$d/data" -l "$d/server.log" \
    -w -t 60 start >/dev/null || { cat "$d/server.log" >&2; return 1; }
  DP_CITUS_PORTS[$i]=$port
}

# dp_citus_start N: a coordinator and N workers, each with the citus
# extension, the workers registered on the coordinator.  Sets PGHOST, PGPORT
# (the coordinator), PGUSER.  Node i listens on DP_CITUS_PORTS[i].
dp_citus_start() {
  local n=${1:-2} i
  trap dp_citus_stop EXIT
  trap 'dp_citus_stop; exit 130' INT TERM
  if [ "$(id -u)" -eq 0 ]; then
    DP_CITUS_USER=postgres
    id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql postgres
  fi
  DP_CITUS_DIR=$(mktemp -d "${TMPDIR:-/tmp}/dp_stream_citus.XXXXXX")
  chmod 755 "$DP_CITUS_DIR"
  [ -n "$DP_CITUS_USER" ] && chown "$DP_CITUS_USER" "$DP_CITUS_DIR"
  DP_CITUS_BASE_PORT=$(( 20000 + RANDOM % 20000 ))
  export PGHOST="$DP_CITUS_DIR" PGUSER=postgres PGDATABASE=postgres
  for ((i = 0; i <= n; i++)); do
    dp_citus_node "$i" || return 1
    psql -X -q -p "${DP_CITUS_PORTS[$i]}" -c 'CREATE EXTENSION citus' >/dev/null || return 1
  done
  export PGPORT=${DP_CITUS_PORTS[0]}
  psql -X -q -v ON_ERROR_STOP=1 -c "SELECT citus_set_coordinator_host('$DP_CITUS_DIR', ${DP_CITUS_PORTS[0]})" >/dev/null || return 1
  for ((i = 1; i <= n; i++)); do
    psql -X -q -v ON_ERROR_STOP=1 -c "SELECT citus_add_node('$DP_CITUS_DIR', ${DP_CITUS_PORTS[$i]})" >/dev/null || return 1
  done
}

# dp_citus_add_worker I: starts node I and adds it to the cluster.
dp_citus_add_worker() {
  local i=$1
  dp_citus_node "$i" || return 1
  psql -X -q -p "${DP_CITUS_PORTS[$i]}" -c 'CREATE EXTENSION citus' >/dev/null || return 1
  psql -X -q -v ON_ERROR_STOP=1 -c "SELECT citus_add_node('$DP_CITUS_DIR', ${DP_CITUS_PORTS[$i]})" >/dev/null
}

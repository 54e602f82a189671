# Sourced by the demo, test and bench scripts: a throwaway PostgreSQL 15
# cluster in a temporary directory, run by an unprivileged user, reachable
# only through a private Unix socket, stopped and deleted on exit, on error
# and on Ctrl-C.  A cluster the user already runs is never touched.

DP_PG_BIN=${DP_PG_BIN:-$(pg_config --bindir)}
DP_CLUSTER_DIR=""
DP_CLUSTER_USER=""

dp_run_as_owner() {
  if [ -n "$DP_CLUSTER_USER" ]; then
    runuser -u "$DP_CLUSTER_USER" -- "$@"
  else
    "$@"
  fi
}

dp_cluster_stop() {
  if [ -n "$DP_CLUSTER_DIR" ] && [ -d "$DP_CLUSTER_DIR" ]; then
    if [ -f "$DP_CLUSTER_DIR/data/postmaster.pid" ]; then
      dp_run_as_owner "$DP_PG_BIN/pg_ctl" -D "$DP_CLUSTER_DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$DP_CLUSTER_DIR"
  fi
  DP_CLUSTER_DIR=""
}

# Installs the freshly built extension into PostgreSQL's directories.
dp_install_extension() {
  if [ "$(id -u)" -eq 0 ]; then
    make -s install >/dev/null
  else
    sudo make -s install >/dev/null
  fi
}

dp_cluster_start() {
  local port
  trap dp_cluster_stop EXIT
  trap 'dp_cluster_stop; exit 130' INT TERM

  # PostgreSQL refuses to run as root: use the postgres account then.
  if [ "$(id -u)" -eq 0 ]; then
    DP_CLUSTER_USER=postgres
    id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql postgres
  fi

  DP_CLUSTER_DIR=$(mktemp -d "${TMPDIR:-/tmp}/dp_stream_cluster.XXXXXX")
  chmod 755 "$DP_CLUSTER_DIR"
  [ -n "$DP_CLUSTER_USER" ] && chown "$DP_CLUSTER_USER" "$DP_CLUSTER_DIR"

  # a private port; with the socket in our own directory, a clash is harmless
  port=$(( 20000 + RANDOM % 20000 ))

  dp_run_as_owner "$DP_PG_BIN/initdb" -D "$DP_CLUSTER_DIR/data" -U postgres \
    --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$DP_CLUSTER_DIR/initdb.log" 2>&1 || {
    cat "$DP_CLUSTER_DIR/initdb.log" >&2; return 1; }

  cat >>"$DP_CLUSTER_DIR/data/postgresql.conf" <<CONF
listen_addresses = ''
port = $port
unix_socket_directories = '$DP_CLUSTER_DIR'
fsync = off
full_page_writes = off
synchronous_commit = off
shared_buffers = 256MB
work_mem = 64MB
max_parallel_workers_per_gather = 0
CONF

  dp_run_as_owner "$DP_PG_BIN/pg_ctl" -D "$DP_CLUSTER_DIR/data" -l "$DP_CLUSTER_DIR/server.log" \
    -w -t 60 start >/dev/null || { cat "$DP_CLUSTER_DIR/server.log" >&2; return 1; }

  export PGHOST="$DP_CLUSTER_DIR" PGPORT="$port" PGUSER=postgres PGDATABASE=postgres
}

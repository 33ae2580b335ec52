#!/usr/bin/env bash
# Sourced by .ci/run: a throwaway PostgreSQL for the test run, stopped on exit even when
# a step fails. Debian's PostgreSQL (apt) keeps initdb and pg_ctl in its versioned folder,
# off the PATH, and refuses to run as root: so the server runs as the postgres user, with
# its data in a temporary folder, on 127.0.0.1 at a free port. Exports
# STEADY_TEST_POSTGRES_URL for the tests.

postgres_bin() {
  local found
  found=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  if [ -z "$found" ]; then
    echo "== installing PostgreSQL (apt)" >&2
    export DEBIAN_FRONTEND=noninteractive
    if [ "$(id -u)" -eq 0 ]; then
      apt-get update -qq && apt-get install -y -qq postgresql >/dev/null
    else
      sudo apt-get update -qq && sudo apt-get install -y -qq postgresql >/dev/null
    fi
    found=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
  fi
  echo "$found"
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# Runs a command as the postgres user when we are root (PostgreSQL refuses root).
as_postgres() {
  if [ "$(id -u)" -eq 0 ]; then
    su postgres -s /bin/sh -c "$*"
  else
    sh -c "$*"
  fi
}

start_postgres() {
  PG_BIN=$(postgres_bin)
  PG_DIR=$(mktemp -d /tmp/steady-ci-pg.XXXXXX)
  PG_PORT=$(free_port)
  if [ "$(id -u)" -eq 0 ]; then chown postgres "$PG_DIR"; fi
  trap stop_postgres EXIT
  as_postgres "'$PG_BIN/initdb' -D '$PG_DIR/data' -A trust -U postgres -E UTF8 >'$PG_DIR/initdb.log' 2>&1" \
    || { cat "$PG_DIR/initdb.log" >&2; return 1; }
  as_postgres "'$PG_BIN/pg_ctl' -D '$PG_DIR/data' -l '$PG_DIR/server.log' -w -t 60 \
    -o \"-p $PG_PORT -k '$PG_DIR' -c listen_addresses=127.0.0.1 -c fsync=off \
    -c max_connections=300\" start >/dev/null" \
    || { cat "$PG_DIR/server.log" >&2; return 1; }
  export STEADY_TEST_POSTGRES_URL="postgresql://postgres@127.0.0.1:$PG_PORT/postgres"
  echo "== PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$PG_PORT"
}

stop_postgres() {
  if [ -n "${PG_DIR:-}" ] && [ -d "$PG_DIR/data" ]; then
    as_postgres "'$PG_BIN/pg_ctl' -D '$PG_DIR/data' -m immediate stop >/dev/null 2>&1" || true
    rm -rf "$PG_DIR"
  fi
}

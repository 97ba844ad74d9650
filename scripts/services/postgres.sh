#!/usr/bin/env bash
# Start/stop a real PostgreSQL 15 server (TCP on 127.0.0.1 only) for tests and CI. No Docker.
#
#   scripts/services/postgres.sh start|stop|status|restart
#
# On success `start` and `status` print one line on stdout:
#   RHUMBLINE_TEST_DATABASE_URL=postgresql+pg8000://rhumbline:PASS@127.0.0.1:PORT/rhumbline_test
#
# Roles in database rhumbline_test:
#   rhumbline     owner of the database (and so of schema public), CREATEDB; password PG_PASSWORD
#   rhumbline_ro  LOGIN, password PG_RO_PASSWORD; SELECT on every table rhumbline creates (any
#                 schema, via default privileges) and read-only transactions by default.
#                 Default privileges are per database: databases the tests create do not get them.
#   rhumbline_admin LOGIN CREATEDB CREATEROLE and pg_signal_backend, not superuser: what an Aurora
#                 cluster's master user can do (tests of per-branch databases on a shared cluster).
# The cluster superuser (OS user postgres, or you when not root) has no password: it logs in over
# the unix socket only (peer auth), and that socket sits inside the 0700 data directory.
#
# Environment:
#   RHUMBLINE_SERVICES_DIR  state root, relative to the repo root unless absolute (default .services)
#   PG_PORT                 TCP port (default 55432)
#   PG_PASSWORD             password of role rhumbline (default rhumbline-test)
#   PG_RO_PASSWORD          password of role rhumbline_ro (default rhumbline-ro-test)
#   PG_ADMIN_PASSWORD       password of role rhumbline_admin (default rhumbline-admin-test)
#   PG_BIN                  server binaries (default /usr/lib/postgresql/15/bin)
#   PG_START_TIMEOUT        seconds to wait for readiness (default 60)
#
# PostgreSQL refuses to run as root, so as root the server runs as the OS user `postgres`
# (created if missing). That user must be able to reach the data directory; a CI checkout under
# e.g. /root/... is not traversable by it, so then the state lives in
# /tmp/rhumbline-postgres-<hash of the repo path> instead (the script says so on stderr).
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

SERVICES_DIR="${RHUMBLINE_SERVICES_DIR:-.services}"
case "$SERVICES_DIR" in
  /*) ;;
  *) SERVICES_DIR="$REPO_ROOT/$SERVICES_DIR" ;;
esac

HOST=127.0.0.1
PORT="${PG_PORT:-55432}"
PASSWORD="${PG_PASSWORD:-rhumbline-test}"
RO_PASSWORD="${PG_RO_PASSWORD:-rhumbline-ro-test}"
ADMIN_PASSWORD="${PG_ADMIN_PASSWORD:-rhumbline-admin-test}"
PG_BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"
TIMEOUT="${PG_START_TIMEOUT:-60}"
DATABASE=rhumbline_test
OWNER_ROLE=rhumbline
RO_ROLE=rhumbline_ro
ADMIN_ROLE=rhumbline_admin

log() { echo "postgres.sh: $*" >&2; }

# Passwords go into a URL and into SQL literals unescaped: keep them to a safe alphabet.
for value in "$PASSWORD" "$RO_PASSWORD" "$ADMIN_PASSWORD"; do
  [[ "$value" =~ ^[A-Za-z0-9_.-]{8,64}$ ]] \
    || { log "PG_PASSWORD / PG_RO_PASSWORD / PG_ADMIN_PASSWORD must be 8-64 chars of [A-Za-z0-9_.-]"; exit 2; }
done
[[ "$PORT" =~ ^[0-9]{2,5}$ ]] || { log "PG_PORT must be a port number, not '$PORT'"; exit 2; }

if [[ $EUID -eq 0 ]]; then RUN_USER=postgres; else RUN_USER="$(id -un)"; fi

# Run a command as the server's OS user, from / so it never trips over an unreadable cwd.
as_server_user() {
  if [[ $EUID -eq 0 ]]; then
    (cd / && runuser -u "$RUN_USER" -- "$@")
  else
    (cd / && "$@")
  fi
}

ensure_binaries() {
  [[ -x "$PG_BIN/postgres" ]] && return 0
  if [[ $EUID -ne 0 ]]; then
    log "$PG_BIN/postgres not found; install the postgresql-15 package (or set PG_BIN)"
    exit 1
  fi
  log "installing postgresql-15 with apt-get"
  # Only our own cluster is wanted: stop the package from creating and starting 'main' on 5432.
  if [[ ! -e /etc/postgresql-common/createcluster.conf ]]; then
    mkdir -p /etc/postgresql-common
    echo "create_main_cluster = false" > /etc/postgresql-common/createcluster.conf
  fi
  DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql-15 >&2
  [[ -x "$PG_BIN/postgres" ]] || { log "postgresql-15 installed but $PG_BIN/postgres is missing"; exit 1; }
}

ensure_run_user() {
  [[ $EUID -eq 0 ]] || return 0
  id -u postgres >/dev/null 2>&1 && return 0
  log "creating OS user postgres"
  useradd --system --user-group --no-create-home --home-dir /var/lib/postgresql \
    --shell /usr/sbin/nologin postgres
}

# Sets STATE_DIR. Deterministic for a given repo path and permissions, so start/stop/status
# called separately always agree.
resolve_state_dir() {
  mkdir -p "$SERVICES_DIR"
  if as_server_user test -x "$SERVICES_DIR" -a -r "$SERVICES_DIR" 2>/dev/null; then
    STATE_DIR="$SERVICES_DIR/postgres"
  else
    local key
    key="$(printf '%s' "$REPO_ROOT" | sha256sum | cut -c1-12)"
    STATE_DIR="/tmp/rhumbline-postgres-$key"
    log "user $RUN_USER cannot reach $SERVICES_DIR; using $STATE_DIR instead"
  fi
  # unix socket paths are limited to 107 bytes; a deep checkout would break the socket.
  if (( ${#STATE_DIR} + ${#PORT} + 20 > 107 )); then
    STATE_DIR="/tmp/rhumbline-postgres-$(printf '%s' "$STATE_DIR" | sha256sum | cut -c1-12)"
    log "state path too long for a unix socket; using $STATE_DIR instead"
  fi
  mkdir -p "$STATE_DIR"
  # /tmp is shared: refuse a directory someone else planted there.
  local owner
  owner="$(stat -c %U "$STATE_DIR")"
  if [[ "$owner" != "$RUN_USER" && "$owner" != "$(id -un)" ]]; then
    log "$STATE_DIR is owned by $owner, not $RUN_USER or $(id -un); remove it"
    exit 1
  fi
  chown "$RUN_USER" "$STATE_DIR" 2>/dev/null || true
  chmod 700 "$STATE_DIR"
  PGDATA="$STATE_DIR/data"
  LOG_FILE="$STATE_DIR/postgres.log"
  LOCK_FILE="$STATE_DIR/.lock"
}

is_running() { as_server_user "$PG_BIN/pg_ctl" -D "$PGDATA" status >/dev/null 2>&1; }

# Line 4 of postmaster.pid is the port the running server listens on (PG_PORT may have changed).
running_port() { sed -n 4p "$PGDATA/postmaster.pid" 2>/dev/null || true; }

port_open() { (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null; }

psql_super() {
  as_server_user "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$PGDATA" -p "$1" -d "$2"
}

print_url() {
  echo "RHUMBLINE_TEST_DATABASE_URL=postgresql+pg8000://$OWNER_ROLE:$PASSWORD@$HOST:$1/$DATABASE"
}

init_cluster() {
  [[ -f "$PGDATA/PG_VERSION" ]] && return 0
  log "initdb in $PGDATA"
  rm -rf "$PGDATA"
  as_server_user "$PG_BIN/initdb" -D "$PGDATA" --encoding=UTF8 --locale=C.UTF-8 \
    --auth-local=peer --auth-host=scram-sha-256 >"$STATE_DIR/initdb.log" 2>&1 \
    || { log "initdb failed:"; tail -n 30 "$STATE_DIR/initdb.log" >&2; exit 1; }
  # Settings that change between runs (port) live in an included file rewritten at each start.
  echo "include_if_exists = 'rhumbline.conf'" >> "$PGDATA/postgresql.conf"
}

write_runtime_conf() {
  # fsync/full_page_writes off: a throwaway test cluster, and it makes DDL-heavy tests much faster.
  as_server_user tee "$PGDATA/rhumbline.conf" >/dev/null <<EOF
listen_addresses = '$HOST'
port = $PORT
unix_socket_directories = '$PGDATA'
unix_socket_permissions = 0700
password_encryption = 'scram-sha-256'
fsync = off
synchronous_commit = off
full_page_writes = off
EOF
}

wait_ready() {
  local port="$1" deadline=$((SECONDS + TIMEOUT))
  until as_server_user "$PG_BIN/pg_isready" -q -h "$HOST" -p "$port" -d postgres; do
    if (( SECONDS >= deadline )); then
      log "not ready after ${TIMEOUT}s; last lines of $LOG_FILE:"
      tail -n 40 "$LOG_FILE" >&2 || true
      as_server_user "$PG_BIN/pg_ctl" -D "$PGDATA" -m immediate stop >/dev/null 2>&1 || true
      exit 1
    fi
    sleep 0.2
  done
}

# Idempotent: also runs when the server is already up, so a changed password takes effect.
ensure_roles() {
  local port="$1"
  psql_super "$port" postgres <<SQL
DO \$\$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$OWNER_ROLE') THEN CREATE ROLE $OWNER_ROLE; END IF;
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$RO_ROLE') THEN CREATE ROLE $RO_ROLE; END IF;
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$ADMIN_ROLE') THEN CREATE ROLE $ADMIN_ROLE; END IF;
END \$\$;
-- CREATEDB: test suites may isolate themselves in a throwaway database of their own.
ALTER ROLE $OWNER_ROLE WITH LOGIN NOSUPERUSER CREATEDB NOCREATEROLE PASSWORD '$PASSWORD';
ALTER ROLE $RO_ROLE WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD '$RO_PASSWORD';
-- Belt and braces on top of the grants: the read-only role cannot even write temp tables by accident.
ALTER ROLE $RO_ROLE SET default_transaction_read_only = on;
ALTER ROLE $ADMIN_ROLE WITH LOGIN NOSUPERUSER CREATEDB CREATEROLE PASSWORD '$ADMIN_PASSWORD';
GRANT pg_signal_backend TO $ADMIN_ROLE;
SELECT 'CREATE DATABASE $DATABASE OWNER $OWNER_ROLE'
  WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = '$DATABASE') \gexec
REVOKE ALL ON DATABASE $DATABASE FROM PUBLIC;
GRANT CONNECT ON DATABASE $DATABASE TO $RO_ROLE;
SQL
  psql_super "$port" "$DATABASE" <<SQL
GRANT USAGE ON SCHEMA public TO $RO_ROLE;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO $RO_ROLE;
-- Without IN SCHEMA these cover every schema rhumbline creates later (tests use one per session).
ALTER DEFAULT PRIVILEGES FOR ROLE $OWNER_ROLE GRANT USAGE ON SCHEMAS TO $RO_ROLE;
ALTER DEFAULT PRIVILEGES FOR ROLE $OWNER_ROLE GRANT SELECT ON TABLES TO $RO_ROLE;
SQL
}

do_start() {
  if is_running; then
    local port
    port="$(running_port)"
    wait_ready "$port"
    ensure_roles "$port"
    log "already running on port $port; data in $PGDATA"
    print_url "$port"
    return 0
  fi
  if port_open "$PORT"; then
    log "port $HOST:$PORT is already in use by another process; set PG_PORT"
    exit 1
  fi
  init_cluster
  write_runtime_conf
  rm -f "$PGDATA/postmaster.pid"  # stale after a crash or reboot: pg_ctl status said not running
  # -W: do not wait here; wait_ready below polls with our own timeout and prints the log on failure.
  # 9>&-: the server must not inherit (and so hold) the start/stop lock.
  as_server_user "$PG_BIN/pg_ctl" -D "$PGDATA" -l "$LOG_FILE" -W start >/dev/null 9>&- \
    || { log "pg_ctl start failed; last lines of $LOG_FILE:"; tail -n 40 "$LOG_FILE" >&2 || true; exit 1; }
  wait_ready "$PORT"
  ensure_roles "$PORT"
  log "started on port $PORT in $((SECONDS - START_T0))s; data and log in $STATE_DIR"
  print_url "$PORT"
}

do_stop() {
  if ! is_running; then
    log "not running"
    return 0
  fi
  as_server_user "$PG_BIN/pg_ctl" -D "$PGDATA" -m fast -w -t 60 stop >/dev/null \
    || { log "fast stop failed; stopping immediately"; as_server_user "$PG_BIN/pg_ctl" -D "$PGDATA" -m immediate stop >/dev/null; }
  log "stopped"
}

do_status() {
  if is_running; then
    echo "running (port $(running_port))" >&2
    print_url "$(running_port)"
  else
    echo "stopped" >&2
    return 3
  fi
}

cmd="${1:-}"
case "$cmd" in
  start|stop|status|restart) ;;
  *) echo "usage: $0 start|stop|status|restart" >&2; exit 2 ;;
esac

START_T0=$SECONDS
ensure_binaries
ensure_run_user
resolve_state_dir
# Serialise concurrent start/stop calls (e.g. parallel test jobs) on one state dir.
exec 9> "$LOCK_FILE"
flock 9

case "$cmd" in
  start) do_start ;;
  stop) do_stop ;;
  status) do_status ;;
  restart) do_stop; do_start ;;
esac

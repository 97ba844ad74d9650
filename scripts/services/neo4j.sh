#!/usr/bin/env bash
# Start/stop a real Neo4j 5.26 Community server (Bolt on 127.0.0.1) for tests and CI.
# It is built from Maven Central by infra/neo4j (see infra/neo4j/README.md): no Docker.
#
#   scripts/services/neo4j.sh start|stop|status|restart
#
# Environment:
#   RHUMBLINE_SERVICES_DIR  state root, relative to the repo root unless absolute (default .services)
#   NEO4J_PORT              Bolt port (default 7687)
#   NEO4J_PASSWORD          password for user neo4j (default rhumbline-test, min 8 chars)
#   NEO4J_HEAP              JVM max heap, -Xmx (default 2g: room for 1 GiB ingest transactions)
#   NEO4J_HEAP_INITIAL      JVM initial heap, -Xms (default 256m)
#   NEO4J_START_TIMEOUT     seconds to wait for readiness (default 120)
#   JAVA                    java binary (default: java on PATH; needs 17+)
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PROJECT_DIR="$REPO_ROOT/infra/neo4j"

SERVICES_DIR="${RHUMBLINE_SERVICES_DIR:-.services}"
case "$SERVICES_DIR" in
  /*) ;;
  *) SERVICES_DIR="$REPO_ROOT/$SERVICES_DIR" ;;
esac
STATE_DIR="$SERVICES_DIR/neo4j"
PID_FILE="$STATE_DIR/neo4j.pid"
OUT_FILE="$STATE_DIR/neo4j.out"
LOCK_FILE="$STATE_DIR/.lock"

HOST=127.0.0.1
PORT="${NEO4J_PORT:-7687}"
PASSWORD="${NEO4J_PASSWORD:-rhumbline-test}"
HEAP="${NEO4J_HEAP:-2g}"
HEAP_INITIAL="${NEO4J_HEAP_INITIAL:-256m}"
TIMEOUT="${NEO4J_START_TIMEOUT:-120}"
JAVA="${JAVA:-java}"
MAIN_CLASS=dev.rhumbline.neo4j.RhumblineNeo4j
BUILD_STAMP="$PROJECT_DIR/target/.rhumbline-build-ok"

log() { echo "neo4j.sh: $*" >&2; }

# Alive and really our launcher (a stale pid file may point at a recycled pid).
running_pid() {
  [[ -f "$PID_FILE" ]] || return 1
  local pid
  pid="$(cat "$PID_FILE" 2>/dev/null || true)"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -q "$MAIN_CLASS" || return 1
  echo "$pid"
}

port_open() { (exec 3<>"/dev/tcp/$HOST/$PORT") 2>/dev/null; }

needs_build() {
  [[ -f "$BUILD_STAMP" && -d "$PROJECT_DIR/target/lib" && -d "$PROJECT_DIR/target/classes" ]] || return 0
  [[ -n "$(find "$PROJECT_DIR/pom.xml" "$PROJECT_DIR/src" -newer "$BUILD_STAMP" -print -quit)" ]]
}

build() {
  needs_build || return 0
  command -v mvn >/dev/null || { log "mvn not found (need Maven 3.8+)"; exit 1; }
  log "building launcher (first build downloads ~200 MB from Maven Central into ~/.m2)"
  local t0=$SECONDS
  # After a pom change (e.g. a Neo4j bump) drop the old jars so two versions never mix
  # on the classpath. Not for source-only changes: a running server loads from lib/.
  if [[ ! -f "$BUILD_STAMP" || "$PROJECT_DIR/pom.xml" -nt "$BUILD_STAMP" ]]; then
    rm -rf "$PROJECT_DIR/target/lib"
  fi
  # Offline first: a warm ~/.m2 then needs no network at all; fall back to online.
  # Maven output goes to stderr so stdout carries only the NEO4J_URI line.
  local -a mvn_args=(-q -B -Dstyle.color=never -f "$PROJECT_DIR/pom.xml" package)
  if ! mvn -o "${mvn_args[@]}" >/dev/null 2>&1; then
    mvn "${mvn_args[@]}" >&2
  fi
  # Build output stays out of `git status` even before the repo ignores it.
  echo '*' > "$PROJECT_DIR/target/.gitignore"
  touch "$BUILD_STAMP"
  log "build done in $((SECONDS - t0))s"
}

print_uri() { echo "NEO4J_URI=bolt://$HOST:$PORT"; }

do_start() {
  local pid
  if pid="$(running_pid)"; then
    log "already running (pid $pid)"
    print_uri
    return 0
  fi
  rm -f "$PID_FILE"
  if port_open; then
    log "port $HOST:$PORT is already in use by another process; set NEO4J_PORT"
    exit 1
  fi
  build

  "$JAVA" -version 2>&1 | grep -qE 'version "(1[7-9]|[2-9][0-9])' \
    || { log "$JAVA is not Java 17+"; exit 1; }

  # Flags mirror the ones the packaged Neo4j server passes to its JVM: without the
  # --add-opens the page cache falls back to slower, memory-hungrier code paths.
  local -a jvm=(
    "-Xms$HEAP_INITIAL" "-Xmx$HEAP"
    -XX:+UseG1GC -XX:+ExitOnOutOfMemoryError
    -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints
    --add-opens=java.base/java.nio=ALL-UNNAMED
    --add-opens=java.base/java.io=ALL-UNNAMED
    --add-opens=java.base/sun.nio.ch=ALL-UNNAMED
    --add-opens=java.base/java.lang=ALL-UNNAMED
    -Dio.netty.tryReflectionSetAccessible=true
    -Djdk.nio.maxCachedBufferSize=1024
    -Dlog4j2.disable.jmx=true
    "-Drhumbline.neo4j.conf=$PROJECT_DIR/hardening.conf"
  )
  : > "$OUT_FILE"
  # 9>&-: the server must not inherit (and so hold) the flock taken below.
  # setsid: detach from the caller's process group so Ctrl-C / job-control kills of
  # the calling shell do not take the server down. Password via env, not argv.
  NEO4J_PASSWORD="$PASSWORD" nohup setsid "$JAVA" "${jvm[@]}" \
    -cp "$PROJECT_DIR/target/classes:$PROJECT_DIR/target/lib/*" \
    "$MAIN_CLASS" "$STATE_DIR" "$HOST" "$PORT" \
    >> "$OUT_FILE" 2>&1 < /dev/null 9>&- &
  pid=$!
  echo "$pid" > "$PID_FILE"

  local deadline=$((SECONDS + TIMEOUT))
  # Wait for the READY line, not just an open port: the launcher sets the password
  # after Bolt binds, and clients connecting earlier would get "credentials expired".
  until grep -q '^NEO4J_READY ' "$OUT_FILE" 2>/dev/null; do
    if ! kill -0 "$pid" 2>/dev/null; then
      log "neo4j exited during startup; last lines of $OUT_FILE and debug.log:"
      tail -n 40 "$OUT_FILE" >&2 || true
      tail -n 20 "$STATE_DIR/logs/debug.log" >&2 2>/dev/null || true
      rm -f "$PID_FILE"
      exit 1
    fi
    if (( SECONDS >= deadline )); then
      log "neo4j not ready after ${TIMEOUT}s; last lines of $OUT_FILE and debug.log:"
      tail -n 40 "$OUT_FILE" >&2 || true
      tail -n 20 "$STATE_DIR/logs/debug.log" >&2 2>/dev/null || true
      do_stop >/dev/null 2>&1 || true
      exit 1
    fi
    sleep 0.5
  done
  log "started (pid $pid) in $((SECONDS - START_T0))s; data and logs in $STATE_DIR"
  print_uri
}

do_stop() {
  local pid
  if ! pid="$(running_pid)"; then
    rm -f "$PID_FILE"
    log "not running"
    return 0
  fi
  # SIGTERM runs the launcher's shutdown hook, which checkpoints the store.
  kill -TERM "$pid" 2>/dev/null || true
  local i
  for ((i = 0; i < 120; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "pid $pid did not stop in 60s; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    sleep 1
  fi
  rm -f "$PID_FILE"
  log "stopped (pid $pid)"
}

do_status() {
  local pid
  if pid="$(running_pid)"; then
    echo "running (pid $pid)"
    print_uri
  else
    echo "stopped"
    return 3
  fi
}

cmd="${1:-}"
case "$cmd" in
  start|stop|status|restart) ;;
  *) echo "usage: $0 start|stop|status|restart" >&2; exit 2 ;;
esac

mkdir -p "$STATE_DIR"
# Keep runtime state out of `git status` without touching the repo's .gitignore.
[[ -e "$SERVICES_DIR/.gitignore" ]] || echo '*' > "$SERVICES_DIR/.gitignore"
# Serialise concurrent start/stop calls (e.g. parallel test jobs) on one state dir.
exec 9> "$LOCK_FILE"
flock 9
START_T0=$SECONDS

case "$cmd" in
  start) do_start ;;
  stop) do_stop ;;
  status) do_status ;;
  restart) do_stop; do_start ;;
esac

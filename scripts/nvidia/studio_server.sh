# Sourced by this folder's shell checks: `studio serve` on Triton's default ports (8000 HTTP, 8001 gRPC) over
# $WORK/repo, started in $SERVE_DIR (a check's relative trace files land there), its log in $WORK/server.log.
# Needs ROOT (the project), WORK and PY set by the check.
SERVER_PID=
start() {
  (cd "${SERVE_DIR:-$WORK}" && STUDIO_PYTHON=$PY exec node "$ROOT/apps/server/bin/ensemble-studio.mjs" serve \
    --repo "$WORK/repo" --port 8000 --grpc-port 8001 "$@" > "$WORK/server.log" 2>&1) &
  SERVER_PID=$!
  for _ in $(seq 100); do grep -q '^grpc listening' "$WORK/server.log" 2>/dev/null && return; sleep 0.2; done
  echo "server did not start:"; cat "$WORK/server.log"; exit 1
}
stop() {
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
  SERVER_PID=
}

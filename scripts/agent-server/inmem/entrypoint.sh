#!/bin/sh
# Same command line as the published image's /storage/entrypoint.sh (minus the Go core-api sidecar / ddtrace branches).
LANGGRAPH_SERVER_HOST=${LANGGRAPH_SERVER_HOST:-0.0.0.0}
if [ -n "$LANGGRAPH_SERVER_PORT" ]; then
    export PORT=$LANGGRAPH_SERVER_PORT
fi
exec uvicorn langgraph_api.server:app --log-config /api/logging.json --host "$LANGGRAPH_SERVER_HOST" --port "${PORT:-8000}" --no-access-log --timeout-graceful-shutdown 3600

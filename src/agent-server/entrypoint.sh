#!/bin/sh
# Berth's durable agent server: aegra (threads, runs, checkpoints and the store in the deployment's
# Postgres) behind the reference image's contract: DATABASE_URI and REDIS_URI, PORT or
# LANGGRAPH_SERVER_PORT, the graphs of LANGSERVE_GRAPHS, and /ok.
set -e
if [ -n "$LANGGRAPH_SERVER_PORT" ]; then
  export PORT=$LANGGRAPH_SERVER_PORT
fi
export DATABASE_URL="${DATABASE_URL:-$DATABASE_URI}"
# With Redis (more than one process), runs are queued there and any process joins or streams them;
# without it, in Postgres (patches/0004). Either way a run holds a lease in Postgres while it runs, and a
# run whose process died is returned to the queue and resumes from its last checkpoint.
if [ -n "$REDIS_URI" ] && [ -z "$REDIS_URL" ]; then
  export REDIS_URL="$REDIS_URI" REDIS_BROKER_ENABLED=true
fi
# The configuration from the image's graphs, and the database migrated once, under a lock, before the
# server serves: a migration that fails ends the pod with its own error (the revision fails, the
# previous one keeps serving).
python3 -m berth_agent_server.prepare
if [ -f /tmp/berth-aegra.json ]; then
  export AEGRA_CONFIG=/tmp/berth-aegra.json
fi
export RUN_MIGRATIONS_ON_STARTUP=false
# Told to stop, the server takes no new run and waits WORKER_DRAIN_TIMEOUT (Berth sets it from
# runDrainSeconds) for the requests that wait on runs, then as long again for the runs left (patches/0004).
exec uvicorn berth_agent_server.app:app --host "${LANGGRAPH_SERVER_HOST:-0.0.0.0}" --port "${PORT:-8000}" --no-access-log --timeout-graceful-shutdown "${WORKER_DRAIN_TIMEOUT:-3600}"

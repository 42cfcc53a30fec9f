"""Before the server starts (entrypoint.sh): aegra's configuration from the graphs the image names, and
the deployment's database migrated once, under a lock, so replicas that start together take turns.

Writes the configuration to CONFIG_PATH (nothing when the image names no graphs: aegra then reads the
langgraph.json of its working directory). Exits 1, with the error as the container's termination message,
when the migration fails, the langgraph.json's auth.path does not load (aegra would serve every request
as one anonymous user then, and a deployment that asked for authentication gets none rather than that),
its checkpointer.ttl or store.ttl is not one the server accepts, its webhooks' headers name a variable that
is not set (or the policy is not one), or its store.index has no pgvector to use.
"""

import asyncio
import importlib.util
import json
import os
import sys
import time
import traceback

from berth_agent_server import app_env, webhooks

CONFIG_PATH = "/tmp/berth-aegra.json"
# One lock for every migration of this database (pg_advisory_lock's key space is the database's).
MIGRATION_LOCK = 0x62657274


def file_graph(spec: str) -> str:
    """A graph as aegra loads it, `<file>:<attr>`: a `module.path:attr` becomes the module's file."""
    target, _, attr = spec.rpartition(":")
    if target.endswith(".py") or os.sep in target:
        return spec
    found = importlib.util.find_spec(target)
    if found is None or found.origin is None:
        raise SystemExit(f"graph {spec!r}: no module {target!r} in the image")
    return f"{found.origin}:{attr}"


def config_from_env() -> dict | None:
    """The image's graphs (LANGSERVE_GRAPHS, as a generated Dockerfile sets them) and the optional
    http, store, auth and checkpointer settings of its langgraph.json."""
    graphs = json.loads(os.environ.get("LANGSERVE_GRAPHS") or "{}")
    if not graphs:
        return None
    config: dict = {"graphs": {}}
    for graph_id, spec in graphs.items():
        if isinstance(spec, dict):
            config["graphs"][graph_id] = {**spec, "path": file_graph(spec["path"])}
        else:
            config["graphs"][graph_id] = file_graph(spec)
    for key, variable in (
        ("http", "LANGGRAPH_HTTP"),
        ("store", "LANGGRAPH_STORE"),
        ("auth", "LANGGRAPH_AUTH"),
        ("checkpointer", "LANGGRAPH_CHECKPOINTER"),
    ):
        if os.environ.get(variable):
            config[key] = json.loads(os.environ[variable])
    return config


def check_auth(config: dict) -> None:
    """Loads auth.path as aegra does (`<file.py>:<attr>` or `<module>:<attr>`), and refuses one that does not
    load or names something other than a langgraph_sdk Auth: aegra only logs that and serves unauthenticated."""
    path = (config.get("auth") or {}).get("path")
    if not path:
        return
    from langgraph_sdk import Auth

    target, _, attr = str(path).rpartition(":")
    if not target or not attr:
        raise ValueError(f"auth.path {path!r}: expected <file.py or module>:<attribute>")
    if target.endswith(".py") or target.startswith(("./", "../", "/")):
        spec = importlib.util.spec_from_file_location("berth_auth_check", target)
        if spec is None or spec.loader is None or not os.path.isfile(target):
            raise ValueError(f"auth.path {path!r}: no file {target!r} in the image")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    else:
        module = importlib.import_module(target)
    if not isinstance(getattr(module, attr, None), Auth):
        raise ValueError(f"auth.path {path!r}: {attr!r} is not a langgraph_sdk Auth")


def check_thread_ttl(config: dict) -> None:
    """Validates checkpointer.ttl with aegra's own model now, so that a bad one fails the revision with
    its own error before any pod serves (aegra would fail each pod's start with it)."""
    ttl = (config.get("checkpointer") or {}).get("ttl")
    if ttl is None:
        return
    from aegra_api.services.thread_ttl import ThreadTTLConfig

    ThreadTTLConfig.model_validate(ttl)


def check_store_ttl(config: dict) -> None:
    """store.ttl as LangGraph's store takes it: default_ttl minutes (null: items never expire),
    refresh_on_read, sweep_interval_minutes; anything else fails the revision, naming the key."""
    ttl = (config.get("store") or {}).get("ttl")
    if ttl is None:
        return
    if not isinstance(ttl, dict):
        raise ValueError("store.ttl: an object with default_ttl, refresh_on_read and sweep_interval_minutes")
    unknown = set(ttl) - {"default_ttl", "refresh_on_read", "sweep_interval_minutes"}
    if unknown:
        raise ValueError(f"store.ttl: unknown key(s) {', '.join(sorted(unknown))}")
    number = (int, float)
    if ttl.get("default_ttl") is not None and (not isinstance(ttl["default_ttl"], number) or ttl["default_ttl"] <= 0):
        raise ValueError("store.ttl.default_ttl: minutes, a number above 0 (or null)")
    if ttl.get("sweep_interval_minutes") is not None and (not isinstance(ttl["sweep_interval_minutes"], number) or ttl["sweep_interval_minutes"] <= 0):
        raise ValueError("store.ttl.sweep_interval_minutes: a number above 0 (or null)")
    if not isinstance(ttl.get("refresh_on_read", True), bool):
        raise ValueError("store.ttl.refresh_on_read: true or false")


def check_vector_store(connection, config: dict | None) -> None:
    """store.index keeps embeddings in the deployment's Postgres, which needs the pgvector extension."""
    if not ((config or {}).get("store") or {}).get("index"):
        return
    found = connection.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'").fetchone()
    if found is None:
        raise RuntimeError(
            "store.index needs the pgvector extension (vector) in the deployment's Postgres, and its image has none: "
            "remove store.index, or ask the platform team for a Postgres image with pgvector"
        )


def fail(error: str) -> None:
    """Ends the container with `error` on its log and as its termination message (the revision's)."""
    print(error, file=sys.stderr)
    try:
        with open("/dev/termination-log", "w") as log:
            log.write(error[-2000:])
    except OSError:
        pass
    sys.exit(1)


def take_lock(connection) -> None:
    """The migration lock, asked for once a second rather than waited on: a session blocked in
    pg_advisory_lock holds a snapshot, and a migration that builds an index CONCURRENTLY (aegra has one)
    waits for every snapshot older than its own, so the holder would wait for the waiter forever."""
    said = False
    while not connection.execute("SELECT pg_try_advisory_lock(%s)", (MIGRATION_LOCK,)).fetchone()[0]:
        if not said:
            print("another pod migrates this database: waiting for it", file=sys.stderr, flush=True)
            said = True
        time.sleep(1)


def migrate(config: dict | None) -> None:
    """aegra's migrations, then the checkpointer's and the store's tables, under one advisory lock."""
    import psycopg

    from aegra_api.core import migrations
    from aegra_api.core.database import db_manager
    from aegra_api.settings import settings

    with psycopg.connect(settings.db.database_url_sync, autocommit=True) as lock:
        check_vector_store(lock, config)
        take_lock(lock)
        migrations.run_migrations_if_needed()

        async def tables() -> None:
            await db_manager.initialize()
            await db_manager.close()

        asyncio.run(tables())


def main() -> None:
    if not os.environ.get("DATABASE_URL"):
        raise SystemExit("this agent server keeps threads and runs in Postgres, and the deployment has no database (DATABASE_URI)")
    app_env.load()
    try:
        webhooks.validate()
    except ValueError:
        fail(traceback.format_exc())
    config = config_from_env()
    if config is not None:
        try:
            check_auth(config)
            check_thread_ttl(config)
            check_store_ttl(config)
        except Exception:
            fail(traceback.format_exc())
        with open(CONFIG_PATH, "w") as out:
            json.dump(config, out)
    try:
        migrate(config)
    except Exception:
        fail(traceback.format_exc())


if __name__ == "__main__":
    main()

"""The ASGI app uvicorn serves: aegra's, with the reference server's `/ok` beside its own health paths
(`/health`, `/ready`, `/live`), for clients and probes that ask for it; the configuration file's `env`
set first (aegra reads its settings at import), its routes under `http.mount_prefix` if it has one, and
the runs' webhooks sent through aegra's run hooks."""

from berth_agent_server import app_env

app_env.load()

from aegra_api import run_hooks  # noqa: E402
from aegra_api.main import app as aegra  # noqa: E402

from berth_agent_server import webhooks  # noqa: E402
from berth_agent_server.mount import mounted  # noqa: E402

# aegra calls out through its run hooks (patches/0003) and never imports this adapter back.
run_hooks.check_webhook = webhooks.check_at_creation
run_hooks.after_run = webhooks.after_run


async def ok() -> dict[str, bool]:
    return {"ok": True}


aegra.add_api_route("/ok", ok, methods=["GET"], include_in_schema=False)
app = mounted(aegra)

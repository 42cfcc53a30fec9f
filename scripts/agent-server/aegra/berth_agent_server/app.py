"""The ASGI app uvicorn serves: aegra's, with the reference server's `/ok` beside its own health paths
(`/health`, `/ready`, `/live`), for clients and probes that ask for it; the configuration file's `env`
set first (aegra reads its settings at import), and its routes under `http.mount_prefix` if it has one."""

from berth_agent_server import app_env

app_env.load()

from aegra_api.main import app as aegra  # noqa: E402

from berth_agent_server.mount import mounted  # noqa: E402


async def ok() -> dict[str, bool]:
    return {"ok": True}


aegra.add_api_route("/ok", ok, methods=["GET"], include_in_schema=False)
app = mounted(aegra)

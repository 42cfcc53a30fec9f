"""The ASGI app uvicorn serves: aegra's, with the reference server's `/ok` beside its own health paths
(`/health`, `/ready`, `/live`), for clients and probes that ask for it."""

from aegra_api.main import app


async def ok() -> dict[str, bool]:
    return {"ok": True}


app.add_api_route("/ok", ok, methods=["GET"], include_in_schema=False)

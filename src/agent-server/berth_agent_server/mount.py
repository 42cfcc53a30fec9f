"""`http.mount_prefix` of the configuration file (LANGGRAPH_HTTP, as the generated Dockerfile sets it),
which aegra ignores: the server's routes answer under the prefix, as the reference's server's do, and a
path outside it is a 404. `/ok` stays at the root, for the probes and clients that ask the server itself."""

import json
import os

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocketClose

ROOT_PATHS = ("/ok",)


def mount_prefix() -> str | None:
    """The configured prefix, without a trailing slash; None when the routes stay at the root."""
    http = json.loads(os.environ.get("LANGGRAPH_HTTP") or "{}")
    prefix = (http.get("mount_prefix") or "").rstrip("/") if isinstance(http, dict) else ""
    return prefix or None


class MountPrefix:
    """`app` under `prefix`: requests under it reach the app with the prefix as their root_path (the ASGI
    way of mounting: the path stays whole, and Starlette routes on what follows the root_path)."""

    def __init__(self, app: ASGIApp, prefix: str) -> None:
        self.app, self.prefix = app, prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        path: str = scope["path"]
        if path == self.prefix or path.startswith(self.prefix + "/"):
            return await self.app({**scope, "root_path": scope.get("root_path", "") + self.prefix}, receive, send)
        if scope["type"] == "websocket":
            return await WebSocketClose()(scope, receive, send)
        if path in ROOT_PATHS:
            return await self.app(scope, receive, send)
        response = JSONResponse({"detail": f"Not Found: this server's routes are under {self.prefix}"}, status_code=404)
        await response(scope, receive, send)


def mounted(app: ASGIApp) -> ASGIApp:
    """`app`, under the configured prefix if there is one."""
    prefix = mount_prefix()
    return MountPrefix(app, prefix) if prefix else app

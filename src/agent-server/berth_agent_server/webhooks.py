"""Webhooks as the reference's server sends them, which aegra does not: a run created with `webhook` (an
absolute http(s) URL) is POSTed, once it ends, to that URL as JSON (the run, its final values, its error),
under the `webhooks` policy of the configuration file (LANGGRAPH_WEBHOOKS, as the generated Dockerfile sets
it). Wired in by app.py through aegra's run hooks (patches/0003-run-webhooks.patch): a run's URL is
checked when it is created (a refused one is a 422 with the reference's message, and no run is made) and
again before it is sent.

The policy (`webhooks.url`): `require_https`, `allowed_domains` (hosts, or `*.domain` for its subdomains),
`allowed_ports`, `max_url_length`, `disable_loopback`, `disable_private_ips`, with the reference's defaults:
with a `url` block https only and URLs up to 2048 characters, without one any http(s) URL up to 4096.
`headers` are sent with every webhook; a value may name variables as `${{ env.NAME }}`, where NAME starts
with `env_prefix` (LG_WEBHOOK_ by default) and is set: checked when the pod starts (prepare.py), so a
missing one fails the revision rather than a run. `allowed_fields` keeps only the named fields of the body;
`http.disable_webhooks` sends nothing.

Differences from the reference, on purpose: a relative URL (the reference's in-process call) is refused;
redirects are not followed; a link-local address (a cloud's metadata service) is never a webhook's host.
Header values are never logged, nor a URL's credentials.
"""

import asyncio
import ipaddress
import json
import logging
import os
import random
import re
import socket
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

logger = logging.getLogger("berth_agent_server.webhooks")

TEMPLATE = re.compile(r"\$\{\{\s*([^}]+?)\s*\}\}")
URL_KEYS = {"require_https", "allowed_domains", "allowed_ports", "max_url_length", "disable_loopback", "disable_private_ips"}
ATTEMPTS = 3
# Runs whose webhook is on its way: a task the event loop would otherwise only hold weakly.
_sending: set[asyncio.Task] = set()


class Refused(ValueError):
    """A webhook URL the policy does not allow; its message is the reference's answer."""


def config() -> dict[str, Any]:
    """The configuration file's `webhooks`, or {}."""
    found = json.loads(os.environ.get("LANGGRAPH_WEBHOOKS") or "{}")
    if not isinstance(found, dict):
        raise ValueError("webhooks: expected an object")
    return found


def url_policy(webhooks: dict[str, Any]) -> dict[str, Any]:
    """The URL policy with the reference's defaults filled in."""
    url = webhooks.get("url")
    if url is None:
        return {"require_https": False, "allowed_domains": [], "allowed_ports": [], "max_url_length": 4096,
                "disable_loopback": False, "disable_private_ips": False}
    if not isinstance(url, dict) or set(url) - URL_KEYS:
        raise ValueError(f"webhooks.url: an object with the keys {', '.join(sorted(URL_KEYS))}")
    policy = {"require_https": True, "allowed_domains": [], "allowed_ports": [], "max_url_length": 2048,
              "disable_loopback": False, "disable_private_ips": False, **url}
    for domain in policy["allowed_domains"]:
        if not isinstance(domain, str) or "*" in domain.removeprefix("*."):
            raise ValueError(f"webhooks.url.allowed_domains: {domain!r} is not a host or *.domain")
    if not all(isinstance(port, int) for port in policy["allowed_ports"]):
        raise ValueError("webhooks.url.allowed_ports: a list of port numbers")
    return policy


def headers(webhooks: dict[str, Any]) -> dict[str, str]:
    """The headers sent with every webhook, their `${{ env.NAME }}` filled in."""
    prefix = webhooks.get("env_prefix", "LG_WEBHOOK_")
    if not isinstance(prefix, str):
        raise ValueError("webhooks.env_prefix: expected a string")

    def variable(match: re.Match) -> str:
        expression = match.group(1).strip()
        name = expression.removeprefix("env.")
        if name == expression or not name or "." in name:
            raise ValueError(f"webhook headers: {expression!r} is not env.<NAME>")
        if prefix and not name.startswith(prefix):
            raise ValueError(f"webhook headers: environment variable '{name}' must start with the configured env_prefix '{prefix}'")
        if name not in os.environ:
            raise ValueError(f"webhook headers: missing required environment variable '{name}'")
        return os.environ[name]

    resolved = {}
    for name, value in (webhooks.get("headers") or {}).items():
        if not isinstance(value, str):
            raise ValueError(f"webhook headers: the value of {name!r} is not a string")
        resolved[str(name)] = TEMPLATE.sub(variable, value)
    return resolved


def validate() -> None:
    """The whole configuration, as the pod starts: raises ValueError with what is wrong."""
    webhooks = config()
    url_policy(webhooks)
    headers(webhooks)


def domain_allowed(host: str, domains: list[str]) -> bool:
    """An exact host, or `*.domain`: its subdomains, not the domain itself."""
    return any(host.endswith(domain.lower()[1:]) if domain.startswith("*.") else host == domain.lower() for domain in domains)


async def addresses(host: str, port: int) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    try:
        found = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as error:
        raise Refused("Failed to resolve webhook host") from error
    return [ipaddress.ip_address(entry[4][0].split("%")[0]) for entry in found]


async def check(url: str, policy: dict[str, Any]) -> None:
    """Raises Refused, with the reference's message, for a URL the policy does not allow."""
    if len(url) > policy["max_url_length"]:
        raise Refused("Webhook URL too long")
    parts = urlsplit(url)
    if url.startswith("/"):
        raise Refused("Loopback webhooks are disabled" if policy["disable_loopback"]
                      else "Relative webhooks are not supported by this server: give an absolute http(s) URL")
    if parts.scheme not in ("http", "https"):
        raise Refused("Webhook must use http or https")
    if policy["require_https"] and parts.scheme != "https":
        raise Refused("Webhook must use https")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as error:
        raise Refused("Invalid webhook port") from error
    if policy["allowed_ports"] and port not in policy["allowed_ports"]:
        raise Refused(f"Webhook port {port} not allowed")
    host = (parts.hostname or "").lower()
    if not host or any(c.isspace() for c in host):
        raise Refused(f"Invalid webhook hostname '{host}'")
    if policy["allowed_domains"] and not domain_allowed(host, policy["allowed_domains"]):
        raise Refused("Webhook domain not allowed")
    for address in await addresses(host, port):
        if address.is_link_local or address.is_unspecified:
            raise Refused(f"Webhook host blocked: {host} is a link-local or unspecified address")
        if policy["disable_loopback"] and address.is_loopback:
            raise Refused(f"Webhook host blocked: {host} is a loopback address")
        if policy["disable_private_ips"] and (address.is_private or address.is_loopback or address.is_multicast or address.is_reserved):
            raise Refused(f"Webhook host blocked: {host} is a private address")


async def check_at_creation(url: str) -> None:
    """A run's `webhook`, as it is created: a refused URL is a 422 with the reference's message."""
    from fastapi import HTTPException

    try:
        await check(url, url_policy(config()))
    except Refused as refused:
        raise HTTPException(status_code=422, detail=str(refused)) from refused


def iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment else None


def payload(run: Any, webhook: str, fields: list[str] | None) -> dict[str, Any]:
    """The body the reference sends: the run, its final values, its error."""
    params = run.execution_params or {}
    body = {
        "run_id": run.run_id,
        "thread_id": run.thread_id,
        "assistant_id": run.assistant_id,
        "created_at": iso(run.created_at),
        "updated_at": iso(run.updated_at),
        "metadata": params.get("run_metadata") or {},
        "kwargs": {"input": run.input, "config": run.config, "context": run.context, "webhook": webhook},
        "multitask_strategy": (params.get("behavior") or {}).get("multitask_strategy"),
        "status": run.status,
        "run_started_at": iso(run.created_at),
        "run_ended_at": iso(run.updated_at),
        "webhook_sent_at": datetime.now(UTC).isoformat(),
        "values": run.output,
    }
    if run.status == "error":
        body["error"] = run.error_message
    return {key: value for key, value in body.items() if fields is None or key in fields}


def shown(url: str) -> str:
    """A URL for the log: its scheme, host and path, never its credentials or query."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.hostname}{parts.path}"


async def prepared(run_id: str) -> tuple[str, str, dict[str, str]] | None:
    """The ended run's webhook, body and headers, read now; None when it has none or it is refused."""
    from aegra_api.core.orm import Run as RunORM
    from aegra_api.core.orm import _get_session_maker

    if (json.loads(os.environ.get("LANGGRAPH_HTTP") or "{}")).get("disable_webhooks"):
        return None
    async with _get_session_maker()() as session:
        run = await session.get(RunORM, run_id)
    webhook = (run.execution_params or {}).get("webhook") if run else None
    if not webhook:
        return None
    webhooks = config()
    try:
        await check(webhook, url_policy(webhooks))
    except Refused as refused:
        logger.warning("webhook of run %s not sent to %s: %s", run_id, shown(webhook), refused)
        return None
    body = json.dumps(payload(run, webhook, webhooks.get("allowed_fields")), default=str)
    return webhook, body, {"Content-Type": "application/json", **headers(webhooks)}


async def send(run_id: str, webhook: str, body: str, sent_headers: dict[str, str]) -> None:
    """POSTs the body, retried on transport errors (timeouts, refused connections), 429 and 5xx."""
    import httpx

    outcome = ""
    async with httpx.AsyncClient(timeout=httpx.Timeout(30.0, connect=5.0), follow_redirects=False) as client:
        for attempt in range(1, ATTEMPTS + 1):
            try:
                response = await client.post(webhook, content=body, headers=sent_headers)
                if response.status_code != 429 and response.status_code < 500:
                    logger.info("webhook of run %s sent to %s: %s", run_id, shown(webhook), response.status_code)
                    return
                outcome = f"HTTP {response.status_code}"
            except httpx.HTTPError as error:
                outcome = type(error).__name__
            if attempt < ATTEMPTS:
                await asyncio.sleep(2**attempt + random.random())
    logger.warning("webhook of run %s not delivered to %s after %d attempts: %s", run_id, shown(webhook), ATTEMPTS, outcome)


async def after_run(run_id: str) -> None:
    """Once a run has ended (its status committed): reads what its webhook sends at once, before a
    stateless run's thread (and the run with it) is deleted, and sends it without holding up the caller.
    A webhook never fails the run."""
    try:
        delivery = await prepared(run_id)
    except Exception as error:  # noqa: BLE001
        logger.warning("webhook of run %s not sent: %s", run_id, type(error).__name__)
        return
    if delivery is None:
        return
    task = asyncio.get_running_loop().create_task(send(run_id, *delivery))
    _sending.add(task)
    task.add_done_callback(_sending.discard)

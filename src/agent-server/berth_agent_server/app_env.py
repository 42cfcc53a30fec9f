"""The configuration file's `env` (langgraph.json), which the build copied into the image
(src/reconcilers/deployment/render/agent-config-check.ts): the variables of its env file, or its map.
The deployment's own variables and secrets win by name, as `langgraph up` lets the process environment
win over the file. Values are never printed."""

import json
import os

from dotenv import dotenv_values

ENV_FILE = "/api/berth/app.env"
CONFIG_FILE = "/api/berth/langgraph.json"


def configured_env() -> dict[str, str]:
    """The variables the configuration file names, as strings."""
    if os.path.isfile(ENV_FILE):
        return {name: value for name, value in dotenv_values(ENV_FILE).items() if value is not None}
    if os.path.isfile(CONFIG_FILE):
        with open(CONFIG_FILE, encoding="utf-8") as config:
            env = json.load(config).get("env")
        if isinstance(env, dict):
            return {str(name): str(value) for name, value in env.items()}
    return {}


def load() -> None:
    """Sets each configured variable the process does not have yet."""
    for name, value in configured_env().items():
        os.environ.setdefault(name, value)

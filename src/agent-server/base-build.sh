#!/bin/sh
# The durable agent server base image's steps, run as root in its root filesystem with no network
# (scripts/agent-server/build-rootfs.sh): the wheels are in /wheels, this recipe's files in /ctx.
set -eux
# Installs come from the wheelhouse, in the system-wide configuration of pip and uv rather than in the
# environment: a project's pip_config_file (read last by pip) or its dockerfile_lines (UV_NO_CONFIG=1, an
# index of its own) may point its build elsewhere, which variables of the image would override.
printf '[global]\nno-index = true\nfind-links = /wheels\n' > /etc/pip.conf
mkdir -p /etc/uv && printf 'offline = true\nfind-links = ["/wheels"]\n' > /etc/uv/uv.toml
python3 /ctx/uv-from-wheel.py
# PEP 668: the official python:3.x images carry no EXTERNALLY-MANAGED marker; drop Debian's.
rm -f /usr/lib/python3*/EXTERNALLY-MANAGED
ln -sf python3 /usr/bin/python
# The server and the build tools a generated Dockerfile uses, into the system interpreter
# (/usr/local/lib/python3.13/dist-packages, /usr/local/bin).
uv pip install --system --no-cache-dir pip setuptools wheel hatchling "aegra-api==0.11.0"
# Berth's patches to aegra, until upstream releases their fixes (each says which).
for change in /ctx/patches/*.patch; do patch -p1 -d /usr/local/lib/python3.13/dist-packages < "$change"; done
# /api = Berth's adapter (berth_agent_server), installed editable: a generated Dockerfile installs the
# agent's dependencies with `-c /api/constraints.txt` and reinstalls `-e /api` last, as in the reference image.
mkdir -p /api
cp -r /ctx/pyproject.toml /ctx/berth_agent_server /api/
uv pip freeze --system --exclude-editable > /api/constraints.txt
uv pip install --system --no-cache-dir --no-deps -e /api
mkdir -p /storage && cp /ctx/entrypoint.sh /storage/entrypoint.sh

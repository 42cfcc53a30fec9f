#!/bin/sh
# The base image's steps, run as root in its root filesystem with no network (build-rootfs.sh): the
# wheels are in /wheels, the files to copy in /ctx.
set -eux
# uv + uvx at /usr/bin, from the uv wheel (a generated Dockerfile ends with `rm /usr/bin/uv /usr/bin/uvx`)
python3 /ctx/uv-from-wheel.py
# PEP 668: the official python:3.x images carry no EXTERNALLY-MANAGED marker; drop Debian's.
rm -f /usr/lib/python3*/EXTERNALLY-MANAGED
ln -sf python3 /usr/bin/python
# server + build tools into the system interpreter (Debian scheme -> /usr/local/lib/python3.11/dist-packages, /usr/local/bin)
uv pip install --system --no-cache-dir pip setuptools wheel hatchling "langgraph-api==0.16.7" "langgraph-runtime-inmem==0.36.7"
# /api = the langgraph-api project tree, installed editable (as in the published image)
mkdir -p /api
python3 -m zipfile -e /wheels/langgraph_api-0.16.7-py3-none-any.whl /api
rm -rf /api/langgraph_api-0.16.7.dist-info /api/hatch_build.py
cp /ctx/api-pyproject.toml /api/pyproject.toml && cp /ctx/healthcheck.py /api/
uv pip freeze --system --exclude-editable | grep -vi '^langgraph-api==' > /api/constraints.txt
uv pip install --system --no-cache-dir --no-deps -e /api
mkdir -p /storage && cp /ctx/entrypoint.sh /storage/entrypoint.sh

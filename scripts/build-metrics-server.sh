#!/usr/bin/env bash
# Builds metrics-server from the Go module proxy, at the version pinned below, into a cache outside git
# (the same cache root as the node): the embedded node serves the resource metrics API
# (metrics.k8s.io) with it, so `kubectl top` works and HorizontalPodAutoscalers act as on a cluster.
# A build is reused until the pin or the Go toolchain changes. Prints the bin directory on the last line.
set -euo pipefail

metrics_server_version=v0.8.0

source "$(dirname "$0")/lib/cached-build.sh"
key=$(sed -n '/^metrics_server_version=/p' "$0" | cat - <(go env GOVERSION GOOS GOARCH) | sha256sum | cut -c1-16)
cached_build metrics-server "$key"
echo "building metrics-server $metrics_server_version into $bin (first time: a few minutes on 2 cores)" >&2
start=$SECONDS
GOBIN="$tmp" GOFLAGS= CGO_ENABLED=0 GO111MODULE=on go_compile install -trimpath -ldflags "-s -w" \
  "sigs.k8s.io/metrics-server/cmd/metrics-server@$metrics_server_version" >&2
echo "  built in $((SECONDS - start))s" >&2
finish_cached_build

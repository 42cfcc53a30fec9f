#!/usr/bin/env bash
# Builds VictoriaMetrics (single node) and its vmauth proxy from the Go module proxy, at the version pinned
# below, into a cache outside git (the same cache root as the node): the embedded node's
# Prometheus-compatible server, which scrapes the Gateway's metrics and answers PromQL queries, and the
# query-only front KEDA and Berth read it through (the store itself also takes imports and deletes), so
# KEDA can read each app's request concurrency as it would from a cluster's Prometheus. A build is reused
# until the pins or the Go toolchain change. Prints the bin directory on the last line.
set -euo pipefail

victoria_metrics_version=v1.151.0
victoria_metrics_apps="victoria-metrics vmauth"

source "$(dirname "$0")/lib/cached-build.sh"
key=$(sed -n '/^victoria_metrics_/p' "$0" | cat - <(go env GOVERSION GOOS GOARCH) | sha256sum | cut -c1-16)
cached_build victoria-metrics "$key"
echo "building VictoriaMetrics $victoria_metrics_version ($victoria_metrics_apps) into $bin (first time: a few minutes on 2 cores)" >&2
start=$SECONDS
GOBIN="$tmp" GOFLAGS= CGO_ENABLED=0 GO111MODULE=on go_compile install -trimpath \
  -ldflags "-s -w -X github.com/VictoriaMetrics/VictoriaMetrics/lib/buildinfo.Version=victoria-metrics-$victoria_metrics_version" \
  $(printf "github.com/VictoriaMetrics/VictoriaMetrics/app/%s@$victoria_metrics_version " $victoria_metrics_apps) >&2
echo "  built in $((SECONDS - start))s" >&2
finish_cached_build

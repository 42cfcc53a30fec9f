#!/usr/bin/env bash
# Builds kube-router from the Go module proxy, at the version pinned below, into a cache outside git (the
# same cache root as the node): the embedded node runs its network policy controller alone (no routing,
# no service proxy), so organizations' NetworkPolicies are enforced there as on a cluster. A build is
# reused until the pin or the Go toolchain changes. Prints the bin directory on the last line.
set -euo pipefail

kube_router_version=v2.1.0

source "$(dirname "$0")/lib/cached-build.sh"
key=$(sed -n '/^kube_router_version=/p' "$0" | cat - <(go env GOVERSION GOOS GOARCH) | sha256sum | cut -c1-16)
cached_build network-policy "$key"
echo "building kube-router $kube_router_version into $bin (first time: a few minutes on 2 cores)" >&2
start=$SECONDS
GOBIN="$tmp" GOFLAGS= CGO_ENABLED=0 GO111MODULE=on go_compile install -trimpath \
  -ldflags "-s -w -X github.com/cloudnativelabs/kube-router/v2/pkg/version.Version=$kube_router_version" \
  "github.com/cloudnativelabs/kube-router/v2/cmd/kube-router@$kube_router_version" >&2
echo "  built in $((SECONDS - start))s" >&2
finish_cached_build

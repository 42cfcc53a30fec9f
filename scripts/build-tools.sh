#!/usr/bin/env bash
# Builds the tools the packaging tests drive from the Go module proxy at the versions pinned in
# test/tools/go.mod, into a cache outside git (the same cache root as the control plane):
#   helm     helm.sh/helm/v4/cmd/helm
#   kstatus  test/tools/kstatus: the health verdict Flux computes for an object (fluxcd/cli-utils)
# A build is reused until the pins (go.mod, go.sum), the module's own sources or the Go toolchain
# change. Prints the bin directory on the last line.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
module="$root/test/tools"
source "$root/scripts/lib/cached-build.sh"
key=$(cat "$module/go.mod" "$module/go.sum" "$module"/kstatus/*.go <(go env GOVERSION GOOS GOARCH) | sha256sum | cut -c1-16)
# Test files ask for the tools in parallel: one builds, the others wait for it and reuse its build.
cached_build tools "$key"

helm_version=$(cd "$module" && go list -m -f '{{.Version}}' helm.sh/helm/v4)
# helm reports the version it was stamped with; without this it would call itself "v4.3".
ldflags="-s -w -X helm.sh/helm/v4/internal/version.version=$helm_version -X helm.sh/helm/v4/internal/version.gitTreeState=clean"

echo "building helm $helm_version and kstatus into $bin (first time: a few minutes on 2 cores)" >&2
cd "$module"
start=$SECONDS
GOFLAGS=-mod=mod CGO_ENABLED=0 go_compile build -trimpath -ldflags "$ldflags" -o "$tmp/helm" helm.sh/helm/v4/cmd/helm >&2
echo "  built helm in $((SECONDS - start))s" >&2
GOFLAGS=-mod=mod CGO_ENABLED=0 go_compile build -trimpath -ldflags "-s -w" -o "$tmp/kstatus" ./kstatus >&2
finish_cached_build

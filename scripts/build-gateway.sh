#!/usr/bin/env bash
# Builds the embedded node's Gateway from the Go module proxy into a cache outside git (the same cache
# root as the node): Traefik, the Gateway API implementation (pinned in test/gateway/traefik/go.mod, a
# wrapper module that repeats Traefik's replace and exclude directives), and the Gateway API CRDs of the
# standard channel (pinned in test/gateway/crds/go.mod). A build is reused until the pins or the Go
# toolchain change. Prints the bin directory on the last line; the CRDs are in its crds/.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/lib/cached-build.sh"
key=$(cat "$root"/test/gateway/*/go.mod "$root"/test/gateway/*/go.sum <(go env GOVERSION GOOS GOARCH) | sha256sum | cut -c1-16)
cached_build gateway "$key"

cd "$root/test/gateway/traefik"
version=$(GOFLAGS=-mod=mod go list -m -f '{{.Version}}' github.com/traefik/traefik/v3)
echo "building Traefik $version into $bin (first time: about 8 min on 2 cores)" >&2
start=$SECONDS
GOFLAGS=-mod=mod CGO_ENABLED=0 go_compile build -trimpath -ldflags "-s -w -X github.com/traefik/traefik/v3/pkg/version.Version=$version" \
  -o "$tmp/traefik" github.com/traefik/traefik/v3/cmd/traefik >&2
echo "  built in $((SECONDS - start))s" >&2

cd "$root/test/gateway/crds"
crds=$(module_dir sigs.k8s.io/gateway-api)/config/crd/standard
mkdir -p "$tmp/crds"
# The CRDs alone: the channel's ValidatingAdmissionPolicy guards upgrades across channels, which this
# node never makes.
cp "$crds"/gateway.networking.k8s.io_*.yaml "$tmp/crds/"
rm -f "$tmp/crds/gateway.networking.k8s.io_vap_safeupgrades.yaml"
finish_cached_build

#!/usr/bin/env bash
# Builds Flux's source-controller and kustomize-controller for the GitOps suite (test/gitops) from the Go
# module proxy, at the versions pinned in test/flux/*/go.mod, into a cache outside git (the same cache
# root as the node). Their go.mod files carry replace directives, so each is built through a wrapper
# module that repeats them. The checksum database does not answer for some of Flux's own modules here:
# those (github.com/fluxcd/*) are checked against the go.sum committed beside each wrapper instead.
# A build is reused until the pins or the Go toolchain change. Prints the bin directory on the last line.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/lib/cached-build.sh"
key=$(cat "$root"/test/flux/*/go.mod "$root"/test/flux/*/go.sum <(go env GOVERSION GOOS GOARCH) | sha256sum | cut -c1-16)
cached_build flux "$key"
for controller in source-controller kustomize-controller; do
  cd "$root/test/flux/$controller"
  version=$(GOFLAGS=-mod=mod go list -m -f '{{.Version}}' "github.com/fluxcd/$controller")
  echo "building Flux $controller $version into $bin (first time: a few minutes on 2 cores)" >&2
  start=$SECONDS
  GONOSUMDB=github.com/fluxcd GOFLAGS=-mod=mod CGO_ENABLED=0 go_compile build -trimpath -ldflags "-s -w" -o "$tmp/$controller" "github.com/fluxcd/$controller" >&2
  # The CRDs as Flux's install manifests carry them.
  mkdir -p "$tmp/crds"
  cp "$(GONOSUMDB=github.com/fluxcd module_dir "github.com/fluxcd/$controller")"/config/crd/bases/*.yaml "$tmp/crds/"
  echo "  built in $((SECONDS - start))s" >&2
done
finish_cached_build

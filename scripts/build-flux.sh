#!/usr/bin/env bash
# Builds Flux's source-controller and kustomize-controller for the GitOps suite (test/gitops) from the Go
# module proxy, at the release pinned in test/flux/go.mod, into a cache outside git (the same cache root as
# the node). Their go.mod files carry replace directives, so both are built through one wrapper module that
# repeats them: one build list, so the two share Kubernetes, controller-runtime and fluxcd/pkg instead of
# compiling two versions of each. The checksum database does not answer for some of Flux's own modules
# here: those (github.com/fluxcd/*) are checked against the go.sum committed beside the wrapper instead.
# A build is reused until the pins, this script or the Go toolchain change. Prints the bin directory on the
# last line; the CRDs are in its crds/.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/lib/cached-build.sh"
key=$(cat "$0" "$root"/test/flux/go.mod "$root"/test/flux/go.sum <(go env GOVERSION GOOS GOARCH) | sha256sum | cut -c1-16)
cached_build flux "$key"
cd "$root/test/flux"
export GONOSUMDB=github.com/fluxcd
controllers=(source-controller kustomize-controller)
version=$(GOFLAGS=-mod=mod go list -m -f '{{.Version}}' github.com/fluxcd/source-controller)
echo "building Flux ${controllers[*]} $version into $bin (first time: a few minutes on 2 cores)" >&2
start=$SECONDS
# One go build, one action graph: the binaries are named after their packages.
GOFLAGS=-mod=mod CGO_ENABLED=0 go_compile build -trimpath -ldflags "-s -w" -o "$tmp/" \
  "${controllers[@]/#/github.com/fluxcd/}" >&2
# The CRDs as Flux's install manifests carry them.
mkdir -p "$tmp/crds"
for controller in "${controllers[@]}"; do
  cp "$(module_dir "github.com/fluxcd/$controller")"/config/crd/bases/*.yaml "$tmp/crds/"
done
echo "  built in $((SECONDS - start))s" >&2
finish_cached_build

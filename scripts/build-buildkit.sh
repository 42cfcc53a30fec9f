#!/usr/bin/env bash
# Builds the image builder of Berth's build Jobs from the Go module proxy, at the version pinned in
# scripts/node-images/buildkit/go.mod, into a cache outside git (the same cache root as the node):
#   buildkitd, buildctl          BuildKit's daemon and client (github.com/moby/buildkit)
#   buildctl-daemonless.sh       BuildKit's own wrapper that runs a daemon for one build, as in its images
# scripts/node-images/build-rootfs.sh puts them, with Debian's runc, into the builder image. A build is
# reused until the pins or the Go toolchain change. Prints the bin directory on the last line.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
module="$root/scripts/node-images/buildkit"
source "$root/scripts/lib/cached-build.sh"
key=$(cat "$module/go.mod" "$module/go.sum" "$module/tools.go" <(go env GOVERSION GOOS GOARCH) | sha256sum | cut -c1-16)
cached_build buildkit "$key"
cd "$module"
version=$(GOFLAGS=-mod=mod go list -m -f '{{.Version}}' github.com/moby/buildkit)
echo "building BuildKit $version into $bin (first time: ~2 min on 2 cores)" >&2
start=$SECONDS
ldflags="-s -w -X github.com/moby/buildkit/version.Version=$version"
GOFLAGS=-mod=mod CGO_ENABLED=0 go_compile build -trimpath -ldflags "$ldflags" -o "$tmp/" \
  github.com/moby/buildkit/cmd/buildkitd github.com/moby/buildkit/cmd/buildctl >&2
source_dir=$(module_dir github.com/moby/buildkit)
install -m 0755 "$source_dir/examples/buildctl-daemonless/buildctl-daemonless.sh" "$tmp/"
echo "  built in $((SECONDS - start))s" >&2
finish_cached_build

#!/usr/bin/env bash
# Builds versitygw (github.com/versity/versitygw, Apache-2.0), the S3-compatible server that holds
# organizations' database backups under `berth dev` and in the tests, from the Go module proxy at the
# version pinned here, into a cache outside git (scripts/lib/cached-build.sh). One static binary; its
# posix backend keeps buckets as directories and its internal IAM keeps one account per organization.
# A build is reused until this script or the Go toolchain change. Prints the bin directory on the last line.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/lib/cached-build.sh"
version=v1.8.0
key=$(cat "$0" <(go env GOVERSION GOOS GOARCH) | sha256sum | cut -c1-16)
cached_build versitygw "$key"
echo "building versitygw $version into $bin (first time: about a minute on 2 cores)" >&2
start=$SECONDS
GOBIN="$tmp" GOFLAGS= CGO_ENABLED=0 GO111MODULE=on go_compile install -trimpath -ldflags "-s -w" \
  "github.com/versity/versitygw/cmd/versitygw@$version" >&2
echo "  built in $((SECONDS - start))s" >&2
finish_cached_build

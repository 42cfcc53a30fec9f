#!/usr/bin/env bash
# Builds the node's parts that are not Kubernetes itself from the Go module proxy, at the versions pinned
# below, into a cache outside git (the same cache root as the control plane):
#   containerd, containerd-shim-runc-v2, ctr   the container runtime (runc and the CNI plugins come from
#                                              Debian's packages: scripts/install-node-packages.sh)
#   coredns                                    cluster DNS, run as a pod from an image built here
#   crane                                      builds and pushes the node's images (go-containerregistry)
# kubelet, kube-scheduler and kube-proxy are built with the control plane (scripts/build-controlplane.sh)
# from the same go.mod as kube-apiserver. A build is reused until these pins or the Go toolchain
# change. Prints the bin directory on the last line.
set -euo pipefail

containerd_version=v2.4.2
coredns_version=v1.14.7
crane_version=v0.22.1

source "$(dirname "$0")/lib/cached-build.sh"
key=$(sed -n '/^containerd_version=/,/^crane_version=/p' "$0" | cat - <(go env GOVERSION GOOS GOARCH) | sha256sum | cut -c1-16)
cached_build node "$key"
echo "building containerd $containerd_version, CoreDNS $coredns_version and crane $crane_version into $bin (first time: ~4 min on 2 cores)" >&2
# `go install pkg@version` builds each module with its own go.mod, outside any other module.
cd "$tmp"
install() {
  local start=$SECONDS
  echo "  $(date +%T) go install $*" >&2
  GOBIN="$tmp" GOFLAGS= CGO_ENABLED=0 GO111MODULE=on go_compile install -trimpath "$@" >&2
  echo "  built in $((SECONDS - start))s" >&2
}
containerd_ldflags="-s -w -X github.com/containerd/containerd/v2/version.Version=$containerd_version"
for cmd in containerd containerd-shim-runc-v2 ctr; do
  install -tags "no_btrfs no_devmapper no_zfs urfave_cli_no_docs" -ldflags "$containerd_ldflags" \
    "github.com/containerd/containerd/v2/cmd/$cmd@$containerd_version"
done
install -ldflags "-s -w" "github.com/coredns/coredns@$coredns_version"
install -ldflags "-s -w" "github.com/google/go-containerregistry/cmd/crane@$crane_version"
finish_cached_build

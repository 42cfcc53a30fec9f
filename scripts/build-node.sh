#!/usr/bin/env bash
# Builds the node's parts that are not Kubernetes itself from the Go module proxy, at the versions pinned
# below, into a cache outside git (the same cache root as the control plane):
#   containerd, containerd-shim-runc-v2, ctr   the container runtime (runc and the CNI plugins come from
#                                              Debian's packages: scripts/install-node-packages.sh)
#   coredns                                    cluster DNS, run as a pod from an image built here
#   crane                                      builds and pushes the node's images (go-containerregistry)
# kubelet, kube-scheduler and kube-proxy are built with the control plane (scripts/build-controlplane.sh)
# from the same go.mod as kube-apiserver. A build is reused until this script or the Go toolchain
# change. Prints the bin directory on the last line.
set -euo pipefail

containerd_version=v2.4.2
coredns_version=v1.14.7
# CoreDNS's plugins are chosen at compile time (plugin.cfg, generated into core/plugin/zplugin.go). These pull
# cloud SDKs, tracing and extra transports the node's Corefile never names (workbench/node/system-objects.ts:
# errors, health, ready, kubernetes, forward, loop, cache, reload): a third of CoreDNS's build.
coredns_dropped_plugins="route53 azure clouddns trace dnstap etcd grpc grpc_server quic https3 geoip nomad https"
crane_version=v0.22.1

source "$(dirname "$0")/lib/cached-build.sh"
key=$(cat "$0" <(go env GOVERSION GOOS GOARCH) | sha256sum | cut -c1-16)
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
# One install for the three: one action graph, links beside compiles. no_tracing, no_rdt and no_systemd:
# the node configures no tracing exporter and no RDT classes, and runs containerd under its own supervisor.
install -tags "no_btrfs no_devmapper no_zfs no_tracing no_rdt no_systemd urfave_cli_no_docs" -ldflags "$containerd_ldflags" \
  $(printf "github.com/containerd/containerd/v2/cmd/%s@$containerd_version " containerd containerd-shim-runc-v2 ctr)
coredns_src="$tmp/coredns-src"
cp -r "$(module_dir "github.com/coredns/coredns@$coredns_version")" "$coredns_src"
chmod -R u+w "$coredns_src"
for plugin in $coredns_dropped_plugins; do
  grep -q "\"github.com/coredns/coredns/plugin/$plugin\"" "$coredns_src/core/plugin/zplugin.go" ||
    { echo "CoreDNS: plugin $plugin is no longer in zplugin.go" >&2; exit 1; }
  sed -i "\#\"github.com/coredns/coredns/plugin/$plugin\"#d" "$coredns_src/core/plugin/zplugin.go"
done
start=$SECONDS
echo "  $(date +%T) go build CoreDNS without: $coredns_dropped_plugins" >&2
(cd "$coredns_src" && GOFLAGS=-mod=mod CGO_ENABLED=0 go_compile build -trimpath -ldflags "-s -w" -o "$tmp/coredns" .) >&2
echo "  built in $((SECONDS - start))s" >&2
rm -rf "$coredns_src"
install -ldflags "-s -w" "github.com/google/go-containerregistry/cmd/crane@$crane_version"
finish_cached_build

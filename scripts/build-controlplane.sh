#!/usr/bin/env bash
# Builds the pinned Kubernetes from the Go module proxy at the versions in test/controlplane/go.mod:
# the control plane (kube-apiserver, kube-controller-manager, etcd, kubectl) and the node's parts
# (kubelet, kube-scheduler, kube-proxy), all from one go.mod so they are the same release, into a cache
# outside git. A build is reused until the pins (go.mod, go.sum) or the Go toolchain change. Prints the
# bin directory on the last line.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
module="$root/test/controlplane"
source "$root/scripts/lib/cached-build.sh"
key=$(cat "$module/go.mod" "$module/go.sum" <(go env GOVERSION GOOS GOARCH) | sha256sum | cut -c1-16)
packages=(k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager
          k8s.io/kubernetes/cmd/kubectl go.etcd.io/etcd/server/v3 k8s.io/kubernetes/cmd/kubelet
          k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kube-proxy)

# One build at a time: a second caller (a parallel test run, `berth dev`) waits for the first and
# then finds the binaries cached instead of compiling Kubernetes again beside it.
cached_build controlplane "$key"

k8s_version=$(cd "$module" && go list -m -f '{{.Version}}' k8s.io/kubernetes)
major=${k8s_version#v}; major=${major%%.*}
minor=${k8s_version#v*.}; minor=${minor%%.*}
ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $pkg.gitVersion=$k8s_version -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor"
  ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
done

echo "building the Kubernetes $k8s_version control plane into $bin (first time: ~15-20 min on 2 cores)" >&2
cd "$module"
# One `go build` for all seven: one action graph keeps both cores busy, each binary's link beside the
# compiles of the next, where seven builds in a row would link one at a time on one core.
echo "  $(date +%T) go build kube-apiserver kube-controller-manager kubectl etcd kubelet kube-scheduler kube-proxy" >&2
start=$SECONDS
GOFLAGS=-mod=mod CGO_ENABLED=0 go_compile build -trimpath -ldflags "$ldflags" -o "$tmp/" "${packages[@]}" >&2
# etcd's main package is go.etcd.io/etcd/server/v3, whose binary go names after "server".
[[ ${BERTH_RESOLVE_ONLY:-} == 1 ]] || mv "$tmp/server" "$tmp/etcd"
echo "  built in $((SECONDS - start))s" >&2
finish_cached_build

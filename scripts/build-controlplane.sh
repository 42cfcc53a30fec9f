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
tools=(kube-apiserver:k8s.io/kubernetes/cmd/kube-apiserver
       kube-controller-manager:k8s.io/kubernetes/cmd/kube-controller-manager
       kubectl:k8s.io/kubernetes/cmd/kubectl
       etcd:go.etcd.io/etcd/server/v3
       kubelet:k8s.io/kubernetes/cmd/kubelet
       kube-scheduler:k8s.io/kubernetes/cmd/kube-scheduler
       kube-proxy:k8s.io/kubernetes/cmd/kube-proxy)

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
echo "  downloading modules..." >&2
GOFLAGS=-mod=mod go mod download >&2
for tool in "${tools[@]}"; do
  out=${tool%%:*}; pkg=${tool#*:}
  echo "  $(date +%T) go build $pkg -> $out" >&2
  start=$SECONDS
  GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$tmp/$out" "$pkg" >&2
  echo "  built $out in $((SECONDS - start))s" >&2
done
finish_cached_build

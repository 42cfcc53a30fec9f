#!/usr/bin/env bash
# Builds kube-router from the Go module proxy, at the version pinned below, into a cache outside git (the
# same cache root as the node): the embedded node runs its network policy controller alone (no routing,
# no service proxy), so organizations' NetworkPolicies are enforced there as on a cluster, from a copy of
# the module without the routing controller's AWS check (below). A build is reused until this script or the
# Go toolchain changes. Prints the bin directory on the last line.
set -euo pipefail

kube_router_version=v2.10.0
# v2.10.0 pins a netlink commit the Go module proxy does not serve; v1.3.1, the newest release it serves,
# builds the same packages (kube-router calls only netlink's released API).
netlink_version=v1.3.1

source "$(dirname "$0")/lib/cached-build.sh"
key=$(cat "$0" <(go env GOVERSION GOOS GOARCH) | sha256sum | cut -c1-16)
cached_build network-policy "$key"
echo "building kube-router $kube_router_version into $bin (first time: a few minutes on 2 cores)" >&2
start=$SECONDS
module=github.com/cloudnativelabs/kube-router/v2
src="$tmp/src"
cd "$tmp"  # module_dir runs outside any module
cp -r "$(module_dir "$module@$kube_router_version")" "$src"
chmod -R u+w "$src"
# One cut: the routing controller's AWS source/destination check, the only importer of the AWS SDK (its EC2
# client is one 7.7 MB package, a fifth of the build). The node runs the policy controller alone
# (--run-router=false), so the routing controller, and this check, never run.
aws="$src/pkg/controllers/routing/aws.go"
grep -q '^func (nrc \*NetworkRoutingController) disableSourceDestinationCheck() {' "$aws" ||
  { echo "kube-router: the AWS cut no longer applies to $aws" >&2; exit 1; }
printf '%s\n' 'package routing' '' \
  '// disableSourceDestinationCheck: not built here (no AWS SDK); the node never runs the routing controller.' \
  'func (nrc *NetworkRoutingController) disableSourceDestinationCheck() {}' >"$aws"
(cd "$src" && go mod edit -replace "github.com/vishvananda/netlink=github.com/vishvananda/netlink@$netlink_version")
(cd "$src" && GOFLAGS=-mod=mod CGO_ENABLED=0 go_compile build -trimpath \
  -ldflags "-s -w -X $module/pkg/version.Version=$kube_router_version" -o "$tmp/kube-router" ./cmd/kube-router) >&2
rm -rf "$src"
echo "  built in $((SECONDS - start))s" >&2
finish_cached_build

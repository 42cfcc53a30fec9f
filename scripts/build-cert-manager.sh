#!/usr/bin/env bash
# Builds cert-manager's controller from the Go module proxy into a cache outside git (the same cache root
# as the node): the embedded node issues the Gateway's TLS certificates with it, from a local CA.
#
# The proxy serves cert-manager's root module but not the nested module of its controller binary, so the
# binary's four files are kept in test/cert-manager/controller/ as released (tag v1.21.1, Apache-2.0) and
# built inside a copy of the root module, where its internal packages resolve. The Venafi issuer is left
# out: its client module (github.com/Venafi/vcert/v5) is not served. Every other issuer (ACME, CA,
# self-signed, Vault) is built. Prints the bin directory on the last line; the CRDs are in its crds/.
set -euo pipefail

cert_manager_version=v1.21.1

root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/lib/cached-build.sh"
key=$(cat "$0" "$root"/test/cert-manager/controller/*.go "$root"/test/cert-manager/controller/*/*.go \
  "$root"/test/cert-manager/controller/*/*/*.go <(go env GOVERSION GOOS GOARCH) | sha256sum | cut -c1-16)
cached_build cert-manager "$key"
echo "building cert-manager $cert_manager_version into $bin (first time: several minutes on 2 cores)" >&2
start=$SECONDS

module=github.com/cert-manager/cert-manager
upstream=$(module_dir "$module@$cert_manager_version")
src="$tmp/src"
cp -r "$upstream" "$src"
chmod -R u+w "$src"

# The controller binary, inside the root module: its package path moves from the nested module's
# (controller-binary) to the root module's cmd/controller.
mkdir -p "$src/cmd"
cp -r "$root/test/cert-manager/controller" "$src/cmd/controller"
grep -rl "$module/controller-binary/" "$src/cmd/controller" |
  xargs sed -i "s#$module/controller-binary/#$module/cmd/controller/#"

# Without Venafi: its issuer's registration, its two request controllers among the defaults, its packages,
# and its client module.
sed -i '\#pkg/issuer/venafi"#d' "$src/cmd/controller/app/start.go"
sed -i '/venaficontroller/d' "$src/internal/apis/config/controller/v1alpha1/defaults.go"
rm -rf "$src/pkg/issuer/venafi" "$src/pkg/controller/certificaterequests/venafi" \
  "$src/pkg/controller/certificatesigningrequests/venafi"
sed -i '\#github.com/Venafi/vcert/v5 #d' "$src/go.mod" "$src/go.sum"
if grep -rqs "Venafi/vcert" "$src/cmd/controller" "$src/internal/apis/config/controller/v1alpha1/defaults.go"; then
  echo "cert-manager: Venafi still referenced after the cut" >&2
  exit 1
fi

(cd "$src" && GOFLAGS=-mod=mod CGO_ENABLED=0 go_compile build -trimpath \
  -ldflags "-s -w -X $module/pkg/util.AppVersion=$cert_manager_version" \
  -o "$tmp/cert-manager-controller" ./cmd/controller) >&2
mkdir -p "$tmp/crds"
cp "$src"/deploy/crds/*.yaml "$tmp/crds/"
rm -rf "$src"
echo "  built in $((SECONDS - start))s" >&2
finish_cached_build

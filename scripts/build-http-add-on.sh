#!/usr/bin/env bash
# Builds KEDA's HTTP add-on (its interceptor and its external scaler) from the Go module proxy, at the
# version pinned below, into a cache outside git (the same cache root as the node): the request-driven
# activator that lets a dev_zero Deployment scale to zero. The interceptor holds a request while KEDA wakes
# the app, then forwards it; the scaler tells KEDA how many requests wait. Berth writes the add-on's
# HTTPScaledObjects and their ScaledObjects itself, so its operator is not built. A build is reused until
# the pin or the Go toolchain changes. Prints the bin directory on the last line; the CRD is in its crds/.
set -euo pipefail

http_add_on_version=v0.15.0

source "$(dirname "$0")/lib/cached-build.sh"
key=$(sed -n '/^http_add_on_version=/p' "$0" | cat - <(go env GOVERSION GOOS GOARCH) | sha256sum | cut -c1-16)
cached_build http-add-on "$key"
echo "building KEDA's HTTP add-on $http_add_on_version into $bin (first time: a few minutes on 2 cores)" >&2
start=$SECONDS
module=github.com/kedacore/http-add-on
# Downloaded and built in a copy: `go install pkg@version` asks the proxy for the module's version list,
# which it does not serve for this module.
upstream=$(module_dir "$module@$http_add_on_version")
src="$tmp/src"
cp -r "$upstream" "$src"
chmod -R u+w "$src"
for part in interceptor scaler; do
  (cd "$src" && GOFLAGS=-mod=mod CGO_ENABLED=0 go_compile build -trimpath -ldflags "-s -w" -o "$tmp/keda-http-$part" "./$part") >&2
done
mkdir -p "$tmp/crds"
cp "$src"/config/crd/bases/*.yaml "$tmp/crds/"
rm -rf "$src"
echo "  built in $((SECONDS - start))s" >&2
finish_cached_build

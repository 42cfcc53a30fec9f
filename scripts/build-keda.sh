#!/usr/bin/env bash
# Builds KEDA's operator and metrics adapter from the Go module proxy into a cache outside git (the same
# cache root as the node): the embedded node scales apps on what KEDA reads (the Gateway's request
# concurrency through a Prometheus query), as a cluster with KEDA does.
#
# KEDA's go.mod has a replace directive, so `go install pkg@version` refuses it: the module is downloaded
# and built in a copy. Its 86 scalers are one package; the copy keeps the ones Berth renders or a platform
# team is likely to want beside them (cpu and memory, cron, external, metrics-api, prometheus,
# postgresql, redis, kubernetes-workload) and drops the rest (their files and their cases in the one
# switch that names them), which halves the build. Prints the bin directory on the last line; the CRDs
# are in its crds/, the operator's ClusterRole in rbac/.
set -euo pipefail

keda_version=v2.21.0
kept_triggers="cpu memory cron external external-push metrics-api prometheus postgresql redis kubernetes-workload"
kept_files="cpu_memory cron external metrics_api prometheus postgresql redis kubernetes_workload"

root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/lib/cached-build.sh"
key=$(cat "$0" <(go env GOVERSION GOOS GOARCH) | sha256sum | cut -c1-16)
cached_build keda "$key"
echo "building KEDA $keda_version into $bin (first time: several minutes on 2 cores)" >&2
start=$SECONDS

module=github.com/kedacore/keda/v2
upstream=$(module_dir "$module@$keda_version")
src="$tmp/src"
cp -r "$upstream" "$src"
chmod -R u+w "$src"

# The cut: each dropped scaler's file, and its case in buildScaler's switch (between TRIGGERS-START and
# TRIGGERS-END, a case is its line and the return that follows).
for file in "$src"/pkg/scalers/*_scaler.go; do
  name=$(basename "$file" _scaler.go)
  [[ " $kept_files " == *" $name "* ]] || rm "$file"
done
rm -f "$src"/pkg/scalers/*_test.go
# Three constants the kept scalers share are declared in dropped files: declared again beside them.
cat >"$src/pkg/scalers/cut_constants.go" <<'GO'
package scalers

const (
	externalMetricType = "External"
	stringEnable       = "enable"
	stringDisable      = "disable"
)
GO
awk -v kept=" $kept_triggers " '
  /TRIGGERS-START/ { inside = 1 }
  /TRIGGERS-END/ { inside = 0 }
  inside && /^\tcase "/ { name = $2; gsub(/[":]/, "", name); drop = index(kept, " " name " ") == 0 }
  inside && (/^\tdefault:/ || /^\t\/\//) { drop = 0 }
  !(inside && drop) { print }
' "$src/pkg/scaling/scalers_builder.go" >"$tmp/scalers_builder.go"
mv "$tmp/scalers_builder.go" "$src/pkg/scaling/scalers_builder.go"

ldflags="-s -w -X $module/version.Version=${keda_version#v}"
(cd "$src" && GOFLAGS=-mod=mod CGO_ENABLED=0 go_compile build -trimpath -ldflags "$ldflags" -o "$tmp/keda-operator" ./cmd/operator) >&2
(cd "$src" && GOFLAGS=-mod=mod CGO_ENABLED=0 go_compile build -trimpath -ldflags "$ldflags" -o "$tmp/keda-adapter" ./cmd/adapter) >&2
mkdir -p "$tmp/crds"
cp "$src"/config/crd/bases/*.yaml "$tmp/crds/"
# The operator's rights as upstream declares them (its ClusterRole; the node binds it to KEDA's user).
mkdir -p "$tmp/rbac"
cp "$src/config/rbac/role.yaml" "$tmp/rbac/"
rm -rf "$src"
echo "  built in $((SECONDS - start))s" >&2
finish_cached_build

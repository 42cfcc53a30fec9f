#!/usr/bin/env bash
# Proves that every Go build script works on a machine that has never downloaded anything: each runs on an
# empty Go module cache with BERTH_RESOLVE_ONLY=1 (scripts/lib/cached-build.sh), so every step runs but
# the compiles, which only load their packages. A pin that does not resolve, or a module whose directory
# a script reads before anything downloaded it, fails here in minutes instead of deep into a cold build.
# Modules this machine has already downloaded are served from its own module cache as a file:// proxy
# (nothing is extracted from it into the empty cache until a go command downloads it there), the rest
# from the module proxy. A build whose content key resolved so before on this machine is not resolved
# again (scripts/lib/cached-build.sh). Prints one line per script; exits non-zero when any fails.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
warm=$(go env GOMODCACHE)
fresh=$(mktemp -d "${TMPDIR:-/tmp}/berth-fresh-modules.XXXXXX")
# go clean makes the module cache's read-only files writable as it removes them.
trap 'GOMODCACHE="$fresh/mod" go clean -modcache; rm -rf "$fresh"' EXIT
export GOMODCACHE="$fresh/mod" BERTH_RESOLVE_ONLY=1
[[ -d $warm/cache/download ]] && export GOPROXY="file://$warm/cache/download,$(go env GOPROXY)"

scripts=$(grep -l 'lib/cached-build.sh' "$root"/scripts/build-*.sh | sort)
started=$SECONDS
declare -A pids
for script in $scripts; do
  name=$(basename "$script" .sh)
  bash "$script" >"$fresh/$name.log" 2>&1 &
  pids[$name]=$!
done
failed=()
for name in $(printf '%s\n' "${!pids[@]}" | sort); do
  if wait "${pids[$name]}"; then
    echo "ok      $name"
  else
    echo "FAILED  $name:"
    tail -15 "$fresh/$name.log" | sed 's/^/          /'
    failed+=("$name")
  fi
done
before=$(cat "$fresh"/*.log | grep -c 'resolved before on an empty module cache' || true)
echo "resolved $(wc -w <<<"$scripts") build scripts on an empty module cache in $((SECONDS - started))s ($before of them, unchanged, on this machine before)"
(( ${#failed[@]} == 0 )) || { echo "fails on a fresh machine: ${failed[*]}" >&2; exit 1; }

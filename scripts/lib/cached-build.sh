# Sourced by the build scripts: one build, cached by content in $cache_root/NAME/KEY/bin, at most one at a
# time per NAME (a parallel test run or `berth dev` waits for the build under way, then reuses it).
#   cached_build NAME KEY  sets $bin; when it is complete, prints it and ends the script; otherwise takes
#                          NAME's build lock, checks again, and makes $tmp, removed on exit unless finished
#   finish_cached_build    moves $tmp to $bin, marks it complete, prints it (the script's last line)
#   module_dir MODULE[@VERSION]
#                          prints the directory of a module's source, downloaded first: in the current
#                          module, MODULE alone means the version its go.mod selects. Never read a module's
#                          directory otherwise (`go list -m -f '{{.Dir}}'` prints nothing for a module that
#                          is not downloaded yet, and exits 0).
#   go_compile build|install ARGS...
#                          `go build` or `go install` with ARGS.
#
# With BERTH_RESOLVE_ONLY=1 (scripts/check-fresh-modules.sh) a script runs every step but the compiles,
# which only load their packages (`go build -n`: every module they need is downloaded, nothing is
# compiled), and caches nothing but that it did: on an empty module cache that proves each pin resolves
# and each module a script reads was downloaded first. A build whose KEY resolved so before on this
# machine (a stamp beside its cached build) is not resolved again: what its pins resolve to does not move.
cache_root="${BERTH_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/berth}"

cached_build() {
  local name=$1 key=$2
  if [[ ${BERTH_RESOLVE_ONLY:-} == 1 ]]; then
    resolved_stamp="$cache_root/$name/$key/resolved-on-empty-module-cache"
    if [[ -f $resolved_stamp ]]; then
      echo "$name $key resolved before on an empty module cache" >&2
      exit 0
    fi
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/berth-resolve-$name.XXXXXX")
    bin="$tmp/bin"
    trap 'rm -rf "$tmp"' EXIT
    return
  fi
  bin="$cache_root/$name/$key/bin"
  reuse_cached_build "$name"
  mkdir -p "$cache_root/$name"
  exec 9>"$cache_root/$name/.build.lock"
  if ! flock -n 9; then
    echo "another build of $name is running; waiting for it" >&2
    flock 9
  fi
  reuse_cached_build "$name"
  tmp="$bin.partial.$$"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  trap 'rm -rf "$tmp"' EXIT
}

reuse_cached_build() {
  if [[ -f "$bin/.complete" ]]; then
    echo "$1 cached in $bin" >&2
    echo "$bin"
    exit 0
  fi
}

finish_cached_build() {
  if [[ ${BERTH_RESOLVE_ONLY:-} == 1 ]]; then
    mkdir -p "$(dirname "$resolved_stamp")"
    touch "$resolved_stamp"
    echo "resolved" >&2
    return
  fi
  mkdir -p "$(dirname "$bin")"
  rm -rf "$bin"
  mv "$tmp" "$bin"
  touch "$bin/.complete"
  echo "$bin"
}

module_dir() {
  local dir
  dir=$(GOFLAGS=-mod=mod go mod download -json "$1" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
  [[ -n $dir && -d $dir ]] || { echo "module $1: downloaded, but go names no directory for it" >&2; return 1; }
  echo "$dir"
}

go_compile() {
  local verb=$1
  shift
  if [[ ${BERTH_RESOLVE_ONLY:-} == 1 ]]; then
    # -n prints the commands it would run (to stderr): kept out of the way unless the load fails.
    go "$verb" -n "$@" 2>"$tmp/go-n.log" >/dev/null || { tail -20 "$tmp/go-n.log" >&2; return 1; }
  else
    go "$verb" "$@"
  fi
}

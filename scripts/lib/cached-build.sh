# Sourced by the build scripts: one build, cached by content in $cache_root/NAME/KEY/bin, at most one at a
# time per NAME (a parallel test run or `berth dev` waits for the build under way, then reuses it).
#   cached_build NAME KEY  sets $bin; when it is complete, prints it and ends the script; otherwise takes
#                          NAME's build lock, checks again, and makes $tmp, removed on exit unless finished
#   finish_cached_build    moves $tmp to $bin, marks it complete, prints it (the script's last line)
cache_root="${BERTH_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/berth}"

cached_build() {
  local name=$1 key=$2
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
  mkdir -p "$(dirname "$bin")"
  rm -rf "$bin"
  mv "$tmp" "$bin"
  touch "$bin/.complete"
  echo "$bin"
}

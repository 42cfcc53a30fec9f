#!/usr/bin/env bash
# Usage: build-rootfs.sh NAME OUTDIR
# Builds the root filesystem of one of the node's container images from what is installed on this
# host (Debian packages; no image is pulled from anywhere) and writes
#   OUTDIR/rootfs.tar    a reproducible tar: the same host packages make a byte-identical file
#   OUTDIR/config.json   {"entrypoint", "cmd" (optional), "user", "env", "exposedPorts", "workingDir"}
# NAME is one of (the Debian packages it takes in parentheses)
#   pause      /pause, a static build of scripts/node-images/pause.c (gcc, libc6-dev)
#   postgres   PostgreSQL 15's server and clients (psql, pg_dump, pg_isready, ...), busybox sh, awk and sleep
#              (the wait an app's pod runs before its database answers: Berth's backingServiceWaits), an entrypoint
#              that follows the official postgres image's POSTGRES_* contract
#              (postgresql-15, postgresql-client-15, busybox-static)
#   redis      redis-server and redis-cli, busybox sh, awk and sleep; REDIS_PASSWORD, when set, is required
#              (redis-server, redis-tools, busybox-static)
#   coredns    /coredns, a copy of the binary that $COREDNS_BIN names (scripts/build-node.sh)
#   example-app  /app, examples/app ($APP_DIR) built with Go as one static binary answering $APP_VERSION
#   git        git with its HTTP(S) transport and the system's CA certificates, busybox sh (the clone step
#              of a build Job) (git, ca-certificates, busybox-static)
#   build-tools  busybox with all its applets (the install and build commands of a build Job)
#              (busybox-static)
#   source-controller, kustomize-controller  a Flux controller: the binary $CONTROLLER_BIN
#              (scripts/build-flux.sh) and the CA certificates, run as nobody as Flux's images do
#              (ca-certificates)
#   keda-http-add-on  KEDA's HTTP add-on: /keda-http-interceptor and /keda-http-scaler from
#              $HTTP_ADD_ON_BIN (scripts/build-http-add-on.sh), run as nobody; each pod names its command
#   cnpg-postgres  PostgreSQL 15's server and clients for CloudNativePG: on PATH, user postgres as 26,
#              busybox sh (postgresql-15, postgresql-client-15, busybox-static)
#   cnpg-operator  CloudNativePG's manager from $CNPG_BIN (scripts/build-cnpg.sh) at /operator/manager_<arch>
#              and /manager, run as 65532
#   barman-cloud-sidecar  the barman-cloud plugin's manager from $BARMAN_CLOUD_BIN at /manager, Debian's Python
#              3.11 and barman's cloud commands from PyPI's wheels ($BARMAN_CLOUD_REQUIREMENTS), run as 26
#              (python3)
#   volume-helper  /setup and /teardown, which make and remove a volume's directory, with busybox sh, mkdir
#              and rm, run as root: the local-path provisioner's helper pods (busybox-static)
#   builder    BuildKit's buildkitd, buildctl and buildctl-daemonless.sh from $BUILDKIT_BIN
#              (scripts/build-buildkit.sh), Debian's runc for RUN steps, busybox; buildkitd.toml reaches
#              $INSECURE_REGISTRY over plain HTTP (the node's registry) (runc, busybox-static)
# Images hold no package manager and no shell beyond busybox: every shared library that `ldd` lists
# for a binary is copied under the path ldd prints. Needs root (files in the image are owned by
# 999:999 where the image's user must write). workbench/node/images.ts runs this and pushes the result.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
umask 022
export LC_ALL=C

die() { echo "build-rootfs: $*" >&2; exit 1; }
log() { echo "build-rootfs: $*" >&2; }

# The root of the image being built, and its config: each build_* function fills these.
rootfs=
entrypoint=() cmd=() env=() exposed_ports=()
user=
default_path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# --- helpers ---------------------------------------------------------------------------------------

# copy_file SRC [DEST]: copies SRC, symlinks resolved, to DEST (default: the same path) in the image.
copy_file() {
  local dest="$rootfs${2:-$1}"
  mkdir -p "$(dirname "$dest")"
  cp -L --preserve=mode "$1" "$dest"
}

# is_elf FILE: whether FILE is an ELF object (binary or shared library).
is_elf() {
  [[ -f $1 && $(head -c4 "$1" | od -An -tx1 | tr -d ' \n') == 7f454c46 ]]
}

# add_libs FILE...: copies into the image every shared library that ldd lists for the given ELF
# files, each as a regular file under the path ldd prints (so the dynamic loader stays at
# /lib64/ld-linux-x86-64.so.2). ldd lists libraries' own dependencies too. Static files need none.
add_libs() {
  local file out lib
  for file in "$@"; do
    out=$(ldd "$file" 2>&1) || true # ldd fails on static binaries
    if grep -q 'not found' <<<"$out"; then
      die "$file needs a library that is not installed:"$'\n'"$out"
    fi
    awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' <<<"$out"
  done | sort -u | while read -r lib; do
    # A library the image already holds at that path, or one inside the image (a wheel's own, found
    # through its RPATH), is not copied.
    [[ -e $rootfs$lib || $lib == "$rootfs"/* ]] || copy_file "$lib"
  done
}

# add_libs_under DIR [FIND TESTS...]: add_libs for every ELF file under DIR (in the image) that the find
# tests select.
add_libs_under() {
  local dir=$1 file elf_files=()
  shift
  while IFS= read -r -d '' file; do
    if is_elf "$file"; then elf_files+=("$file"); fi
  done < <(find "$dir" -type f "$@" -print0)
  add_libs "${elf_files[@]}"
}

# copy_with_libs SRC [DEST]: copies a binary (symlinks resolved) into the image, and its libraries.
copy_with_libs() {
  copy_file "$@"
  add_libs "$1"
}

# install_busybox APPLET...: Debian's static busybox at /bin/busybox, with /bin/APPLET symlinks.
install_busybox() {
  local busybox=/bin/busybox applet applets
  [[ -x $busybox ]] || die "$busybox is missing: apt-get install busybox-static"
  ldd "$busybox" >/dev/null 2>&1 && die "$busybox is not static: install busybox-static, not busybox"
  copy_file "$busybox"
  applets=$("$busybox" --list)
  for applet in "$@"; do
    grep -qxF -- "$applet" <<<"$applets" || die "busybox has no applet $applet"
    ln -s busybox "$rootfs/bin/$applet"
  done
}

# write_accounts NAME:ID:HOME...: /etc/passwd and /etc/group with root, a user and a group of the
# same name and id for each argument, and nobody (65534, group nogroup).
write_accounts() {
  local account name id home
  mkdir -p "$rootfs/etc"
  {
    echo 'root:x:0:0:root:/root:/bin/sh'
    for account in "$@"; do
      IFS=: read -r name id home <<<"$account"
      echo "$name:x:$id:$id:$name:$home:/bin/sh"
    done
    echo 'nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin'
  } >"$rootfs/etc/passwd"
  {
    echo 'root:x:0:'
    for account in "$@"; do
      IFS=: read -r name id home <<<"$account"
      echo "$name:x:$id:"
    done
    echo 'nogroup:x:65534:'
  } >"$rootfs/etc/group"
}

# base_dirs: the directories a container runtime mounts over or a program expects (/tmp: 1777).
base_dirs() {
  mkdir -p "$rootfs"/{dev,proc,sys,etc}
  install -d -m 1777 "$rootfs/tmp"
}

# install_script PATH: writes stdin to PATH in the image, executable.
install_script() {
  mkdir -p "$(dirname "$rootfs$1")"
  cat >"$rootfs$1"
  chmod 0755 "$rootfs$1"
}

json_string() {
  local s=${1//\\/\\\\}
  s=${s//\"/\\\"}
  printf '"%s"' "$s"
}

json_array() {
  local sep='' item
  printf '['
  for item in "$@"; do
    printf '%s%s' "$sep" "$(json_string "$item")"
    sep=', '
  done
  printf ']'
}

write_config() {
  {
    printf '{\n  "entrypoint": %s,\n' "$(json_array "${entrypoint[@]}")"
    ((${#cmd[@]} == 0)) || printf '  "cmd": %s,\n' "$(json_array "${cmd[@]}")"
    printf '  "user": %s,\n' "$(json_string "$user")"
    printf '  "env": %s,\n' "$(json_array "${env[@]}")"
    printf '  "exposedPorts": %s,\n' "$(json_array "${exposed_ports[@]}")"
    printf '  "workingDir": "/"\n}\n'
  } >"$1"
}

# write_tar FILE [TAR OPTIONS]: the image's root filesystem as a reproducible tar. Ownership comes
# from the staging directory (numeric ids) unless the options set one owner for all files.
write_tar() {
  local file=$1
  shift
  tar -C "$rootfs" --create --file "$file" \
    --sort=name --mtime=@0 --numeric-owner --format=posix \
    --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime \
    "$@" .
}

# --- images ----------------------------------------------------------------------------------------

build_pause() {
  command -v gcc >/dev/null || die "gcc is missing: apt-get install gcc libc6-dev"
  # -s: no symbol table, which would name the source file's path.
  gcc -Os -static -s -Wall -Wextra -o "$rootfs/pause" "$here/pause.c"
  entrypoint=(/pause)
  user=65535:65535
  env=("PATH=$default_path")
}

# postgres_server_files: PostgreSQL 15's server and client programs, their libraries, its share files and
# the time zones, as both Postgres images hold them.
postgres_server_files() {
  local pg=/usr/lib/postgresql/15 share=/usr/share/postgresql/15
  [[ -x $pg/bin/postgres ]] || die "$pg/bin/postgres is missing: apt-get install postgresql-15"
  [[ -x $pg/bin/psql ]] || die "$pg/bin/psql is missing: apt-get install postgresql-client-15"

  base_dirs
  mkdir -p "$rootfs$pg" "$rootfs$share" "$rootfs/usr/share"
  # bin holds the server's and postgresql-client-15's programs (psql, pg_dump, ...).
  cp -a "$pg/bin" "$pg/lib" "$rootfs$pg/"
  # No JIT (the entrypoint sets jit=off): llvmjit.so would pull in libLLVM (~100 MB).
  rm -rf "$rootfs$pg/lib/llvmjit.so" "$rootfs$pg/lib/llvmjit_types.bc" "$rootfs$pg/lib/bitcode"
  cp -a "$share/." "$rootfs$share/"
  rm -rf "$rootfs$share/man"
  cp -a /usr/share/zoneinfo "$rootfs/usr/share/"
  # initdb takes the server's default TimeZone from /etc/localtime.
  ln -s /usr/share/zoneinfo/Etc/UTC "$rootfs/etc/localtime"
  add_libs_under "$rootfs$pg"
}

build_postgres() {
  postgres_server_files
  install_busybox sh awk cat chmod chown find id mkdir sleep
  # gosu (Debian's, a static binary) drops root as the official image does: started as root, the
  # entrypoint first hands the data directory (a fresh volume belongs to root) to postgres.
  [[ -x /usr/sbin/gosu ]] || die "/usr/sbin/gosu is missing: apt-get install gosu"
  copy_with_libs /usr/sbin/gosu /usr/local/bin/gosu
  write_accounts postgres:999:/var/lib/postgresql
  install -d -o 999 -g 999 -m 0755 "$rootfs/var/lib/postgresql"
  install -d -o 999 -g 999 -m 2775 "$rootfs/var/run/postgresql"
  install_script /usr/local/bin/docker-entrypoint.sh <<'ENTRYPOINT'
#!/bin/sh
# Entrypoint of Berth's postgres image (busybox sh), after the official postgres image's:
#   POSTGRES_PASSWORD          the superuser's password: required unless POSTGRES_HOST_AUTH_METHOD=trust
#   POSTGRES_USER              the superuser (default postgres)
#   POSTGRES_DB                the database made on first start (default: $POSTGRES_USER)
#   POSTGRES_HOST_AUTH_METHOD  authentication of TCP connections (default scram-sha-256)
#   POSTGRES_INITDB_ARGS       more initdb arguments
#   PGDATA                     the data directory (default /var/lib/postgresql/data), made 0700
# On first start (no PG_VERSION) it runs initdb, then /docker-entrypoint-initdb.d/*.sql and *.sh
# against a server that listens only on its unix socket. Options are the server's:
#   docker-entrypoint.sh [postgres] -p 5433 -c shared_buffers=256MB
# any other command runs as given, so the image is a client image too (psql, pg_dump, ...).
# Started as root (the image's default, as the official image's), it makes PGDATA and the socket
# directory postgres's (a new volume belongs to root), then runs itself again as postgres (999:999);
# started as postgres, it needs no root at all.
set -eu

case ${1:-} in
  postgres) shift ;;
  -* | '') ;;
  *) exec "$@" ;;
esac

if [ "$(id -u)" = 0 ]; then
  : "${PGDATA:=/var/lib/postgresql/data}"
  mkdir -p "$PGDATA" /var/run/postgresql
  find "$PGDATA" /var/run/postgresql \! -user postgres -exec chown postgres:postgres '{}' +
  chmod 0700 "$PGDATA"
  # PGDATA in a directory of a volume (PGDATA=/var/lib/postgresql/data/pgdata): the volume, made
  # by root with no access for others, must let postgres through as well.
  parent=${PGDATA%/*}
  if [ -n "$parent" ] && [ "$parent" != / ]; then chown postgres:postgres "$parent"; fi
  exec gosu postgres "$0" "$@"
fi

: "${POSTGRES_USER:=postgres}"
: "${POSTGRES_DB:=$POSTGRES_USER}"
: "${POSTGRES_HOST_AUTH_METHOD:=scram-sha-256}"
: "${PGDATA:=/var/lib/postgresql/data}"
export PGDATA

mkdir -p "$PGDATA"
chmod 0700 "$PGDATA" || : # on a volume this user does not own, initdb or postgres says why

# psql against the temporary server, on its unix socket.
setup_psql() {
  PGHOST= PGHOSTADDR= psql -v ON_ERROR_STOP=1 --no-password --no-psqlrc --username="$POSTGRES_USER" "$@"
}

run_initdb() {
  # shellcheck disable=SC2086 # POSTGRES_INITDB_ARGS holds several arguments
  initdb --username="$POSTGRES_USER" --auth-local=trust --auth-host="$POSTGRES_HOST_AUTH_METHOD" \
    --locale=C --encoding=UTF8 "$@" ${POSTGRES_INITDB_ARGS:-}
}

if [ -s "$PGDATA/PG_VERSION" ]; then
  echo "PostgreSQL database directory appears to contain a database; skipping initialization"
else
  if [ -z "${POSTGRES_PASSWORD:-}" ] && [ "$POSTGRES_HOST_AUTH_METHOD" != trust ]; then
    cat >&2 <<'EOF'
error: database is uninitialized and superuser password is not specified.
       Set POSTGRES_PASSWORD to a non-empty value for the superuser, or set
       POSTGRES_HOST_AUTH_METHOD=trust to allow all connections without a password
       (not recommended).
EOF
    exit 1
  fi
  if [ "$POSTGRES_HOST_AUTH_METHOD" = trust ]; then
    echo "warning: POSTGRES_HOST_AUTH_METHOD=trust: anyone who can reach the server connects as any user, without a password" >&2
  fi

  # The password reaches initdb through a pipe, never a file.
  if [ -n "${POSTGRES_PASSWORD:-}" ]; then
    printf '%s\n' "$POSTGRES_PASSWORD" | run_initdb --pwfile=/dev/stdin
  else
    run_initdb
  fi
  {
    echo
    echo "# connections from anywhere (docker-entrypoint.sh)"
    echo "host all all 0.0.0.0/0 $POSTGRES_HOST_AUTH_METHOD"
    echo "host all all ::/0 $POSTGRES_HOST_AUTH_METHOD"
  } >>"$PGDATA/pg_hba.conf"

  pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -c jit=off" -w start
  if [ "$POSTGRES_DB" != postgres ]; then
    setup_psql --dbname=postgres --set=db="$POSTGRES_DB" <<'EOSQL'
SELECT format('CREATE DATABASE %I', :'db') WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = :'db')
\gexec
EOSQL
  fi
  for f in /docker-entrypoint-initdb.d/*; do
    case $f in
      *.sh) echo "$0: running $f"; . "$f" ;;
      *.sql) echo "$0: running $f"; setup_psql --dbname="$POSTGRES_DB" -f "$f" ;;
      *) if [ -e "$f" ]; then echo "$0: ignoring $f"; fi ;;
    esac
  done
  pg_ctl -D "$PGDATA" -m fast -w stop
  echo "PostgreSQL init process complete; ready for start up."
fi

exec postgres -c listen_addresses='*' -c jit=off "$@"
ENTRYPOINT

  entrypoint=(/usr/local/bin/docker-entrypoint.sh)
  user=0:0
  env=("PATH=/usr/lib/postgresql/15/bin:/usr/local/bin:/usr/bin:/bin" PGDATA=/var/lib/postgresql/data LANG=C)
  exposed_ports=(5432/tcp)
}

build_redis() {
  [[ -x /usr/bin/redis-server ]] || die "/usr/bin/redis-server is missing: apt-get install redis-server"
  [[ -x /usr/bin/redis-cli ]] || die "/usr/bin/redis-cli is missing: apt-get install redis-tools"

  base_dirs
  # Debian's redis-server is a symlink to redis-check-rdb: the binary picks its role from argv[0].
  copy_with_libs /usr/bin/redis-server
  copy_with_libs /usr/bin/redis-cli
  install_busybox sh awk sleep
  write_accounts redis:999:/data
  install -d -o 999 -g 999 -m 0755 "$rootfs/data"
  install_script /usr/local/bin/docker-entrypoint.sh <<'ENTRYPOINT'
#!/bin/sh
# Entrypoint of Berth's redis image (busybox sh): runs its arguments, redis-server and its options
# (the image's entrypoint, then the container's args). With REDIS_PASSWORD set, the server requires
# it (clients: redis-cli -a PASSWORD, or REDISCLI_AUTH=PASSWORD). redis-server replaces its command
# line by its process title, so the password does not stay in /proc/PID/cmdline.
set -eu
if [ "${1:-}" = redis-server ] && [ -n "${REDIS_PASSWORD:-}" ]; then
  set -- "$@" --requirepass "$REDIS_PASSWORD"
fi
exec "$@"
ENTRYPOINT

  entrypoint=(/usr/local/bin/docker-entrypoint.sh redis-server --bind 0.0.0.0 --protected-mode no --dir /data)
  user=999:999
  env=("PATH=/usr/local/bin:/usr/bin:/bin")
  exposed_ports=(6379/tcp)
}

build_coredns() {
  [[ -n ${COREDNS_BIN:-} ]] || die "set COREDNS_BIN to the coredns binary (scripts/build-node.sh builds it)"
  [[ -x $COREDNS_BIN ]] || die "COREDNS_BIN=$COREDNS_BIN is not an executable file"
  copy_with_libs "$COREDNS_BIN" /coredns
  chmod 0755 "$rootfs/coredns"
  write_accounts
  entrypoint=(/coredns)
  user=65534:65534
  env=("PATH=$default_path")
  exposed_ports=(53/udp 53/tcp)
}

build_example_app() {
  [[ -n ${APP_DIR:-} && -n ${APP_VERSION:-} ]] || die "set APP_DIR (examples/app) and APP_VERSION"
  (cd "$APP_DIR" && CGO_ENABLED=0 GOFLAGS= go build -trimpath -ldflags "-s -w -X main.version=$APP_VERSION" -o "$rootfs/app" .)
  user=65532:65532
  entrypoint=(/app)
  env=("PATH=/")
  exposed_ports=(8000/tcp)
}

build_git() {
  [[ -x /usr/bin/git && -x /usr/lib/git-core/git-remote-http ]] || die "git is missing: apt-get install git"
  [[ -f /etc/ssl/certs/ca-certificates.crt ]] || die "CA certificates are missing: apt-get install ca-certificates"
  base_dirs
  copy_with_libs /usr/bin/git
  copy_with_libs /usr/lib/git-core/git-remote-http
  # git runs its own subcommands (index-pack, fetch-pack) from its exec path.
  ln -s ../../bin/git "$rootfs/usr/lib/git-core/git"
  ln -s git-remote-http "$rootfs/usr/lib/git-core/git-remote-https"
  mkdir -p "$rootfs/usr/share"
  cp -a /usr/share/git-core "$rootfs/usr/share/"
  copy_file /etc/ssl/certs/ca-certificates.crt
  install_busybox sh base64 cat printf tr
  write_accounts git:65532:/tmp
  entrypoint=(/usr/bin/git)
  user=65532:65532
  env=("PATH=/usr/bin:/bin" HOME=/tmp)
}

build_build_tools() {
  base_dirs
  install_busybox $(/bin/busybox --list | grep -vx busybox)
  write_accounts build:65532:/tmp
  entrypoint=(/bin/sh)
  user=65532:65532
  env=("PATH=/bin" HOME=/tmp)
}

build_builder() {
  [[ -n ${BUILDKIT_BIN:-} ]] || die "set BUILDKIT_BIN to BuildKit's bin directory (scripts/build-buildkit.sh builds it)"
  [[ -n ${INSECURE_REGISTRY:-} ]] || die "set INSECURE_REGISTRY to the registry reached over plain HTTP"
  [[ -x /usr/sbin/runc ]] || die "/usr/sbin/runc is missing: apt-get install runc"
  base_dirs
  local tool
  for tool in buildkitd buildctl buildctl-daemonless.sh; do
    copy_file "$BUILDKIT_BIN/$tool" "/usr/bin/$tool"
  done
  copy_with_libs /usr/sbin/runc /usr/bin/runc
  install_busybox sh awk cat expr id kill mkdir mktemp rm sleep
  mkdir -p "$rootfs/etc/buildkit" "$rootfs/run" "$rootfs/var/lib/buildkit"
  cat >"$rootfs/etc/buildkit/buildkitd.toml" <<TOML
# The node's registry answers plain HTTP: base images come from it and builds push to it.
[registry."$INSECURE_REGISTRY"]
  http = true
# Images no one can pull here are looked for there first under their Docker Hub names (the agent
# server's base image, langchain/langgraph-api), so Dockerfiles stay unchanged.
[registry."docker.io"]
  mirrors = ["$INSECURE_REGISTRY"]
TOML
  # The registries for organizations' sources and images (token authentication, Berth the issuer; one per
  # Berth on the node, space-separated) answer plain HTTP too: builds push there with their organization's
  # credential.
  local registry
  for registry in ${PUSH_REGISTRIES:-}; do
    printf '[registry."%s"]\n  http = true\n' "$registry" >>"$rootfs/etc/buildkit/buildkitd.toml"
  done
  write_accounts
  entrypoint=(/usr/bin/buildctl-daemonless.sh)
  user=0:0
  env=("PATH=/usr/bin:/bin")
}

build_flux_controller() {
  [[ -n ${CONTROLLER_BIN:-} && -x ${CONTROLLER_BIN:-} ]] || die "set CONTROLLER_BIN to the controller's binary (scripts/build-flux.sh builds it)"
  base_dirs
  copy_with_libs "$CONTROLLER_BIN" "/usr/local/bin/$name"
  copy_file /etc/ssl/certs/ca-certificates.crt
  write_accounts
  entrypoint=("/usr/local/bin/$name")
  user=65534:65534
  env=("PATH=/usr/local/bin")
}

build_keda_http_add_on() {
  [[ -n ${HTTP_ADD_ON_BIN:-} && -d ${HTTP_ADD_ON_BIN:-} ]] || die "set HTTP_ADD_ON_BIN to the add-on's bin directory (scripts/build-http-add-on.sh)"
  for part in interceptor scaler; do
    copy_with_libs "$HTTP_ADD_ON_BIN/keda-http-$part" "/keda-http-$part"
    chmod 0755 "$rootfs/keda-http-$part"
  done
  write_accounts
  entrypoint=(/keda-http-interceptor)
  user=65534:65534
  env=("PATH=/")
}

# CloudNativePG's Postgres: the server's programs on PATH and user postgres as 26, CloudNativePG's
# default; no entrypoint of its own (the operator names the command: its instance manager, copied into
# the pod by an init container, runs initdb and postgres).
build_cnpg_postgres() {
  postgres_server_files
  install_busybox sh cat id mkdir
  write_accounts postgres:26:/var/lib/postgresql
  install -d -o 26 -g 26 -m 0755 "$rootfs/var/lib/postgresql"
  install -d -o 26 -g 26 -m 2775 "$rootfs/var/run/postgresql"
  entrypoint=(/bin/sh)
  user=26:26
  env=("PATH=/usr/lib/postgresql/15/bin:$default_path")
}

# CloudNativePG's operator image: its manager from $CNPG_BIN (scripts/build-cnpg.sh) at
# /operator/manager_<arch>, where the operator looks for the architectures it can give Postgres pods,
# and /manager, which each Postgres pod's init container copies by that name from /.
build_cnpg_operator() {
  local arch
  arch=$(dpkg --print-architecture)
  mkdir -p "$rootfs/operator"
  copy_with_libs "$CNPG_BIN/manager" "/operator/manager_$arch"
  chmod 0755 "$rootfs/operator/manager_$arch"
  ln -s "operator/manager_$arch" "$rootfs/manager"
  write_accounts
  entrypoint=(/manager)
  user=65532:65532
  env=("PATH=/")
}

# The local-path provisioner's helper (workbench/node/postgres-operator.ts): /setup and /teardown make and
# remove a volume's directory on the node, as root.
build_volume_helper() {
  base_dirs
  install_busybox sh mkdir rm chmod
  install_script /setup <<'SETUP'
#!/bin/sh
# A volume's directory, $VOL_DIR, which the pod's user may write whoever it is.
set -eu
mkdir -m 0777 -p "$VOL_DIR"
SETUP
  install_script /teardown <<'TEARDOWN'
#!/bin/sh
set -eu
rm -rf "$VOL_DIR"
TEARDOWN
  write_accounts
  entrypoint=(/bin/sh)
  user=0:0
  env=("PATH=/bin")
}

# The barman-cloud plugin's sidecar in each Postgres pod: its manager from $BARMAN_CLOUD_BIN
# (scripts/build-barman-cloud.sh) at /manager, which runs barman's cloud commands: Debian's Python 3.11
# (the host's, its standard library and the libraries they load) and the wheels of $BARMAN_CLOUD_REQUIREMENTS
# (barman-cloud/requirements.txt, hash-checked) unpacked into /opt/barman, each command a script in
# /opt/barman/bin. Runs as postgres (26), as the Postgres container beside it.
build_barman_cloud_sidecar() {
  local python=/usr/bin/python3.11 stdlib=/usr/lib/python3.11 site=/opt/barman wheels file
  [[ -x $python ]] || die "$python is missing: apt-get install python3"
  base_dirs
  copy_with_libs "$python"
  ln -s python3.11 "$rootfs/usr/bin/python3"
  mkdir -p "$rootfs/usr/lib"
  cp -a "$stdlib" "$rootfs/usr/lib/"
  rm -rf "$rootfs$stdlib"/{test,idlelib,tkinter,turtledemo,ensurepip,lib2to3,config-3.11-x86_64-linux-gnu}
  find "$rootfs$stdlib" -name __pycache__ -prune -exec rm -rf {} +
  # Its extension modules load the system's libraries.
  add_libs_under "$rootfs$stdlib" -name '*.so'
  wheels=$(mktemp -d)
  "${PYTHON_FOR_WHEELS:-python3}" -m pip download --quiet --no-deps --only-binary=:all: --require-hashes \
    --python-version 3.11 --implementation cp --abi cp311 --abi abi3 --abi none \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --platform any \
    -r "$BARMAN_CLOUD_REQUIREMENTS" -d "$wheels"
  mkdir -p "$rootfs$site/bin"
  for file in "$wheels"/*.whl; do "$python" -m zipfile -e "$file" "$rootfs$site"; done
  # Each console script of barman's that names a cloud command, as pip would write it.
  awk -F' = ' '/^barman-cloud-/ { split($2, target, ":"); print $1, target[1], target[2] }' "$rootfs$site"/barman-*.dist-info/entry_points.txt |
    while read -r name module function; do
      printf '#!/usr/bin/python3.11\nimport sys\nfrom %s import %s\nsys.exit(%s())\n' "$module" "$function" "$function" |
        install_script "$site/bin/$name"
    done
  rm -rf "$wheels"
  # So do the wheels' (psycopg2's, which finds the libraries its wheel bundles through its RPATH).
  add_libs_under "$rootfs$site" -name '*.so' -not -path '*.libs/*'
  copy_with_libs "$BARMAN_CLOUD_BIN/manager" /manager
  chmod 0755 "$rootfs/manager"
  write_accounts postgres:26:/var/lib/postgresql
  entrypoint=(/manager)
  user=26:26
  env=("PATH=$site/bin:/usr/bin:/bin" "PYTHONPATH=$site" PYTHONDONTWRITEBYTECODE=1)
}

build_source_controller() { build_flux_controller; }
build_kustomize_controller() { build_flux_controller; }

# --- main ------------------------------------------------------------------------------------------

images="pause postgres redis coredns example-app git build-tools builder source-controller kustomize-controller keda-http-add-on cnpg-postgres cnpg-operator volume-helper barman-cloud-sidecar"
(($# == 2)) || die "usage: $0 ${images// /|} OUTDIR"
name=$1
[[ " $images " == *" $name "* ]] || die "unknown image $name ($images)"

[[ $(id -u) == 0 ]] || die "needs root: files in the image are owned by the image's user"
mkdir -p "$2"
outdir=$(cd "$2" && pwd)

staging=$(mktemp -d "$outdir/.build-rootfs.XXXXXX")
trap 'rm -rf "$staging"' EXIT
rootfs="$staging/rootfs"
mkdir "$rootfs"

log "building the $name image"
"build_${name//-/_}"

if [[ $name != postgres && $name != redis && $name != cnpg-postgres ]]; then
  write_tar "$staging/rootfs.tar" --owner=0 --group=0 # every file is root's
else
  write_tar "$staging/rootfs.tar"
fi
write_config "$staging/config.json"
mv -f "$staging/rootfs.tar" "$outdir/rootfs.tar"
mv -f "$staging/config.json" "$outdir/config.json"
log "wrote $outdir/rootfs.tar ($(du -h "$outdir/rootfs.tar" | cut -f1)) and $outdir/config.json"

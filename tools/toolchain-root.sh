#!/usr/bin/env bash
# Create (or reuse) the Debian sid toolchain root that provides a gfx950-capable
# ROCm HIP compiler (hipcc on clang/LLVM 21), clang-offload-bundler, llvm-readelf,
# CMake, Ninja, GoogleTest, Boost.Context and python3 with Jinja2/PyYAML.
#
# Usage:
#   tools/toolchain-root.sh ensure        # create the root if missing or stale; print its path
#   tools/toolchain-root.sh path          # print the root path (may not exist yet)
#   tools/toolchain-root.sh run CMD...    # run CMD inside the root, in the current directory
#
# Environment:
#   UATTN_TOOLCHAIN_ROOT  root folder (default: ${XDG_CACHE_HOME:-$HOME/.cache}/uattn/sid-<hash>)
#   UATTN_DEBIAN_MIRROR   Debian mirror URI (default: read from this machine's apt sources)
#   CCACHE_*, DISTCC_*    passed through to commands run inside the root (compiler cache and
#                         distributed compiles, see docs/toolchain.md)
#
# The root is keyed by a hash of the package list below, so a changed list builds a
# new root. Why a root is needed at all, and what was verified: docs/toolchain.md.
set -euo pipefail

PACKAGES="hipcc,clang-tools-21,llvm-21,lld-21,rocm-device-libs-21,cmake,ninja-build,libgtest-dev,python3-jinja2,python3-yaml,python3-pytest,libboost-context-dev,g++,ccache,nlohmann-json3-dev,libcli11-dev,libmsgpack-cxx-dev,libzstd-dev,libbenchmark-dev,libclang-rt-21-dev,python3-hypothesis,distcc,lintian,perl-openssl-defaults,fakeroot,file"
KEY=$(printf '%s' "$PACKAGES" | sha256sum | cut -c1-12)
ROOT=${UATTN_TOOLCHAIN_ROOT:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/uattn/sid-$KEY}

die() { echo "toolchain-root: $*" >&2; exit 1; }

mirror() {
  if [ -n "${UATTN_DEBIAN_MIRROR:-}" ]; then echo "$UATTN_DEBIAN_MIRROR"; return; fi
  local m=""
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -e "$f" ] || continue
    m=$(awk '/^URIs:/ {print $2; exit}' "$f")
    case "$m" in *security*) m="";; esac
    [ -n "$m" ] && break
  done
  if [ -z "$m" ] && [ -f /etc/apt/sources.list ]; then
    m=$(awk '$1=="deb" && $2 !~ /security/ {print $2; exit}' /etc/apt/sources.list)
  fi
  [ -n "$m" ] || die "cannot find a Debian mirror in /etc/apt/sources.list{,.d}; set UATTN_DEBIAN_MIRROR"
  echo "$m"
}

ensure() {
  if [ -f "$ROOT/.uattn-ready" ]; then echo "$ROOT"; return; fi
  [ "$(id -u)" = 0 ] || die "creating $ROOT needs root (debootstrap); run as root or install ROCm >= 6.4"
  if ! command -v debootstrap >/dev/null; then
    echo "toolchain-root: installing debootstrap" >&2
    apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >&2
  fi
  local m; m=$(mirror)
  rm -rf "$ROOT.partial"; mkdir -p "$(dirname "$ROOT")"
  echo "toolchain-root: debootstrap sid into $ROOT (mirror from apt sources)" >&2
  debootstrap --variant=minbase --include="$PACKAGES" sid "$ROOT.partial" "$m" >&2 \
    || die "debootstrap failed; see $ROOT.partial/debootstrap/debootstrap.log"
  touch "$ROOT.partial/.uattn-ready"
  rm -rf "$ROOT"; mv "$ROOT.partial" "$ROOT"
  echo "$ROOT"
}

run_in() {
  [ -f "$ROOT/.uattn-ready" ] || die "no toolchain root at $ROOT; run: tools/toolchain-root.sh ensure"
  local dir; dir=$(pwd -P)
  # Private mount namespace: the bind mounts vanish with the command.
  UATTN_ROOT="$ROOT" UATTN_DIR="$dir" exec unshare --mount --propagation private bash -c '
    set -e
    mkdir -p "$UATTN_ROOT/proc" "$UATTN_ROOT/dev" "$UATTN_ROOT/tmp"
    mount -t proc proc "$UATTN_ROOT/proc"
    mount --rbind /dev "$UATTN_ROOT/dev"
    # Bind the top of the work tree (the checkout and its siblings, e.g. ../shared).
    top=$(dirname "$UATTN_DIR")
    mkdir -p "$UATTN_ROOT$top"
    mount --rbind "$top" "$UATTN_ROOT$top"
    # ../shared may be a link to a folder elsewhere: bind its real path too.
    if [ -L "$top/shared" ]; then
      real=$(readlink -f "$top/shared")
      case "$real" in "$top"/*) ;; *) mkdir -p "$UATTN_ROOT$real" && mount --rbind "$real" "$UATTN_ROOT$real" ;; esac
    fi
    shift 0
    passenv=$(env | grep -E "^(CCACHE|DISTCC)_[A-Z_]*=" || true)
    exec chroot "$UATTN_ROOT" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root \
      TERM="${TERM:-dumb}" LANG=C.UTF-8 CI="${CI:-}" UATTN_IN_ROOT=1 \
      CTEST_PARALLEL_LEVEL="${CTEST_PARALLEL_LEVEL:-}" CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-}" \
      $passenv sh -c "cd \"\$0\" && exec \"\$@\"" "$UATTN_DIR" "$@"
  ' bash "$@"
}

case "${1:-}" in
  ensure) ensure ;;
  path) echo "$ROOT" ;;
  run) shift; [ $# -gt 0 ] || die "usage: $0 run CMD..."; run_in "$@" ;;
  *) die "usage: $0 {ensure|path|run CMD...}" ;;
esac

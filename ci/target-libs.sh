#!/usr/bin/env bash
# Fetches the target-ISA builds of the libraries libknit links against
# (Capstone, elfutils, zlib, CMocka) and of LLVM's libomp, and unpacks them
# into a per-ISA root under the cache folder. Nothing on the system changes:
# apt runs with a private state folder and the packages are only unpacked.
#
#   ci/target-libs.sh CACHE_DIR ISA...      (ISA: aarch64 | ppc64le)
#
# Each ISA's root ends up at CACHE_DIR/<isa>/root with a stamp file, so a
# second run is a no-op.
set -euo pipefail

cache=${1:?usage: target-libs.sh CACHE_DIR ISA...}
shift
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)

pkgs_common=(libcapstone4 libcapstone-dev libelf1 libelf-dev libdw1 libdw-dev
  zlib1g zlib1g-dev libcmocka0 libcmocka-dev liblzma5 libbz2-1.0 libzstd1
  libomp5-14)
stamp_version=1

debarch_of() {
  case "$1" in
    aarch64) echo arm64 ;;
    ppc64le) echo ppc64el ;;
    *) echo "target-libs: unknown ISA '$1' (aarch64 or ppc64le)" >&2; exit 2 ;;
  esac
}

apt_state="$cache/apt"
apt_opts=(-o "Dir::State::Lists=$apt_state/lists" -o "Dir::Cache=$apt_state/cache"
  -o "Dir::State::status=$apt_state/status"
  -o APT::Architectures::=amd64 -o APT::Architectures::=arm64
  -o APT::Architectures::=ppc64el -o Debug::NoLocking=1
  -o APT::Sandbox::User=root)
updated=0

for isa in "$@"; do
  debarch=$(debarch_of "$isa")
  root="$cache/$isa/root"
  stamp="$cache/$isa/stamp"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$stamp_version" ]; then
    continue
  fi
  if [ $updated -eq 0 ]; then
    mkdir -p "$apt_state/lists/partial" "$apt_state/cache/archives/partial"
    touch "$apt_state/status"
    echo "target-libs: updating a private package index"
    # A mirror in mid-sync can fail one index (often the security one); the
    # packages we need are in the main archive, so go on and let the download
    # say whether anything is really missing.
    apt-get "${apt_opts[@]}" update -qq || echo "target-libs: warning: index update was partial" >&2
    updated=1
  fi
  debs="$cache/$isa/debs"
  rm -rf "$debs" "$root"
  mkdir -p "$debs" "$root"
  echo "target-libs: fetching ${#pkgs_common[@]} packages for $isa"
  (cd "$debs" && apt-get "${apt_opts[@]}" download -qq "${pkgs_common[@]/%/:$debarch}")
  for deb in "$debs"/*.deb; do
    dpkg-deb -x "$deb" "$root"
  done
  triplet=$(ls "$root/usr/lib" | grep -- '-linux-gnu$' | head -n 1)
  # The runtime's development link is only in -dev packages we do not need.
  ln -sf libomp.so.5 "$root/usr/lib/llvm-14/lib/libomp.so"
  # Absolute symlinks in -dev packages point into the host; make them relative.
  for l in "$root/usr/lib/$triplet"/*.so; do
    if [ -L "$l" ]; then
      t=$(readlink "$l")
      case "$t" in /*) ln -sf "$(basename "$t")" "$l" ;; esac
    fi
  done
  echo "$stamp_version" > "$stamp"
  echo "target-libs: $isa root ready at $root"
done

#!/usr/bin/env bash
# Installs every Debian package knit needs to build and test, when missing.
# Idempotent: a second run finds everything present and does nothing.
set -euo pipefail

packages=(
  build-essential cmake pkg-config gfortran
  libcapstone-dev libdw-dev libelf-dev zlib1g-dev libcmocka-dev
  clang-14 libomp-14-dev llvm-14-tools libclang-rt-14-dev
  clang-format-14
  libunwind-dev
  qemu-user
  gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross libgomp1-arm64-cross gfortran-aarch64-linux-gnu
  gcc-powerpc64le-linux-gnu g++-powerpc64le-linux-gnu libc6-dev-ppc64el-cross libgomp1-ppc64el-cross gfortran-powerpc64le-linux-gnu
  gcc-powerpc64-linux-gnu g++-powerpc64-linux-gnu libc6-dev-ppc64-cross libgomp1-ppc64-cross gfortran-powerpc64-linux-gnu
  # ppc64's root is built from Debian source packages (ci/target-libs.sh):
  # dpkg-source unpacks them (.tar.bz2 and .tar.xz), make builds zlib and libelf.
  dpkg-dev bzip2 xz-utils make
  # The exports' checks: protoc decodes the pprof form against its schema;
  # headless Chromium loads the `knit view` page and the Chrome trace.
  protobuf-compiler chromium
  # speedscope (from the npm registry, below) reads the folded and pprof
  # forms in that browser; npm installs it.
  nodejs
)
# A Node.js from elsewhere may bring its own npm; Debian's comes apart.
command -v npm >/dev/null 2>&1 || packages+=(npm)

# speedscope, pinned, into the tree's .cache (harness/cli: report_speedscope).
# Without the npm registry the set-up goes on and that test skips, saying why.
speedscope_version=1.25.0
install_speedscope() {
  local dir
  dir="$(cd "$(dirname "$0")/.." && pwd)/.cache/npm"
  if grep -qs "\"version\": \"$speedscope_version\"" "$dir/node_modules/speedscope/package.json"; then
    return 0
  fi
  mkdir -p "$dir"
  if npm install --no-audit --no-fund --no-save --silent --prefix "$dir" \
    "speedscope@$speedscope_version" >/dev/null 2>&1; then
    echo "deps: speedscope $speedscope_version installed in $dir"
  else
    echo "deps: warning: npm could not install speedscope $speedscope_version: the test that runs it will skip" >&2
  fi
}

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep 'install ok installed' >/dev/null; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "deps: all ${#packages[@]} packages present"
  install_speedscope
  exit 0
fi

echo "deps: missing: ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO=sudo
  else
    echo "deps: error: installing packages needs root; run as root or install:" >&2
    echo "  apt-get install -y --no-install-recommends ${missing[*]}" >&2
    exit 1
  fi
else
  SUDO=
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "deps: installed ${#missing[@]} packages"
install_speedscope

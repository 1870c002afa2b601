#!/usr/bin/env bash
# Configures and builds one tree: native, aarch64, ppc64le or ppc64.
#   ci/build.sh TARGET BUILD_DIR JOBS
set -euo pipefail
target=${1:?usage: build.sh native|aarch64|ppc64le|ppc64 BUILD_DIR JOBS}
build=${2:-build}
jobs=${3:-2}
src=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$build"
dir="$build/$target"
args=(-S "$src" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo)
if [ "$target" != native ]; then
  bash "$src/ci/target-libs.sh" "$src/.cache/targets" "$target"
  args+=(-DCMAKE_TOOLCHAIN_FILE="$src/ci/toolchains/$target.cmake"
         -DKNIT_TARGET_ROOT="$src/.cache/targets/$target/root")
fi
if [ ! -f "$dir/CMakeCache.txt" ]; then
  cmake "${args[@]}" >"$build/configure-$target.log" 2>&1 || {
    cat "$build/configure-$target.log" >&2
    echo "build: configuring $target failed" >&2
    exit 1
  }
fi
cmake --build "$dir" -j "$jobs"

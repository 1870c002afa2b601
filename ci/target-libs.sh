#!/usr/bin/env bash
# Fetches the target-ISA builds of the libraries libknit links against
# (Capstone, elfutils, zlib, CMocka) and of LLVM's libomp, and unpacks them
# into a per-ISA root under the cache folder. Nothing on the system changes:
# apt runs with a private state folder and the packages are only unpacked.
#
#   ci/target-libs.sh CACHE_DIR ISA...      (ISA: aarch64 | ppc64le | ppc64)
#
# ppc64 (big-endian, ELFv1) is no Debian 12 architecture: there are cross
# compilers but no target packages, so its root is built from Debian 12's
# own source packages instead (build_from_source below), with only what the
# cross tree links against.
#
# Each ISA's root ends up at CACHE_DIR/<isa>/root with a stamp file, so a
# second run is a no-op.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)

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
    *) echo "target-libs: unknown ISA '$1' (aarch64, ppc64le or ppc64)" >&2; exit 2 ;;
  esac
}

apt_state="$cache/apt"
apt_opts=(-o "Dir::State::Lists=$apt_state/lists" -o "Dir::Cache=$apt_state/cache"
  -o "Dir::State::status=$apt_state/status"
  -o APT::Architectures::=amd64 -o APT::Architectures::=arm64
  -o APT::Architectures::=ppc64el -o Debug::NoLocking=1
  -o APT::Sandbox::User=root)
updated=0

# --- roots built from source (ppc64) ------------------------------------------
# Bump when the recipe below changes what lands in the root.
src_stamp_version=src-2
src_jobs=2 # the machine is shared: never more than two compilers

triplet_of_source_isa() {
  case "$1" in
    ppc64) echo powerpc64-linux-gnu ;;
    *) return 1 ;;
  esac
}

# The source index lives in its own lists/cache folders: an update with only
# the deb-src line in the binary lists folder would drop the binary indices
# the other ISAs use, and the shared package cache would be rebuilt each way.
src_state="$apt_state/src"
src_opts=("${apt_opts[@]}" -o "Dir::State::Lists=$src_state/lists"
  -o "Dir::Cache=$src_state/cache" -o "Dir::Etc::SourceList=$src_state/sources.list"
  -o "Dir::Etc::SourceParts=$src_state/parts")
src_updated=0

die() { echo "target-libs: error: $*" >&2; exit 1; }

# Runs a build step quietly into a log; on failure shows the log's end and
# stops, naming the step.
step() {
  local what=$1 log=$2
  shift 2
  if ! "$@" >>"$log" 2>&1; then
    tail -n 30 "$log" >&2
    die "$what failed (log: $log)"
  fi
}

build_from_source() {
  local isa=$1 triplet=$2
  local dir="$cache/$isa" root="$cache/$isa/root" stamp="$cache/$isa/stamp"
  local work="$cache/$isa/work" logs="$cache/$isa/logs"
  local libdir="$root/usr/lib/$triplet"
  local t0 t

  # Everything the recipe runs, checked first so a missing tool is named
  # rather than surfacing as a failed configure.
  local tool missing=()
  for tool in "$triplet-gcc" "$triplet-ar" cmake make dpkg-source "qemu-$isa"; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
  done
  [ ${#missing[@]} -eq 0 ] || die "building the $isa root needs ${missing[*]} (ci/deps.sh installs them)"
  [ -d "/usr/$triplet/lib" ] || die "no $triplet sysroot at /usr/$triplet (libc6-dev-${isa}-cross)"

  rm -rf "$root" "$work" "$logs" "$stamp" "$dir/sources"
  mkdir -p "$libdir" "$root/usr/include" "$work" "$logs"

  if [ $src_updated -eq 0 ]; then
    mkdir -p "$src_state/lists/partial" "$src_state/cache/archives/partial" "$src_state/parts"
    echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main" \
      > "$src_state/sources.list"
    echo "target-libs: updating a private source index (bookworm)"
    apt-get "${src_opts[@]}" update -qq || echo "target-libs: warning: source index update failed" >&2
    src_updated=1
  fi

  # Only what the cross tree links: knit_unwind (in libknit.so) needs
  # Capstone and libelf, libelf needs zlib, the unit tests CMocka. libdw is
  # used by knit_report, knit_audit and the x86-64 analyzer test alone, none
  # of which a cross tree builds, so elfutils stops at libelf. LLVM's libomp
  # is left out: the cross tree only uses it when present (KNIT_REAL_LIBOMP).
  local sources=(zlib capstone elfutils cmocka)
  echo "target-libs: fetching Debian 12 sources for $isa: ${sources[*]}"
  t0=$SECONDS
  (cd "$work" && apt-get "${src_opts[@]}" source -qq --only-source "${sources[@]}") \
    >"$logs/fetch.log" 2>&1 || {
    tail -n 20 "$logs/fetch.log" >&2
    die "could not fetch the source packages ${sources[*]} from bookworm (log: $logs/fetch.log)"
  }
  # Source versions are those of bookworm at the time; the file stays for
  # the record (e.g. elfutils_0.188-2.1).
  (cd "$work" && ls *.dsc | sed 's/\.dsc$//') > "$dir/sources"
  echo "target-libs: fetched $(paste -sd ' ' "$dir/sources") in $((SECONDS - t0)) s"
  local d name
  for name in "${sources[@]}"; do
    d=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name "$name-*" | head -n 1)
    [ -n "$d" ] || die "the $name source package did not unpack in $work"
    eval "src_$name=\$d"
  done

  # -O2, no debug info: the Debian packages of the other ISAs are stripped
  # as well. The CMake builds use knit's own toolchain file for the ISA.
  local cflags="-O2"
  local cmake_cross=(-DCMAKE_TOOLCHAIN_FILE="$src/ci/toolchains/$isa.cmake"
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS_RELEASE="$cflags -DNDEBUG"
    -DCMAKE_INSTALL_PREFIX=/usr -DCMAKE_INSTALL_LIBDIR="lib/$triplet")

  # zlib: its own configure script, a few seconds. LDCONFIG=true: its
  # install would otherwise run the host's ldconfig.
  t0=$SECONDS
  (
    cd "$src_zlib"
    step "zlib configure" "$logs/zlib.log" env CHOST="$triplet" CFLAGS="$cflags" \
      ./configure --prefix=/usr --libdir="/usr/lib/$triplet" --includedir=/usr/include
    step "zlib build" "$logs/zlib.log" make -j"$src_jobs" libz.a shared
    step "zlib install" "$logs/zlib.log" make install DESTDIR="$root" LDCONFIG=true
  )
  t=$((SECONDS - t0)); echo "target-libs: $isa: zlib built in $t s"

  # Capstone with the decoders of knit's machine table (x86, AArch64 and
  # PowerPC, both endiannesses being modes of the last): the unit tests run
  # every row's analyzer in every tree, so a big-endian host decodes the
  # little-endian ISAs' fixtures too. No static library, tests or cstool.
  t0=$SECONDS
  step "capstone configure" "$logs/capstone.log" cmake -S "$src_capstone" -B "$work/capstone-build" \
    "${cmake_cross[@]}" -DCAPSTONE_ARCHITECTURE_DEFAULT=OFF -DCAPSTONE_PPC_SUPPORT=ON \
    -DCAPSTONE_X86_SUPPORT=ON -DCAPSTONE_ARM64_SUPPORT=ON \
    -DCAPSTONE_BUILD_STATIC=OFF -DCAPSTONE_BUILD_SHARED=ON \
    -DCAPSTONE_BUILD_TESTS=OFF -DCAPSTONE_BUILD_CSTOOL=OFF
  step "capstone build" "$logs/capstone.log" cmake --build "$work/capstone-build" -j "$src_jobs"
  step "capstone install" "$logs/capstone.log" env DESTDIR="$root" cmake --install "$work/capstone-build"
  t=$((SECONDS - t0)); echo "target-libs: $isa: capstone built in $t s"

  # elfutils: configure (about 6 s) and then only lib/ (libeu.a) and
  # libelf.so, installed as elfutils' own install rule names it. The
  # compression libraries libelf could use besides zlib are left out.
  t0=$SECONDS
  (
    cd "$src_elfutils"
    step "elfutils configure" "$logs/elfutils.log" ./configure --host="$triplet" \
      --build="$(gcc -dumpmachine)" --prefix=/usr --libdir="/usr/lib/$triplet" \
      --disable-debuginfod --disable-libdebuginfod --disable-nls \
      --without-bzlib --without-lzma --without-zstd --disable-dependency-tracking \
      CFLAGS="$cflags" CPPFLAGS="-I$root/usr/include" \
      LDFLAGS="-L$libdir -Wl,-rpath-link,$libdir"
    step "elfutils lib/" "$logs/elfutils.log" make -C lib -j"$src_jobs"
    step "elfutils libelf" "$logs/elfutils.log" make -C libelf -j"$src_jobs" libelf.so
    local v
    v=$(sed -n 's/^PACKAGE_VERSION = //p' libelf/Makefile)
    [ -n "$v" ] || die "elfutils: no PACKAGE_VERSION in libelf/Makefile"
    install -m 755 libelf/libelf.so "$libdir/libelf-$v.so"
    ln -sf "libelf-$v.so" "$libdir/libelf.so.1"
    ln -sf libelf.so.1 "$libdir/libelf.so"
    install -m 644 libelf/libelf.h libelf/gelf.h libelf/nlist.h "$root/usr/include/"
    mkdir -p "$root/usr/include/elfutils"
    install -m 644 libelf/elf-knowledge.h version.h "$root/usr/include/elfutils/"
  )
  t=$((SECONDS - t0)); echo "target-libs: $isa: elfutils (libelf only) built in $t s"

  t0=$SECONDS
  step "cmocka configure" "$logs/cmocka.log" cmake -S "$src_cmocka" -B "$work/cmocka-build" \
    "${cmake_cross[@]}" -DWITH_EXAMPLES=OFF -DUNIT_TESTING=OFF -DWITH_STATIC_LIB=OFF
  step "cmocka build" "$logs/cmocka.log" cmake --build "$work/cmocka-build" -j "$src_jobs"
  step "cmocka install" "$logs/cmocka.log" env DESTDIR="$root" cmake --install "$work/cmocka-build"
  t=$((SECONDS - t0)); echo "target-libs: $isa: cmocka built in $t s"

  # The four libraries together, under QEMU, before the root is stamped:
  # Capstone decoding big-endian code, libelf reading the test's own file,
  # zlib and CMocka running it (ci/target-libs-smoke.c).
  local smoke="$work/target-libs-smoke"
  step "smoke test build" "$logs/smoke.log" "$triplet-gcc" -O1 -o "$smoke" "$src/ci/target-libs-smoke.c" \
    -I"$root/usr/include" -L"$libdir" -Wl,-rpath,"$libdir" -Wl,--disable-new-dtags \
    -lcapstone -lelf -lz -lcmocka
  if ! "qemu-$isa" -L "/usr/$triplet" "$smoke" >"$logs/smoke.log" 2>&1; then
    cat "$logs/smoke.log" >&2
    die "the $isa root's smoke test failed (log: $logs/smoke.log)"
  fi
  sed 's/^/  /' "$logs/smoke.log"

  # The unpacked sources and build trees are most of the space and are not
  # used again (the stamp stops a rebuild); the logs stay.
  rm -rf "$work"
  echo "$src_stamp_version" > "$stamp"
  echo "target-libs: $isa root ready at $root (built from $(paste -sd ' ' "$dir/sources"))"
}

for isa in "$@"; do
  if triplet=$(triplet_of_source_isa "$isa"); then
    stamp="$cache/$isa/stamp"
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$src_stamp_version" ]; then
      continue
    fi
    t_all=$SECONDS
    build_from_source "$isa" "$triplet"
    echo "target-libs: $isa root took $((SECONDS - t_all)) s"
    continue
  fi
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

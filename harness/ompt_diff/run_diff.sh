#!/bin/sh
# run_diff.sh --build DIR --program NAME --runtime mock-intel|mock-pgi|libomp
#             [--emulator CMD] [--isa ISA]
#             [--keep DIR] [--all] [--gaps FILE] [--intended FILE]
#
# Runs one program of progs/ with the event-logging tool on LLVM's libomp 14
# and on the runtime named, puts both logs in canonical form (canon.sh),
# applies the intended differences of intended.txt to both, and diffs them.
# Every differing line must be matched by an entry of known_gaps.txt for
# this program and runtime, and every such entry must match some line: a
# new difference fails, and so does a gap that no longer occurs (the list
# must shrink as the mocks are fixed).  --runtime libomp runs libomp twice
# and requires the same canonical log (the program is deterministic).
# The tree's ISA, which picks the entries of known_gaps.txt and
# intended.txt qualified with @ISA, and in a cross tree the emulator the
# programs run under (qemu-aarch64 -L /usr/aarch64-linux-gnu, its words
# joined by commas) come from BUILD_DIR/ompt_diff/tree.conf, which CMake
# writes; --isa and --emulator override them.
# --all prints every differing line, not only the unexplained ones;
# --gaps and --intended read other lists (selftest.sh).
# Exit: 0 pass, 1 fail, 77 skip (no libomp 14, no program).
# OMPT_DIFF_PRELOAD: a library loaded first into each run (a sanitizer's
# runtime, in a tree whose mocks are instrumented).
set -u
here=$(cd "$(dirname "$0")" && pwd)
build= program= runtime= keep= all=0 emulator= isa=
gaps_file=$here/known_gaps.txt
intended_file=$here/intended.txt
while [ $# -gt 0 ]; do
  case $1 in
  --build) build=$2; shift 2 ;;
  --program) program=$2; shift 2 ;;
  --runtime) runtime=$2; shift 2 ;;
  --emulator) emulator=$2; shift 2 ;;
  --isa) isa=$2; shift 2 ;;
  --keep) keep=$2; shift 2 ;;
  --all) all=1; shift ;;
  --gaps) gaps_file=$2; shift 2 ;;
  --intended) intended_file=$2; shift 2 ;;
  *) echo "run_diff: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$build" ] && [ -n "$program" ] && [ -n "$runtime" ] || {
  echo "usage: run_diff.sh --build DIR --program NAME --runtime mock-intel|mock-pgi|libomp" >&2
  exit 2
}
conf=$build/ompt_diff/tree.conf
if [ -f "$conf" ]; then
  [ -n "$isa" ] || isa=$(sed -n 's/^isa=//p' "$conf")
  [ -n "$emulator" ] || emulator=$(sed -n 's/^emulator=//p' "$conf")
fi
[ -n "$isa" ] || isa=$(uname -m)
prog=$build/ompt_diff/$program
tool=$build/lib/libompt_log.so
real=$build/lib/real-libomp
if [ ! -e "$real/libomp.so.5" ]; then
  echo "skip: LLVM libomp 14 is not installed (/usr/lib/llvm-14/lib/libomp.so.5; ci/deps.sh installs libomp-14-dev): nothing to compare with"
  exit 77
fi
if [ ! -x "$prog" ] || [ ! -f "$tool" ]; then
  echo "skip: $prog or $tool is not built"
  exit 77
fi
case $runtime in
libomp) rtdir=$real ;;
mock-intel | mock-pgi) rtdir=$build/lib/$runtime ;;
*) echo "run_diff: unknown runtime $runtime" >&2; exit 2 ;;
esac
if [ ! -e "$rtdir/libomp.so.5" ]; then
  echo "skip: $rtdir/libomp.so.5 is not built"
  exit 77
fi

if [ -n "$keep" ]; then
  work=$keep
  mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi

# One run: the raw log, then the program's exit status and output as
# events of their own (a crash or a wrong result is a difference too).
# Under an emulator the program's environment goes through qemu's -E
# options: a library path or preload in qemu's own environment would be
# the host loader's too.  A guest runs several times slower, hence the
# longer time limit.
run() { # run RUNTIME_DIR NAME
  name=$2
  rm -f "$work/$name.raw"
  set -- LD_LIBRARY_PATH="$1" OMP_TOOL_LIBRARIES="$tool" OMPT_LOG_FILE="$work/$name.raw" \
    OMP_NUM_THREADS=4 OMP_CANCELLATION=true OMP_TOOL=enabled
  if [ -n "${OMPT_DIFF_PRELOAD:-}" ]; then
    set -- "$@" LD_PRELOAD="$OMPT_DIFF_PRELOAD"
  fi
  if [ -n "$emulator" ]; then
    for v; do
      shift
      set -- "$@" -E "$v"
    done
    set -f
    old_ifs=$IFS
    IFS=,
    # shellcheck disable=SC2086
    set -- $emulator "$@"
    IFS=$old_ifs
    set +f
    timeout 180 "$@" "$prog" >"$work/$name.out" 2>&1
  else
    env "$@" timeout 45 "$prog" >"$work/$name.out" 2>&1
  fi
  rc=$?
  out=$(head -c 200 "$work/$name.out" | tr '\t\n ' '__.')
  printf 'A\t999998\tprogram exit=%s\nA\t999999\tprogram output=%s\n' "$rc" "$out" >>"$work/$name.raw"
  sh "$here/canon.sh" "$prog" "$work/$name.raw" >"$work/$name.canon"
}

# names RUNTIMES: whether a comma-separated list of RUNTIME or RUNTIME@ISA
# names this run's runtime (a bare one on every ISA, a qualified one on its
# ISA only); * stands for either mock.
names() {
  old_ifs=$IFS
  IFS=,
  set -f
  # shellcheck disable=SC2086
  set -- $1
  set +f
  IFS=$old_ifs
  for tok; do
    case $tok in
    *@*) [ "${tok#*@}" = "$isa" ] || continue; tok=${tok%@*} ;;
    esac
    if [ "$tok" = "$runtime" ] || [ "$tok" = "*" ]; then
      return 0
    fi
  done
  return 1
}

# Lines of the form "A ;; B ;; ..." of a list file, comments and blanks out.
entries() {
  grep -v '^[[:space:]]*#' "$1" | grep -v '^[[:space:]]*$' || true
}

run "$real" libomp
events=$(grep -c "$(printf '\t')[^ ]" "$work/libomp.canon")
fields=$(wc -l <"$work/libomp.canon")

if [ "$runtime" = libomp ]; then
  run "$real" libomp2
  if ! diff "$work/libomp.canon" "$work/libomp2.canon" >"$work/unstable"; then
    echo "FAIL: $program logs differently in two runs on libomp: not deterministic"
    head -40 "$work/unstable"
    exit 1
  fi
  echo "PASS: $program: the same canonical log in two runs on libomp ($events events, $fields fields)"
  exit 0
fi

run "$rtdir" mock

# Intended differences: sed scripts applied to both logs.
sedfile=$work/intended.sed
: >"$sedfile"
entries "$intended_file" | while IFS= read -r line; do
  rt=$(printf '%s' "$line" | awk -F ' ;; ' '{print $1}')
  names "$rt" || continue
  printf '%s\n' "$line" | awk -F ' ;; ' '{print $2}' >>"$sedfile"
done
for side in libomp mock; do
  sed -f "$sedfile" "$work/$side.canon" >"$work/$side.cmp"
done

diff --unchanged-line-format= --old-line-format='-%L' --new-line-format='+%L' \
  "$work/libomp.cmp" "$work/mock.cmp" | tr '\t' ' ' >"$work/diffs"
ndiff=$(wc -l <"$work/diffs")

# Known gaps of this program on this runtime.
: >"$work/matched"
fail=0
n_gaps=0
entries "$gaps_file" >"$work/gaps"
while IFS= read -r line; do
  progs=$(printf '%s' "$line" | awk -F ' ;; ' '{print $1}')
  rt=$(printf '%s' "$line" | awk -F ' ;; ' '{print $2}')
  pat=$(printf '%s' "$line" | awk -F ' ;; ' '{print $3}')
  why=$(printf '%s' "$line" | awk -F ' ;; ' '{print $4}')
  names "$rt" || continue
  case ",$progs," in *",$program,"*) ;; *) continue ;; esac
  n=$(grep -c -E -e "$pat" "$work/diffs")
  if [ "$n" -eq 0 ]; then
    echo "FAIL: known gap no longer occurs (remove it from known_gaps.txt): $pat -- $why"
    fail=1
  else
    n_gaps=$((n_gaps + 1))
    echo "gap ($n lines): $why"
  fi
  grep -n -E -e "$pat" "$work/diffs" | cut -d: -f1 >>"$work/matched"
done <"$work/gaps"
sort -un "$work/matched" >"$work/matched.sorted"
# The differing lines no entry explains.
awk 'FILENAME == ARGV[1] { m[$1] = 1; next } !(FNR in m)' "$work/matched.sorted" "$work/diffs" >"$work/new"
nnew=$(wc -l <"$work/new")
if [ "$all" = 1 ]; then
  echo "-- all differing lines (- libomp, + $runtime):"
  cat "$work/diffs"
fi
if [ "$nnew" -gt 0 ]; then
  echo "FAIL: $nnew differing line(s) that neither intended.txt nor known_gaps.txt explains (- libomp, + $runtime):"
  head -60 "$work/new"
  fail=1
fi
echo "$program on $runtime: $events events ($fields fields) compared; $ndiff differing lines, $n_gaps known gaps"
[ "$fail" = 0 ] && echo PASS
exit $fail

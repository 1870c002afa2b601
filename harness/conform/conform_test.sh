#!/usr/bin/env bash
# knit conform from ctest: the reports, the summary and the command's errors.
#   conform_test.sh report KNIT RUNTIME[:ABI] ISA DIR [--mutations]
#   conform_test.sh summary KNIT DIR
#   conform_test.sh errors KNIT
#   conform_test.sh installed KNIT CMAKE BUILD_DIR
# A report whose ISA tree or runtime is not built is skipped (77).
set -uo pipefail
what=$1 knit=$2
shift 2

fail() { echo "FAIL: $*"; exit 1; }

failed_checks() {   # the names of the failed checks of a .tsv report
  awk -F'\t' '$1 == "check" && $4 == "fail" { print $2 }' "$1" | sort
}

report() {
  local spec=$1 isa=$2 dir=$3 extra=${4:-}
  local runtime=${spec%%:*} abi="" name=$1
  if [ "$spec" != "$runtime" ]; then
    abi=--abi=${spec#*:}
    name=$runtime-${spec#*:}
  fi
  local base="$dir/$name-$isa"
  mkdir -p "$dir"
  local out rc
  out=$("$knit" conform --runtime="$runtime" $abi --isa="$isa" $extra --format=all -o "$base" 2>&1)
  rc=$?
  echo "$out"
  if [ $rc -eq 2 ] && grep -qE "is not built|is missing for|no clang-built" <<<"$out"; then
    echo "skip: $out"
    exit 77
  fi
  [ $rc -le 1 ] || fail "knit conform exited $rc"
  for ext in md json xml html tsv; do
    [ -s "$base.$ext" ] || fail "$base.$ext was not written"
  done
  grep -q '"checks": \[' "$base.json" || fail "$base.json has no checks"
  grep -q '<testsuite name="knit conform' "$base.xml" || fail "$base.xml is not JUnit XML"
  # Every platform test ran and none failed; exec may be unsupported under QEMU.
  local platform
  platform=$(awk -F'\t' '$1 == "check" && $3 == "platform"' "$base.tsv" | wc -l)
  [ "$platform" -eq 9 ] || fail "$platform platform verdicts, want 9"
  local fails
  fails=$(failed_checks "$base.tsv" | tr '\n' ' ' | sed 's/ $//')
  case $runtime in
    mock-*)
      [ $rc -eq 0 ] || fail "the mock fails checks: $fails"
      if [ -n "$extra" ]; then
        grep -qE '^report	mutated	1' "$base.tsv" || fail "no mutation results"
        ! grep -qE '^mutation	[^	]*	missed' "$base.tsv" || fail "a fault was missed"
        grep -qE '^mutation	[^	]*	caught' "$base.tsv" || fail "no fault was caught"
      fi ;;
    libomp)
      # Each failure must be a departure from OpenMP 5.0 knit explains
      # (profiler/conform/conform_departures.c): a new one is a finding to look at.
      for f in $fails; do
        awk -F'\t' -v c="$f" '$1 == "check" && $2 == c' "$base.tsv" |
          grep -q "departs from OpenMP 5.0" || fail "libomp fails $f, not a known departure"
      done ;;
    libgomp)
      [ $rc -eq 0 ] || fail "libgomp fails checks: $fails"
      grep -q "offers no OMPT" "$base.md" || fail "the report does not say that libgomp has no OMPT"
      local other
      other=$(awk -F'\t' '$1 == "check" && $3 != "platform" && $4 != "not supported"' "$base.tsv")
      [ -z "$other" ] || fail "OMPT checks that are not 'not supported' on libgomp: $other" ;;
  esac
  echo "ok: $base (failed: ${fails:-none})"
}

summary() {
  local dir=$1
  "$knit" conform --summary="$dir" --format=all -o "$dir/summary" || fail "summary failed"
  local reports rows
  reports=$(ls "$dir"/*.tsv | grep -vc '/summary')
  rows=$(grep -cE '^\| (mock|lib)' "$dir/summary.md")
  [ "$rows" -eq "$reports" ] || fail "$rows summary rows for $reports reports"
  # The check-by-runtime table: a column per report, a row per check, a
  # verdict where a report has one, in md and in html.
  local header columns
  header=$(grep -E '^\| check \|' "$dir/summary.md") || fail "no check-by-runtime table"
  columns=$(( $(tr -cd '|' <<<"$header" | wc -c) - 2 ))
  [ "$columns" -eq "$reports" ] || fail "$columns table columns for $reports reports"
  grep -qE '^\| wait_state_critical \|( (pass|\*\*FAIL\*\*|n/s|n/o|) \|)+$' "$dir/summary.md" ||
    fail "no verdicts for wait_state_critical in the table"
  grep -q '<h2>Checks by runtime</h2>' "$dir/summary.html" || fail "no table in summary.html"
  cat "$dir/summary.md"
}

errors() {
  local tmp
  tmp=$(mktemp -d)
  trap "rm -rf '$tmp'" EXIT
  expect() {  # expect CODE REGEX ARGS...
    local code=$1 re=$2 out rc
    shift 2
    out=$("$knit" conform "$@" 2>&1)
    rc=$?
    [ $rc -eq "$code" ] || fail "knit conform $*: exit $rc, want $code ($out)"
    grep -qE "$re" <<<"$out" || fail "knit conform $*: no '$re' in: $out"
  }
  expect 2 "unknown runtime 'nosuch'" --runtime=nosuch
  expect 2 "runtime /nonexistent/libomp.so.5: No such file" --runtime=/nonexistent/libomp.so.5
  expect 2 "no runtime given" --format=md
  expect 2 "unknown format 'pdf'" --runtime=mock-gomp --format=pdf
  expect 2 "unknown ISA 'sparc'" --runtime=mock-gomp --isa=sparc
  expect 2 "unknown ABI 'fortran'" --runtime=libomp --abi=fortran
  expect 2 "does not speak the kmpc ABI" --runtime=mock-gomp --abi=kmpc
  expect 2 "cannot write /nonexistent/dir/r.md" --runtime=mock-gomp -o /nonexistent/dir/r.md
  expect 2 "needs -o BASE" --runtime=mock-gomp --format=all
  expect 2 "needs a mock runtime" --runtime=libgomp --mutations
  expect 2 "no reports" --summary="$tmp"
  expect 0 "exit status" --help
  # A runtime by path: the folder of LLVM's libomp, as --runtime=libomp uses it.
  local libomp
  libomp=$(dirname "$knit")/../lib/real-libomp
  if [ -e "$libomp/libomp.so.5" ]; then
    "$knit" conform --runtime="$(readlink -f "$libomp/libomp.so.5")" -o "$tmp/p.md"
    [ $? -le 1 ] && grep -q "OMPT found" "$tmp/p.md" || fail "a runtime given by path"
  fi
  echo "ok: errors"
}

# knit installed into a prefix of its own runs the helpers installed with
# it, <prefix>/libexec/knit/conform, found from the binary and not from the
# build tree; a helper taken away is named, with where knit looked for it.
installed() {
  local cmake=$1 build=$2 prefix out rc
  prefix=$(mktemp -d)
  # Expanded now: the trap runs after the function's locals are gone.
  trap "rm -rf '$prefix'" EXIT
  "$cmake" --install "$build" --prefix "$prefix" >"$prefix/install.log" 2>&1 ||
    { cat "$prefix/install.log"; fail "cmake --install failed"; }
  local knit="$prefix/bin/knit" helpers="$prefix/libexec/knit/conform"
  [ -x "$helpers/conform_sampling" ] || fail "no helpers installed in $helpers"
  # The quickest runtime: the system's libgomp (no OMPT, but every program runs).
  "$knit" conform --runtime=libgomp --format=all -o "$prefix/libgomp" ||
    fail "installed knit conform --runtime=libgomp"
  local passed
  passed=$(awk -F'\t' '$1 == "check" && $4 == "pass" && $6 == "sampling"' "$prefix/libgomp.tsv" |
           wc -l)
  [ "$passed" -eq 9 ] || fail "$passed platform checks passed, want 9"
  grep -qE '^check	[^	]*	[^	]*	not supported	[^	]*	regions:gomp' "$prefix/libgomp.tsv" ||
    fail "no verdicts of the installed conform_regions_gomp"
  # The OMPT checker installed beside the programs, on a runtime with OMPT:
  # the mock, by path, since the mocks are not installed.
  "$knit" conform --runtime="$build/lib/mock-gomp" -o "$prefix/mock.md" ||
    fail "installed knit conform on the mock"
  grep -q '^| initialize_once | pass |' "$prefix/mock.md" ||
    fail "the installed checker gave no verdicts"
  rm "$helpers/libknit_conform_tool_null.so"
  out=$("$knit" conform --runtime=libgomp 2>&1 >/dev/null)
  rc=$?
  [ $rc -eq 2 ] || fail "knit conform without a helper: exit $rc, want 2 ($out)"
  local want
  want="helper libknit_conform_tool_null.so is missing: no $(readlink -f "$helpers")/"
  grep -qF "${want}libknit_conform_tool_null.so" <<<"$out" ||
    fail "no clear message for a missing helper: $out"
  echo "$out"
  echo "ok: installed (passed $passed platform checks)"
}

"$what" "$@"

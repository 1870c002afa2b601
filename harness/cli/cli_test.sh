#!/usr/bin/env bash
# The knit command's behaviour at its edges: bad options, missing programs,
# crashing programs, corrupt measurements. Each case is one ctest entry:
#   cli_test.sh CASE KNIT WORKLOAD_DIR
set -uo pipefail
case_name=$1 knit=$2 wl=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/knit-cli.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

fail() { echo "FAIL: $*"; exit 1; }

# line LABEL: the line of $src that carries the marker comment "@LABEL"
# (/* @LABEL */, // @LABEL or ! @LABEL at the end of the line). Unless
# exactly one does, the test fails, so that no pattern is built from a
# wrong number: line runs in a command substitution, whose exit would end
# only that subshell, so it ends the test's own shell.
line() {
  local found
  found=$(grep -nE "(/\* @$1 \*/|(//|!) @$1)\s*$" "$src" | cut -d: -f1)
  if ! [[ "$found" =~ ^[0-9]+$ ]]; then
    echo "FAIL: no single line of $src is marked @$1: '${found//$'\n'/ }'" >&2
    kill -TERM $$
    exit 1
  fi
  echo "$found"
}

# expect STATUS PATTERN -- CMD...: runs CMD, checks its exit status and that
# its combined output matches PATTERN (an extended regex).
expect() {
  local want=$1 pattern=$2
  shift 3
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  out_last=$out
  echo "+ $* -> $rc"
  echo "$out" | sed 's/^/  | /'
  [ "$rc" -eq "$want" ] || fail "exit status $rc, expected $want"
  grep -qE "$pattern" <<<"$out" || fail "output does not match /$pattern/"
}

# need_host_plugin: the case runs workloads/target on LLVM's offloading
# runtime with its x86-64 host plugin, or skips (77) without them; $src is
# the workload's source.
need_host_plugin() {
  local plugin
  plugin=$(dirname "$knit")/../lib/real-libomp/libomptarget.rtl.x86_64.so
  if [ ! -e "$plugin" ] || [ ! -x "$wl/target" ]; then
    echo "skip: no LLVM libomptarget x86-64 plugin ($plugin) or no workloads/target"
    exit 77
  fi
  src=$(dirname "$0")/../../workloads/target.c
}

# kernel_line wide|narrow: the line of workloads/target.c whose pragma opens
# that kernel (the wide one maps its input, the narrow one maps nothing).
kernel_line() {
  local pattern='^#pragma omp target teams distribute parallel for$'
  [ "$1" = wide ] && pattern='^#pragma omp target teams distribute parallel for map\(to'
  grep -nE "$pattern" "$src" | cut -d: -f1
}

# workloads/unreadable makes part of its own stack unreadable and then
# calls the runtime, which allocates: under ASan (make check-asan) the
# sanitizer's malloc, not knit, would walk the stack by its frame pointers
# and fault on those pages. Its allocation stacks are left out there.
asan_without_malloc_stacks() {
  if [ "${KNIT_SANITIZED:-}" = asan ]; then
    export ASAN_OPTIONS="${ASAN_OPTIONS:-}:malloc_context_size=0"
  fi
}

# The program's thread also opens regions in that state, and the mock, as
# libgomp and libomp do, starts workers for that thread's own team there:
# ASan's pthread_create records the creating stack by frame pointers, which
# the instrumented mock keeps intact into the unreadable pages (the real
# runtimes, built without frame pointers, stop its walk at once), and
# faults.  No ASan option leaves that stack out: the case skips there.
asan_skip_on_mock() {
  if [ "${KNIT_SANITIZED:-}" = asan ] && [ "${1:-mock-gomp}" = mock-gomp ]; then
    echo "skip: under ASan, its pthread_create walks the stack the workload made unreadable when the mock starts a worker for the program's thread"
    exit 77
  fi
}

# The `knit view` page in headless Chromium (ci/deps.sh installs it): the
# page writes its state into #knit-status (viewer.js), which the DOM dump
# shows. Without Chromium the case skips.
chromium_here() {
  command -v chromium || command -v chromium-browser || {
    echo "skip: no chromium to load the page in (ci/deps.sh installs it)" >&2
    exit 77
  }
}

# browse PAGE: the DOM after the page's script ran, into $tmp/dom.html; its
# status element into $status.
browse() {
  local chrome
  chrome=$(chromium_here) || exit 77
  timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --user-data-dir="$tmp/chrome" \
    --window-size=1400,900 --virtual-time-budget=5000 --dump-dom "file://$1" \
    >"$tmp/dom.html" 2>"$tmp/chrome.log" || fail "chromium: $(tail -n 3 "$tmp/chrome.log")"
  status=$(grep -o '<div id="knit-status"[^>]*>' "$tmp/dom.html")
  echo "+ chromium $1: $status"
  grep -q 'data-state="ready"' <<<"$status" ||
    fail "the page did not get ready: $status $(grep -o '<pre id="knit-errors">[^<]*' "$tmp/dom.html")"
  grep -q 'data-errors="0"' <<<"$status" ||
    fail "the page reported errors: $(grep -o '<pre id="knit-errors">[^<]*' "$tmp/dom.html")"
}

# status_of KEY: a number of the page's status (data-KEY), 0 when absent.
status_of() {
  local v
  v=$(grep -o " data-$1=\"[0-9.]*\"" <<<"$status" | cut -d'"' -f2)
  echo "${v:-0}"
}

# shoot PAGE NAME: a screenshot of the page as $KNIT_VIEW_SHOTS/NAME.png,
# when the build asks for them (docs/view-*.png are made from these).
shoot() {
  [ -n "${KNIT_VIEW_SHOTS:-}" ] || return 0
  mkdir -p "$KNIT_VIEW_SHOTS"
  timeout 120 "$(chromium_here)" --headless --no-sandbox --disable-gpu --user-data-dir="$tmp/chrome" \
    --window-size=1400,1100 --virtual-time-budget=5000 --hide-scrollbars \
    --screenshot="$KNIT_VIEW_SHOTS/$2.png" "file://$1" >/dev/null 2>&1 ||
    fail "chromium could not take the screenshot $2.png"
  echo "+ screenshot $KNIT_VIEW_SHOTS/$2.png"
}

case "$case_name" in
no_command)
  expect 2 'usage: knit' -- "$knit"
  expect 2 "unknown command 'frobnicate'" -- "$knit" frobnicate
  expect 0 'commands:' -- "$knit" --help
  ;;
record_bad_option)
  expect 2 "unknown or incomplete option '--bogus'" -- "$knit" record --bogus -- /bin/true
  expect 2 'usage: knit record' -- "$knit" record -e
  expect 2 'no program given' -- "$knit" record -e PROBE
  expect 2 "unknown event 'CYCLES'" -- "$knit" record -e CYCLES@100 -- /bin/true
  expect 2 'bad period' -- "$knit" record -e CPUTIME@abc -- /bin/true
  expect 2 'one event a run: -e CPUTIME@f200 and -e REALTIME@f1000' -- \
    "$knit" record -e CPUTIME@f200 -e REALTIME@f1000 -- /bin/true
  expect 2 "unknown runtime 'mock-nope' \(system, mock-gomp, mock-intel, mock-pgi, libomp, libgomp\)" -- "$knit" record --runtime=mock-nope -o "$tmp/x" -- "$wl/calls"
  expect 0 'PROBE' -- "$knit" record --help
  ;;
record_missing_program)
  expect 2 "cannot find an executable program '/no/such/program'" -- \
    "$knit" record -o "$tmp/m" -- /no/such/program
  expect 2 "cannot find an executable program 'no-such-program-knit'" -- \
    "$knit" record -o "$tmp/m" -- no-such-program-knit
  printf '\177ELF\001\001\001' >"$tmp/elf32" && chmod +x "$tmp/elf32"
  expect 2 'not an ELF program of an ISA knit knows \(x86_64, aarch64, ppc64le or ppc64\)' -- "$knit" record -o "$tmp/m2" -- "$tmp/elf32"
  ;;
record_keeps_measurement)
  expect 0 'SUMMARY samples=15 partial=0' -- "$knit" record -e PROBE -o "$tmp/m" -- "$wl/calls" 1
  expect 2 'already holds a measurement' -- "$knit" record -e PROBE -o "$tmp/m" -- "$wl/calls" 1
  ls "$tmp/m"/thread-*.knit >/dev/null || fail "the first measurement was touched"
  ;;
record_unwritable_output)
  # -o that names a file, or a directory knit cannot write in: refused
  # before the program runs, saying why (before, the program ran, nothing
  # was recorded and the message blamed the program).
  touch "$tmp/afile"
  expect 2 'afile is not a directory' -- "$knit" record -o "$tmp/afile" -- "$wl/calls" 1
  if [ -d /sys/kernel ] && ! touch /sys/kernel/.knit 2>/dev/null; then
    expect 2 'cannot write in /sys/kernel' -- "$knit" record -o /sys/kernel -- "$wl/calls" 1
  fi
  expect 2 'cannot create the measurement directory' -- "$knit" record -o "$tmp/no/such/m" -- "$wl/calls" 1
  ;;
timer_wrong_path)
  # A timer run is compared by paths and shares, and a golden with a path
  # the program does not have is still a mismatch: here calls' own golden
  # matches, and the same golden with nested_inner renamed does not (the
  # renamed path is missing, the real one unexpected).
  golden=$(dirname "$0")/../../expected/calls.folded
  expect 0 'SUMMARY' -- "$knit" record -e CPUTIME@1000 -o "$tmp/m" -- "$wl/calls" 3000
  expect 0 'matches' -- "$knit" check "$tmp/m" "$golden"
  sed 's/nested_inner/nested_elsewhere/' "$golden" >"$tmp/wrong.folded"
  expect 1 'missing: golden share' -- "$knit" check "$tmp/m" "$tmp/wrong.folded"
  grep -q '^+ main;run_calls;nested_outer;nested_inner ' <<<"$out_last" ||
    fail "the real path is not reported unexpected"
  ;;
timer_handler_time)
  # A timer sample's periods are the program's time since the last sample
  # ended, not the time knit's handler took: under QEMU the first samples
  # build their recipes in code QEMU translates for the first time, which
  # took 20 to 130 ms, all of it charged to the place of the next sample
  # (a program that runs for a few ms). One round of calls is some 5 ms.
  command -v qemu-x86_64 >/dev/null 2>&1 || { echo "skip: qemu-user is not installed"; exit 77; }
  if [ -n "${KNIT_SANITIZED:-}" ]; then
    echo "skip: $KNIT_SANITIZED's runtime does not run under QEMU user mode"
    exit 77
  fi
  for i in 1 2 3; do
    expect 0 'SUMMARY' -- "$knit" record -e CPUTIME@1000 --qemu -o "$tmp/q$i" -- "$wl/calls" 1
    expect 0 'CPUTIME every 1 ms' -- "$knit" report "$tmp/q$i"
    # "(1 period, ...)" or "(N periods, ...)"
    periods=$(sed -n '1s/.*(\([0-9]*\) periods\{0,1\},.*/\1/p' <<<"$out_last")
    [ -n "$periods" ] && [ "$periods" -le 15 ] ||
      fail "one round of calls took ${periods:-?} periods of CPU time: more than the program's own"
  done
  ;;
program_exit_status)
  # The program's own status comes back through knit record, and a program
  # that leaves through _exit (as the shell does) still gets its SUMMARY.
  expect 3 'SUMMARY samples=0' -- "$knit" record -e PROBE -o "$tmp/m" -- /bin/sh -c 'exit 3'
  expect 0 'SUMMARY' -- "$knit" record -e CPUTIME -o "$tmp/m1" -- "$wl/calls" 1
  ;;
script)
  # A script runs natively; the programs it starts are profiled.
  printf '#!/bin/sh\nexec "%s/calls" 1\n' "$wl" >"$tmp/run.sh" && chmod +x "$tmp/run.sh"
  expect 0 'SUMMARY samples=15 partial=0' -- "$knit" record -e PROBE -o "$tmp/m" -- "$tmp/run.sh"
  expect 2 'not an ELF program: --qemu needs one' -- "$knit" record --qemu -o "$tmp/m3" -- "$tmp/run.sh"
  ;;
crash_keeps_data)
  expect 139 'killed by signal 11' -- "$knit" record -e PROBE -o "$tmp/m" -- "$wl/crash"
  grep -q '^end: crash: SIGSEGV' "$tmp/m/knit.log" || fail "the log does not say the program crashed"
  grep -q '^SUMMARY samples=5 partial=0' "$tmp/m/knit.log" || fail "the probes before the crash are lost"
  # The symbols' frames (--no-inline --no-loops): the path the walks found.
  expect 0 'main;before_crash[.a-z0-9]* 5' -- "$knit" report --no-inline --no-loops --format=folded "$tmp/m"
  ;;
faults_with_program_handler)
  # The same faulting walks in a program that sets its own SIGSEGV and
  # SIGBUS handlers after knit's guard (gfortran's runtime does): knit keeps
  # its guard first, its faults never reach the program's handler (which
  # would exit 4), and the program is told of the handler it had set.
  asan_skip_on_mock mock-gomp
  asan_without_malloc_stacks
  expect 0 'unreadable: status 0' -- env OMP_NUM_THREADS=2 "$knit" record -e PROBE \
    --runtime=mock-gomp -o "$tmp/m" -- "$wl/unreadable" own-handler
  grep -q '^SUMMARY samples=11 partial=2 blocked=0 faults=4 ' "$tmp/m/knit.log" ||
    fail "not every fault was recovered and counted: $(grep '^SUMMARY' "$tmp/m/knit.log")"
  ;;
faults_recovered)
  # Walks that fault, one after another (workloads/unreadable: two probes
  # and two region captures whose walks reach unreadable stack pages): each
  # fault is recovered, counted and ends its walk partial; the program's
  # signal mask is unchanged (else it exits 3), and the walks after the
  # pages are readable again are whole. RUNTIME picks the OpenMP runtime
  # (default mock-gomp); KNIT_QEMU=1 runs another ISA's tree under QEMU
  # (run_cross.sh sets KNIT_LIBDIR to it).
  opts=(-e PROBE --runtime="${RUNTIME:-mock-gomp}" -o "$tmp/m")
  [ "${KNIT_QEMU:-0}" = 1 ] && opts+=(--qemu)
  asan_skip_on_mock "${RUNTIME:-mock-gomp}"
  asan_without_malloc_stacks
  expect 0 'unreadable: status 0' -- env OMP_NUM_THREADS=2 "$knit" record "${opts[@]}" -- "$wl/unreadable"
  grep -q '^SUMMARY samples=11 partial=2 blocked=0 faults=4 ' "$tmp/m/knit.log" ||
    fail "not every fault was recovered and counted: $(grep '^SUMMARY' "$tmp/m/knit.log")"
  # The symbols' frames (--no-inline --no-loops): the paths the walks found.
  expect 0 '' -- "$knit" report --no-inline --no-loops --format=folded "$tmp/m"
  folded=$out_last
  # The regions opened in the window sit under a partial path (the capture
  # faulted), their bodies' own samples whole; those opened after, whole.
  # region_probe's call of the runtime is a tail call but where the caller
  # must restore its TOC pointer (ppc64le).
  # The folded form names a body as the report does: by its construct
  # when knit finds it (parallel_at_unreadable.c:N), else by its function.
  body='(parallel_at_[^;]+|[^;]*_\[omp_fn\.[0-9]+\]|omp\.outlined)'
  grep -qE "^<partial>;(thread_fn;)?(outer;)?inner;(region_probe;)?$body 4\$" <<<"$folded" ||
    fail "the regions whose capture faulted are not under a partial path"
  grep -qE "^thread_fn;outer;inner;(region_probe;)?$body 2\$" <<<"$folded" ||
    fail "the region opened after the faults is not whole"
  grep -qE '^thread_fn;outer;inner 1$' <<<"$folded" || fail "the probe after the faults is not whole"
  ;;
cputime_tick_note)
  # CPU-time timers fire at the kernel's scheduler tick (at most 1000 Hz):
  # a 100 us CPUTIME period ends in fewer signals than periods, and knit
  # record says so; REALTIME at the same period does not.
  expect 0 'note: CPU-time signals came every [0-9]+ us on average, not every 100 us' -- \
    "$knit" record -e CPUTIME@100 -o "$tmp/m" -- "$wl/calls" 400
  grep -q '^note: CPU-time signals came' "$tmp/m/knit.log" || fail "the log does not say it"
  expect 0 'SUMMARY' -- "$knit" record -e REALTIME@1000 -o "$tmp/r" -- "$wl/calls" 400
  ! grep -q 'note: CPU-time' <<<"$out_last" || fail "a REALTIME run got the CPU-time note"
  ;;
faults_blocked)
  # The same faulting walks in a thread that blocks SIGSEGV and SIGBUS
  # (workloads/unreadable faults-blocked): a fault the kernel finds blocked
  # kills the process, so knit lets its own in around its reads (probes in
  # the handler, region captures in callbacks) and blocks them again after
  # (else the program exits 3). Every fault is recovered and counted.
  asan_skip_on_mock "${RUNTIME:-mock-gomp}"
  asan_without_malloc_stacks
  expect 0 'unreadable: status 0' -- env OMP_NUM_THREADS=2 "$knit" record -e PROBE \
    --runtime="${RUNTIME:-mock-gomp}" -o "$tmp/m" -- "$wl/unreadable" faults-blocked
  grep -q '^SUMMARY samples=11 partial=2 blocked=0 faults=4 ' "$tmp/m/knit.log" ||
    fail "not every fault was recovered and counted: $(grep '^SUMMARY' "$tmp/m/knit.log")"
  ;;
capture_counts)
  # Region paths are walked for once per call path and remembered after:
  # callsites opens its region from 5 call paths a round, all at one call
  # site. Round 1 walks 5 times. The site's first region is captured at
  # parallel_begin, the others at the encountering thread's implicit task,
  # after the team starts (profiler/ompt/region_paths.h): a capture from
  # each place is remembered apart, so round 2 walks the first path again
  # and remembers the other 4 (each checked against a walk, none may
  # differ); round 3 begins with a dlclose, after which nothing remembered
  # from before is used: 5 walks again. The GOMP wrappers (GNU libgomp)
  # capture every region before the fork, from one place: round 2
  # remembers all 5.
  expect 0 'callsites: 3 rounds' -- env OMP_NUM_THREADS=2 KNIT_CHECK_CAPTURES=1 \
    "$knit" record -e PROBE --runtime="${RUNTIME:-mock-gomp}" -o "$tmp/m" -- "$wl/callsites" 3
  want='walked=11 remembered=4 checked=4'
  [ "${RUNTIME:-}" = system ] && want='walked=10 remembered=5 checked=5'
  grep -q "^captures: $want differed=0\$" "$tmp/m/knit.log" ||
    fail "captures were not answered as expected: $(grep '^captures: walked' "$tmp/m/knit.log")"
  ;;
realigned_frame)
  # A frame gcc realigns through a DRAP register (workloads/realigned, on
  # x86-64; an ordinary frame elsewhere): the walks of samples taken below
  # it go on through it to main, and so do the captures of a region opened
  # in it, remembered from the second round on and checked against walks.
  expect 0 'realigned: 4 rounds' -- "$knit" record -e PROBE -o "$tmp/s" -- "$wl/realigned" 4
  grep -q '^SUMMARY samples=24 partial=0 ' "$tmp/s/knit.log" ||
    fail "samples below the realigned frame: $(grep '^SUMMARY' "$tmp/s/knit.log")"
  # The symbols' frames (--no-inline --no-loops): the paths the walks found.
  expect 0 '' -- "$knit" report --no-inline --no-loops --format=folded "$tmp/s"
  grep -qx 'main;realigned;realigned_leaf 24' <<<"$out_last" ||
    fail "the path through the realigned frame is not whole"
  expect 0 'realigned: 4 rounds' -- env OMP_NUM_THREADS=2 KNIT_CHECK_CAPTURES=1 \
    "$knit" record -e PROBE --runtime="${RUNTIME:-mock-gomp}" -o "$tmp/m" -- "$wl/realigned" 4 omp
  grep -q '^SUMMARY samples=48 partial=0 ' "$tmp/m/knit.log" ||
    fail "samples of the region: $(grep '^SUMMARY' "$tmp/m/knit.log")"
  grep -qE '^captures: walked=[12] remembered=[23] checked=[23] differed=0$' "$tmp/m/knit.log" ||
    fail "captures through the realigned frame: $(grep '^captures: walked' "$tmp/m/knit.log")"
  expect 0 '' -- "$knit" report --no-inline --no-loops --format=folded "$tmp/m"
  grep -qE '^main;realigned;parallel_at_realigned\.c:[0-9]+;realigned_leaf 48$' <<<"$out_last" ||
    fail "the region's path through the realigned frame is not whole"
  ;;
probe_without_knit)
  # The probe header needs nothing of knit's: without it, probes do nothing.
  expect 0 'calls: 2 rounds' -- "$wl/calls" 2
  ;;
corrupt_measurement)
  expect 0 'SUMMARY' -- "$knit" record -e PROBE -o "$tmp/m" -- "$wl/calls" 1
  cp -r "$tmp/m" "$tmp/bad"
  f=$(ls "$tmp/bad"/thread-*.knit | head -n 1)
  head -c 100 "$f" >"$f.cut" && mv "$f.cut" "$f"
  expect 1 'truncated' -- "$knit" report "$tmp/bad"
  expect 1 'cannot|could not|unreadable|truncated' -- "$knit" check "$tmp/bad" /dev/null
  printf 'garbage' >"$tmp/bad/thread-9-9.knit"
  expect 1 '' -- "$knit" report "$tmp/bad"
  expect 1 'No such file|does not exist|cannot' -- "$knit" report "$tmp/none"
  ;;
report_not_regular)
  # Files of a measurement that are no regular files (a FIFO nobody writes
  # to, a directory) are skipped with a warning, never opened to block the
  # report; the test's timeout catches a hang.
  expect 0 'SUMMARY' -- "$knit" record -e PROBE -o "$tmp/m" -- "$wl/calls" 1
  mkfifo "$tmp/m/thread-9-9.knit" || fail "mkfifo"
  mkdir "$tmp/m/thread-8-8.knit"
  expect 0 'thread-9-9.knit: not a regular file; skipped' -- timeout 20 "$knit" report "$tmp/m"
  grep -q 'thread-8-8.knit: not a regular file; skipped' <<<"$out_last" || fail "the directory is not named"
  grep -q 'run_calls' <<<"$out_last" || fail "the readable thread is not reported"
  rm "$tmp/m/knit.log" && mkfifo "$tmp/m/knit.log"
  expect 0 'knit.log: not a regular file; skipped' -- timeout 20 "$knit" report --format=folded "$tmp/m"
  # knit check compares no measurement with files left out, but says why.
  expect 1 'knit.log: not a regular file; skipped' -- \
    timeout 20 "$knit" check "$tmp/m" "$(dirname "$0")/../../expected/calls.folded"
  # Nothing but a FIFO: no usable measurement, said at once.
  mkdir "$tmp/f" && mkfifo "$tmp/f/thread-0-1.knit"
  expect 1 'none of the 1 thread files' -- timeout 20 "$knit" report "$tmp/f"
  ;;
report_hostile_text)
  # A program in a directory and under a name holding escape sequences and
  # a tab: the report prints the module's path (unwind steps), and, with
  # the program gone so that its addresses cannot be named, the fallback
  # names made of it, in the tree and the folded form; the measurement
  # directory's name holds an escape too. None reaches the terminal raw.
  esc=$'\e' bel=$'\a'
  d="$tmp/dir${esc}[31mred"$'\t'"x"
  mkdir "$d" && cp "$wl/calls" "$d/calls${esc}]0;title${bel}" || fail "copy"
  cp "$wl"/libknit_wl_calls.so "$d/" 2>/dev/null
  m="$tmp/m${esc}[2J"
  expect 0 'SUMMARY' -- "$knit" record -e PROBE -o "$m" -- "$d/calls${esc}]0;title${bel}" 1
  rm "$d/calls${esc}]0;title${bel}"
  for args in "--steps" "--lines --all-frames" "--format=folded"; do
    # shellcheck disable=SC2086
    expect 0 'calls\\x1b\]0[;_]title\\x07' -- "$knit" report $args "$m"
    ! grep -q "[$esc$bel]" <<<"$out_last" || fail "report $args printed a raw control character"
  done
  expect 0 'dir: .*m\\x1b\[2J' -- "$knit" report "$m"
  expect 0 'x1b\[31mred\\x09x/calls' -- "$knit" report --steps "$m"
  ! grep -q "[$esc$bel]" <<<"$out_last" || fail "report --steps printed a raw control character"
  ;;
conform_text)
  # knit conform on a runtime whose folder's name holds a tab, a line
  # break, a '|' and HTML: the .tsv keeps it whole (escaped), --summary
  # reads it back instead of dropping the report, and the Markdown escapes
  # the '|' and the HTML. A FIFO among the reports is skipped, not waited on.
  libgomp=$(gcc -print-file-name=libgomp.so.1)
  [ -e "$libgomp" ] || { echo "skip: no libgomp.so.1"; exit 77; }
  d="$tmp/rt"$'\t'"tab"$'\n'"nl|pipe<b>&"
  mkdir -p "$d" "$tmp/reports" && ln -s "$libgomp" "$d/libgomp.so.1"
  expect 0 'on x86_64' -- "$knit" conform --runtime="$d" --isa=x86_64 --format=all -o "$tmp/reports/r"
  grep -qF 'report	runtime	'"$tmp"'/rt\ttab\nnl|pipe<b>&' "$tmp/reports/r.tsv" ||
    fail "the runtime's path is not escaped in the .tsv: $(grep runtime "$tmp/reports/r.tsv")"
  [ "$(grep -c '^report	' "$tmp/reports/r.tsv")" -eq 8 ] || fail "a report line of the .tsv is split"
  grep -qF '# Conformance: '"$tmp"'/rt tab nl\|pipe&lt;b&gt;&amp; on x86_64' "$tmp/reports/r.md" ||
    fail "the report's Markdown title is not escaped: $(head -n 1 "$tmp/reports/r.md")"
  mkfifo "$tmp/reports/stuck.tsv"
  expect 0 '' -- timeout 20 "$knit" conform --summary="$tmp/reports" --format=md -o "$tmp/summary.md"
  grep -qF '| '"$tmp"'/rt tab nl\|pipe&lt;b&gt;&amp; | x86_64 | none: no OMPT |' "$tmp/summary.md" ||
    fail "the summary dropped the report or did not escape it: $(cat "$tmp/summary.md")"
  expect 0 '' -- timeout 20 "$knit" conform --summary="$tmp/reports" --format=json -o "$tmp/summary.json"
  grep -qF '"runtime": "'"$tmp"'/rt\u0009tab\u000anl|pipe<b>&"' "$tmp/summary.json" ||
    fail "the summary's JSON does not hold the path: $(cat "$tmp/summary.json")"
  ;;
stress_signal_safety)
  # Four threads in malloc, qsort and snprintf, sampled 10000 times a second
  # each: no deadlock (the test's timeout), no crash, the same result.
  want=$("$wl/stress" 4 20000) || fail "stress fails without knit"
  expect 0 "SUMMARY samples=[0-9]{3,}" -- "$knit" record -e REALTIME@100 -o "$tmp/m" -- "$wl/stress" 4 20000
  got=$(grep '^stress:' <<<"$out_last")
  [ "$got" = "$want" ] || fail "the program's result changed under knit: '$got' vs '$want'"
  expect 0 'churn' -- "$knit" report --format=folded "$tmp/m"
  ;;
run_runtimes)
  # knit run: a program on a chosen runtime, unprofiled; a runtime that does
  # not speak the program's ABI is refused before anything runs.
  expect 0 'parallel_for: 1 rounds on 2 threads' -- env OMP_NUM_THREADS=2 "$knit" run --runtime=mock-gomp -- "$wl/parallel_for" 1
  expect 0 'parallel_for: 1 rounds on 2 threads' -- env OMP_NUM_THREADS=2 "$knit" run --runtime=libomp -- "$wl/parallel_for" 1
  if [ -x "$wl/parallel_for_clang" ]; then
    expect 0 'parallel_for: 1 rounds on 2 threads' -- env OMP_NUM_THREADS=2 "$knit" run --runtime=mock-intel -- "$wl/parallel_for_clang" 1
    expect 2 'uses the __kmpc_\* \(clang, libomp.so.5\) ABI, which runtime mock-gomp does not speak' -- \
      "$knit" run --runtime=mock-gomp -- "$wl/parallel_for_clang" 1
    expect 2 'which runtime libgomp does not speak' -- "$knit" run --runtime=libgomp -- "$wl/parallel_for_clang" 1
  fi
  expect 2 'GOMP_\* \(gcc, libgomp.so.1\) ABI, which runtime mock-intel does not speak' -- \
    "$knit" run --runtime=mock-intel -- "$wl/parallel_for" 1
  expect 0 'calls: 1 rounds' -- "$knit" run --runtime=mock-gomp -- "$wl/calls" 1
  expect 2 'no program given' -- "$knit" run --runtime=libomp
  ;;
program_heap_untouched)
  # knit's work that calls libelf and Capstone, which allocate with malloc,
  # runs off the program's threads, so that none of their blocks lands
  # among the program's (profiler/base/run_aside.h). First the watcher's
  # own proof that it sees such blocks: knit audit reads ELF on its main
  # thread.
  # The watcher replaces malloc, which a sanitizer's runtime owns.
  if [ -n "${KNIT_SANITIZED:-}" ]; then
    echo "skip: heap_watch's malloc cannot stand beside $KNIT_SANITIZED's"
    exit 77
  fi
  expect 0 'heap_watch: main-thread blocks from libelf=[1-9]' -- \
    env LD_PRELOAD="$HEAP_WATCH" "$knit" audit "$wl/calls"
  expect 0 'heap_watch: main-thread blocks from libelf=0 capstone=0' -- \
    env LD_PRELOAD="$HEAP_WATCH $KNIT_LIB" KNIT_EVENT=CPUTIME@1000 KNIT_OUTPUT="$tmp/m" \
    OMP_NUM_THREADS=2 "$wl/calls"
  grep -q '^knit: pid' "$tmp/m/knit.log" || fail "knit did not record"
  ls "$tmp"/m/*.knit >/dev/null 2>&1 || fail "no thread's measurement written"
  ;;
gomp_wrappers)
  # The GOMP wrappers change nothing a program sees: every entry point they
  # wrap, sampled 10000 times a second, on GNU libgomp (knit stands in for
  # OMPT there; the first lock ABI's nested locks must still reach libgomp's
  # own functions) and on runtimes with OMPT, where they pass straight
  # through and leave the events to knit's tool.
  want='rounds \(with the old nested locks\), 0 failed checks'
  expect 0 "$want" -- env OMP_NUM_THREADS=4 "$wl/sync" 30 old
  expect 0 "$want" -- env OMP_NUM_THREADS=4 \
    "$knit" record -e REALTIME@100 --runtime=system -o "$tmp/libgomp" -- "$wl/sync" 30 old
  grep -q '^gomp: no OMPT' "$tmp/libgomp/knit.log" ||
    fail "knit did not stand in for OMPT on libgomp"
  for rt in mock-gomp libomp; do
    expect 0 'sync: 30 rounds, 0 failed checks' -- env OMP_NUM_THREADS=4 \
      "$knit" record -e REALTIME@100 --runtime=$rt -o "$tmp/$rt" -- "$wl/sync" 30
    grep -q '^ompt: tool initialized' "$tmp/$rt/knit.log" || fail "no OMPT tool on $rt"
    if grep -q '^gomp:' "$tmp/$rt/knit.log"; then
      fail "the GOMP wrappers stood in for OMPT on $rt, which has it"
    fi
  done
  # The other ISAs' wrappers (ppc64le's cannot tail-call), under QEMU, when
  # their trees are built beside this one.
  for isa in aarch64 ppc64le; do
    tree=$wl/../../$isa
    [ -f "$tree/lib/libknit.so" ] || continue
    expect 0 "$want" -- env OMP_NUM_THREADS=4 KNIT_LIBDIR="$tree/lib" "$knit" record \
      -e REALTIME@200 --runtime=system --qemu -o "$tmp/$isa" -- "$tree/workloads/sync" 5 old
  done
  ;;
gomp_tasks)
  # The task wrappers change nothing a program sees: every way gcc hands a
  # task to the runtime, sampled 10000 times a second, on GNU libgomp (knit
  # carries the creator's path in each task's argument block) and on
  # LLVM's libomp, where the wrappers pass straight through (knit's mock
  # lacks task reductions and detach; libomp 14 mishandles undeferred tasks
  # with a copy function, which no-if0-copy leaves out).
  # The copy functions run as often as without knit.
  want='task_abi: 20 rounds, 0 failed checks, 40 copies'
  expect 0 "$want" -- env OMP_NUM_THREADS=4 "$wl/task_abi" 20
  expect 0 "$want" -- env OMP_NUM_THREADS=4 \
    "$knit" record -e REALTIME@100 --runtime=system -o "$tmp/libgomp" -- "$wl/task_abi" 20
  grep -q '^gomp: no OMPT' "$tmp/libgomp/knit.log" ||
    fail "knit did not stand in for OMPT on libgomp"
  if [ -e "$wl/../lib/real-libomp/libomp.so.5" ]; then
    expect 0 'task_abi: 20 rounds, 0 failed checks' -- env OMP_NUM_THREADS=4 \
      "$knit" record -e REALTIME@100 --runtime=libomp -o "$tmp/libomp" -- "$wl/task_abi" 20 \
      no-if0-copy
    if grep -q '^gomp:' "$tmp/libomp/knit.log"; then
      fail "the GOMP wrappers stood in for OMPT on libomp, which has it"
    fi
  fi
  # The other ISAs' wrappers, under QEMU, when their trees are built.
  for isa in aarch64 ppc64le; do
    tree=$wl/../../$isa
    [ -f "$tree/lib/libknit.so" ] || continue
    expect 0 'task_abi: 3 rounds, 0 failed checks, 6 copies' -- env OMP_NUM_THREADS=4 \
      KNIT_LIBDIR="$tree/lib" "$knit" record -e REALTIME@200 --runtime=system --qemu \
      -o "$tmp/$isa" -- "$tree/workloads/task_abi" 3
  done
  ;;
report_metrics)
  # Metric names are the measurement's: a wrong one is bad usage and the
  # message lists the right ones; blame goldens check shares alone.
  expect 0 'SUMMARY' -- "$knit" record -e PROBE -o "$tmp/m" -- "$wl/calls" 1
  names='\(this measurement has: PROBE, OMP_IDLE, OMP_MUTEX_WAIT, OMP_MUTEX_BLAME\)'
  expect 2 "unknown metric 'BOGUS' $names" -- "$knit" report --metrics=PROBE,BOGUS "$tmp/m"
  expect 2 "unknown metric 'CPUTIME' $names" -- "$knit" report --sort=CPUTIME:excl "$tmp/m"
  expect 2 "unknown metric 'BOGUS' $names" -- "$knit" report --format=folded --metric=BOGUS "$tmp/m"
  expect 2 "after the metric comes :incl or :excl" -- "$knit" report --sort=PROBE:up "$tmp/m"
  expect 2 'chooses what --format=folded counts' -- "$knit" report --metric=PROBE "$tmp/m"
  expect 2 "chooses the tree's columns" -- "$knit" report --format=folded --metrics=all "$tmp/m"
  expect 0 'OMP_MUTEX_BLAME' -- "$knit" report --metrics=all "$tmp/m"
  expect 0 'incl   incl%  excl  function' -- "$knit" report --sort=probe:excl "$tmp/m"
  [ "$("$knit" report --format=folded --metric=probe "$tmp/m")" = \
    "$("$knit" report --format=folded "$tmp/m")" ] || fail "--metric=probe is not the folded form of old"
  expect 0 '^$' -- "$knit" report --format=folded --metric=OMP_MUTEX_BLAME "$tmp/m"
  printf '# paths: ignore\n# metric-share: PROBE main;run_calls;recurse >= 0.3\n' >"$tmp/shares.folded"
  expect 0 'matches .* \(paths ignored, 1 metric share\)' -- "$knit" check "$tmp/m" "$tmp/shares.folded"
  printf '# paths: ignore\n# metric-share: OMP_MUTEX_BLAME main >= 0\n' >"$tmp/blame.folded"
  expect 1 'no OMP_MUTEX_BLAME in the measurement' -- "$knit" check "$tmp/m" "$tmp/blame.folded"
  ;;
check_metric_value)
  # A metric-value directive holds the exact amount under a path: the sum
  # of the folded form's counts there; one more is a difference that says
  # what was measured; a value that is not a whole number is refused.
  expect 0 'SUMMARY' -- "$knit" record -e PROBE -o "$tmp/m" -- "$wl/calls" 1
  expect 0 '^main;run_calls' -- "$knit" report --format=folded --no-inline --no-loops "$tmp/m"
  amount=$(grep -E '^main;run_calls(;| )' <<<"$out_last" | awk '{ s += $NF } END { print s }')
  [ "${amount:-0}" -gt 0 ] || fail "no probes under main;run_calls"
  printf '# paths: ignore\n# metric-value: PROBE main;run_calls = %s\n' "$amount" >"$tmp/v.folded"
  expect 0 "metric-value PROBE main;run_calls = $amount: measured $amount of the" -- \
    "$knit" check "$tmp/m" "$tmp/v.folded"
  printf '# paths: ignore\n# metric-value: PROBE main;run_calls = %s\n' $((amount + 1)) >"$tmp/v.folded"
  expect 1 "^~ metric-value PROBE main;run_calls = $((amount + 1)): measured $amount of the" -- \
    "$knit" check "$tmp/m" "$tmp/v.folded"
  printf '# paths: ignore\n# metric-value: PROBE main;run_calls = 0.5\n' >"$tmp/v.folded"
  expect 1 "line 2: metric-value: the value '0.5' must be a whole number" -- \
    "$knit" check "$tmp/m" "$tmp/v.folded"
  ;;
report_fold)
  # Recursion folded: fib -> task -> fib (tasks, exact probes: fib(6) has
  # leaves 3 to 5 tasks deep) and direct recursion (calls) are one node
  # each, with its depth, and nothing counted twice.
  expect 0 'SUMMARY samples=104 ' -- env OMP_NUM_THREADS=2 "$knit" record -e PROBE -o "$tmp/t" -- "$wl/tasks" 2
  folded_tree=$("$knit" report --fold --metrics=PROBE --min=0 "$tmp/t")
  grep -qE '^ *104 +100\.0% +0 +fib \[x5\]' <<<"$folded_tree" || fail "fib is not one node of depth 5: $folded_tree"
  [ "$(grep -c 'fib_leaf' <<<"$folded_tree")" = 2 ] || fail "the leaves are not under the folded fib: $folded_tree"
  leaf_sum=$(awk '/fib_leaf/ {s += $1} END {print s}' <<<"$folded_tree")
  [ "$leaf_sum" = 104 ] || fail "the folded leaves count $leaf_sum probes, not 104"
  # Unfolded, fib appears at every level.
  [ "$("$knit" report --metrics=PROBE --min=0 "$tmp/t" | grep -c ' fib ')" -ge 5 ] ||
    fail "without --fold fib is not one row per level"
  expect 0 'SUMMARY samples=15 ' -- "$knit" record -e PROBE -o "$tmp/c" -- "$wl/calls" 1
  expect 0 'recurse \[x5\]' -- "$knit" report --fold "$tmp/c"
  expect 2 'folds the function tree' -- "$knit" report --fold --lines "$tmp/c"
  expect 2 'folds the function tree' -- "$knit" report --fold --format=folded "$tmp/c"
  ;;
report_progress)
  # Progress lines go to a terminal only, and only on runs that take a
  # second: a report into a pipe or a file, or a short one on a terminal,
  # prints none. Forced on (KNIT_PROGRESS=1), each phase's line is erased
  # before anything else is printed, and the report itself is unchanged.
  expect 0 'SUMMARY samples=' -- env OMP_NUM_THREADS=2 "$knit" record -e PROBE -o "$tmp/p" -- "$wl/tasks" 2
  "$knit" report "$tmp/p" >"$tmp/plain.out" 2>"$tmp/plain.err" || fail "report failed"
  [ ! -s "$tmp/plain.err" ] || fail "a report into a file printed on stderr: $(cat -A "$tmp/plain.err")"
  KNIT_PROGRESS=1 "$knit" report "$tmp/p" >"$tmp/forced.out" 2>"$tmp/forced.err" || fail "report failed"
  cmp -s "$tmp/plain.out" "$tmp/forced.out" || fail "progress lines changed the report"
  grep -qE 'knit report: merging threads: 0 of [0-9]+ \(0%\)' "$tmp/forced.err" ||
    fail "no progress line when forced: $(cat -A "$tmp/forced.err")"
  # The line is erased: the stream ends with a carriage return after blanks.
  [ "$(tail -c 1 "$tmp/forced.err" | od -An -c | tr -d ' ')" = '\r' ] ||
    fail "the progress line is not erased: $(cat -A "$tmp/forced.err")"
  KNIT_PROGRESS=0 "$knit" report "$tmp/p" >/dev/null 2>"$tmp/off.err"
  [ ! -s "$tmp/off.err" ] || fail "KNIT_PROGRESS=0 printed: $(cat -A "$tmp/off.err")"
  if command -v script >/dev/null; then
    # On a terminal, a report shorter than a second shows no line either.
    script -qec "\"$knit\" report \"$tmp/p\" >/dev/null" /dev/null >"$tmp/tty.out" 2>&1
    ! grep -q 'merging threads' "$tmp/tty.out" || fail "a short report showed progress: $(cat -A "$tmp/tty.out")"
  fi
  ;;
report_construct_names)
  # An outlined body is named by its construct and the line of the call
  # that opened it (tasks.c: a parallel region, two tasks a level): gcc's
  # build on the mock, where knit reads the call from DWARF call sites, and
  # clang's on the Intel-layout mock, where it reads the PLT; --raw-names
  # shows the symbols, and knit check still matches the goldens.
  src=$(dirname "$0")/../../workloads/tasks.c
  parallel=$(grep -n '^#pragma omp parallel$' "$src" | cut -d: -f1)
  task_a=$(grep -n 'omp task shared(a)' "$src" | cut -d: -f1)
  task_b=$(grep -n 'omp task shared(b)' "$src" | cut -d: -f1)
  for build in tasks tasks_clang; do
    [ -x "$wl/$build" ] || { echo "skip $build: not built"; continue; }
    rt=mock-gomp golden=tasks
    [ "$build" = tasks_clang ] && rt=mock-intel golden=tasks_clang
    expect 0 'SUMMARY samples=104 ' -- env OMP_NUM_THREADS=2 "$knit" record -e PROBE \
      --runtime=$rt -o "$tmp/$build" -- "$wl/$build" 2
    expect 0 '' -- "$knit" report --min=0 "$tmp/$build"
    grep -qE "^ .* start_fib +tasks\.c" <<<"$out_last" || fail "$build: no start_fib"
    grep -qE " parallel at tasks\.c:$parallel " <<<"$out_last" ||
      fail "$build: the region is not named parallel at tasks.c:$parallel"
    # gcc puts its first call of GOMP_task on the line before the pragma,
    # where it set a and b to 0.
    grep -qE " task at tasks\.c:($task_a|$((task_a - 1))) " <<<"$out_last" ||
      fail "$build: the first task is not named task at tasks.c:$task_a"
    grep -qE " task at tasks\.c:$task_b " <<<"$out_last" ||
      fail "$build: the second task is not named task at tasks.c:$task_b"
    ! grep -qE '_omp_fn|omp_outlined|omp_task_entry' <<<"$out_last" ||
      fail "$build: a body is shown by its symbol"
    expect 0 "^main;run_tasks;start_fib;parallel_at_tasks\.c:$parallel;fib;task_at_tasks\.c:" -- \
      "$knit" report --no-loops --format=folded "$tmp/$build"
    expect 0 '(_omp_fn\.|\.omp_outlined\.)' -- "$knit" report --no-loops --raw-names --min=0 "$tmp/$build"
    ! grep -q ' at tasks\.c' <<<"$out_last" || fail "$build: --raw-names shows a construct"
    expect 0 'matches' -- "$knit" check "$tmp/$build" "$(dirname "$0")/../../expected/$golden.folded"
  done
  # clang's build for POWER under QEMU, when those trees are built beside
  # this one: there a call of the runtime goes to a linker stub in .text,
  # named through the .plt slot the stub loads; the folded paths are the
  # x86-64 golden's.
  for isa in ppc64le ppc64; do
    tree=$wl/../../$isa
    [ -f "$tree/lib/libknit.so" ] && [ -x "$tree/workloads/tasks_clang" ] || continue
    expect 0 'SUMMARY samples=104 ' -- env OMP_NUM_THREADS=2 KNIT_LIBDIR="$tree/lib" "$knit" \
      record -e PROBE --runtime=mock-intel --qemu -o "$tmp/$isa" -- "$tree/workloads/tasks_clang" 2
    expect 0 '' -- "$knit" report --min=0 "$tmp/$isa"
    grep -qE " parallel at tasks\.c:$parallel " <<<"$out_last" ||
      fail "$isa: the region is not named parallel at tasks.c:$parallel"
    ! grep -qE 'omp_outlined|omp_task_entry' <<<"$out_last" ||
      fail "$isa: a body is shown by its symbol"
    expect 0 'matches' -- "$knit" check "$tmp/$isa" "$(dirname "$0")/../../expected/tasks_clang.folded"
  done
  ;;
report_raw_names)
  # Functions are shown by readable names (gfortran's main program MAIN__
  # by the program's name, an outlined body by its construct and line),
  # and by their symbols as compiled with --raw-names, in the tree and in
  # the folded form; knit check matches a golden in either spelling.
  [ -x "$wl/fortran" ] || { echo "skip: the fortran workload is not built (no gfortran)"; exit 77; }
  golden=$(dirname "$0")/../../expected/fortran.folded
  pdo=$(grep -n '^ *!\$omp parallel do' "$(dirname "$0")/../../workloads/fortran.f90" | cut -d: -f1)
  [[ "$pdo" =~ ^[0-9]+$ ]] || fail "no single parallel do in fortran.f90: '$pdo'"
  expect 0 'SUMMARY samples=' -- env OMP_NUM_THREADS=2 "$knit" record -e PROBE -o "$tmp/f" -- "$wl/fortran" 2
  expect 0 ' fortran_workload ' -- "$knit" report --min=0 "$tmp/f"
  # gcc may give the call that opens the region the line before the
  # directive, where it computed what the region takes (as for tasks.c).
  grep -qE " parallel at fortran\.f90:($pdo|$((pdo - 1))) " <<<"$out_last" ||
    fail "the outlined body is not named parallel at fortran.f90:$pdo"
  ! grep -qE 'MAIN__|_omp_fn' <<<"$out_last" || fail "a symbol is shown as compiled"
  expect 0 ' MAIN__ ' -- "$knit" report --raw-names --min=0 "$tmp/f"
  grep -q ' compute_all\._omp_fn\.0 ' <<<"$out_last" || fail "--raw-names does not show compute_all._omp_fn.0"
  ! grep -q 'fortran_workload' <<<"$out_last" || fail "--raw-names shows a readable name"
  expect 0 "^main;fortran_workload;run_experiment;compute_all;parallel_at_fortran\\.f90:($pdo|$((pdo - 1)));work_heavy [0-9]+\$" -- \
    "$knit" report --no-loops --format=folded "$tmp/f"
  expect 0 '^main;MAIN__;run_experiment;compute_all;compute_all\._omp_fn\.0;work_heavy [0-9]+$' -- \
    "$knit" report --no-loops --format=folded --raw-names "$tmp/f"
  expect 0 'matches' -- "$knit" check "$tmp/f" "$golden"
  sed 's/MAIN__/fortran_workload/' "$golden" >"$tmp/readable.folded"
  expect 0 'matches' -- "$knit" check "$tmp/f" "$tmp/readable.folded"
  expect 0 'raw-names' -- "$knit" report --help
  ;;
report_loops)
  # Loops found in the machine code are levels of the tree (workloads/loops.c,
  # exact probes): the function's loop of 9 probes at its own line, the
  # inner loop of 6 below it, the probe after the loops in none; named in
  # the folded form; --no-loops shows none; knit check compares the
  # symbols' frames.
  src=$(dirname "$0")/../../workloads/loops.c
  rows=$(line rows) cols=$(line cols)
  expect 0 'SUMMARY samples=10 ' -- "$knit" record -e PROBE -o "$tmp/l" -- "$wl/loops" 1
  expect 0 " loop at loops\.c:$rows " -- "$knit" report --min=0 "$tmp/l"
  grep -qE "^ +9 +90\.0% +0 +loop at loops\.c:$rows " <<<"$out_last" ||
    fail "the outer loop does not hold 9 probes"
  grep -qE "^ +6 +60\.0% +0 +loop at loops\.c:$cols " <<<"$out_last" ||
    fail "the inner loop does not hold 6 probes below the outer one"
  grep -qE "^ +9 +90\.0% +0 +run +loops\.c:$rows\$" <<<"$out_last" ||
    fail "run's line is not its loop's"
  expect 0 "^main;run;loop_at_loops\.c:$rows;loop_at_loops\.c:$cols;sink;knit_probe_\[i\] 6\$" -- \
    "$knit" report --format=folded "$tmp/l"
  grep -qE "^main;run;loop_at_loops\.c:$rows;sink;knit_probe_\[i\] 3\$" <<<"$out_last" ||
    fail "the folded form has no outer loop of 3 of its own"
  expect 0 ' run ' -- "$knit" report --no-loops --min=0 "$tmp/l"
  ! grep -q 'loop at' <<<"$out_last" || fail "--no-loops shows a loop"
  # (run's last call, to sink, is a tail call: that probe is main's.)
  printf 'main;run;sink 9\nmain;sink 1\n' >"$tmp/loops.folded"
  expect 0 'matches' -- "$knit" check "$tmp/l" "$tmp/loops.folded"
  # The loops are kept by the modules' build-ids (structure_cache.h): a
  # cold report writes the files, a warm one prints the same from them;
  # --no-cache and an empty KNIT_CACHE_DIR neither read nor write them.
  export KNIT_CACHE_DIR="$tmp/cache"
  expect 0 "loop_at_loops\.c:$cols" -- "$knit" report --format=folded "$tmp/l"
  cold=$out_last
  id=$(readelf -n "$wl/loops" | sed -n 's/.*Build ID: *//p')
  [ -s "$tmp/cache/structure/$id" ] || fail "no cache file for the workload's build-id $id"
  expect 0 "loop_at_loops\.c:$cols" -- "$knit" report --format=folded "$tmp/l"
  [ "$out_last" = "$cold" ] || fail "the report from the cache differs"
  rm -rf "$tmp/cache"
  expect 0 "loop_at_loops\.c:$cols" -- "$knit" report --no-cache --format=folded "$tmp/l"
  [ "$out_last" = "$cold" ] || fail "the report without the cache differs"
  KNIT_CACHE_DIR='' expect 0 "loop_at_loops\.c:$cols" -- "$knit" report --format=folded "$tmp/l"
  [ ! -e "$tmp/cache" ] || fail "a report without the cache wrote it"
  ;;
report_source)
  # The source view of one function (workloads/loops.c, exact probes): each
  # line's probes beside its text, the calls' lines inclusive; a name no
  # sampled function has is an error.
  src=$(dirname "$0")/../../workloads/loops.c
  expect 0 'SUMMARY samples=10 ' -- "$knit" record -e PROBE -o "$tmp/l" -- "$wl/loops" 1
  inner=$(( $(line cols) + 1 )) after=$(( $(line cols) + 2 ))
  expect 0 "^ +6 +0 +$inner +x = sink\(x \+ \(uint64_t\)c\);" -- \
    "$knit" report --source=run "$tmp/l"
  grep -qE "^ +3 +0 +$after +x = sink\(x \^ \(uint64_t\)r\);" <<<"$out_last" ||
    fail "the row loop's own call is not 3 probes on its line"
  grep -qE "^ +9 +0 +$(line rows) +for \(int r" <<<"$out_last" ||
    fail "the row loop's line does not hold its 9 probes"
  grep -qE "^ +6 +0 +$(line cols) +for \(int c" <<<"$out_last" ||
    fail "the column loop's line does not hold its 6 probes"
  expect 1 "no sampled function is named 'nosuch'" -- "$knit" report --source=nosuch "$tmp/l"
  # A parallel region's body is the code of the function that holds the
  # construct, and an inlined function has its own view (workloads/levels.c:
  # 2 rounds of 8 rows of 3 columns in an inlined scan_row, 48 probes).
  src=$(dirname "$0")/../../workloads/levels.c
  expect 0 'SUMMARY samples=50 ' -- "$knit" record -e PROBE --runtime=mock-gomp -o "$tmp/v" -- \
    "$wl/levels" 2
  expect 0 "^ +48 +0 +$(line rows) +for \(int r = 0; r < rows; r\+\+\) total" -- \
    "$knit" report --source=sweep "$tmp/v"
  expect 0 "^ +48 +0 +$(line cols) +for \(int c = 0; c < cols; c\+\+\)" -- \
    "$knit" report --source=scan_row "$tmp/v"
  grep -qE "^ +48 +0 +$(( $(line cols) + 1 )) +x = cell\(x, c\);" <<<"$out_last" ||
    fail "the inlined scan_row's call of cell does not hold its 48 probes"
  ;;
report_inline)
  # Code the compiler inlined (workloads/inlined.c, exact probes) is shown
  # as the source has it: each inlined function a level of its own with
  # its probes, at the line it was called from; --no-inline shows the
  # symbols' functions only, and knit check compares those.
  src=$(dirname "$0")/../../workloads/inlined.c
  expect 0 'SUMMARY samples=6 ' -- "$knit" record -e PROBE -o "$tmp/i" -- "$wl/inlined" 1
  expect 0 ' outer_step \[inlined\] ' -- "$knit" report --min=0 "$tmp/i"
  grep -qE "^ +6 +100\.0% +0 +run +inlined\.c:$(line call_outer) \+1$" <<<"$out_last" ||
    fail "run's line is not its call of outer_step"
  grep -qE "^ +5 +83\.3% +0 +outer_step \[inlined\] +inlined\.c:$(line outer_work) \+1$" <<<"$out_last" ||
    fail "outer_step is not an inlined level of 5 probes"
  grep -qE "^ +2 +33\.3% +0 +inner_step \[inlined\] +inlined\.c:$(line inner_work)$" <<<"$out_last" ||
    fail "inner_step is not an inlined level of 2 probes below outer_step"
  [ "$(grep -c 'knit_probe \[inlined\]' <<<"$out_last")" = 3 ] || fail "the probes are not 3 inlined leaves"
  expect 0 ' outer_step \[inlined\] ' -- "$knit" report --lines --min=0 "$tmp/i"
  grep -qE "^ +2 +33\.3% +0 +outer_step \[inlined\] +inlined\.c:$(line call_inner)$" <<<"$out_last" ||
    fail "--lines: outer_step's call of inner_step is not its own node"
  expect 0 "^main;run;outer_step_\[i\];inner_step_\[i\];knit_work_\[i\];knit_probe_\[i\] 2$" -- \
    "$knit" report --no-loops --format=folded "$tmp/i"
  grep -qE '^main;run;outer_step_\[i\];knit_work_\[i\];knit_probe_\[i\] 3$' <<<"$out_last" ||
    fail "the folded form has no outer_step level of 3"
  grep -qE '^main;run;knit_work_\[i\];knit_probe_\[i\] 1$' <<<"$out_last" ||
    fail "the folded form has no knit_work level of 1 in run"
  # Without: as if nothing were inlined.
  expect 0 ' run ' -- "$knit" report --no-inline --no-loops --min=0 "$tmp/i"
  ! grep -q '\[inlined\]' <<<"$out_last" || fail "--no-inline shows an inlined level"
  grep -qE '^ +6 +100\.0% +6 +run ' <<<"$out_last" || fail "--no-inline: run does not hold the 6 probes"
  expect 0 '^main;run 6$' -- "$knit" report --no-inline --no-loops --format=folded "$tmp/i"
  # Goldens hold the symbols' frames.
  echo 'main;run 6' >"$tmp/inlined.folded"
  expect 0 'matches' -- "$knit" check "$tmp/i" "$tmp/inlined.folded"
  expect 0 'no-inline' -- "$knit" report --help
  ;;
report_json)
  # The tree as JSON: every metric, inlined levels as nodes of their own,
  # names by number into the string table (exact probes: inlined has 6).
  expect 0 'SUMMARY samples=6 ' -- "$knit" record -e PROBE -o "$tmp/i" -- "$wl/inlined"
  expect 0 '^"nodes":\[$' -- "$knit" report --format=json --no-loops "$tmp/i"
  json=$out_last
  grep -qF '{"format":"knit-profile","version":1,' <<<"$json" || fail "no knit-profile header"
  grep -qF '"event":"PROBE","event_text":"PROBE","period_ns":0,"unit":"probes","samples":6,"periods":6,"threads":1,' <<<"$json" ||
    fail "the header's counts are wrong"
  grep -qF '{"name":"PROBE","unit":"probes","description":"charged where each sample was taken","total":6}' <<<"$json" ||
    fail "the PROBE metric's descriptor is wrong"
  grep -qF '"name":"OMP_MUTEX_BLAME"' <<<"$json" || fail "a metric is missing"
  strings=$(sed -n '/^"strings":\[$/,$p' <<<"$json" | sed 1d)
  [ "$(sed -n 5p <<<"$strings")" = '"run",' ] || fail "string 4 is not run: $(sed -n 5p <<<"$strings")"
  grep -qE '^\[1,"function",4,-1,[0-9]+,[0-9]+,[0-9]+,[0-9]+,1,\[6,0,0,0,0,0,0,0\]\],$' <<<"$json" ||
    fail "run is not a function below main with 6 probes inclusive, none exclusive"
  [ "$(grep -c '^\[[0-9]*,"inlined",' <<<"$json")" = 8 ] || fail "not 8 inlined levels"
  # Leaves hold the probes: the exclusive values add up to the total.
  [ "$(grep -oE '\[[0-9]+,[0-9]+,0,0,0,0,0,0\]\]' <<<"$json" | awk -F, '{ s += $2 } END { print s }')" = 6 ] ||
    fail "the exclusive values do not add up to 6"
  expect 0 '"inline":false' -- "$knit" report --format=json --no-inline --no-loops "$tmp/i"
  ! grep -q '"inlined"' <<<"$out_last" || fail "--no-inline wrote inlined levels"
  expect 0 '"lines":true' -- "$knit" report --format=json --lines "$tmp/i"
  expect 0 '"loop"' -- "$knit" report --format=json "$tmp/i"
  expect 0 '"min_percent":50}' -- "$knit" report --format=json --min=50 "$tmp/i"
  ! grep -q '"inner_step"' <<<"$out_last" || fail "--min=50 kept inner_step (2 of 6 probes)"
  expect 2 "unknown format 'xml' \(tree, folded, chrome, pprof or json\)" -- "$knit" report --format=xml "$tmp/i"
  expect 2 'json writes the tree with every metric; --metrics' -- \
    "$knit" report --format=json --metrics=all "$tmp/i"
  expect 2 "json writes the tree with every metric; --threads is the text report's" -- \
    "$knit" report --format=json --threads "$tmp/i"
  # A measurement directory named with an escape and a byte that is no
  # UTF-8: the JSON escapes the one and replaces the other.
  m="$tmp/m"$'\e'"[2J"$'\xff'
  expect 0 'SUMMARY' -- "$knit" record -e PROBE -o "$m" -- "$wl/calls" 1
  expect 0 '"dir":"[^"]*/m\\u001b\[2J\\ufffd"' -- "$knit" report --format=json "$m"
  ! LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f-\xff]' <<<"$out_last" || fail "a raw control or non-ASCII byte in the JSON"
  ;;
view_parallel_for)
  # The page of a parallel program's measurement (mock-gomp): it loads
  # without errors, draws the flame graph, builds both trees and shows the
  # program's functions; it fetches nothing.
  expect 0 'SUMMARY' -- "$knit" record -e CPUTIME@f1000 --runtime=mock-gomp -o "$tmp/p" -- "$wl/parallel_for" 20
  expect 0 "^$tmp/p/knit-view.html\$" -- "$knit" view "$tmp/p"
  page="$tmp/p/knit-view.html"
  ! grep -qiE '<(script|link|img|iframe)[^>]* (src|href)=' "$page" || fail "the page loads another file"
  grep -qF '"compute_all._omp_fn.0"' "$page" || fail "the parallel body's raw symbol is not in the data"
  browse "$page"
  [ "$(status_of nodes)" -gt 5 ] || fail "fewer than 6 nodes"
  [ "$(status_of flame-rects)" -gt 5 ] || fail "the flame graph drew fewer than 6 frames"
  [ "$(status_of topdown-rows)" -gt 5 ] || fail "the top-down tree has fewer than 6 rows"
  [ "$(status_of bottomup-rows)" -gt 0 ] || fail "no bottom-up tree"
  grep -q 'class="tw">[^<]*</span>main<' "$tmp/dom.html" || fail "no row for main"
  grep -q 'class="tw">[^<]*</span>parallel at parallel_for.c:' "$tmp/dom.html" || fail "no row for the parallel body"
  grep -q 'class="tw">[^<]*</span>knit_work_step ' "$tmp/dom.html" || fail "no row for the sampled leaf"
  tr -d '\n' <"$tmp/dom.html" | grep -q '<div class="vtree" id="bottomup">.*class="tw">[^<]*</span>knit_work_step ' || fail "the bottom-up tree does not start at the leaf"
  echo "load $(status_of load-ms) ms, first draw $(status_of draw-ms) ms"
  shoot "$page" view-parallel_for
  # A search (from the link: page#search=TEXT) highlights the one frame of
  # work_light and narrows the top-down tree to the path down to it.
  all_rows=$(status_of topdown-rows)
  browse "$page#search=work_light"
  [ "$(status_of search-matches)" = 1 ] || fail "the search did not find work_light once"
  [ "$(status_of flame-matches)" = 1 ] || fail "the flame graph did not highlight work_light"
  [ "$(status_of topdown-rows)" -lt "$all_rows" ] || fail "the search did not narrow the top-down tree"
  grep -q 'class="row match"[^>]*>.*</span>work_light<' "$tmp/dom.html" || fail "work_light's row is not marked"
  [ "$(status_of bottomup-rows)" -ge 1 ] || fail "the bottom-up tree lost the leaves below work_light"
  # The filters of knit report: only the paths through work_heavy.
  expect 0 "^$tmp/heavy.html\$" -- "$knit" view --focus=work_heavy -o "$tmp/heavy.html" "$tmp/p"
  ! grep -qF '"work_light"' "$tmp/heavy.html" || fail "--focus=work_heavy kept work_light"
  grep -qF '"work_heavy"' "$tmp/heavy.html" || fail "--focus=work_heavy lost work_heavy"
  # -o elsewhere, and the newest ./knit-* when no directory is named.
  expect 0 "^$tmp/page.html\$" -- "$knit" view -o "$tmp/page.html" "$tmp/p"
  (cd "$tmp" && cp -r p knit-newest && "$knit" view) | grep -qx './knit-newest/knit-view.html' ||
    fail "knit view without a directory did not take ./knit-newest"
  expect 0 'usage: knit view' -- "$knit" view --help
  ;;
view_large)
  # 100,000 nodes: the page draws only what a pixel shows and makes rows
  # only for what is in view. The load and first draw times are printed.
  awk -v N=100000 -f "$(dirname "$0")/view_big_profile.awk" >"$tmp/big.json" || fail "generating the profile"
  expect 0 "^$tmp/big.html\$" -- "$knit" view "$tmp/big.json"
  browse "$tmp/big.html"
  [ "$(status_of nodes)" = 99999 ] || fail "not 99999 nodes (and the root)"
  [ "$(status_of flame-rects)" -gt 1000 ] || fail "the flame graph drew too few frames"
  [ "$(status_of flame-rects)" -lt 99999 ] || fail "the flame graph drew frames narrower than a pixel"
  [ "$(status_of topdown-dom)" -lt 100 ] || fail "the top-down tree made $(status_of topdown-dom) rows"
  [ "$(status_of bottomup-rows)" -gt 1000 ] || fail "the bottom-up tree has too few functions"
  [ "$(status_of bottomup-dom)" -lt 100 ] || fail "the bottom-up tree made $(status_of bottomup-dom) rows"
  echo "100,000 nodes: load $(status_of load-ms) ms, first draw $(status_of draw-ms) ms, ready $(status_of ready-ms) ms after navigation"
  ;;
view_timeline)
  # A Chrome trace (the fixture has the shape `knit report --format=chrome`
  # writes) in the timeline: a lane per thread, the runtime's states drawn;
  # a thread name holding "</script>" stays data.
  # The profile beside it is of the program the fixture pretends to trace.
  expect 0 'SUMMARY' -- "$knit" record -e CPUTIME@f1000 --runtime=mock-gomp -o "$tmp/p" -- "$wl/parallel_for" 20
  expect 0 "^$tmp/t.html\$" -- "$knit" view -o "$tmp/t.html" --trace="$(dirname "$0")/view_trace.json" "$tmp/p"
  ! grep -q '</script><b>' "$tmp/t.html" || fail "the trace's text can end its script element"
  browse "$tmp/t.html"
  [ "$(status_of trace-threads)" = 3 ] || fail "not 3 threads"
  [ "$(status_of trace-events)" = 23 ] || fail "not 23 events"
  [ "$(status_of timeline-idle)" -ge 4 ] || fail "fewer than 4 <omp-idle> slices drawn"
  [ "$(status_of timeline-barrier)" -ge 3 ] || fail "fewer than 3 <omp-barrier> slices drawn"
  [ "$(status_of timeline-lock-wait)" -ge 1 ] || fail "no <omp-lock-wait> slice drawn"
  [ "$(status_of timeline-rects)" = 20 ] || fail "not every slice of the trace drawn"
  grep -q '<section id="timeline-section">' "$tmp/dom.html" || fail "the timeline is hidden"
  grep -q 'data-trace-order="outer-first"' <<<"$status" || fail "the fixture's order is not taken as written"
  [ "$(status_of trace-main-outer)" = 1 ] && [ "$(status_of trace-main-nested)" = 0 ] ||
    fail "main is not the outermost frame of thread 0"
  shoot "$tmp/t.html" view-timeline
  ;;
view_traced)
  # A blame workload recorded with -t: knit view embeds its Chrome trace
  # (report/chrome_trace.h), and the timeline shows each thread with the
  # lock waits, main outermost among the frames whatever order the slices
  # that start and end together come in.
  export OMP_NUM_THREADS=3
  expect 0 'SUMMARY samples=' -- "$knit" record -t -e REALTIME@f2000 --runtime=mock-gomp \
    -o "$tmp/t" -- "$wl/blame" locks 3
  expect 0 "^$tmp/t/knit-view.html\$" -- "$knit" view "$tmp/t"
  [ -z "$(grep -v "^$tmp/t/knit-view.html\$" <<<"$out_last")" ] || fail "knit view warned of the trace"
  grep -q '<script type="application/json" id="knit-trace">{"traceEvents":' "$tmp/t/knit-view.html" ||
    fail "the page holds no trace"
  browse "$tmp/t/knit-view.html"
  [ "$(status_of trace-threads)" = 3 ] || fail "not 3 threads in the timeline"
  grep -q 'data-trace-lanes="thread 0 (main)|thread 1 (openmp)|thread 2 (openmp)"' <<<"$status" ||
    fail "the lanes are not in the threads' order"
  [ "$(status_of timeline-lock-wait)" -ge 1 ] || fail "no <omp-lock-wait> drawn"
  [ "$(status_of timeline-regions)" -ge 1 ] || fail "no parallel region drawn"
  [ "$(status_of trace-main-outer)" -ge 1 ] || fail "no slice of main"
  [ "$(status_of trace-main-nested)" = 0 ] || fail "main drawn inside other frames"
  shoot "$tmp/t/knit-view.html" view-blame-trace
  # Without -t: no trace, no timeline, and nothing said about it.
  expect 0 'SUMMARY samples=' -- "$knit" record -e REALTIME@f2000 --runtime=mock-gomp \
    -o "$tmp/n" -- "$wl/blame" locks 1
  expect 0 "^$tmp/n/knit-view.html\$" -- "$knit" view "$tmp/n"
  [ "$(wc -l <<<"$out_last")" = 1 ] || fail "knit view said more than the page's path"
  ! grep -q 'id="knit-trace"' "$tmp/n/knit-view.html" || fail "a trace in the page of a run without -t"
  ;;
view_device)
  # The mock device recorded with -t: the timeline draws its track below
  # the threads, with its operations in their own colours and a legend
  # for them; the page's status counts the device slices drawn.
  [ -x "$wl/target" ] || { echo "skip: the target workload is not built (no offloading toolchain for this ISA)"; exit 77; }
  [ -e "$(dirname "$KNIT_LIB")/mock-intel/libomptarget.so" ] ||
    { echo "skip: the mock device (mock-intel's libomptarget.so) is not built"; exit 77; }
  export MOCKRT_DETERMINISTIC=1 MOCKRT_TARGET_LATENCY_NS=0 MOCKRT_TARGET_BANDWIDTH=1000000000 \
    MOCKRT_TARGET_NS_PER_ITER=1000
  expect 0 'SUMMARY' -- "$knit" record -t -e REALTIME@f2000 --runtime=mock-intel -o "$tmp/v" -- "$wl/target" 3
  expect 0 "^$tmp/v/knit-view.html\$" -- "$knit" view "$tmp/v"
  browse "$tmp/v/knit-view.html"
  [ "$(status_of trace-devices)" = 1 ] || fail "not one device lane"
  grep -qE 'data-trace-lanes="thread 0 \(main\)[^"]*\|device 0 \([^)"]+\)"' <<<"$status" ||
    fail "the device lane is not below the threads"
  [ "$(status_of timeline-device)" -ge 6 ] || fail "fewer device slices drawn than the 6 kernels"
  grep -q '</i>device: kernel</span>' "$tmp/dom.html" || fail "no legend entry of the device's kernels"
  shoot "$tmp/v/knit-view.html" view-device-trace
  ;;
view_interact)
  # The page used as a user would (harness/cli/view_interact.html drives it
  # from a frame): a click on a flame graph frame zooms to it and one on the
  # root zooms out, a click on a tree row collapses and reopens it, one on a
  # heading sorts by it, and a typed search highlights the frames.
  expect 0 'SUMMARY' -- "$knit" record -e PROBE -o "$tmp/i" -- "$wl/inlined"
  expect 0 "^$tmp/i/knit-view.html\$" -- "$knit" view "$tmp/i"
  chrome=$(chromium_here) || exit 77
  timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --allow-file-access-from-files \
    --user-data-dir="$tmp/chrome" --window-size=1400,900 --virtual-time-budget=5000 --dump-dom \
    "file://$(cd "$(dirname "$0")" && pwd)/view_interact.html?page=file://$tmp/i/knit-view.html" \
    >"$tmp/dom.html" 2>"$tmp/chrome.log" || fail "chromium: $(tail -n 3 "$tmp/chrome.log")"
  status=$(grep -o '<div id="result"[^>]*>' "$tmp/dom.html")
  echo "+ driven: $status"
  grep -q 'data-done="1"' <<<"$status" || fail "the driver did not finish"
  ! grep -q 'data-driver-error' <<<"$status" || fail "the driver failed"
  [ "$(status_of errors)" = 0 ] || fail "the page reported errors"
  [ "$(status_of focus-after-click)" = 1 ] || fail "a click on main did not zoom to it"
  [ "$(status_of focus-after-root)" = 0 ] || fail "a click on the root did not zoom out"
  [ "$(status_of rows-collapsed)" = 1 ] || fail "a click on main's row did not collapse it"
  [ "$(status_of rows-reopened)" = "$(status_of rows-open)" ] || fail "a second click did not reopen main"
  [ "$(status_of rows-open)" -gt 5 ] || fail "the tree did not start open"
  grep -q 'data-sorted-head="-1"' <<<"$status" || fail "a click on the function heading did not sort by name"
  [ "$(status_of search-matches)" = 3 ] || fail "the search did not find the 3 knit_probe levels"
  [ "$(status_of flame-matches)" -ge 1 ] || fail "the search highlighted no frame"
  ;;
view_bad_input)
  # What knit view cannot use is an error with a reason, never a page.
  expect 1 'no such file|cannot|No such' -- "$knit" view "$tmp/none"
  printf 'not json\n' >"$tmp/x.json"
  expect 1 'x.json: not a knit profile \(`knit report --format=json` writes one\)' -- "$knit" view "$tmp/x.json"
  printf '{"traceEvents":[]}\n' >"$tmp/t.json"
  expect 1 't.json: not a knit profile' -- "$knit" view "$tmp/t.json"
  [ ! -e "$tmp/x.html" ] || fail "a page was written for a file that is no JSON"
  expect 0 'SUMMARY' -- "$knit" record -e PROBE -o "$tmp/i" -- "$wl/inlined"
  expect 1 'none.json: No such file' -- "$knit" view --trace="$tmp/none.json" "$tmp/i"
  expect 1 'x.json: not a Chrome trace' -- "$knit" view --trace="$tmp/x.json" "$tmp/i"
  expect 1 'i: not a regular file' -- "$knit" view --trace="$tmp/i" "$tmp/i"
  expect 1 "$tmp/no/dir/p.html: No such file" -- "$knit" view -o "$tmp/no/dir/p.html" "$tmp/i"
  expect 2 "unknown or incomplete option '--bogus'" -- "$knit" view --bogus "$tmp/i"
  expect 2 'at most, got' -- "$knit" view "$tmp/i" "$tmp/i"
  "$knit" report --format=json "$tmp/i" >"$tmp/i.json" || fail "report --format=json"
  expect 2 "\-\-fold shapes a measurement's tree; a JSON tree is shaped already" -- \
    "$knit" view --fold "$tmp/i.json"
  expect 2 "\-\-focus shapes a measurement's tree" -- "$knit" view --focus main "$tmp/i.json"
  expect 0 "^$tmp/i.html\$" -- "$knit" view "$tmp/i.json"
  expect 2 '\-\-focus=\(' -- "$knit" view --focus='(' "$tmp/i"
  expect 2 'thread' -- "$knit" view --thread=x "$tmp/i"
  expect 1 'no ./knit-\* measurement directory here; name one: knit view DIR' -- \
    sh -c 'cd "$1" && exec "$2" view' sh "$tmp/i" "$knit"
  ;;
report_views)
  # The bottom-up and flat views (workloads/calls.c, exact probes): recurse
  # holds 5 probes, one at each of its 5 levels, counted once per path in
  # every row; its recursive call's line is on the 4 paths below the top.
  src=$(dirname "$0")/../../workloads/calls.c
  again=$(grep -n 'x = leaf_scramble(recurse(x, depth - 1));' "$src" | cut -d: -f1)
  expect 0 'SUMMARY samples=15 ' -- "$knit" record -e PROBE -o "$tmp/c" -- "$wl/calls" 1
  expect 0 '^ +5 +33\.3% +5 +33\.3% +recurse$' -- \
    "$knit" report --view=flat --no-inline --no-loops "$tmp/c"
  grep -qE '^ +1 +6\.7% +4 +26\.7% +nested_outer$' <<<"$out_last" ||
    fail "nested_outer is not 1 probe of its own and 4 with nested_inner"
  grep -qE '^ +0 +0\.0% +15 +100\.0% +main$' <<<"$out_last" && fail "main is shown below --min by its exclusive value"
  grep -qE 'rows below 0\.5% of the total are hidden' <<<"$out_last" || fail "no line on the hidden rows"
  expect 0 '^ +0 +0\.0% +15 +100\.0% +main$' -- \
    "$knit" report --view=flat --no-inline --no-loops --sort=incl --min=0 "$tmp/c"
  expect 0 "^ +0 +0\\.0% +4 +26\\.7% +calls\\.c:$again\$" -- \
    "$knit" report --view=flat --by=line --min=0 "$tmp/c"
  expect 0 '^ +4 +26\.7% +4 +26\.7% +libknit_wl_calls\.so$' -- \
    "$knit" report --view=flat --by=module "$tmp/c"
  grep -qE '^ +11 +73\.3% +15 +100\.0% +calls$' <<<"$out_last" || fail "the program's module does not hold 11 probes"
  # Bottom-up: recurse's callers, each level with the probes below it.
  expect 0 '^ +5 +5 +33\.3% +recurse ' -- \
    "$knit" report --view=bottom-up --no-inline --no-loops "$tmp/c"
  grep -qE '^ +4 +4 +26\.7% +recurse ' <<<"$out_last" || fail "recurse <- recurse does not hold 4 probes"
  grep -qE '^ +5 +1 +6\.7% +run_calls ' <<<"$out_last" || fail "recurse <- run_calls is not 5 inclusive, 1 exclusive"
  [ "$(grep -cE '^ +[0-9]+ +[0-9]+ +[0-9.]+% +recurse ' <<<"$out_last")" = 5 ] ||
    fail "recurse is not a root with 4 levels of callers"
  expect 0 'incl   incl%  excl  function' -- \
    "$knit" report --view=bottom-up --sort=incl --no-inline --no-loops "$tmp/c"
  expect 2 "unknown view 'sideways' \(top-down, bottom-up or flat\)" -- "$knit" report --view=sideways "$tmp/c"
  expect 2 "unknown --by key 'file' \(function, line or module\)" -- "$knit" report --view=flat --by=file "$tmp/c"
  expect 2 'chooses the rows of --view=flat' -- "$knit" report --by=line "$tmp/c"
  expect 2 'view=flat --by=line shows lines' -- "$knit" report --view=flat --lines "$tmp/c"
  expect 2 'format=folded has one line per call path' -- "$knit" report --view=bottom-up --format=folded "$tmp/c"
  expect 0 'bottom-up' -- "$knit" report --help
  ;;
report_thread)
  # Threads chosen by index (workloads/scaling on 4 threads, exact probes:
  # each thread runs 16 of the 64 iterations, one probe each, and thread 0
  # the serial phases' 256).
  expect 0 'SUMMARY samples=320 ' -- env OMP_NUM_THREADS=4 "$knit" record -e PROBE \
    --runtime=mock-gomp -o "$tmp/s" -- "$wl/scaling" 4
  expect 0 '^PROBE: 48 probes, 3 threads' -- "$knit" report --thread=1-3 --threads "$tmp/s"
  grep -qE '^thread +tid +kind +samples +periods +PROBE +OMP_IDLE ' <<<"$out_last" ||
    fail "the thread table has no metric columns"
  [ "$(grep -cE '^ +[123] +[0-9]+ +openmp +16 +16 +16 ' <<<"$out_last")" = 3 ] ||
    fail "the thread table does not list threads 1 to 3 with 16 probes each"
  ! grep -qE '^ +0 +[0-9]+ +main' <<<"$out_last" || fail "thread 0 is listed"
  folded=$("$knit" report --thread=0,2 --format=folded "$tmp/s")
  [ "$(awk '{s += $NF} END {print s}' <<<"$folded")" = 288 ] ||
    fail "threads 0 and 2 fold to $(awk '{s += $NF} END {print s}' <<<"$folded") probes, not 288: $folded"
  expect 0 '^ +16 +100\.0% +16 +100\.0% ' -- "$knit" report --thread=3 --view=flat "$tmp/s"
  expect 2 'unknown thread 4 \(this measurement has: 0-3\)' -- "$knit" report --thread=2-4 "$tmp/s"
  expect 2 'want thread indexes' -- "$knit" report --thread=one "$tmp/s"
  expect 2 'runs backwards' -- "$knit" report --thread=3-1 "$tmp/s"
  ;;
report_filter)
  # --focus and --ignore on the measurement's paths (workloads/calls.c,
  # exact probes): recurse's 5 probes, the rest's 10, in every view and
  # the folded form, and the header says what the filter kept.
  expect 0 'SUMMARY samples=15 ' -- "$knit" record -e PROBE -o "$tmp/c" -- "$wl/calls" 1
  expect 0 '^filter: --focus=\^recurse\$ kept 33\.3% of PROBE \(5 of 15 probes\)' -- \
    "$knit" report '--focus=^recurse$' --no-inline --no-loops "$tmp/c"
  grep -qE '^ +5 +100\.0% +0 +main ' <<<"$out_last" || fail "the focused tree's main is not 5 probes"
  ! grep -q 'nested_' <<<"$out_last" || fail "a path without recurse is kept"
  sum=$("$knit" report --focus=recurse --format=folded "$tmp/c" | awk '{s += $NF} END {print s}')
  [ "$sum" = 5 ] || fail "the focused folded form counts $sum probes, not 5"
  sum=$("$knit" report --ignore=recurse --format=folded "$tmp/c" | awk '{s += $NF} END {print s}')
  [ "$sum" = 10 ] || fail "the folded form without recurse counts $sum probes, not 10"
  # A loop level or an inlined call is a frame too; ignore wins over focus.
  expect 0 'kept 100\.0% of PROBE' -- "$knit" report '--focus=^knit_work$' "$tmp/c"
  expect 0 'kept 0\.0% of PROBE \(0 of 15 probes\)' -- "$knit" report --focus=recurse --ignore=main "$tmp/c"
  expect 0 '^ +2 +18\.2% +2 +18\.2% +lib_digest$' -- \
    "$knit" report --view=flat --ignore=nested --no-inline --no-loops --min=0 "$tmp/c"
  expect 2 'focus=\(: not a regular expression' -- "$knit" report '--focus=(' "$tmp/c"
  expect 2 'ignore=a\{2: not a regular expression' -- "$knit" report '--ignore=a{2' "$tmp/c"
  ;;
diff)
  # Two measurements per context (workloads/calls.c, exact probes): one
  # round and two, every context doubled; the same one twice, no change.
  expect 0 'SUMMARY samples=15 ' -- "$knit" record -e PROBE -o "$tmp/a" -- "$wl/calls" 1
  expect 0 'SUMMARY samples=30 ' -- "$knit" record -e PROBE -o "$tmp/b" -- "$wl/calls" 2
  expect 0 '^ +15\.0 +30\.0 +\+15\.0 +main$' -- "$knit" diff --no-loops "$tmp/a" "$tmp/b"
  grep -qE '^ +5\.0 +10\.0 +\+5\.0 +main;run_calls;recurse$' <<<"$out_last" ||
    fail "recurse is not 5 probes in A and 10 in B"
  first=$(grep -nE '^ +[0-9.]+ ' <<<"$out_last" | head -1 | cut -d: -f2-)
  grep -qE ' main$' <<<"$first" || fail "the largest change is not first: $first"
  expect 0 '^ +1\.0 +2\.0 +\+1\.0 +main;run_calls;recurse;recurse;recurse;recurse;recurse;knit_work' -- \
    "$knit" diff --no-loops --sort=excl "$tmp/a" "$tmp/b"
  expect 0 '13 contexts whose change is below 0\.5% of the larger PROBE total hidden' -- \
    "$knit" diff --no-loops --no-inline "$tmp/a" "$tmp/a"
  expect 0 '^ +15\.0 +15\.0 +\+0\.0 +main$' -- "$knit" diff --no-loops --min=0 "$tmp/a" "$tmp/a"
  expect 0 'SUMMARY' -- "$knit" record -e CPUTIME@f1000 -o "$tmp/t" -- "$wl/calls" 1
  expect 1 'A is PROBE, B is CPUTIME every 1 ms: .* do not compare' -- "$knit" diff "$tmp/a" "$tmp/t"
  expect 1 'no ./knit-\*|cannot|error' -- "$knit" diff "$tmp/a" "$tmp/nothing"
  expect 2 'two measurement directories' -- "$knit" diff "$tmp/a"
  expect 2 'sorted by the change' -- "$knit" diff --sort=name "$tmp/a" "$tmp/b"
  expect 2 'gives the thread counts of --scaling' -- "$knit" diff --threads=1,4 "$tmp/a" "$tmp/b"
  expect 2 "unknown metric 'BOGUS'" -- "$knit" diff --metrics=BOGUS "$tmp/a" "$tmp/b"
  expect 0 'usage: knit diff' -- "$knit" diff --help
  expect 0 'diff ' -- "$knit" --help
  ;;
diff_scaling)
  # The scaling loss (workloads/scaling, exact probes, mock-gomp): at 4
  # threads the serial phase keeps 3 threads idle for its 256 probes, 768
  # probes of excess work, more than the parallel loop can lose (at most
  # 3 x 64): it is listed first.
  for n in 1 4; do
    expect 0 'SUMMARY samples=320 ' -- env OMP_NUM_THREADS=$n "$knit" record -e PROBE \
      --runtime=mock-gomp -o "$tmp/p$n" -- "$wl/scaling" 4
  done
  expect 0 'scaling loss from A at 1 thread to B at 4' -- "$knit" diff --scaling "$tmp/p1" "$tmp/p4"
  grep -q 'PROBE + OMP_IDLE summed over all threads' <<<"$out_last" || fail "the loss is not explained"
  first=$(grep -E '^ +[-+][0-9]' <<<"$out_last" | head -1)
  grep -qE '^ +\+7[0-9]{2}\.[0-9] +[0-9.]+% .*;serial_phase;' <<<"$first" ||
    fail "the serial phase's path is not first with about 768 probes of loss: $first"
  expect 0 '^total C: A 320\.0 probes' -- "$knit" diff --scaling --sort=incl "$tmp/p1" "$tmp/p4"
  first=$(grep -E '^ +[-+][0-9]' <<<"$out_last" | head -1)
  grep -qE ' main$' <<<"$first" || fail "sorted by inclusive loss, main is not first: $first"
  expect 0 'at 2 threads to B at 8' -- "$knit" diff --scaling --threads=2,8 "$tmp/p1" "$tmp/p4"
  expect 2 'A has 4 threads and B 1: A is the run with fewer threads' -- \
    "$knit" diff --scaling "$tmp/p4" "$tmp/p1"
  expect 2 "threads wants the two runs' thread counts" -- "$knit" diff --scaling --threads=4 "$tmp/p1" "$tmp/p4"
  expect 2 'scaling shows the loss' -- "$knit" diff --scaling --metrics=PROBE "$tmp/p1" "$tmp/p4"
  ;;
trace_record)
  # knit record -t on a blame workload: trace files that agree with the
  # thread files, and a Chrome trace whose slices nest on every track.
  command -v python3 >/dev/null || { echo "skip: no python3 to check the trace with"; exit 77; }
  check=$(dirname "$0")/trace_check.py
  export OMP_NUM_THREADS=3
  # Every transition kept: a worker's idle or barrier state can be shorter
  # than the states a recording leaves out (cli.trace_short_states), and
  # the check below wants a worker with both.
  KNIT_TRACE_KEEP_SHORT=1 expect 0 'SUMMARY samples=' -- "$knit" record -t -e CPUTIME@f1000 \
    --runtime=mock-gomp -o "$tmp/t" -- "$wl/blame" uneven 1
  grep -q '^trace: .* 0 records not written$' "$tmp/t/knit.log" || fail "knit.log has no trace line"
  expect 0 '^ok$' -- python3 "$check" files "$tmp/t"
  "$knit" report --format=chrome "$tmp/t" >"$tmp/t.json" 2>"$tmp/t.err" || fail "--format=chrome failed"
  [ ! -s "$tmp/t.err" ] || fail "--format=chrome warned: $(cat "$tmp/t.err")"
  expect 0 '^ok$' -- python3 "$check" chrome "$tmp/t.json"
  grep -q '"name":"main","cat":"sample"' "$tmp/t.json" || fail "no slice of main"
  grep -q '"name":"excess_work","cat":"sample"' "$tmp/t.json" || fail "no slice of excess_work"
  ;;
trace_drops)
  # A buffer of 16 records at 2000 samples a second: events are dropped,
  # counted in the trace, the samples still agree with the thread files,
  # and the report says so.
  command -v python3 >/dev/null || { echo "skip: no python3 to check the trace with"; exit 77; }
  check=$(dirname "$0")/trace_check.py
  # Every transition kept: more events than the small buffers hold.
  export OMP_NUM_THREADS=2 KNIT_TRACE_RECORDS=16 KNIT_TRACE_KEEP_SHORT=1
  expect 0 'SUMMARY samples=' -- "$knit" record -t -e REALTIME@f2000 --runtime=mock-gomp \
    -o "$tmp/d" -- "$wl/blame" uneven 1
  grep -qE '^trace: .*\(16 records a thread.s buffer\)$' "$tmp/d/knit.log" || fail "the buffer is not 16 records"
  grep -qE '^trace: .* [1-9][0-9]* events dropped by full buffers' "$tmp/d/knit.log" ||
    fail "knit.log counts no drops"
  expect 0 '^ok$' -- python3 "$check" drops "$tmp/d"
  "$knit" report --format=chrome "$tmp/d" >"$tmp/d.json" 2>"$tmp/d.err" || fail "--format=chrome failed"
  grep -qE 'warning: thread 0 dropped [0-9]+ trace events: its buffer was full' "$tmp/d.err" ||
    fail "the report does not say events were dropped"
  grep -qE '"thread 0 \(main, [0-9]+ events dropped\)"' "$tmp/d.json" || fail "the track does not say so"
  expect 0 '^ok$' -- python3 "$check" nesting "$tmp/d.json"
  ;;
trace_short_states)
  # A state whose end comes right after its begin, sooner than a timeline
  # draws one (measure/short_state.h), is not kept: recursive tasks wait a
  # few microseconds in a taskwait for every task. Their trace keeps far
  # fewer records than the run made transitions (counted by a run that
  # keeps them all, KNIT_TRACE_KEEP_SHORT=1), knit.log counts those not
  # kept, and the samples still agree with the thread files.
  command -v python3 >/dev/null || { echo "skip: no python3 to check the trace with"; exit 77; }
  check=$(dirname "$0")/trace_check.py
  export OMP_NUM_THREADS=2
  KNIT_TRACE_KEEP_SHORT=1 expect 0 'SUMMARY samples=' -- \
    "$knit" record -t -e CPUTIME@f1000 --runtime=mock-gomp -o "$tmp/all" -- "$wl/tasks" 300
  grep -q '^trace: .* 0 short states not kept,' "$tmp/all/knit.log" || fail "KNIT_TRACE_KEEP_SHORT=1 left states out"
  expect 0 '^transitions [0-9]+ short [1-9]' -- python3 "$check" short "$tmp/all"
  read -r transitions short_all <<<"$(awk '{print $2, $4}' <<<"$out_last")"
  expect 0 'SUMMARY samples=' -- \
    "$knit" record -t -e CPUTIME@f1000 --runtime=mock-gomp -o "$tmp/kept" -- "$wl/tasks" 300
  expect 0 '^transitions [0-9]+ short [0-9]+ records [0-9]+$' -- python3 "$check" short "$tmp/kept"
  read -r kept short_left <<<"$(awk '{print $2, $4}' <<<"$out_last")"
  # Only a drain between a begin and its end keeps a short state.
  [ "$((short_left * 20))" -lt "$short_all" ] || fail "$short_left short states kept of $short_all"
  # The program makes the same transitions in every run; each one is in
  # the file or was a short state's begin or end, counted in knit.log. How
  # many states are short depends on the machine (a loaded one under a
  # sanitizer made 4,780 of 12,001, a quiet one 10,876), so no share is
  # asked for, only that the count accounts for every transition (but for
  # events a full buffer dropped, counted too).
  not_kept=$(sed -n 's/^trace: .*, \([0-9]*\) short states not kept,.*/\1/p' "$tmp/kept/knit.log")
  dropped=$(sed -n 's/^trace: .*, \([0-9]*\) events dropped by full buffers,.*/\1/p' "$tmp/kept/knit.log")
  accounted=$((kept + 2 * ${not_kept:-0}))
  [ "${not_kept:-0}" -gt 0 ] && [ "$accounted" -le "$transitions" ] &&
    [ "$((accounted + ${dropped:-0}))" -ge "$transitions" ] ||
    fail "$kept transitions kept, ${not_kept:-no} short states not kept, ${dropped:-no} events dropped; the run makes $transitions"
  grep -qE '^trace: every .* but states shorter than 10000 ns with nothing inside' "$tmp/kept/knit.log" ||
    fail "knit.log does not say which states are not kept"
  expect 0 '^ok$' -- python3 "$check" files "$tmp/kept"
  # The Chrome export draws no such state, so a blame workload's timeline is
  # the same, byte for byte, with them or without: a run that keeps them
  # all, and the same run less every one the recording could leave out.
  export OMP_NUM_THREADS=3
  short_total=0
  for run in "blame mock-gomp" "blame_clang mock-intel"; do
    read -r prog rt <<<"$run"
    [ -x "$wl/$prog" ] || { echo "no $prog: not built here"; continue; }
    KNIT_TRACE_KEEP_SHORT=1 expect 0 'SUMMARY samples=' -- \
      "$knit" record -t -e CPUTIME@f1000 --runtime="$rt" -o "$tmp/$prog" -- "$wl/$prog" locks 2
    expect 0 '^ok$' -- python3 "$check" take_short "$tmp/$prog" "$tmp/$prog.short"
    short_total=$((short_total + $(sed -n 's/^short states taken //p' <<<"$out_last")))
    "$knit" report --format=chrome "$tmp/$prog" >"$tmp/$prog.json" 2>/dev/null || fail "--format=chrome failed"
    "$knit" report --format=chrome "$tmp/$prog.short" >"$tmp/$prog.short.json" 2>/dev/null ||
      fail "--format=chrome failed without the short states"
    cmp "$tmp/$prog.json" "$tmp/$prog.short.json" ||
      fail "$prog: the timeline differs without its short states"
  done
  [ "$short_total" -gt 0 ] || fail "no short state in the blame workloads' traces: nothing was compared"
  # And a run that leaves them out meets the Chrome test's expectations
  # (trace_record).
  prog=blame_clang rt=mock-intel
  [ -x "$wl/$prog" ] || prog=blame rt=mock-gomp
  expect 0 'SUMMARY samples=' -- \
    "$knit" record -t -e CPUTIME@f1000 --runtime="$rt" -o "$tmp/l" -- "$wl/$prog" locks 2
  "$knit" report --format=chrome "$tmp/l" >"$tmp/l.json" 2>"$tmp/l.err" || fail "--format=chrome failed"
  [ ! -s "$tmp/l.err" ] || fail "--format=chrome warned: $(cat "$tmp/l.err")"
  expect 0 '^ok$' -- python3 "$check" chrome "$tmp/l.json"
  grep -q '"name":"<omp-lock-wait>","cat":"omp"' "$tmp/l.json" || fail "no lock wait slice"
  grep -q '"name":"hold_long","cat":"sample"' "$tmp/l.json" || fail "no slice of hold_long"
  ;;
trace_device)
  # knit record -t on the mock device: a track per device in the Chrome
  # trace (report/chrome_trace.h). Under MOCKRT_DETERMINISTIC=1 the device
  # times are exact: two kernels a round, launch_wide's and launch_narrow's,
  # whose slices must add up to what DEVICE_KERNEL charges each construct.
  command -v python3 >/dev/null || { echo "skip: no python3 to check the trace with"; exit 77; }
  [ -x "$wl/target" ] || { echo "skip: the target workload is not built (no offloading toolchain for this ISA)"; exit 77; }
  [ -e "$(dirname "$KNIT_LIB")/mock-intel/libomptarget.so" ] ||
    { echo "skip: the mock device (mock-intel's libomptarget.so) is not built"; exit 77; }
  check=$(dirname "$0")/trace_check.py
  export MOCKRT_DETERMINISTIC=1 MOCKRT_TARGET_LATENCY_NS=0 MOCKRT_TARGET_BANDWIDTH=1000000000 \
    MOCKRT_TARGET_NS_PER_ITER=10
  expect 0 'SUMMARY' -- "$knit" record -t -e CPUTIME@f1000 --runtime=mock-intel -o "$tmp/g" -- "$wl/target" 3
  [ -s "$tmp/g/trace-device-0.knit" ] || fail "no trace file of device 0"
  # knit.log counts the device's records with the threads' (3 a device
  # operation, after the file's 32-byte header).
  device_records=$((($(stat -c %s "$tmp/g/trace-device-0.knit") - 32) / 16))
  grep -qE "^trace: .*, $device_records records in 1 device trace files, 0 records not written\$" \
    "$tmp/g/knit.log" || fail "knit.log does not count device 0's $device_records records: $(grep '^trace: [0-9]' "$tmp/g/knit.log")"
  "$knit" report --format=folded --metric=DEVICE_KERNEL "$tmp/g" >"$tmp/g.folded" || fail "--format=folded failed"
  "$knit" report --format=chrome "$tmp/g" >"$tmp/g.json" 2>"$tmp/g.err" || fail "--format=chrome failed"
  [ ! -s "$tmp/g.err" ] || fail "--format=chrome warned: $(cat "$tmp/g.err")"
  expect 0 '^ok$' -- python3 "$check" device "$tmp/g.json" 6 "$tmp/g.folded"
  grep -qE '"name":"device 0 \([^)]+\)"' "$tmp/g.json" || fail "no track named device 0 (TYPE)"
  for n in '"to device 64 KiB"' '"from device 32 KiB"' '"to device 16 KiB"' '"alloc"'; do
    grep -qF "{\"name\":$n,\"cat\":\"device\"" "$tmp/g.json" || fail "no $n slice on the device track"
  done
  # A device whose translate_time is wrong (the mock's fault: device time
  # taken for the host's) is put on the host's clock by its own now: its
  # slices stay among the threads', not hours away from them.
  MOCKRT_FAULT=translate_time_wrong expect 0 'SUMMARY' -- \
    "$knit" record -t -e CPUTIME@f1000 --runtime=mock-intel -o "$tmp/w" -- "$wl/target" 3
  "$knit" report --format=chrome "$tmp/w" >"$tmp/w.json" 2>/dev/null || fail "--format=chrome failed"
  "$knit" report --format=folded --metric=DEVICE_KERNEL "$tmp/w" >"$tmp/w.folded" || fail "--format=folded failed"
  expect 0 '^ok$' -- python3 "$check" device "$tmp/w.json" 6 "$tmp/w.folded"
  expect 0 '^spans [0-9]+ us$' -- python3 -c 'import json, sys
x = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e["ph"] == "X"]
print("spans %d us" % max(e["ts"] + e["dur"] for e in x))' "$tmp/w.json"
  [ "$(grep -oE '[0-9]+' <<<"$out_last")" -lt 10000000 ] || fail "the device's slices are not on the host's clock"
  # A torn last group is dropped with a warning, the rest kept.
  head -c -5 "$tmp/g/trace-device-0.knit" >"$tmp/torn" && mv "$tmp/torn" "$tmp/g/trace-device-0.knit"
  "$knit" report --format=chrome "$tmp/g" >"$tmp/g2.json" 2>"$tmp/g2.err" || fail "--format=chrome failed on a torn device file"
  grep -q 'trace-device-0.knit: .*skipped' "$tmp/g2.err" || fail "no warning of the torn device file"
  [ "$(grep -c '"cat":"device"' "$tmp/g2.json")" = "$(($(grep -c '"cat":"device"' "$tmp/g.json") - 1))" ] ||
    fail "the torn device file did not keep all but its last operation"
  ;;
trace_device_forms)
  # The device view is the same whichever form of the target callbacks the
  # runtime offers: the mock of OpenMP 5.1's _emi ones alone, of the 5.0
  # ones alone, and of both (knit then takes the _emi ones). Under
  # MOCKRT_DETERMINISTIC=1 every device metric of every launching path, and
  # every slice of the device's track but its start, is exact.
  command -v python3 >/dev/null || { echo "skip: no python3 to read the traces with"; exit 77; }
  [ -x "$wl/target" ] || { echo "skip: the target workload is not built (no offloading toolchain for this ISA)"; exit 77; }
  [ -e "$(dirname "$KNIT_LIB")/mock-intel/libomptarget.so" ] ||
    { echo "skip: the mock device (mock-intel's libomptarget.so) is not built"; exit 77; }
  export MOCKRT_DETERMINISTIC=1 MOCKRT_TARGET_LATENCY_NS=0 MOCKRT_TARGET_BANDWIDTH=1000000000 \
    MOCKRT_TARGET_NS_PER_ITER=10
  for form in both 5.1 5.0; do
    MOCKRT_TARGET_OMPT=$form expect 0 'SUMMARY' -- \
      "$knit" record -t -e CPUTIME@f1000 --runtime=mock-intel -o "$tmp/$form" -- "$wl/target" 3
    taken="OpenMP 5.1's _emi forms"
    [ "$form" != 5.0 ] || taken="OpenMP 5.0's forms"
    grep -qxF "ompt: target callbacks: $taken" "$tmp/$form/knit.log" ||
      fail "knit.log does not say knit took $taken ($form): $(grep 'target callbacks' "$tmp/$form/knit.log")"
    : >"$tmp/$form.device"
    for m in DEVICE_KERNEL DEVICE_H2D_BYTES DEVICE_H2D_TIME DEVICE_D2H_BYTES DEVICE_D2H_TIME \
      DEVICE_ALLOC_BYTES; do
      "$knit" report --format=folded --metric=$m "$tmp/$form" | sed "s/^/$m /" >>"$tmp/$form.device" ||
        fail "--format=folded --metric=$m failed ($form)"
    done
    grep -q '^DEVICE_KERNEL .*;launch_wide;target_at_target\.c:[0-9]* [1-9]' "$tmp/$form.device" ||
      fail "no kernel time under launch_wide's construct ($form): $(cat "$tmp/$form.device")"
    "$knit" report --format=chrome "$tmp/$form" >"$tmp/$form.json" || fail "--format=chrome failed ($form)"
    # A slice's node is the construct's id in its thread's tree, which the
    # samples' order decides; its place in the source is the same.
    python3 -c 'import json, sys
for e in sorted(json.dumps([e["name"], e["dur"], {k: v for k, v in e.get("args", {}).items()
                                                  if k != "node"}], sort_keys=True)
                for e in json.load(open(sys.argv[1]))["traceEvents"]
                if e.get("cat") == "device" and e["ph"] == "X"):
    print(e)' "$tmp/$form.json" >"$tmp/$form.slices" || fail "cannot read the chrome trace ($form)"
    [ -s "$tmp/$form.slices" ] || fail "no slice on the device track ($form)"
  done
  for form in 5.1 5.0; do
    diff "$tmp/both.device" "$tmp/$form.device" || fail "device metrics differ under MOCKRT_TARGET_OMPT=$form"
    diff "$tmp/both.slices" "$tmp/$form.slices" || fail "the device track differs under MOCKRT_TARGET_OMPT=$form"
  done
  ;;
trace_absent)
  # Without -t: no trace file, and --format=chrome says how to get one.
  expect 0 'SUMMARY samples=' -- "$knit" record -e CPUTIME@f1000 --runtime=mock-gomp \
    -o "$tmp/n" -- "$wl/blame" uneven 1
  ! ls "$tmp/n" | grep -q '^trace-' || fail "trace files without -t"
  ! grep -q '^trace:' "$tmp/n/knit.log" || fail "knit.log speaks of a trace without -t"
  expect 1 'has no traces \(trace-\*\.knit\): record with `knit record -t`' -- \
    "$knit" report --format=chrome "$tmp/n"
  expect 2 "unknown format 'chrom' \(tree, folded, chrome, pprof or json\)" -- "$knit" report --format=chrom "$tmp/n"
  expect 0 'trace-\*\.knit files' -- "$knit" record --help
  ;;
trace_corrupt)
  # A torn trace file and one that is no trace: each named in a warning,
  # the rest drawn.
  command -v python3 >/dev/null || { echo "skip: no python3 to check the trace with"; exit 77; }
  # Every transition kept, so that each worker has a trace file to spoil
  # (one whose every state was short would have none).
  export OMP_NUM_THREADS=2 KNIT_TRACE_KEEP_SHORT=1
  expect 0 'SUMMARY samples=' -- "$knit" record -t -e CPUTIME@f1000 --runtime=mock-gomp \
    -o "$tmp/c" -- "$wl/blame" uneven 1
  main_trace=$(ls "$tmp/c" | grep '^trace-0-')
  size=$(stat -c %s "$tmp/c/$main_trace")
  truncate -s $((size - 5)) "$tmp/c/$main_trace"
  worker_trace=$(ls "$tmp/c" | grep '^trace-1-')
  echo 'not a trace at all, but long enough for a header' >"$tmp/c/$worker_trace"
  "$knit" report --format=chrome "$tmp/c" >"$tmp/c.json" 2>"$tmp/c.err" || fail "--format=chrome failed"
  cat "$tmp/c.err"
  grep -qE "warning: .*/$main_trace: truncated: 11 bytes of a last record" "$tmp/c.err" ||
    fail "no warning of the torn file"
  grep -qE "warning: .*/$worker_trace: bad magic" "$tmp/c.err" || fail "no warning of the bad file"
  python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert any(e.get("cat") == "sample" for e in d["traceEvents"])' \
    "$tmp/c.json" || fail "the rest was not drawn"
  ;;
report_pprof)
  # The pprof export, read by protoc against the format's schema
  # (pprof_profile.proto) and printed with its strings resolved
  # (pprof_text.awk): every metric a sample type in nanoseconds, and every
  # sample's path, in folded form, carrying what `knit report
  # --format=folded` counts on that path, metric by metric.
  command -v protoc >/dev/null || { echo "skip: protoc is not installed (ci/deps.sh installs protobuf-compiler)"; exit 77; }
  here=$(dirname "$0")
  decode() {
    gzip -dc "$1" | protoc --decode=perftools.profiles.Profile -I "$here" "$here/pprof_profile.proto" |
      awk -f "$here/pprof_text.awk"
  }
  expect 0 'SUMMARY samples=' -- "$knit" record -e CPUTIME@f1000 -o "$tmp/b" -- "$wl/blame" locks 3
  expect 0 '' -- "$knit" report --format=pprof -o "$tmp/b.pb.gz" "$tmp/b"
  gzip -t "$tmp/b.pb.gz" || fail "the profile is not gzip"
  decode "$tmp/b.pb.gz" >"$tmp/b.txt" || fail "protoc cannot decode the profile"
  sed 's/^/  | /' "$tmp/b.txt" | grep -v '^  | location' | head -40
  [ "$(grep '^type ' "$tmp/b.txt")" = "type cpu nanoseconds
type OMP_IDLE nanoseconds
type OMP_MUTEX_WAIT nanoseconds
type OMP_MUTEX_BLAME nanoseconds" ] || fail "the sample types are not the four metrics in nanoseconds"
  grep -qx 'period_type cpu nanoseconds' "$tmp/b.txt" || fail "no period type cpu"
  grep -qx 'period 1000000' "$tmp/b.txt" || fail "the period is not 1 ms in nanoseconds"
  grep -qx 'default_type cpu' "$tmp/b.txt" || fail "cpu is not the default sample type"
  grep -qx 'comment knit: CPUTIME every 1 ms' "$tmp/b.txt" || fail "no comment with the event"
  # The time: the run's end, within the last hour.
  ended=$(sed -n 's/^time_nanos //p' "$tmp/b.txt")
  now=$(date +%s)
  [ "${ended:-0}" -gt $(((now - 3600) * 1000000000)) ] && [ "$ended" -le $(((now + 1) * 1000000000)) ] ||
    fail "time_nanos $ended is not the run's end"
  grep -qE "^mapping [0-9]+ .*/blame [0-9a-f]{40}$" "$tmp/b.txt" || fail "no mapping of the program with its build id"
  grep -qE '^function main\|main\|.*/blame\.c$' "$tmp/b.txt" || fail "no function main in blame.c"
  grep -qE '^function hold_long\|hold_long\|.*/blame\.c$' "$tmp/b.txt" || fail "no function hold_long"
  # The OpenMP body: its readable name, its symbol as system_name.
  grep -qE '^function parallel at blame\.c:[0-9]+\|run_locks\._omp_fn\.0\|.*/blame\.c$' "$tmp/b.txt" ||
    fail "the parallel region's body is not a function named by its construct and its symbol"
  grep -qE '^function <omp-lock-wait>\|<omp-lock-wait>\|$' "$tmp/b.txt" || fail "no placeholder function <omp-lock-wait>"
  # Each metric's values, path by path, in the folded form's units (the
  # time metric in periods, blame in milli-periods), against the folded
  # form itself: the same paths, the same counts.
  i=0
  for metric in CPUTIME OMP_IDLE OMP_MUTEX_WAIT OMP_MUTEX_BLAME; do
    i=$((i + 1))
    awk -v i="$i" '$1 == "period" { p = $2 }
      $1 == "sample" { v = $(i + 1) * (i > 1 ? 1000 : 1); if (v != 0) c[$NF] += v / p }
      END { for (k in c) printf "%s %.0f\n", k, c[k] }' "$tmp/b.txt" | sort >"$tmp/from-pprof"
    "$knit" report --format=folded --no-loops --metric=$metric "$tmp/b" | sort >"$tmp/folded"
    [ -s "$tmp/folded" ] || [ "$metric" = OMP_IDLE ] || fail "no $metric in the folded form"
    diff "$tmp/from-pprof" "$tmp/folded" || fail "$metric: the profile's samples differ from the folded form"
  done
  # Standard output, when it is no terminal, gets the same bytes.
  "$knit" report --format=pprof "$tmp/b" | cmp - "$tmp/b.pb.gz" || fail "standard output differs from -o"
  # Inlined calls: one location, its lines innermost first, each outer one
  # on its call of the next (workloads/inlined.c, exact probes).
  src=$here/../../workloads/inlined.c
  expect 0 'SUMMARY samples=6 ' -- "$knit" record -e PROBE -o "$tmp/i" -- "$wl/inlined" 1
  "$knit" report --format=pprof -o "$tmp/i.pb.gz" "$tmp/i" || fail "no profile of inlined"
  decode "$tmp/i.pb.gz" >"$tmp/i.txt" || fail "protoc cannot decode the profile of inlined"
  sed 's/^/  | /' "$tmp/i.txt"
  grep -qx 'type probes count' "$tmp/i.txt" || fail "PROBE's sample type is not probes/count"
  grep -qE "^location [0-9]+ knit_probe:[0-9]+ < knit_work:[0-9]+ < inner_step:$(line inner_work) < outer_step:$(line call_inner) < run:$(line call_outer)$" "$tmp/i.txt" ||
    fail "no location with inner_step and outer_step inlined into run, innermost first"
  grep -qx 'sample 2 0 0 0 main;run;outer_step_\[i\];inner_step_\[i\];knit_work_\[i\];knit_probe_\[i\]' "$tmp/i.txt" ||
    fail "no sample of 2 probes in inner_step"
  # --no-inline: one line a location, the symbol's.
  "$knit" report --format=pprof --no-inline -o "$tmp/n.pb.gz" "$tmp/i" || fail "no profile without inlined calls"
  decode "$tmp/n.pb.gz" >"$tmp/n.txt"
  ! grep -q ' < ' "$tmp/n.txt" || fail "--no-inline: a location has inlined lines"
  [ "$(awk '$1 == "sample" && $NF == "main;run" { n += $2 } END { print n }' "$tmp/n.txt")" = 6 ] ||
    fail "--no-inline: run does not hold the 6 probes"
  # A module whose path holds an escape sequence: the profile has its
  # printable form, as the report prints it, never the raw byte.
  d="$tmp/dir"$'\e'"[31mred"
  mkdir "$d" && cp "$wl/calls" "$wl"/libknit_wl_calls.so "$d/" || fail "copy"
  expect 0 'SUMMARY samples=15 ' -- "$knit" record -e PROBE -o "$tmp/e" -- "$d/calls" 1
  "$knit" report --format=pprof -o "$tmp/e.pb.gz" "$tmp/e" || fail "no profile of calls"
  # (protoc writes a string's raw bytes that are not printable in octal.)
  gzip -dc "$tmp/e.pb.gz" | protoc --decode=perftools.profiles.Profile -I "$here" "$here/pprof_profile.proto" >"$tmp/e.txt"
  ! grep -qF '\033' "$tmp/e.txt" || fail "the profile holds a raw escape character"
  decode "$tmp/e.pb.gz" | grep -qF 'dir\x1b[31mred/calls' || fail "the module's path is not in its printable form"
  ;;
report_pprof_refused)
  # Where the profile cannot go: a terminal, a file that cannot be made,
  # a full device; -o belongs to the pprof format.
  expect 0 'SUMMARY samples=' -- "$knit" record -e PROBE -o "$tmp/m" -- "$wl/calls" 1
  if command -v script >/dev/null; then
    expect 2 'binary \(gzip\): not written to a terminal; name a file with -o FILE' -- \
      script -qec "$knit report --format=pprof $tmp/m" /dev/null
  else
    echo "note: no script(1) here: the terminal case is not checked"
  fi
  expect 2 "cannot create $tmp/no/such/p.pb.gz: No such file or directory" -- \
    "$knit" report --format=pprof -o "$tmp/no/such/p.pb.gz" "$tmp/m"
  [ ! -e "$tmp/no" ] || fail "something was made for the profile"
  if [ -w /dev/full ]; then
    expect 1 'cannot write /dev/full: No space left on device' -- \
      "$knit" report --format=pprof -o /dev/full "$tmp/m"
    [ -c /dev/full ] || fail "/dev/full is gone"
  fi
  expect 2 'report: -o p.pb.gz names the file --format=pprof writes' -- "$knit" report -o p.pb.gz "$tmp/m"
  expect 2 "unknown format 'proto' \(tree, folded, chrome, pprof or json\)" -- "$knit" report --format=proto "$tmp/m"
  # The tree's options shape nothing of the profile: refused, not ignored.
  expect 2 'report: --lines shapes the printed report; --format=pprof writes every metric' -- \
    "$knit" report --format=pprof --lines -o "$tmp/p.pb.gz" "$tmp/m"
  expect 2 'report: --metrics shapes the printed report' -- \
    "$knit" report --format=pprof --metrics=all -o "$tmp/p.pb.gz" "$tmp/m"
  expect 1 'cannot read measurement directory' -- "$knit" report --format=pprof -o "$tmp/p.pb.gz" "$tmp/none"
  [ ! -e "$tmp/p.pb.gz" ] || fail "a profile was written for no measurement"
  expect 0 'format=pprof' -- "$knit" report --help
  ;;
report_folded_rules)
  # The folded form by the rules flame-graph readers split it by
  # (flamegraph.pl and speedscope alike: the count after the line's last
  # space, frames at ';'): no frame holds a space or a ';', none is empty,
  # counts are whole and positive, paths are sorted and distinct, and they
  # add up to the tree's total. A program whose file has a space and a ';'
  # in its name, gone before the report, makes frames of that name; C++
  # names (templates, a lambda, inlined calls) make the rest.
  d="$tmp/my prog;v2"
  mkdir "$d" && cp "$wl/calls" "$d/calls prog;v2" && cp "$wl"/libknit_wl_calls.so "$d/" || fail "copy"
  expect 0 'SUMMARY samples=15 ' -- "$knit" record -e PROBE -o "$tmp/h" -- "$d/calls prog;v2" 1
  rm "$d/calls prog;v2"
  # A program that starts from a temporary directory is not copied (only
  # what it loads while running from one is): deleted since, it has no
  # file, and its frames keep the program's base name.
  [ ! -e "$tmp/h/images/index" ] || ! grep -qF "$d/calls prog;v2" "$tmp/h/images/index" ||
    fail "the program, started from a temporary directory, was copied"
  expect 0 'SUMMARY samples=' -- "$knit" record -e PROBE -o "$tmp/c" -- "$wl/levels_cc"
  for m in h c; do
    "$knit" report --format=folded "$tmp/$m" >"$tmp/$m.folded" || fail "no folded form of $m"
    sed 's/^/  | /' "$tmp/$m.folded"
    bad=$(grep -vE '^[^ ;]+(;[^ ;]+)* [1-9][0-9]*$' "$tmp/$m.folded") && fail "lines that do not split: $bad"
    LC_ALL=C sort -c -u -k1,1 "$tmp/$m.folded" || fail "$m: lines not sorted or not distinct"
    total=$(awk '{ n += $NF } END { print n }' "$tmp/$m.folded")
    "$knit" report --min=0 "$tmp/$m" >"$tmp/$m.tree"
    grep -qE "^ +$total +100\.0% " "$tmp/$m.tree" || fail "$m: the lines do not add up to the tree's total $total"
  done
  grep -qE '^calls_prog_v2\+0x[0-9a-f]+;__libc_start_main;' "$tmp/h.folded" ||
    fail "the program's frames are not named calls_prog_v2+0x..."
  grep -qF ';grid::Field<unsigned_long>::sweep(unsigned_long);parallel_at_levels_cc.cc:' "$tmp/c.folded" ||
    fail "no template member function frame"
  grep -qF ';grid::Field<unsigned_long>::sweep(unsigned_long)::{lambda(int)#1}::operator()(int)_const_[i];' "$tmp/c.folded" ||
    fail "no inlined lambda frame"
  ;;
report_speedscope)
  # speedscope, a flame-graph viewer from the npm registry, reads knit's
  # folded and pprof forms in headless Chromium, handed a file the way its
  # own command line does (speedscope_table.sh). Its sandwich view's table
  # (each function's total and self) must be what the folded lines say,
  # split at the last space and at each ';': the program with a space and
  # a ';' in its name, C++ names, inlined calls, loops, placeholders.
  here=$(dirname "$0")
  index=${KNIT_SPEEDSCOPE:-$here/../../.cache/npm/node_modules/speedscope}/dist/release/index.html
  if [ ! -f "$index" ]; then
    echo "skip: speedscope is not installed in .cache/npm (ci/deps.sh installs it from the npm registry, which it could not reach, or npm is missing)"
    exit 77
  fi
  browser=$(command -v chromium || command -v chromium-browser || true)
  [ -n "$browser" ] || { echo "skip: no Chromium to run speedscope in (ci/deps.sh installs chromium)"; exit 77; }
  d="$tmp/my prog;v2"
  mkdir "$d" && cp "$wl/calls" "$d/calls prog;v2" && cp "$wl"/libknit_wl_calls.so "$d/" || fail "copy"
  expect 0 'SUMMARY samples=15 ' -- "$knit" record -e PROBE -o "$tmp/h" -- "$d/calls prog;v2" 1
  rm "$d/calls prog;v2" && rm -rf "$tmp/h/images" # no file of that name, nor a copy
  expect 0 'SUMMARY samples=' -- "$knit" record -e PROBE -o "$tmp/c" -- "$wl/levels_cc"
  expect 0 'SUMMARY samples=' -- "$knit" record -e CPUTIME@f1000 -o "$tmp/b" -- "$wl/blame" locks 2
  for m in h c b; do "$knit" report --format=folded "$tmp/$m"; done >"$tmp/all.folded"
  # What the lines say: a function's total counts each line it is on once
  # (recursion too), its self the lines it ends.
  table_of_folded() {
    awk '{ count = $NF; path = $0; sub(/ [0-9]+$/, "", path); n = split(path, f, ";")
           self[f[n]] += count; split("", seen)
           for (i = 1; i <= n; i++) if (!(f[i] in seen)) { seen[f[i]] = 1; total[f[i]] += count } }
         END { for (k in total) printf "%s\t%s\t%s\n", total[k] * scale, (self[k] + 0) * scale, k }' \
      scale="${2:-1}" "$1" | sort
  }
  table_of_folded "$tmp/all.folded" >"$tmp/want"
  "$here/speedscope_table.sh" "$index" "$browser" "$tmp/all.folded" knit.folded "$tmp/got" ||
    fail "speedscope_table.sh failed"
  grep -q '"Importing as collapsed stack format"' "$tmp/got.log" || fail "speedscope did not read the folded form as folded stacks"
  diff "$tmp/want" "$tmp/got" || fail "speedscope's table differs from the folded lines"
  grep -qF '<omp-lock-wait>' "$tmp/got" || fail "no placeholder in speedscope's table"
  # The pprof form, which speedscope reads too: its functions are the
  # symbols' (it reads a location's last line), named as the tree names
  # them, in milliseconds here (periods of 1 ms); the frames before main,
  # which the folded form leaves out, are extra rows.
  "$knit" report --format=pprof -o "$tmp/b.pb.gz" "$tmp/b" || fail "no pprof form"
  "$here/speedscope_table.sh" "$index" "$browser" "$tmp/b.pb.gz" blame.pb.gz "$tmp/got-pprof" ||
    fail "speedscope_table.sh failed on the pprof form"
  grep -q '"Importing as protobuf encoded pprof file"' "$tmp/got-pprof.log" || fail "speedscope did not read the pprof form"
  grep -qP '\tparallel at blame\.c:[0-9]+$' "$tmp/got-pprof" || fail "the body's name with its spaces is not in speedscope's table"
  "$knit" report --format=folded --no-inline --no-loops "$tmp/b" >"$tmp/b.folded"
  table_of_folded "$tmp/b.folded" | awk -F'\t' '{ gsub(/_/, " ", $3); printf "%.2f\t%.2f\t%s\n", $1, $2, $3 }' |
    sort >"$tmp/want-pprof"
  # speedscope's cells: "135.00ms", "0.00ns", "1.20s"; names with '_'
  # made spaces on both sides (the folded form made spaces '_').
  awk -F'\t' 'function ms(v) { if (v ~ /ms$/) return v + 0; if (v ~ /µs$/) return v / 1000
                               if (v ~ /ns$/) return v / 1e6; if (v ~ /s$/) return v * 1000; return -1 }
              { gsub(/_/, " ", $3); printf "%.2f\t%.2f\t%s\n", ms($1), ms($2), $3 }' "$tmp/got-pprof" |
    sort >"$tmp/got-pprof-ms"
  missing=$(comm -23 "$tmp/want-pprof" "$tmp/got-pprof-ms")
  [ -z "$missing" ] || { comm -3 "$tmp/want-pprof" "$tmp/got-pprof-ms"; fail "speedscope's table of the pprof form lacks: $missing"; }
  ;;
device_metrics)
  # The device view on the mock device (mock-intel's libomptarget.so):
  # under MOCKRT_DETERMINISTIC=1 a kernel costs its trip count times
  # MOCKRT_TARGET_NS_PER_ITER and a copy its bytes over the bandwidth (here
  # 1 byte/ns, no launch latency), so every device metric of every
  # launching function is exact. Three rounds of workloads/target.c: per
  # round launch_wide runs 4096 iterations with 64 KiB in and 32 KiB out,
  # launch_narrow 2048 iterations, 16 KiB in, 16 KiB back by an update and
  # 16 KiB at its data region's end; main maps 4 KiB once.
  [ -x "$wl/target" ] || { echo "skip: the target workload is not built (no offloading toolchain for this ISA)"; exit 77; }
  [ -e "$(dirname "$KNIT_LIB")/mock-intel/libomptarget.so" ] ||
    { echo "skip: the mock device (mock-intel's libomptarget.so) is not built"; exit 77; }
  export MOCKRT_DETERMINISTIC=1 MOCKRT_TARGET_LATENCY_NS=0 MOCKRT_TARGET_BANDWIDTH=1000000000 \
    MOCKRT_TARGET_NS_PER_ITER=10
  expect 0 'SUMMARY' -- "$knit" record -e CPUTIME@f1000 --runtime=mock-intel -o "$tmp/m" -- "$wl/target" 3
  grep -qE '^ompt: device 0 \(.*\): traced' "$tmp/m/knit.log" || fail "knit.log does not say device 0 was traced"
  expect 0 '^devices: 1 traced \(kernel and transfer times from OMPT device tracing\): device 0 \([^)]+\)$' -- \
    "$knit" report "$tmp/m"
  grep -qE '^metric DEVICE_KERNEL +0\.184 ms  kernel time on the device' <<<"$out_last" ||
    fail "DEVICE_KERNEL's total is not 0.184 ms (3 x (40960 + 20480) ns)"
  grep -qE '^metric DEVICE_H2D_BYTES +249856 bytes' <<<"$out_last" ||
    fail "DEVICE_H2D_BYTES's total is not 249856 (3 x 80 KiB + 4 KiB)"
  # A construct's node is `target at FILE:LINE` under the function that
  # launched it (folded: spaces made '_'); a function's constructs add up.
  want() { # METRIC FUNCTION VALUE [MEASUREMENT]
    expect 0 "(^|;)$2;target_at_target\.c:[0-9]+ [0-9]+\$" -- \
      "$knit" report --format=folded --metric="$1" "${4:-$tmp/m}"
    local sum
    sum=$(grep -E "(^|;)$2;target_at_target\.c:[0-9]+ [0-9]+\$" <<<"$out_last" | awk '{ s += $NF } END { print s }')
    [ "$sum" = "$3" ] || fail "$1 of $2's constructs: $sum, expected $3"
  }
  want DEVICE_KERNEL launch_wide 122880
  want DEVICE_KERNEL launch_narrow 61440
  want DEVICE_H2D_BYTES launch_wide 196608
  want DEVICE_H2D_TIME launch_wide 196608
  want DEVICE_D2H_BYTES launch_wide 98304
  want DEVICE_D2H_TIME launch_wide 98304
  want DEVICE_H2D_BYTES launch_narrow 49152
  want DEVICE_D2H_BYTES launch_narrow 98304
  want DEVICE_H2D_BYTES main 4096
  # No kernel time lands anywhere else: the two lines are all.
  expect 0 '' -- "$knit" report --format=folded --metric=DEVICE_KERNEL "$tmp/m"
  [ "$(grep -c . <<<"$out_last")" = 2 ] || fail "DEVICE_KERNEL folds to more than its two launching paths"
  # Columns in their own units, on the host's functions.
  expect 0 'DEVICE_KERNEL' -- \
    "$knit" report --metrics=CPUTIME,DEVICE_KERNEL,DEVICE_H2D_BYTES --sort=DEVICE_KERNEL "$tmp/m"
  grep -qE 'incl ms .*incl ms .*incl bytes' <<<"$out_last" || fail "the columns' titles lack their units"
  grep -qE ' 0\.123 .* launch_wide' <<<"$out_last" || fail "launch_wide's kernel time is not 0.123 ms"
  grep -qE ' 0\.123 .* target at target\.c:[0-9]+' <<<"$out_last" || fail "no target construct with launch_wide's kernel time"
  # The JSON tree lists the device metrics, each with its unit, after the
  # host's four (a host-only measurement lists the four alone).
  expect 0 '"name":"DEVICE_KERNEL","unit":"ms"' -- "$knit" report --format=json "$tmp/m"
  grep -qF '"name":"DEVICE_ALLOC_BYTES","unit":"bytes"' <<<"$out_last" || fail "the JSON lacks DEVICE_ALLOC_BYTES in bytes"
  # The host's wait for the device: real time (the host sleeps while its
  # device works), under the construct it waits for. Kernels of 1 us an
  # iteration keep the host waiting some 30 ms over five rounds.
  MOCKRT_TARGET_NS_PER_ITER=1000 expect 0 'SUMMARY' -- \
    "$knit" record -e REALTIME@f1000 --runtime=mock-intel -o "$tmp/w" -- "$wl/target" 5
  expect 0 '(^|;)launch_wide;target_at_target\.c:[0-9]+;<omp-target-wait> [0-9]+$' -- \
    "$knit" report --format=folded "$tmp/w"
  # A device the runtime never initializes for the tool (the mock's fault
  # device_initialize_missing): its bytes from the host's target_data_op
  # callbacks, exact as well, and no device time at all.
  MOCKRT_FAULT=device_initialize_missing expect 0 'SUMMARY' -- \
    "$knit" record -e CPUTIME@f1000 --runtime=mock-intel -o "$tmp/u" -- "$wl/target" 3
  expect 0 '^devices: 1 without tracing \(transfer bytes from target_data_op callbacks, no device times\)$' -- \
    "$knit" report "$tmp/u"
  ! grep -qE '^metric DEVICE_(KERNEL|H2D_TIME|D2H_TIME)' <<<"$out_last" || fail "device times without tracing"
  grep -qE '^metric DEVICE_D2H_BYTES +196608 bytes' <<<"$out_last" || fail "DEVICE_D2H_BYTES's total is not 196608"
  want DEVICE_H2D_BYTES launch_wide 196608 "$tmp/u"
  want DEVICE_ALLOC_BYTES launch_wide 294912 "$tmp/u"
  ;;
image_seen | image_unseen | image_replaced)
  # A module loaded from a temporary file that is deleted (or replaced by
  # another file) before the report: knit copies it into the measurement
  # (images/), and the report names its function and lines from the copy.
  mode=${case_name#image_}
  src=$(dirname "$0")/temp_module_lib.c
  probe_line=$(line temp_module_probe)
  mkdir "$tmp/files"
  expect 0 "temp_module: .*, $mode, checksum" -- \
    "$knit" record -e PROBE -o "$tmp/m" -- "$TEMP_MODULE" "$TEMP_MODULE_LIB" "$tmp/files" "$mode"
  module=$(grep -oE 'temp_module: [^,]+' <<<"$out_last" | cut -d' ' -f2)
  case $mode in
  unseen) reason=deleted ;;
  seen) reason=temporary ;;
  replaced) reason=temporary ;;
  esac
  # Deleted before knit looked, the file is only in the mapping, which
  # /proc/self/map_files opens for a process with CAP_SYS_ADMIN (or
  # CAP_CHECKPOINT_RESTORE) alone.
  if [ "$mode" = unseen ] && grep -qE "^image: $module \(deleted\) not copied: cannot open the mapped file: (EPERM|EACCES)" "$tmp/m/knit.log"; then
    echo "skip: the module's file was deleted before knit saw it, and /proc/self/map_files is not open to this user (CAP_SYS_ADMIN)"
    exit 77
  fi
  grep -qE "^image: $module \($reason\) copied to images/temp-module-[A-Za-z0-9]{6}-[0-9a-f]{16}, [0-9]+ bytes$" "$tmp/m/knit.log" ||
    fail "knit.log does not say $module ($reason) was copied"
  [ "$(wc -l <"$tmp/m/images/index")" -eq 1 ] || fail "images/index does not list one copy"
  copy=$(cut -f1 "$tmp/m/images/index")
  cmp -s "$TEMP_MODULE_LIB" "$tmp/m/images/$copy" || fail "images/$copy is not the module's bytes"
  [ "$(cut -f2- "$tmp/m/images/index")" = "$module" ] || fail "images/index does not name $module"
  expect 0 "temp_module_spin +temp_module_lib\.c:[0-9]+" -- "$knit" report "$tmp/m"
  grep -qE "loop at temp_module_lib\.c:[0-9]+ +temp_module_lib\.c:$probe_line" <<<"$out_last" ||
    fail "the probe's line in temp_module_spin is not $probe_line"
  expect 0 "(^|;)temp_module_spin(;[^ ]*)? 200$" -- "$knit" report --format=folded "$tmp/m"
  expect 0 '"temp_module_spin"' -- "$knit" report --format=json "$tmp/m"
  # Without the copy, the same measurement's module has no names: the
  # report read the copy, not something else.
  mv "$tmp/m/images" "$tmp/images"
  expect 0 'SUMMARY' -- "$knit" report "$tmp/m"
  ! grep -q 'temp_module_spin' <<<"$out_last" || fail "temp_module_spin named without the copy"
  # An index that lists what is no copy (a line without a tab, a name with
  # a '/', a copy that is not there, one that is no ELF file, bytes of
  # no text, a last line cut short) is no error: those modules go unnamed.
  mkdir "$tmp/m/images"
  printf 'garbage\n../x\t%s\nnone\t%s\nnot-elf\t%s\n\001\377\t\n\tcut' \
    "$module" "$module" "$module" >"$tmp/m/images/index"
  echo 'no ELF' >"$tmp/m/images/not-elf"
  expect 0 'SUMMARY' -- "$knit" report "$tmp/m"
  ! grep -q 'temp_module_spin' <<<"$out_last" || fail "temp_module_spin named from a broken index"
  expect 0 'SUMMARY|temp-module' -- "$knit" report --format=json "$tmp/m"
  ;;
image_real_libomptarget)
  # LLVM's x86-64 host plugin writes each target image to /tmp/tmpfile_*,
  # dlopens it and deletes it when the plugin is unloaded: the kernels are
  # named from knit's copy.
  need_host_plugin
  # On the wall clock and one thread: CPU-time signals on a loaded machine
  # came too seldom for forty rounds' kernels to be sure of a sample.
  OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive expect 0 'SUMMARY' -- "$knit" record -e REALTIME@f1000 \
    --runtime=libomp -o "$tmp/m" -- "$wl/target" 100
  grep -qE '^image: /tmp/tmpfile_[A-Za-z0-9]{6} \(temporary\) copied to images/tmpfile_' "$tmp/m/knit.log" ||
    fail "knit.log does not say the target image was copied"
  for f in "$tmp"/m/images/tmpfile_*; do
    [ ! -e "$(grep -F "$(basename "$f")" "$tmp/m/images/index" | cut -f2-)" ] ||
      fail "the plugin's temporary file is still there: the case shows nothing"
  done
  # The kernels' constructs (their pragmas' first lines), where their
  # outlined bodies begin: some of forty rounds' samples are in one or the
  # other.
  kernels=$(grep -nE '^#pragma omp target teams distribute parallel for( map\(to|$)' "$src" | cut -d: -f1 | paste -sd'|')
  [[ "$kernels" =~ ^[0-9]+\|[0-9]+$ ]] || fail "no two lines of $src open the kernels: '$kernels'"
  expect 0 "\\.omp_outlined\\.\\.[0-9]+ +target\\.c:($kernels)( |$)" -- "$knit" report --min=0 "$tmp/m"
  ! grep -qE 'tmpfile_[A-Za-z0-9]{6}\+0x' <<<"$out_last" || fail "code of the target image left unnamed"
  ;;
target_host_plugin)
  # LLVM's x86-64 host plugin runs each kernel on the thread that launched
  # it, called through libomptarget, the plugin and libffi's ffi_call: the
  # kernel's samples, and the parallel region it opens, sit under the
  # construct's node (target at FILE:LINE) right under the launching
  # function, with none of those frames between.
  need_host_plugin
  wide=$(kernel_line wide)
  narrow=$(kernel_line narrow)
  [[ "$wide" =~ ^[0-9]+$ && "$narrow" =~ ^[0-9]+$ ]] || fail "no kernel lines in $src: '$wide' '$narrow'"
  # 400 rounds on one thread, on the wall clock: some 0.5 s, a few hundred
  # samples in kernels. (CPU-time timers on a loaded machine gave a dozen
  # signals a run, each standing for dozens of periods: too coarse for the
  # ratio below.)
  OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive expect 0 'SUMMARY' -- "$knit" record -e REALTIME@f1000 \
    --runtime=libomp -o "$tmp/m" -- "$wl/target" 400
  expect 0 '' -- "$knit" report --format=folded "$tmp/m"
  folded=$out_last
  counts=()
  for k in "launch_wide;target_at_target.c:$wide" "launch_narrow;target_at_target.c:$narrow"; do
    n=$(grep -E "^main;.*run_round;$k;\.omp_outlined\.\.[0-9]+;.*mix" <<<"$folded" |
      awk '{s += $NF} END {print s + 0}')
    [ "$n" -ge 20 ] || fail "$n kernel samples under $k, expected at least 20"
    counts+=("$n")
  done
  # Every iteration of both kernels does the same work, and the wide one
  # runs twice the iterations: its construct holds about twice the time
  # (2.0 to 2.1 on a quiet machine; wall-clock samples on a loaded one land
  # where the thread was preempted, and 3.4 was seen: a loose bound, which
  # a construct given the other's time would still fail).
  awk -v w="${counts[0]}" -v n="${counts[1]}" 'BEGIN { r = w / n; exit !(r > 1.2 && r < 5.0) }' ||
    fail "wide/narrow kernel time ${counts[0]}/${counts[1]}, expected about 2"
  ! grep -E 'target_at_[^;]*;.*(ffi_call|libffi|__tgt_|libomptarget)' <<<"$folded" ||
    fail "the offloading library's frames are left under a construct"
  ;;
target_late_plugin)
  # libomptarget dlopens LLVM's host plugin (and libffi with it) from its
  # constructor, before knit's load map has looked; the first kernel's
  # first call into libomp then spends a long time initializing, under the
  # plugin's and libffi's frames, before any OpenMP callback refreshes the
  # map. Those samples unwind through the objects found by _dl_find_object
  # and sit under the construct, the plugin's and libffi's frames told by
  # their objects' paths and cut as the offloading library's.
  need_host_plugin
  wide=$(kernel_line wide)
  [[ "$wide" =~ ^[0-9]+$ ]] || fail "no wide kernel line in $src: '$wide'"
  expect 0 'SUMMARY' -- "$knit" record -e REALTIME@f2000 --runtime=libomp -o "$tmp/m" -- "$wl/target" 20
  expect 0 '' -- "$knit" report --format=folded "$tmp/m"
  folded=$out_last
  read -r total partial init < <(awk -v k="launch_wide;target_at_target.c:$wide;<omp-overhead> " '
    { n = $NF; total += n }
    /^<partial>/ { partial += n }
    index($0, k) { init += n }
    END { print total + 0, partial + 0, init + 0 }' <<<"$folded")
  echo "samples: $total, partial $partial, runtime initialization under the construct $init"
  [ $((partial * 100)) -le $((total * 5)) ] || fail "$partial of $total samples partial (> 5%)"
  [ $((init * 100)) -ge $((total * 20)) ] ||
    fail "$init of $total samples initialize the runtime under the wide construct (< 20%)"
  ! grep -E 'target_at_[^;]*;0x[0-9a-f]+' <<<"$folded" ||
    fail "raw addresses right under a construct"
  ;;
late_library)
  # A program that dlopens a library and runs in it with nothing that makes
  # knit refresh its load map: the walks find the library's functions
  # through glibc's _dl_find_object and go on to main, and the thread's
  # file names the frames once the map knows the library (at exit).
  expect 0 'SUMMARY' -- "$knit" record -e CPUTIME@f1000 -o "$tmp/m" -- \
    "$LATE_LIBRARY" "$LATE_LIBRARY_LIB" 0.3
  expect 0 'late_library_spin' -- "$knit" report --format=folded "$tmp/m"
  folded=$out_last
  grep -qE '^main;run_late_library;late_library_spin(;[^ ]*)?;late_library_work(;[^ ]*)? [0-9]+$' <<<"$folded" ||
    fail "no sample named main;run_late_library;late_library_spin;late_library_work"
  # Shares of the whole CPU time (the folded values, in ms): a few samples
  # land before the library is loaded (in the loader, some under _start);
  # none should be left partial.
  read -r total in_main in_spin partial < <(awk '
    { n = $NF; total += n }
    /^main;/ { in_main += n }
    /^main;run_late_library;late_library_spin/ { in_spin += n }
    /^<partial>/ { partial += n }
    END { print total + 0, in_main + 0, in_spin + 0, partial + 0 }' <<<"$folded")
  echo "samples: $total, under main $in_main, in late_library_spin $in_spin, partial $partial"
  [ "$total" -ge 150 ] || fail "only $total ms of the 0.3 s of CPU time sampled"
  [ $((in_main * 100)) -ge $((total * 90)) ] || fail "$in_main of $total samples under main (< 90%)"
  [ $((in_spin * 100)) -ge $((total * 85)) ] || fail "$in_spin of $total samples in late_library_spin (< 85%)"
  [ $((partial * 100)) -le $((total * 2)) ] || fail "$partial of $total samples partial (> 2%)"
  grep -qE 'late_library_lib\.so\+0x|;0x[0-9a-f]+' <<<"$folded" &&
    fail "frames of the library left unnamed: $(grep -E ';0x' <<<"$folded" | head -3)"
  ;;
*)
  echo "unknown case $case_name"
  exit 2
  ;;
esac
echo "PASS: $case_name"

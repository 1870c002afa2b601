#!/bin/sh
# survey.sh BUILD_DIR... [OUT_DIR]: the maintainer's view of known_gaps.txt.
# Runs every program on both mocks in each build tree (native, aarch64,
# ppc64le: each under its own emulator, run_diff.sh --keep
# OUT_DIR/ISA/PROG.RUNTIME), then prints known_gaps.txt as it should read
# now: each entry with the programs and runtimes where it is needed (it
# explains a differing line that no entry kept before it explains: first
# the entries that alone explain some line, then the others in the file's
# order), a runtime bare where the entry is needed on every ISA surveyed
# and qualified (mock-pgi@ppc64le) where on some only, entries needed
# nowhere commented out; then the differing lines no entry explains.
# Runtimes qualified with an ISA that no tree surveyed are kept as they
# are.  The last argument is OUT_DIR when it is not a build tree (no
# CMakeCache.txt in it).
set -u
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { echo "usage: survey.sh BUILD_DIR... [OUT_DIR]" >&2; exit 2; }
out=
trees=
for a; do
  if [ -f "$a/CMakeCache.txt" ]; then
    trees="$trees $a"
  elif [ -z "$out" ]; then
    out=$a
  else
    echo "survey: $a is not a build tree" >&2
    exit 2
  fi
done
[ -n "$trees" ] || { echo "survey: no build tree among $*" >&2; exit 2; }
[ -n "$out" ] || out=$(mktemp -d)
progs=$(cd "$here/progs" && ls ./*.c | sed 's|^\./||; s|\.c$||')
rts="mock-intel mock-pgi"
isas=
for build in $trees; do
  isa=$(sed -n 's/^isa=//p' "$build/ompt_diff/tree.conf" 2>/dev/null)
  if [ -z "$isa" ]; then
    echo "survey: $build has no ompt_diff/tree.conf (no ompt_diff tests in that tree)" >&2
    exit 2
  fi
  isas="$isas $isa"
  for rt in $rts; do
    for p in $progs; do
      "$here/run_diff.sh" --build "$build" --program "$p" --runtime "$rt" --keep "$out/$isa/$p.$rt" >/dev/null
      [ -f "$out/$isa/$p.$rt/diffs" ] || echo "survey: $p did not run on $rt in $build" >&2
    done
  done
done
grep -v '^[[:space:]]*#' "$here/known_gaps.txt" | grep -v '^[[:space:]]*$' >"$out/lines"
# An entry is its ERE and reason: the lines of one entry differ only in
# their programs and runtimes.  "ERE ;; REASON", once each, in file order.
awk -F ' ;; ' '!seen[$3 FS $4]++ { print $3 FS $4 }' "$out/lines" >"$out/entries"
# Which entry matches which differing line, per ISA, program and runtime:
# "ENTRY PROGRAM RUNTIME ISA LINE".
: >"$out/matches"
i=0
while IFS= read -r line; do
  i=$((i + 1))
  pat=$(printf '%s' "$line" | awk -F ' ;; ' '{print $1}')
  for isa in $isas; do
    for rt in $rts; do
      for p in $progs; do
        [ -f "$out/$isa/$p.$rt/diffs" ] || continue
        grep -n -E -e "$pat" "$out/$isa/$p.$rt/diffs" | cut -d: -f1 | sed "s|^|$i $p $rt $isa |" >>"$out/matches"
      done
    done
  done
done <"$out/entries"
# The entries needed per ISA, program and runtime: "ENTRY PROGRAM RUNTIME ISA".
awk '
  { key = $2 " " $3 " " $4; m[$1, key, $5] = 1; entries[$1] = 1; keys[key] = 1
    n[key, $5]++; who[key, $5] = $1 }
  END {
    for (key in keys) {
      delete covered
      for (e in entries) need[e, key] = 0
      for (mk in m) {
        split(mk, f, SUBSEP)
        if (f[2] == key && n[key, f[3]] == 1) need[f[1], key] = 1
      }
      for (mk in m) {
        split(mk, f, SUBSEP)
        if (f[2] == key && need[f[1], key]) covered[f[3]] = 1
      }
      for (e = 1; e in entries || e < 1000; e++) {
        if (!(e in entries) || need[e, key]) continue
        for (mk in m) {
          split(mk, f, SUBSEP)
          if (f[1] == e && f[2] == key && !(f[3] in covered)) need[e, key] = 1
        }
        if (need[e, key])
          for (mk in m) {
            split(mk, f, SUBSEP)
            if (f[1] == e && f[2] == key) covered[f[3]] = 1
          }
      }
      for (e in entries) if (need[e, key]) print e, key
    }
  }' "$out/matches" | sort -n -k1,1 -k2,2 >"$out/needed"
echo "-- known_gaps.txt entries as they should read (ISAs surveyed:$isas):"
# Per entry, the programs grouped by the runtimes they need the entry on;
# then, as they are, the runtimes its lines qualify with an ISA no tree
# surveyed.
awk -v isas="$isas" -v rts="$rts" -v progs="$(printf '%s' "$progs" | tr '\n' ' ')" '
  BEGIN {
    ni = split(isas, I, " "); nr = split(rts, R, " "); np = split(progs, P, " ")
    for (k = 1; k <= ni; k++) surveyed[I[k]] = 1
  }
  FILENAME == ARGV[1] { need[$1, $2, $3, $4] = 1; next }
  FILENAME == ARGV[2] {
    split($0, f, / ;; /)
    key = f[3] " ;; " f[4]
    kept = ""
    nt = split(f[2], T, ",")
    for (t = 1; t <= nt; t++) {
      split(T[t], w, "@")
      if (index(T[t], "@") && !(w[2] in surveyed)) kept = kept "," T[t]
    }
    if (kept != "") others[key] = others[key] f[1] " ;; " substr(kept, 2) " ;; " key "\n"
    next
  }
  {
    e++
    delete group; ng = 0; printed = 0
    for (j = 1; j <= np; j++) {
      toks = ""
      for (r = 1; r <= nr; r++) {
        c = 0; q = ""
        for (k = 1; k <= ni; k++)
          if ((e, P[j], R[r], I[k]) in need) { c++; q = q "," R[r] "@" I[k] }
        toks = toks (c == ni ? "," R[r] : q)
      }
      if (toks == "") continue
      if (!(toks in group)) order[++ng] = toks
      group[toks] = group[toks] "," P[j]
    }
    for (g = 1; g <= ng; g++) {
      print substr(group[order[g]], 2) " ;; " substr(order[g], 2) " ;; " $0
      printed = 1
    }
    if ($0 in others) { printf "%s", others[$0]; printed = 1 }
    if (!printed) print "# needed nowhere: " $0
  }' "$out/needed" "$out/lines" "$out/entries"
echo "-- differing lines no entry explains:"
for isa in $isas; do
  for rt in $rts; do
    for p in $progs; do
      [ -f "$out/$isa/$p.$rt/diffs" ] || continue
      awk -v p="$p" -v rt="$rt" -v isa="$isa" '$2 == p && $3 == rt && $4 == isa { print $5 }' \
        "$out/matches" | sort -un >"$out/m"
      awk -v w="$isa $p.$rt" 'FILENAME == ARGV[1] { m[$1] = 1; next } !(FNR in m) { print w ": " $0 }' \
        "$out/m" "$out/$isa/$p.$rt/diffs"
    done
  done
done

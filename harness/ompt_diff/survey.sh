#!/bin/sh
# survey.sh BUILD_DIR [OUT_DIR]: the maintainer's view of known_gaps.txt.
# Runs every program on both mocks (run_diff.sh --keep OUT_DIR/PROG.RUNTIME),
# then prints known_gaps.txt as it should read now: each entry with the
# programs and runtimes where it is needed (it explains a differing line
# that no entry kept before it explains: first the entries that alone
# explain some line, then the others in the file's order), entries needed
# nowhere commented out; then the differing lines no entry explains.
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: survey.sh BUILD_DIR [OUT_DIR]}
out=${2:-$(mktemp -d)}
progs=$(cd "$here/progs" && ls ./*.c | sed 's|^\./||; s|\.c$||')
rts="mock-intel mock-pgi"
for rt in $rts; do
  for p in $progs; do
    "$here/run_diff.sh" --build "$build" --program "$p" --runtime "$rt" --keep "$out/$p.$rt" >/dev/null
  done
done
grep -v '^[[:space:]]*#' "$here/known_gaps.txt" | grep -v '^[[:space:]]*$' >"$out/entries"
# Which entry matches which differing line, per program and runtime.
: >"$out/matches"
i=0
while IFS= read -r line; do
  i=$((i + 1))
  pat=$(printf '%s' "$line" | awk -F ' ;; ' '{print $3}')
  for rt in $rts; do
    for p in $progs; do
      grep -n -E -e "$pat" "$out/$p.$rt/diffs" | cut -d: -f1 | sed "s|^|$i $p $rt |" >>"$out/matches"
    done
  done
done <"$out/entries"
# The entries needed per program and runtime: "ENTRY PROGRAM RUNTIME".
awk '
  { key = $2 " " $3; m[$1, key, $4] = 1; entries[$1] = 1; keys[key] = 1
    n[key, $4]++; who[key, $4] = $1 }
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
echo "-- known_gaps.txt entries as they should read:"
i=0
while IFS= read -r line; do
  i=$((i + 1))
  rest=$(printf '%s' "$line" | awk -F ' ;; ' '{print $3 " ;; " $4}')
  intel=$(awk -v e=$i '$1 == e && $3 == "mock-intel" { printf "%s%s", s, $2; s = "," }' "$out/needed")
  pgi=$(awk -v e=$i '$1 == e && $3 == "mock-pgi" { printf "%s%s", s, $2; s = "," }' "$out/needed")
  if [ "$intel" = "$pgi" ] && [ -n "$intel" ]; then
    echo "$intel ;; mock-intel,mock-pgi ;; $rest"
  else
    [ -n "$intel" ] && echo "$intel ;; mock-intel ;; $rest"
    [ -n "$pgi" ] && echo "$pgi ;; mock-pgi ;; $rest"
    [ -z "$intel$pgi" ] && echo "# needed nowhere: $rest"
  fi
done <"$out/entries"
echo "-- differing lines no entry explains:"
for rt in $rts; do
  for p in $progs; do
    awk -v p="$p" -v rt="$rt" '$2 == p && $3 == rt { print $4 }' "$out/matches" | sort -un >"$out/m"
    awk -v w="$p.$rt" 'FILENAME == ARGV[1] { m[$1] = 1; next } !(FNR in m) { print w ": " $0 }' \
      "$out/m" "$out/$p.$rt/diffs"
  done
done

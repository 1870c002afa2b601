# ending_interrupted: SIGINT to the whole process group (what Ctrl-C in a
# terminal does) ends the program and not `knit record` before it: the
# program's data is written, knit record exits 130 as the program did. Then
# SIGTERM to knit record alone is passed on to the program.
run_until_signalled() {
  local who=$1 sig=$2
  rm -f "$tmp/pid" "$tmp/rec.out"
  # A background job starts with SIGINT ignored (no job control here): the
  # default is restored, as a terminal's foreground job has it.
  setsid env --default-signal=INT "$knit" record -e "$EVENT" "${qemu[@]}" -o "$OUT" -- "$dir/ending" wait "$tmp/pid" \
    >"$tmp/rec.out" 2>"$tmp/rec.err" &
  local leader=$!
  for _ in $(seq 1 200); do [ -s "$tmp/pid" ] && break; sleep 0.05; done
  [ -s "$tmp/pid" ] || fail "the program did not start"
  sleep 0.3
  if [ "$who" = group ]; then kill -"$sig" -- -"$leader"; else kill -"$sig" "$leader"; fi
  wait "$leader"
  rec_rc=$?
  echo "+ $sig to $who -> $rec_rc"
  sed 's/^/  | /' "$tmp/rec.out" "$tmp/rec.err"
}
run_until_signalled group INT
[ "$rec_rc" -eq 130 ] || fail "knit record exited $rec_rc, not 130"
grep -qx ready "$tmp/rec.out" || fail "the program's output is lost"
measured
samples_at_least 20
rm -rf "$M"
run_until_signalled knit TERM
[ "$rec_rc" -eq 143 ] || fail "knit record exited $rec_rc, not 143"
measured
samples_at_least 20

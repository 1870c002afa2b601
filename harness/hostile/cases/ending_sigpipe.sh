# ending_sigpipe: the program writes into a pipe whose reader has gone
# (`program | head -1`): SIGPIPE ends it as without knit, the measurement
# written first.
(cd "$tmp" && "$knit" run --runtime=system "${qemu[@]}" -- "$dir/ending" pipe | head -1 >"$tmp/bare.out")
bare_rc=${PIPESTATUS[0]}
(cd "$tmp" && "$knit" record -e "$EVENT" "${qemu[@]}" -o "$OUT" -- "$dir/ending" pipe 2>"$tmp/rec.err" |
   head -1 >"$tmp/rec.out")
rec_rc=${PIPESTATUS[0]}
cat "$tmp/rec.err"
same
[ "$rec_rc" -eq 141 ] || fail "status $rec_rc, not 141"
measured
samples_at_least 40

# many_args: 6,000 arguments reach the program, under knit as without it.
args=()
for i in $(seq 1 6000); do args+=("a$i"); done
pair "$dir/many_args" "${args[@]}"
grep -qx '6000 arguments, last a6000' "$tmp/rec.out" || fail "arguments were lost: $(cat "$tmp/rec.out")"
measured

# long_output_path: a measurement directory whose path is about 3,000
# characters long (deep build trees and CI workspaces get there) is written
# whole. The program is fd_reuse's, which works for a while.
long=$tmp
for i in $(seq 1 12); do long=$long/$(printf 'level%02d_%0200d' "$i" 0); done
mkdir -p "$long" || fail "cannot make $long"
OUT=$long/m
pair "$dir/fd_reuse" "$tmp/own.txt"
M=$OUT
measured
samples_at_least 20

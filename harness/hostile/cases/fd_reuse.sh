# fd_reuse: the program closes every descriptor from 3 up, then opens a
# file of its own and reads back what it wrote there: none of knit's lines
# may land in it, and knit's log must still get its SUMMARY.
pair "$dir/fd_reuse" "$tmp/own.txt"
measured
samples_at_least 20

# file_size_limit: the program runs under a file-size limit (ulimit -f 2:
# 2 KiB) that its own output keeps to, and knit's files do not. Without
# care, knit's first write past the limit sent SIGXFSZ and killed the
# program (status 153). Now the program runs as without knit, and knit
# record says which of its files the limit kept out (EFBIG).
ulimit -f 2
pair "$dir/deep_stack" 50
grep -q 'the measurement is incomplete: .*EFBIG' "$tmp/rec.err" ||
  fail "knit record does not say the file-size limit kept its files out"

# resethand: the program's SIGSEGV/SIGBUS flags (SA_RESETHAND, SA_NODEFER,
# sa_mask), SIG_IGN and SIG_DFL, for faults and for signals sent with
# raise and kill, all as without knit.
pair "$dir/resethand" faults
[ "$rec_rc" -ne 0 ] || fail "the second fault did not end the program"
samples_at_least 20
rm -rf "$tmp/m"
pair "$dir/resethand" nodefer
measured
rm -rf "$tmp/m"
pair "$dir/resethand" ignore
measured
rm -rf "$tmp/m"
pair "$dir/resethand" default
[ "$rec_rc" -ne 0 ] || fail "a raised SIGBUS under SIG_DFL did not end the program"
samples_at_least 20

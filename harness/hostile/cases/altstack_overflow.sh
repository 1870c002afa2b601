# altstack_overflow: a SIGSEGV handler on an alternate stack (SA_ONSTACK)
# catches a thread's stack overflow and ends the process with status 0:
# knit's fault guard must run its handler on that stack too.
pair "$dir/altstack_overflow"
[ "$rec_rc" -eq 0 ] || fail "the overflow was not caught (status $rec_rc)"
samples_at_least 20

# chdir_away: the program changes its working directory, then works in two
# threads and starts a child. With a relative -o, every thread's data (the
# main thread's is written last, after the chdir) lands in the directory
# knit record named, not under the new working directory.
OUT=m
pair "$dir/chdir_away" /
measured
samples_at_least 60
[ ! -e /m ] || fail "a measurement directory appeared under the program's new cwd"

# full_disk: the measurement directory is on a file system with room for
# only some of the threads' files (a 64 KiB tmpfs, mounted in a user and
# mount namespace of the test's own). The program runs as without knit;
# knit record and the log name the error and how many threads were lost.
if ! unshare -rm true 2>/dev/null; then
  echo "skip: cannot make a user and mount namespace here (unshare -rm) to mount a small tmpfs"
  exit 77
fi
# 50 threads that each work long enough to be sampled, so that each has a
# file to write: 20 ms on the clock (a count of iterations left most of
# them unsampled on a loaded machine, and the file system then had room).
bare "$dir/many_threads" 50 /dev/null 20ms
mkdir -p "$tmp/small"
TMPOUT=$tmp/rec.out TMPERR=$tmp/rec.err TMPREPORT=$tmp/report.txt unshare -rm bash -c '
  small=$1 work=$2
  shift 2
  mount -t tmpfs -o size=64k tmpfs "$small" || exit 99
  cd "$work" && "$@" >"$TMPOUT" 2>"$TMPERR"
  rc=$?
  "$1" report "$small/m" >"$TMPREPORT" 2>&1
  exit $rc
' _ "$tmp/small" "$tmp" "$knit" record -e "$EVENT" "${qemu[@]}" -o "$tmp/small/m" -- \
  "$dir/many_threads" 50 /dev/null 20ms
rec_rc=$?
[ "$rec_rc" -ne 99 ] || { echo "skip: cannot mount a tmpfs in the namespace"; exit 77; }
echo "+ recorded on a full file system -> $rec_rc"
sed 's/^/  | /' "$tmp/rec.out" "$tmp/rec.err"
same
grep -qE 'the measurement is incomplete: [0-9]+ of 51 threads.* ENOSPC' "$tmp/rec.err" ||
  fail "knit record does not say that the file system was full"
grep -qE '^incomplete: [0-9]+ of 51 threads.*ENOSPC' "$tmp/report.txt" ||
  fail "the report does not say the measurement is incomplete: $(head -8 "$tmp/report.txt")"

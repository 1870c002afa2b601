#!/bin/sh
# canon.sh PROGRAM RAW_LOG: the canonical form of one run's log, on stdout
# (harness/ompt_diff/README.md).  Segments are sorted by name, a segment's
# events by their rank (events of rank 0, the sets, by their text), and each
# event is written as one line per field, "SEGMENT<TAB>EVENT" and then
# "SEGMENT<TAB>  EVENT field=value", so that a diff shows the one field that
# differs.  Program addresses (ra=prog:0xOFFSET) become function@file:line.
set -eu
prog=$1
raw=$2
tab=$(printf '\t')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
LC_ALL=C sort -t "$tab" -k1,1 -k2,2 -k3 "$raw" | cut -f1,3 >"$tmp/sorted"
# One addr2line run for all the program addresses.
grep -o 'ra=prog:0x[0-9a-f]*' "$tmp/sorted" | sed 's/ra=prog://' | LC_ALL=C sort -u >"$tmp/addrs" || true
if [ -s "$tmp/addrs" ]; then
  # shellcheck disable=SC2046
  addr2line -f -s -e "$prog" $(cat "$tmp/addrs") | paste - - | paste "$tmp/addrs" - |
    awk -F '\t' '{ sub(/ \(discriminator [0-9]+\)/, "", $3);
                   printf "s|ra=prog:%s\\([ \\t]\\)|ra=%s@%s\\1|g\ns|ra=prog:%s$|ra=%s@%s|\n", $1, $2, $3, $1, $2, $3 }' >"$tmp/sed"
  sed -f "$tmp/sed" "$tmp/sorted" >"$tmp/named"
else
  cp "$tmp/sorted" "$tmp/named"
fi
# A worker's join barrier end and implicit_task end come, on libomp 14, when
# it is next released: for the program's last region only at the runtime's
# shutdown, which races with the process's exit (seen under QEMU).  Those of
# the workers of the last top-level region, and of regions inside it, are
# not compared.
last=$(grep -o '^I1/p[0-9]*' "$tmp/named" | sed 's|^I1/p||' | LC_ALL=C sort -n | tail -1)
if [ -n "$last" ]; then
  awk -F '\t' -v last="I1/p$last/" '
    index($1, last) == 1 && $1 ~ /\/i[1-9][0-9]*$/ &&
      $2 ~ /^(sync_wait barrier_implicit end|sync_region barrier_implicit end|implicit_task end)( |$)/ { next }
    { print }' "$tmp/named" >"$tmp/kept"
  mv "$tmp/kept" "$tmp/named"
fi
# One line per field: the event's name is its leading words without '='.
awk -F '\t' '{
  n = split($2, w, " ")
  head = ""
  for (i = 1; i <= n && index(w[i], "=") == 0; i++)
    head = head (head == "" ? "" : " ") w[i]
  print $1 "\t" head
  for (; i <= n; i++)
    print $1 "\t  " head " " w[i]
}' "$tmp/named"

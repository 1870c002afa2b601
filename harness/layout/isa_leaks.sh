#!/usr/bin/env bash
# The machine table holds everything that differs between ISAs: outside
# profiler/unwind/<isa>/ (and power/, the model ppc64le and ppc64 share)
# and mockrt/*/<isa>/ no code may test the
# architecture (an EM_* machine, an architecture macro, an ISA's name as a
# string). Files still waiting to move their per-ISA code behind the table
# are listed, each with its reason, in isa_leaks.allow; a file listed there
# that no longer leaks fails too, so the list only shrinks.
#   isa_leaks.sh SOURCE_DIR
set -uo pipefail
src=${1:?usage: isa_leaks.sh SOURCE_DIR}
here=$(cd "$(dirname "$0")" && pwd)
pattern='EM_(X86_64|AARCH64|PPC64|PPC|386|ARM|RISCV|S390)\b|__(x86_64|i386|aarch64|arm|powerpc64|powerpc|PPC64|riscv|s390x)__|_ARCH_PPC|"(x86_64|aarch64|ppc64le|ppc64|powerpc64le)"'
cd "$src" || exit 2
hits=$(grep -rnE "$pattern" profiler mockrt --include='*.c' --include='*.h' --include='*.S' |
       grep -vE '^profiler/unwind/(x86_64|aarch64|ppc64le|ppc64|power)/|^mockrt/[a-z]+/(x86_64|aarch64|ppc64le|ppc64)/')
allowed=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$here/isa_leaks.allow" | awk '{print $1}')
rc=0
leaking=$(cut -d: -f1 <<<"$hits" | sort -u | sed '/^$/d')
for f in $leaking; do
  if ! grep -qxF "$f" <<<"$allowed"; then
    echo "FAIL: $f tests the architecture outside the machine table:"
    grep -E "^$f:" <<<"$hits" | sed 's/^/  /'
    rc=1
  fi
done
for f in $allowed; do
  if ! grep -qxF "$f" <<<"$leaking"; then
    echo "FAIL: $f is listed in isa_leaks.allow but no longer tests the architecture: take it off"
    rc=1
  fi
done
if [ "$rc" -eq 0 ]; then
  listed=$(wc -w <<<"$allowed")
  if [ "$listed" -eq 0 ]; then
    echo "ok: no ISA test outside the machine table"
  else
    echo "ok: no ISA test outside the machine table but the $listed files listed"
  fi
fi
exit $rc

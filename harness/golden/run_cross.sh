#!/usr/bin/env bash
# A golden run of another ISA's tree under QEMU:
#   run_cross.sh TREE RUN_GOLDEN ARGS...
# Skips (77) when that tree has not been built; otherwise runs RUN_GOLDEN
# with KNIT_LIBDIR pointing at the tree's libknit.so.
tree=$1
shift
if [ ! -f "$tree/lib/libknit.so" ]; then
  echo "skip: $tree is not built (ci/check.sh builds it)"
  exit 77
fi
export KNIT_LIBDIR=$tree/lib
exec "$@"

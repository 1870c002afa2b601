#!/usr/bin/env bash
# One style for the whole tree: every C file and header under version
# control (git ls-files, so build trees and caches are never looked at) is
# as clang-format leaves it with the tree's .clang-format. Lists the files
# that are not, and the command that fixes them.
#   format.sh SOURCE_DIR
set -uo pipefail
src=${1:?usage: format.sh SOURCE_DIR}
cd "$src" || exit 2
fmt=$(command -v clang-format-14 || command -v clang-format || true)
if [ -z "$fmt" ]; then
  echo "skip: clang-format is not installed (ci/deps.sh installs it)"
  exit 77
fi
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "skip: $src is not a git checkout: the files to check are the tracked ones"
  exit 77
fi
bad=()
while IFS= read -r f; do
  [ -f "$f" ] || continue
  if ! "$fmt" --style=file --dry-run --Werror "$f" >/dev/null 2>&1; then
    bad+=("$f")
  fi
done < <(git ls-files '*.c' '*.h')
if [ ${#bad[@]} -gt 0 ]; then
  echo "FAIL: ${#bad[@]} file(s) not in the tree's style (.clang-format):"
  printf '  %s\n' "${bad[@]}"
  echo "fix: $fmt -i --style=file ${bad[*]}"
  exit 1
fi
echo "ok: $(git ls-files '*.c' '*.h' | wc -l) files in the tree's style ($("$fmt" --version | head -n 1))"

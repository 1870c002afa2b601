#!/usr/bin/env bash
# Loads a profile into speedscope (its release page, from its npm package)
# in headless Chromium the way speedscope's own command line hands it one,
# as a script named by the page's #localProfilePath, and prints what its
# sandwich view shows: one line per function, "total<TAB>self<TAB>name",
# as the table's cells read (HTML entities decoded), sorted. Chromium's
# log, with speedscope's console (which importer it chose), goes to
# OUT.log.
#   speedscope_table.sh SPEEDSCOPE_INDEX_HTML BROWSER PROFILE NAME OUT
set -euo pipefail
index=$1 browser=$2 profile=$3 name=$4 out=$5
work=$(mktemp -d "${TMPDIR:-/tmp}/knit-speedscope.XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
printf 'speedscope.loadFileFromBase64("%s", "%s")\n' "$name" "$(base64 -w0 "$profile")" >"$work/load.js"
# A tall window, so that the table's rows are all drawn (it draws only the
# rows in view). The page imports the profile asynchronously: on a loaded
# machine the dump may come before the table is drawn, so an empty table
# is asked for again, up to three times.
for try in 1 2 3; do
  timeout 60 "$browser" --headless=new --no-sandbox --disable-gpu --no-first-run \
    --user-data-dir="$work/profile" --allow-file-access-from-files --window-size=1400,6000 \
    --enable-logging=stderr --v=0 --virtual-time-budget=15000 \
    --dump-dom "file://$index#localProfilePath=$work/load.js&view=sandwich" \
    >"$work/dom.html" 2>"$out.log" || true
  # Each table row's cells: the text outside the tags, entities decoded.
  sed 's/<tr/\n<tr/g' "$work/dom.html" | { grep '^<tr[^>]*><td' || true; } |
    sed -e 's/<\/td>/\t/g' -e 's/<[^>]*>//g' -e 's/\t$//' \
      -e 's/&lt;/</g' -e 's/&gt;/>/g' -e 's/&quot;/"/g' -e "s/&#39;/'/g" -e 's/&amp;/\&/g' |
    awk -F'\t' 'NF == 3 { sub(/ \(.*$/, "", $1); sub(/ \(.*$/, "", $2); print $1 "\t" $2 "\t" $3 }' |
    sort >"$out"
  [ -s "$out" ] && break
  echo "speedscope_table: no table drawn (try $try)" >&2
done

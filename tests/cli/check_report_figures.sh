#!/bin/sh
# Usage: check_report_figures.sh REPORT.md MIN_FIGURES
# Passes when the Markdown report links at least MIN_FIGURES images and every linked file, taken
# relative to the report's directory, exists, is not empty and starts with the PNG signature.
report=$1
minimum=$2
[ -s "$report" ] || { echo "no report at $report"; exit 1; }
base=$(dirname "$report")
links=$(grep -o '!\[[^]]*\]([^)]*)' "$report" | sed 's/^.*](//; s/)$//; s/^<//; s/>$//')
count=0
signature=$(printf '\211PNG\r\n\032\n' | od -An -tx1)
for link in $links; do
  file="$base/$link"
  [ -s "$file" ] || { echo "linked figure $file is missing or empty"; exit 1; }
  [ "$(head -c 8 "$file" | od -An -tx1)" = "$signature" ] || { echo "linked figure $file is not a PNG"; exit 1; }
  count=$((count + 1))
done
[ "$count" -ge "$minimum" ] || { echo "the report links $count figures, expected at least $minimum"; exit 1; }
echo "$count PNG figures linked from $report"
cat "$report"

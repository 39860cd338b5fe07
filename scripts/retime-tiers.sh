#!/usr/bin/env bash
# Rewrites the seconds column of Tests/tiers/fast.txt and slow.txt from the last full run's
# per-class times (.build/test-class-times.tsv, written by scripts/test.sh), so that the queue
# keeps starting with the longest classes. Comments, order and tiers are kept.
# Usage: scripts/retime-tiers.sh
set -euo pipefail
cd "$(dirname "$0")/.."
times=.build/test-class-times.tsv
[ -s "$times" ] || { echo "retime-tiers: no $times (run scripts/test.sh first)" >&2; exit 1; }
for tier in Tests/tiers/fast.txt Tests/tiers/slow.txt; do
  awk -F'\t' 'NR == FNR { seconds[$1] = $2; next }
       /^[[:space:]]*(#|$)/ { print; next }
       { name = $1; printf "%s %s\n", name, (name in seconds ? seconds[name] : ($2 == "" ? 0 : $2)) }' \
    "$times" FS=' ' "$tier" > "$tier.new"
  mv "$tier.new" "$tier"
done

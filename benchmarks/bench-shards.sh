#!/usr/bin/env bash
# bench-shards.sh — what one node does when a run is sharded, and what `medley merge` costs
# (issue 19 §4: the figures behind README "Past one machine").
# Rows, all on this machine in one run:
#   - the unsharded run of N tiny items (distinct 1×1 PNGs → PNG: per-item overhead, no pixels);
#   - the same N items as K shards started together on this node, as K array tasks
#     or pods that land on one node would run: wall time until the last shard ends, summed CPU;
#   - `medley merge` of those K shard manifests (N lines), with its peak memory;
#   - with --photos DIR: real photos (benchmarks/real-photos.sh) → 512 px JPEG thumbnails,
#     unsharded and as 2 shards: items/s of a node on pixel work.
# Every row checks its outputs (N files; the merged manifest has N lines) before it prints.
#
# Usage: benchmarks/bench-shards.sh [--items N] [--shards K] [--keep DIR] [--photos DIR]
#   default 100000 items, 4 shards; --keep makes (or reuses) the tiny-item corpus in DIR.
# Environment: MEDLEY (default <repo>/.build/release/medley). Needs vips, python3, GNU time.
set -euo pipefail
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_dir=$(cd "$script_dir/.." && pwd)
items=100000
shards=4
keep=""
photos=""
while (($#)); do
  case $1 in
    --items) items=$2; shift 2 ;;
    --shards) shards=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    --photos) photos=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -e/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
medley=${MEDLEY:-"$repo_dir/.build/release/medley"}
[[ -x $medley ]] || { echo "build first: scripts/build.sh" >&2; exit 1; }
if [[ -n $keep ]]; then work=$keep; mkdir -p "$work"; else work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; fi
rm -rf "$work/out-"*

"$script_dir/make-tiny-corpus.sh" "$work" "$items"

# pipeline NAME FROM TO [thumbnail]: a pipeline file in $work.
pipeline() {
  local name=$1 from=$2 to=$3 kind=${4:-tiny}
  if [[ $kind == tiny ]]; then
    printf 'version: 1\njobs:\n  - name: shards\n    ingest: { from: [%s] }\n    export: { to: %s, format: png, name: "{relpath}/{stem}.png" }\n' \
      "$from" "$to" > "$work/$name.yaml"
  else
    printf 'version: 1\njobs:\n  - name: shards\n    ingest: { from: [%s] }\n    filters: [ { resize: { width: 512, height: 512, mode: aspectFit } } ]\n    export: { to: %s, format: jpeg, quality: 85, name: "{stem}.jpg" }\n' \
      "$from" "$to" > "$work/$name.yaml"
  fi
  echo "$work/$name.yaml"
}

# timed FILE CMD…: GNU time's wall seconds, user+sys seconds and peak RSS (KB) into FILE.
timed() {
  local file=$1; shift
  /usr/bin/time -f "%e %U %S %M" -o "$file" "$@" >/dev/null 2>>"$work/stderr.txt" \
    || { cat "$work/stderr.txt" >&2; echo "failed: $*" >&2; exit 1; }
}
count_outputs() { find "$1" -type f -not -path '*/.medley/*' | wc -l; }
rows=()

# unsharded DIR-NAME FROM KIND EXPECTED: one process, the whole set.
unsharded() {
  local name=$1 from=$2 kind=$3 expected=$4 p
  p=$(pipeline "$name" "$from" "out-$name" "$kind")
  timed "$work/t-$name" "$medley" run "$p" --quiet
  [[ $(count_outputs "$work/out-$name") == "$expected" ]] || { echo "$name: expected $expected outputs" >&2; exit 1; }
  read -r wall user sys rss < "$work/t-$name"
  rows+=("| $name, unsharded | 1 | $wall | $(awk -v w="$wall" -v n="$expected" 'BEGIN{printf "%.0f", n/w}') | $(awk -v u="$user" -v s="$sys" -v n="$expected" 'BEGIN{printf "%.0f", (u+s)*1e6/n}') | $(awk -v k="$rss" 'BEGIN{printf "%.0f", k/1024}') |")
}

# sharded NAME FROM KIND EXPECTED K: K shards at once, then the merge.
sharded() {
  local name=$1 from=$2 kind=$3 expected=$4 k=$5 p start end
  p=$(pipeline "$name" "$from" "out-$name" "$kind")
  start=$(date +%s.%N)
  local pids=() i failed=0
  for ((i = 1; i <= k; i++)); do
    /usr/bin/time -f "%e %U %S %M" -o "$work/t-$name-$i" "$medley" run "$p" --quiet --shard "$i/$k" \
      >/dev/null 2>>"$work/stderr.txt" &
    pids+=($!)
  done
  for i in "${pids[@]}"; do wait "$i" || failed=1; done
  ((failed == 0)) || { cat "$work/stderr.txt" >&2; echo "$name: a shard failed" >&2; exit 1; }
  end=$(date +%s.%N)
  [[ $(count_outputs "$work/out-$name") == "$expected" ]] || { echo "$name: expected $expected outputs" >&2; exit 1; }
  local wall cpu rss
  wall=$(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.2f", b-a}')
  cpu=$(cat "$work/t-$name-"* | awk '{c += $2 + $3} END {printf "%.3f", c}')
  rss=$(cat "$work/t-$name-"* | awk '$4 > m {m = $4} END {print m}')
  rows+=("| $name, $k shards on this node | $k | $wall | $(awk -v w="$wall" -v n="$expected" 'BEGIN{printf "%.0f", n/w}') | $(awk -v c="$cpu" -v n="$expected" 'BEGIN{printf "%.0f", c*1e6/n}') | $(awk -v k="$rss" 'BEGIN{printf "%.0f", k/1024}') (each) |")
  timed "$work/t-$name-merge" "$medley" merge "$p"
  local lines
  lines=$(wc -l < "$work/out-$name/.medley/manifest-shards.jsonl")
  [[ $lines == "$expected" ]] || { echo "$name: merged manifest has $lines lines, expected $expected" >&2; exit 1; }
  read -r wall user sys rss < "$work/t-$name-merge"
  local mb
  mb=$(du -cm "$work/out-$name/.medley/"manifest-shards-shard-*.jsonl | tail -1 | cut -f1)
  rows+=("| $name, \`medley merge\` of $k manifests ($expected lines, $mb MB) | 1 | $wall | | $(awk -v u="$user" -v s="$sys" -v n="$expected" 'BEGIN{printf "%.0f", (u+s)*1e6/n}') | $(awk -v k="$rss" 'BEGIN{printf "%.0f", k/1024}') |")
}

unsharded tiny in tiny "$items"
sharded tiny in tiny "$items" "$shards"
if [[ -n $photos ]]; then
  photo_dir=$("$script_dir/real-photos.sh" "$photos")
  n=$(find "$photo_dir" -maxdepth 1 -name '*.jpg' | wc -l)
  unsharded photos "$photo_dir" thumbnail "$n"
  sharded photos "$photo_dir" thumbnail "$n" 2
fi

echo "### Sharding on one node: $items tiny PNGs, $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs) ($(date -u +%Y-%m-%d); load before: $(cut -d' ' -f1-3 /proc/loadavg))"
echo
echo "| run | processes | wall s | items/s (node) | CPU µs per item | peak RSS MB |"
echo "|---|---:|---:|---:|---:|---:|"
printf '%s\n' "${rows[@]}"

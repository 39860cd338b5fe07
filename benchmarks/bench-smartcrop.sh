#!/usr/bin/env bash
# bench-smartcrop.sh — smart-crop thumbnails (issue 30): Medley's `resize` with `mode: aspectFill,
# crop: attention` against `vipsthumbnail --smartcrop attention`, on the same real photographs, to the
# same box and JPEG quality. Goal: Medley ≤ 0.7× vipsthumbnail run once per file.
# Three timings, each best of RUNS (default 3), all in this run on this machine:
#   medley     one `medley run` over the folder (a fresh output folder and run state each time)
#   per file   vipsthumbnail started once per file (what a shell loop or find -exec does)
#   one call   vipsthumbnail given every file at once (one process, libvips' own threads)
# Photos: benchmarks/real-photos.sh's wallpapers (JPEGs of 4–15 MP, made under
# ${TMPDIR:-/tmp}/medley-real-photos), the first COUNT (default 20) in name order, read-only.
#
# Usage: benchmarks/bench-smartcrop.sh [--photos DIR] [--count N] [--size WxH] [--runs N]
# Environment: MEDLEY (default <repo>/.build/release/medley). Prints a Markdown section for
# benchmarks/RESULTS.md with the machine's details and its load.
set -euo pipefail
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_dir=$(cd "$script_dir/.." && pwd)
photos="" count=20 size=320x320 runs=3
while (($#)); do
  case $1 in
    --photos) photos=$2; shift 2 ;;
    --count) count=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    -h | --help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ $size =~ ^([0-9]+)x([0-9]+)$ ]] || { echo "--size takes WxH" >&2; exit 2; }
width=${BASH_REMATCH[1]} height=${BASH_REMATCH[2]}
medley=${MEDLEY:-"$repo_dir/.build/release/medley"}
[[ -x $medley ]] || { echo "build first: scripts/build.sh (or set MEDLEY)" >&2; exit 1; }
command -v vipsthumbnail >/dev/null || { echo "vipsthumbnail is missing (libvips-tools)" >&2; exit 1; }
if [[ -z $photos ]]; then photos=$("$script_dir/real-photos.sh" "${TMPDIR:-/tmp}/medley-real-photos"); fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The same files for both: links to the first COUNT photos.
mkdir -p "$work/in"
find "$photos" -maxdepth 1 -type f \( -iname '*.jpg' -o -iname '*.jpeg' \) | LC_ALL=C sort | head -n "$count" |
  while read -r file; do ln -s "$file" "$work/in/"; done
files=("$work"/in/*)
n=${#files[@]}
((n > 0)) || { echo "no photos under $photos" >&2; exit 1; }
megapixels=$(for f in "${files[@]}"; do vipsheader -f width "$f"; vipsheader -f height "$f"; done |
  paste - - | awk '{ s += $1 * $2 } END { printf "%.1f", s / NR / 1e6 }')
cat > "$work/pipeline.yaml" <<YAML
version: 1
jobs:
  - name: smartcrop
    ingest: { from: [in] }
    filters:
      - resize: { width: $width, height: $height, mode: aspectFill, crop: attention }
    export: { to: out, format: jpeg, quality: 75, strip: true, name: "{stem}.jpg" }
YAML
now() { date +%s.%N; }
best() { printf '%s\n' "$@" | sort -g | head -1; }
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
medley_times=() each_times=() once_times=()
for ((r = 0; r < runs; r++)); do
  rm -rf "$work/out" "$work/.medley" "$work/peer-each" "$work/peer-once"
  t=$(now); "$medley" run "$work/pipeline.yaml" --quiet >/dev/null; medley_times+=("$(awk -v a="$t" -v b="$(now)" 'BEGIN{print b-a}')")
  mkdir -p "$work/peer-each"
  t=$(now)
  for f in "${files[@]}"; do vipsthumbnail "$f" -s "$size" --smartcrop attention -o "$work/peer-each/%s.jpg[Q=75,strip]"; done
  each_times+=("$(awk -v a="$t" -v b="$(now)" 'BEGIN{print b-a}')")
  mkdir -p "$work/peer-once"
  t=$(now); vipsthumbnail "${files[@]}" -s "$size" --smartcrop attention -o "$work/peer-once/%s.jpg[Q=75,strip]"
  once_times+=("$(awk -v a="$t" -v b="$(now)" 'BEGIN{print b-a}')")
done
made=$(find "$work/out" -name '*.jpg' | wc -l)
[[ $made == "$n" ]] || { echo "medley wrote $made of $n thumbnails" >&2; exit 1; }
# Every thumbnail has the box's size in both (the crop fills it).
for f in "$work"/out/*.jpg; do
  [[ $(vipsheader -f width "$f")x$(vipsheader -f height "$f") == "$size" ]] || { echo "$f is not $size" >&2; exit 1; }
done
m=$(best "${medley_times[@]}") e=$(best "${each_times[@]}") o=$(best "${once_times[@]}")
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", a/b}'; }
per() { awk -v a="$1" -v n="$n" 'BEGIN{printf "%.3f", a/n}'; }
echo "### Smart-crop thumbnails: $n photos (mean $megapixels MP) → $size JPEG Q75, crop: attention ($(date -u +%Y-%m-%d))"
echo
echo "$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(vips --version), load before: $load_before; best of $runs; medley: $medley"
echo
echo "| tool | best s | s a file | Medley ÷ peer |"
echo "|---|---:|---:|---:|"
echo "| medley run (resize aspectFill, crop: attention) | $(printf %.2f "$m") | $(per "$m") | |"
echo "| vipsthumbnail --smartcrop attention, a process a file | $(printf %.2f "$e") | $(per "$e") | **$(ratio "$m" "$e")** (goal ≤ 0.7) |"
echo "| vipsthumbnail --smartcrop attention, one process | $(printf %.2f "$o") | $(per "$o") | $(ratio "$m" "$o") |"
echo
echo "all runs (s): medley ${medley_times[*]}; per file ${each_times[*]}; one process ${once_times[*]}; load after: $(cut -d' ' -f1-3 /proc/loadavg)"

#!/usr/bin/env bash
# bench-smartcrop.sh — smart-cropped square thumbnails, Medley against vipsthumbnail on the same
# files, one run: `medley run` (resize 256 × 256, aspectFill, crop: attention → JPEG Q85) vs
# `vipsthumbnail --size 256x256 --smartcrop attention` once per file (GNU parallel, one process a
# file, as a script over a folder runs it) and once over the whole folder (one process, many files).
# Medley and parallel both take `nproc` files at once. Each timing is the best of RUNS.
#
# Usage: benchmarks/bench-smartcrop.sh [--count N]   (default 40 copies of each photo of the corpus)
# Environment: MEDLEY (default <repo>/.build/release/medley), RUNS (default 3), PHOTO_DIR (default
# the test-data cache's photos: fixtures/realworld/make-photos.sh, run by scripts/test-data.sh).
set -euo pipefail
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_dir=$(cd "$script_dir/.." && pwd)
count=40
while (($#)); do
  case $1 in
    --count) count=$2; shift 2 ;;
    -h | --help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
runs=${RUNS:-3}
medley=${MEDLEY:-"$repo_dir/.build/release/medley"}
data=${MEDLEY_TEST_DATA:-${XDG_CACHE_HOME:-$HOME/.cache}/medley-tests}
photo_dir=${PHOTO_DIR:-"$data/photos/photos"}
[[ -x $medley ]] || { echo "build first: scripts/build.sh" >&2; exit 1; }
for tool in vipsthumbnail parallel; do
  command -v "$tool" >/dev/null || { echo "bench-smartcrop: $tool is missing (scripts/setup.sh --tests)" >&2; exit 1; }
done
mapfile -t sources < <(find "$photo_dir" -maxdepth 1 -type f -name '*.jpg' | sort)
((${#sources[@]})) || { echo "no photos in $photo_dir: run scripts/test-data.sh" >&2; exit 1; }
jobs=$(nproc)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/in"
for source in "${sources[@]}"; do
  name=$(basename "$source"); stem=${name%.*}
  for i in $(seq 1 "$count"); do cp "$source" "$work/in/$stem-$(printf '%03d' "$i").jpg"; done
done
files=$(find "$work/in" -type f | wc -l)
echo "bench-smartcrop: $files files ($(du -sh "$work/in" | cut -f1)), $jobs at once, best of $runs" >&2

best_of() {
  local out=$1; shift
  local best=""
  for _ in $(seq "$runs"); do
    rm -rf "$out"; mkdir -p "$out"
    local start end
    start=$(date +%s.%N)
    "$@" >/dev/null 2>"$work/stderr" || { cat "$work/stderr" >&2; echo "bench-smartcrop: failed: $*" >&2; exit 1; }
    end=$(date +%s.%N)
    best=$(awk -v a="$best" -v s="$start" -v e="$end" 'BEGIN{ b = e - s; if (a == "" || b < a) print b; else print a }')
  done
  printf "%.2f\n" "$best"
}
check() {
  local n; n=$(find "$1" -name '*.jpg' -size +0 | wc -l)
  [[ $n == "$files" ]] || { echo "bench-smartcrop: $1 has $n JPEGs, not $files" >&2; exit 1; }
}

cat > "$work/crop.yaml" <<EOF
version: 1
jobs:
  - name: crop
    ingest: { from: [$work/in] }
    filters: [ { resize: { width: 256, height: 256, mode: aspectFill, crop: attention } } ]
    export: { to: $work/out/medley, format: jpeg, quality: 85, name: "{stem}.{ext}" }
EOF
medley_s=$(best_of "$work/out/medley" "$medley" run "$work/crop.yaml" --quiet --jobs "$jobs")
check "$work/out/medley"
per_file_s=$(best_of "$work/out/per-file" parallel -j "$jobs" \
  vipsthumbnail {} --size 256x256 --smartcrop attention -o "$work/out/per-file/%s.jpg[Q=85]" ::: "$work"/in/*.jpg)
check "$work/out/per-file"
one_s=$(best_of "$work/out/one" vipsthumbnail "$work"/in/*.jpg --size 256x256 --smartcrop attention -o "$work/out/one/%s.jpg[Q=85]")
check "$work/out/one"

echo "| tool | seconds | Medley ÷ tool |"
echo "|---|---:|---:|"
echo "| medley run (crop: attention) | $medley_s | |"
echo "| vipsthumbnail --smartcrop attention, a process a file (parallel -j $jobs) | $per_file_s | $(awk -v m="$medley_s" -v p="$per_file_s" 'BEGIN{printf "%.2f", m/p}') |"
echo "| vipsthumbnail --smartcrop attention, one process over the folder | $one_s | $(awk -v m="$medley_s" -v p="$one_s" 'BEGIN{printf "%.2f", m/p}') |"

#!/usr/bin/env bash
# bench-raw.sh — camera RAW → JPEG, Medley against the peers on the same files, one run:
#   preview: `medley run` (ingest.raw: preview) vs `exiftool -b -PreviewImage` once per file
#            (GNU parallel, one process a file) and in one process over the folder (-w);
#   develop: `medley run` (ingest.raw: develop, the default) vs `dcraw_emu -w -T -6 -g 2.4 12.92`
#            per file, alone (to TIFF) and followed by `vips copy` to JPEG (the whole RAW → JPEG).
# Medley and parallel both take `nproc` files at once. Each timing is the best of RUNS.
#
# Usage: benchmarks/bench-raw.sh [--count N]   (default 8 copies of each RAW of the corpus)
# Environment: MEDLEY (default <repo>/.build/release/medley), RUNS (default 3), RAW_DIR (default
# the test-data cache's full-size RAWs: fixtures/realworld/make-raw.sh, run by scripts/test-data.sh).
set -euo pipefail
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_dir=$(cd "$script_dir/.." && pwd)
count=8
while (($#)); do
  case $1 in
    --count) count=$2; shift 2 ;;
    -h | --help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
runs=${RUNS:-3}
medley=${MEDLEY:-"$repo_dir/.build/release/medley"}
data=${MEDLEY_TEST_DATA:-${XDG_CACHE_HOME:-$HOME/.cache}/medley-tests}
raw_dir=${RAW_DIR:-"$data/realworld-raw/raw/full"}
[[ -x $medley ]] || { echo "build first: scripts/build.sh" >&2; exit 1; }
for tool in exiftool dcraw_emu vips parallel; do
  command -v "$tool" >/dev/null || { echo "bench-raw: $tool is missing (scripts/setup.sh --tests)" >&2; exit 1; }
done
mapfile -t sources < <(find "$raw_dir" -maxdepth 1 -type f ! -name '.*' | sort)
((${#sources[@]})) || { echo "no RAW files in $raw_dir: run scripts/test-data.sh" >&2; exit 1; }
jobs=$(nproc)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/in"
for source in "${sources[@]}"; do
  name=$(basename "$source"); stem=${name%.*}; ext=${name##*.}
  for i in $(seq 1 "$count"); do cp "$source" "$work/in/$stem-$(printf '%03d' "$i").$ext"; done
done
files=$(find "$work/in" -type f | wc -l)
echo "bench-raw: $files files ($(du -sh "$work/in" | cut -f1)), $jobs at once, best of $runs" >&2

# Seconds of the fastest of `runs` runs of a command (its output folder emptied before each).
best_of() {
  local out=$1; shift
  local best=""
  for _ in $(seq "$runs"); do
    rm -rf "$out"; mkdir -p "$out"
    local start end
    start=$(date +%s.%N)
    "$@" >/dev/null 2>"$work/stderr" || { cat "$work/stderr" >&2; echo "bench-raw: failed: $*" >&2; exit 1; }
    end=$(date +%s.%N)
    best=$(awk -v a="$best" -v s="$start" -v e="$end" 'BEGIN{ b = e - s; if (a == "" || b < a) print b; else print a }')
  done
  printf "%.2f\n" "$best"
}
# Every file became a JPEG.
check() {
  local n; n=$(find "$1" -name '*.jpg' -size +0 | wc -l)
  [[ $n == "$files" ]] || { echo "bench-raw: $1 has $n JPEGs, not $files" >&2; exit 1; }
}

cat > "$work/preview.yaml" <<EOF
version: 1
jobs:
  - name: preview
    ingest: { from: [$work/in], raw: preview }
    export: { to: $work/out/medley-preview, format: jpeg, quality: 90, name: "{stem}.{ext}" }
EOF
cat > "$work/develop.yaml" <<EOF
version: 1
jobs:
  - name: develop
    ingest: { from: [$work/in] }
    export: { to: $work/out/medley-develop, format: jpeg, quality: 90, name: "{stem}.{ext}" }
EOF
export work
dcraw_to_jpeg() {  # one file: dcraw_emu to TIFF, then libvips to JPEG
  local stem; stem=$(basename "${1%.*}")
  dcraw_emu -w -T -6 -g 2.4 12.92 -Z "$work/out/dcraw-jpeg/$stem.tiff" "$1"
  vips copy "$work/out/dcraw-jpeg/$stem.tiff" "$work/out/dcraw-jpeg/$stem.jpg[Q=90]"
  rm "$work/out/dcraw-jpeg/$stem.tiff"
}
export -f dcraw_to_jpeg

t_mp=$(best_of "$work/out/medley-preview" "$medley" run "$work/preview.yaml" -q -j "$jobs"); check "$work/out/medley-preview"
t_ep=$(best_of "$work/out/exiftool-each" parallel -j "$jobs" "exiftool -q -b -PreviewImage {} > $work/out/exiftool-each/{/.}.jpg" ::: "$work"/in/*)
check "$work/out/exiftool-each"
t_eo=$(best_of "$work/out/exiftool-one" exiftool -q -b -PreviewImage -w "$work/out/exiftool-one/%f.jpg" "$work/in"); check "$work/out/exiftool-one"
t_md=$(best_of "$work/out/medley-develop" "$medley" run "$work/develop.yaml" -q -j "$jobs"); check "$work/out/medley-develop"
t_dt=$(best_of "$work/out/dcraw-tiff" parallel -j "$jobs" "dcraw_emu -w -T -6 -g 2.4 12.92 -Z $work/out/dcraw-tiff/{/.}.tiff {}" ::: "$work"/in/*)
t_dj=$(best_of "$work/out/dcraw-jpeg" parallel -j "$jobs" dcraw_to_jpeg ::: "$work"/in/*); check "$work/out/dcraw-jpeg"

ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ printf "%.2f", a / b }'; }
per() { awk -v t="$1" -v n="$files" 'BEGIN{ printf "%.3f", t / n }'; }
echo "### RAW → JPEG: $files files ($(printf '%s ' "${sources[@]##*/}")× $count), $jobs at once ($(date -u +%Y-%m-%d), libraw-bin $(dpkg-query -W -f='${Version}' libraw-bin 2>/dev/null || echo "?"))"
echo
echo "| job | tool | best s | s a file | Medley ÷ peer |"
echo "|---|---|---:|---:|---:|"
echo "| preview | medley run (raw: preview, re-encoded at Q90) | $t_mp | $(per "$t_mp") | |"
echo "| preview | exiftool -b -PreviewImage, a process a file | $t_ep | $(per "$t_ep") | $(ratio "$t_mp" "$t_ep") |"
echo "| preview | exiftool -b -PreviewImage -w, one process | $t_eo | $(per "$t_eo") | $(ratio "$t_mp" "$t_eo") |"
echo "| develop | medley run (raw: develop → JPEG Q90) | $t_md | $(per "$t_md") | |"
echo "| develop | dcraw_emu -w -T -6 (to TIFF only) | $t_dt | $(per "$t_dt") | $(ratio "$t_md" "$t_dt") |"
echo "| develop | dcraw_emu … then vips copy to JPEG Q90 | $t_dj | $(per "$t_dj") | $(ratio "$t_md" "$t_dj") |"

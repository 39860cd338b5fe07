#!/usr/bin/env bash
# bench-probe.sh — `medley probe --json` against `exiftool -json` on the same 1,000 files, one run:
# a mixed library of tagged audio (FLAC, Ogg, MP3, M4A) and photos (JPEG with EXIF, PNG, WebP)
# copied from the fixtures, so both tools read real headers, tags and EXIF blocks.
#
# Usage: benchmarks/bench-probe.sh [--files N]   (default 1000)
# Environment: MEDLEY (default <repo>/.build/release/medley), RUNS (default 3).
set -euo pipefail
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_dir=$(cd "$script_dir/.." && pwd)
files=1000
while (($#)); do
  case $1 in
    --files) files=$2; shift 2 ;;
    -h | --help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
runs=${RUNS:-3}
medley=${MEDLEY:-"$repo_dir/.build/release/medley"}
[[ -x $medley ]] || { echo "build first: scripts/build.sh" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lib"
sources=()
while IFS= read -r -d '' f; do sources+=("$f"); done < <(find "$repo_dir/fixtures/music" "$repo_dir/fixtures/images" \
  -type f \( -name '*.flac' -o -name '*.ogg' -o -name '*.mp3' -o -name '*.m4a' -o -name '*.jpg' -o -name '*.png' -o -name '*.webp' \) -print0 | sort -z)
for i in $(seq 0 $((files - 1))); do
  src=${sources[$((i % ${#sources[@]}))]}
  cp "$src" "$work/lib/$(printf '%04d' "$i")-$(basename "$src")"
done
echo "bench-probe: $files files ($(du -sh "$work/lib" | cut -f1)) from ${#sources[@]} fixtures" >&2

best_of() {
  local best=""
  for _ in $(seq "$runs"); do
    local start end
    start=$(date +%s.%N)
    "$@" >"$work/out.json" 2>/dev/null || true
    end=$(date +%s.%N)
    best=$(awk -v a="$best" -v s="$start" -v e="$end" 'BEGIN{ b = e - s; if (a == "" || b < a) print b; else print a }')
  done
  printf "%.2f\n" "$best"
}
cd "$work/lib"
tm=$(best_of "$medley" probe --json ./*)
python3 -c "import json,sys; assert len(json.load(open('$work/out.json'))) == $files" || { echo "medley probe output does not parse" >&2; exit 1; }
te=$(best_of exiftool -json -q ./*)
python3 -c "import json,sys; assert len(json.load(open('$work/out.json'))) == $files" || { echo "exiftool output does not parse" >&2; exit 1; }
echo "### probe --json: $files files, one process each tool ($(date -u +%Y-%m-%d))"
echo
echo "| tool | best s | Medley ÷ exiftool |"
echo "|---|---:|---:|"
echo "| medley probe --json | $tm | $(awk -v a="$tm" -v b="$te" 'BEGIN{printf "%.2f", a/b}') |"
echo "| exiftool -json | $te | |"

#!/usr/bin/env bash
# bench-metadata.sh — image metadata against exiftool on the same files, one run:
#   1. `medley probe --json` vs `exiftool -n -j` over N photos with EXIF, IPTC and XMP (the
#      metadata corpus of fixtures/realworld/make-metadata.sh: camera JPEGs, files exiftool
#      tagged in every format, photos with sidecars), copied round-robin;
#   2. a metadata edit (creator, copyright, keywords, rating; GPS removed) of N JPEG copies:
#      `medley run` (tag set + strip: [gps] into an export folder) vs
#      `exiftool -overwrite_original` on copies (in place, no re-encode).
# Ratios are Medley ÷ exiftool (below 1: Medley is faster).
#
# Usage: benchmarks/bench-metadata.sh [--files N]   (default 1000)
# Environment: MEDLEY (default <repo>/.build/release/medley), RUNS (default 3),
#              CORPUS (default: built with make-metadata.sh into a temporary folder).
set -euo pipefail
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_dir=$(cd "$script_dir/.." && pwd)
files=1000
while (($#)); do
  case $1 in
    --files) files=$2; shift 2 ;;
    -h | --help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
runs=${RUNS:-3}
medley=${MEDLEY:-"$repo_dir/.build/release/medley"}
[[ -x $medley ]] || { echo "build first: scripts/build.sh" >&2; exit 1; }
work=$(mktemp -d)
trap '[[ -n ${KEEP:-} ]] || rm -rf "$work"' EXIT
corpus=${CORPUS:-}
if [[ -z $corpus ]]; then
  "$repo_dir/fixtures/realworld/make-metadata.sh" "$work/corpus" >/dev/null 2>&1
  corpus="$work/corpus/metadata"
fi
mkdir -p "$work/lib" "$work/jpegs"
sources=()
while IFS= read -r -d '' f; do sources+=("$f"); done < <(find "$corpus/camera" "$corpus/written" "$corpus/sidecar" \
  -type f ! -name '*.xmp' -print0 | sort -z)
jpegs=()
while IFS= read -r -d '' f; do jpegs+=("$f"); done < <(find "$corpus/camera" "$corpus/written" -type f -name '*.jpg' -print0 | sort -z)
for i in $(seq 0 $((files - 1))); do
  src=${sources[$((i % ${#sources[@]}))]}
  cp "$src" "$work/lib/$(printf '%04d' "$i")-$(basename "$src")"
  jpg=${jpegs[$((i % ${#jpegs[@]}))]}
  cp "$jpg" "$work/jpegs/$(printf '%04d' "$i")-$(basename "$jpg")"
done
echo "bench-metadata: $files files ($(du -sh "$work/lib" | cut -f1)) from ${#sources[@]} corpus files" >&2

seconds() {
  local start end
  start=$(date +%s.%N)
  "$@" >"$work/out.txt" 2>"$work/err.txt" || { cat "$work/err.txt" >&2; return 1; }
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" 'BEGIN{ printf "%.3f\n", e - s }'
}
best() { sort -n | awk 'NR == 1'; }  # (head would close the pipe under pipefail)

# --- 1. probe ---------------------------------------------------------------------------------
cd "$work/lib"
tm=$(for _ in $(seq "$runs"); do seconds "$medley" probe --json ./*; done | best)
python3 -c "import json; assert len(json.load(open('$work/out.txt'))) == $files" || { echo "medley probe output does not parse" >&2; exit 1; }
te=$(for _ in $(seq "$runs"); do seconds exiftool -n -j -q -q ./*; done | best)
python3 -c "import json; assert len(json.load(open('$work/out.txt'))) == $files" || { echo "exiftool output does not parse" >&2; exit 1; }

# --- 2. metadata edit -------------------------------------------------------------------------
cat > "$work/edit.yaml" <<EOF
version: 1
jobs:
  - name: edit
    ingest: { from: [$work/jpegs] }
    tag: { set: { creator: "Bench Tester", copyright: "(C) 2024 Bench", keywords: [bench, edit], rating: 4 } }
    export: { to: $work/edited, format: same, name: "{stem}.{ext}", strip: [gps] }
EOF
em=""; ee=""
for _ in $(seq "$runs"); do
  rm -rf "$work/edited"
  em="$em $(seconds "$medley" run "$work/edit.yaml" --quiet)"
  rm -rf "$work/copies"; cp -r "$work/jpegs" "$work/copies"
  ee="$ee $(seconds exiftool -q -q -overwrite_original "-Artist=Bench Tester" "-XMP-dc:Creator=Bench Tester" \
    "-Copyright=(C) 2024 Bench" "-XMP-dc:Rights=(C) 2024 Bench" -XMP-dc:Subject=bench -XMP-dc:Subject=edit \
    -IPTC:Keywords=bench -IPTC:Keywords=edit -XMP-xmp:Rating=4 -gps:all= "$work/copies")"
done
em=$(tr ' ' '\n' <<<"$em" | grep . | best)
ee=$(tr ' ' '\n' <<<"$ee" | grep . | best)
# Both wrote what was asked (one file checked with exiftool).
one=$(ls "$work/edited" | awk 'NR == 1')
[[ "$(exiftool -s3 -Artist "$work/edited/$one")" == "Bench Tester" ]] || { echo "medley did not write Artist" >&2; exit 1; }
[[ -z "$(exiftool -s3 -gps:all "$work/edited/$one")" ]] || { echo "medley left GPS" >&2; exit 1; }

ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ printf "%.2f", a / b }'; }
echo "### image metadata: $files files, best of $runs ($(date -u +%Y-%m-%d), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))"
echo
echo "| task | medley s | exiftool s | Medley ÷ exiftool |"
echo "|---|---:|---:|---:|"
echo "| probe (medley probe --json vs exiftool -n -j) | $tm | $te | $(ratio "$tm" "$te") |"
echo "| edit creator, copyright, keywords, rating, no GPS (medley run vs exiftool -overwrite_original on copies) | $em | $ee | $(ratio "$em" "$ee") |"

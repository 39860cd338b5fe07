#!/usr/bin/env bash
# bench-contactsheet.sh — a contact sheet of N photos: Medley's `contactSheet:` against ImageMagick's montage.
#
# Usage: benchmarks/bench-contactsheet.sh [--count N]
#   --count N  photos on the sheet (default 500): 1600 × 1067 JPEGs made from fixtures/images with vips
# Environment: MEDLEY (default <repo>/.build/release/medley), RUNS (default 3).
#
# Both make one JPEG sheet of 10 columns of 256 × 256 cells with 4 px around each, no labels:
#   - montage: `montage *.jpg -geometry 256x256+4+4 -tile 10x -background white sheet.jpg`, and
#     again with `-define jpeg:size=512x512` (libjpeg's shrink-on-load, as ImageMagick's docs advise
#     for thumbnails). montage holds every photo it reads until the sheet is made, and Debian's
#     ImageMagick policy (256 MiB memory, 1 GiB disk) stops it with "cache resources exhausted"
#     before 500 photos, with the define or without: both run with a policy of 8 GiB memory and
#     16 GiB disk (MAGICK_CONFIGURE_PATH), as a user making big sheets sets it.
#   - medley: a job exporting the photos (run once, untimed), then timed reruns in which every
#     item is unchanged and only the sheet is made again (its options alternate, 256 and 255 px
#     boxes, so it is never "unchanged"): the sheet stage plus a rerun's ingest of N items.
# The ratio is Medley ÷ montage, wall time, best of RUNS; rounds are interleaved.
set -euo pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_dir=$(cd "$script_dir/.." && pwd)
log() { echo "bench-contactsheet: $*" >&2; }

count=500
while (($#)); do
  case $1 in
    --count) count=$2; shift 2 ;;
    -h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
runs=${RUNS:-3}
medley=${MEDLEY:-"$repo_dir/.build/release/medley"}
[[ -x $medley ]] || { echo "build first: scripts/build.sh (or set MEDLEY)" >&2; exit 1; }
for tool in vips montage identify; do
  command -v "$tool" >/dev/null || { echo "'$tool' not found" >&2; exit 1; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/in"
# Ten distinct photos (the fixtures enlarged, each tinted), copied round-robin to N files.
bases=()
i=0
for source in "$repo_dir"/fixtures/images/landscape.jpg "$repo_dir"/fixtures/images/portrait-exif6.jpg; do
  for tint in 0.8 0.9 1.0 1.1 1.2; do
    base="$work/base-$i.jpg"
    vips thumbnail "$source" "$work/big-$i.v" 1600 --size force --height 1067
    vips linear "$work/big-$i.v" "$base[Q=90]" "$tint 1 1" "0 0 0" --uchar
    bases+=("$base")
    i=$((i + 1))
  done
done
for ((n = 0; n < count; n++)); do
  cp "${bases[$((n % ${#bases[@]}))]}" "$(printf '%s/in/photo-%05d.jpg' "$work" "$n")"
done
log "$count photos of $(identify -format '%wx%h' "${bases[0]}"), $(du -sh "$work/in" | cut -f1)"

pipeline() { # $1: box side
  cat > "$work/p-$1.yaml" <<YAML
version: 1
jobs:
  - name: sheet
    ingest: { from: [in] }
    export: { to: out, format: jpeg, quality: 90, name: "{stem}.{ext}" }
    contactSheet: { columns: 10, thumbnail: $1, gap: 4, format: jpeg, quality: 85, name: sheet }
YAML
}
pipeline 256; pipeline 255
(cd "$work" && "$medley" run p-256.yaml --quiet) || { echo "medley run failed" >&2; exit 1; }

now() { date +%s.%N; }
best_m=999999 best_i=999999 best_j=999999
mkdir -p "$work/policy"
cat > "$work/policy/policy.xml" <<'XML'
<policymap>
  <policy domain="resource" name="memory" value="8GiB"/>
  <policy domain="resource" name="disk" value="16GiB"/>
</policymap>
XML
export MAGICK_CONFIGURE_PATH="$work/policy"
for ((r = 1; r <= runs; r++)); do
  side=$((r % 2 == 1 ? 255 : 256))
  t0=$(now); (cd "$work" && "$medley" run "p-$side.yaml" --quiet); t1=$(now)
  (cd "$work/out" && montage photo-*.jpg -geometry 256x256+4+4 -tile 10x -background white \
    -quality 85 "$work/montage.jpg") || { echo "montage failed" >&2; exit 1; }
  t2=$(now)
  (cd "$work/out" && montage -define jpeg:size=512x512 photo-*.jpg -geometry 256x256+4+4 -tile 10x -background white \
    -quality 85 "$work/montage-size.jpg") || { echo "montage failed" >&2; exit 1; }
  t3=$(now)
  m=$(echo "$t1 - $t0" | bc); i=$(echo "$t2 - $t1" | bc); j=$(echo "$t3 - $t2" | bc)
  log "round $r: medley ${m}s, montage ${i}s, montage with jpeg:size ${j}s"
  best_m=$(echo "if ($m < $best_m) $m else $best_m" | bc); best_i=$(echo "if ($i < $best_i) $i else $best_i" | bc)
  best_j=$(echo "if ($j < $best_j) $j else $best_j" | bc)
done
log "sheets: medley $(identify -format '%wx%h' "$work/out/sheet.jpg"), montage $(identify -format '%wx%h' "$work/montage.jpg")"
printf '| tool | best s | Medley ÷ it |\n|---|---:|---:|\n'
printf '| medley run (sheet redone, %d items unchanged) | %.2f | |\n' "$count" "$best_m"
printf '| montage -geometry 256x256+4+4 -tile 10x | %.2f | %.2f |\n' "$best_i" "$(echo "$best_m / $best_i" | bc -l)"
printf '| montage -define jpeg:size=512x512 (same options) | %.2f | %.2f |\n' "$best_j" "$(echo "$best_m / $best_j" | bc -l)"

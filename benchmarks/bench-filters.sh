#!/usr/bin/env bash
# bench-filters.sh — the filter catalog's performance core, against peers, in one run.
#
# Usage: benchmarks/bench-filters.sh [--count N] [--quick]
#   --count N  corpus images for the chain and thumbnail sections (default 20)
#   --quick    smaller sizes (the 400 MP section becomes 100 MP)
# Environment: MEDLEY (default <repo>/.build/release/medley), CORPUS_DIR, RUNS (default 3).
#
# Sections (each prints a table; ratios are Medley ÷ peer, below 1 means Medley is faster):
#   1. point-wise chains: 5 filters (fused) versus 1 filter, same images
#   2. Gaussian blur σ = 10 on a 24 MP image versus `vips gaussblur`
#   3. thumbnails to 512 px versus `parallel vipsthumbnail`
#   4. peak memory of a sepia + vignette chain on a 400 MP JPEG
set -euo pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_dir=$(cd "$script_dir/.." && pwd)
log() { echo "bench-filters: $*" >&2; }

count=20
big_side=20000
while (($#)); do
  case $1 in
    --count) count=$2; shift 2 ;;
    --quick) count=6; big_side=10000; shift ;;
    -h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
runs=${RUNS:-3}
jobs=$(nproc)
medley=${MEDLEY:-"$repo_dir/.build/release/medley"}
corpus=${CORPUS_DIR:-"$script_dir/.corpus"}
[[ -x $medley ]] || { echo "build first: scripts/build.sh" >&2; exit 1; }
"$script_dir/make-corpus.sh" "$corpus" "$count" >&2

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/in"
for f in $(ls "$corpus"/*.jpg | sort | head -n "$count"); do ln "$f" "$work/in/" 2>/dev/null || cp "$f" "$work/in/"; done

# best_of CMD...: best wall seconds of $runs runs (outputs removed before each run).
best_of() {
  local best=""
  for _ in $(seq "$runs"); do
    rm -rf "$work/out" && mkdir -p "$work/out"
    local start end
    start=$(date +%s.%N)
    "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; return 1; }
    end=$(date +%s.%N)
    best=$(awk -v a="$best" -v b="$(awk -v s="$start" -v e="$end" 'BEGIN{print e-s}')" 'BEGIN{ if (a=="" || b<a) print b; else print a }')
  done
  printf "%.2f\n" "$best"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", a/b}'; }
peak_rss_mb() { /usr/bin/time -v "$@" 2>&1 >/dev/null | awk -F: '/Maximum resident/ {printf "%.0f", $2/1024}'; }

pipeline() {  # pipeline NAME FILTERS-YAML [FROM] [EXTRA]
  cat > "$work/$1.yaml" <<YAML
version: 1
jobs:
  - name: $1
    ingest: { from: [${3:-$work/in}] }
${4:-}
    filters:
$2
    export: { to: $work/out, format: jpeg, quality: 85, name: "{stem}.jpg" }
YAML
  echo "$work/$1.yaml"
}

echo "## Filter catalog benchmarks ($(date -u +%Y-%m-%d), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(vips --version))"
echo

# 1. chains ---------------------------------------------------------------------
log "1/4 point-wise chains over $count × 12 MP"
one_matrix=$(pipeline one-matrix "      - CISepiaTone: { inputIntensity: 0.8 }")
five_matrix=$(pipeline five-matrix "      - CIExposureAdjust: { inputEV: 0.2 }
      - CIColorControls: { inputSaturation: 1.2, inputContrast: 1.1 }
      - CISepiaTone: { inputIntensity: 0.5 }
      - CIColorControls: { inputBrightness: 0.02 }
      - CIExposureAdjust: { inputEV: -0.1 }")
one_point=$(pipeline one-point "      - CIGammaAdjust: { inputPower: 0.9 }")
five_point=$(pipeline five-point "      - CIExposureAdjust: { inputEV: 0.2 }
      - CIGammaAdjust: { inputPower: 0.9 }
      - CIColorControls: { inputSaturation: 1.2 }
      - CISepiaTone: { inputIntensity: 0.5 }
      - CIVignette: { inputIntensity: 0.6 }")
t1m=$(best_of "$medley" run "$one_matrix" --quiet)
t5m=$(best_of "$medley" run "$five_matrix" --quiet)
t1p=$(best_of "$medley" run "$one_point" --quiet)
t5p=$(best_of "$medley" run "$five_point" --quiet)
echo "| chain ($count × 12 MP JPEG → JPEG q85, $jobs jobs) | best s | 5 filters ÷ 1 filter |"
echo "|---|---:|---:|"
echo "| 1 affine filter (CISepiaTone) | $t1m | |"
echo "| 5 affine filters (fused into one matrix) | $t5m | $(ratio "$t5m" "$t1m") |"
echo "| 1 non-affine filter (CIGammaAdjust) | $t1p | |"
echo "| 5 mixed filters incl. gamma and vignette (one fused pass) | $t5p | $(ratio "$t5p" "$t1p") (vs sepia: $(ratio "$t5p" "$t1m")) |"
echo

# 2. blur -----------------------------------------------------------------------
log "2/4 Gaussian blur on a 24 MP image"
first=$(ls "$work/in"/*.jpg | head -n 1)
vips resize "$first" "$work/big24.jpg[Q=90]" 1.415 >/dev/null
blur=$(pipeline blur "      - CIGaussianBlur: { inputRadius: 10 }" "$work/big24.jpg")
tmb=$(best_of "$medley" run "$blur" --quiet --jobs 1)
tvb=$(best_of vips gaussblur "$work/big24.jpg" "$work/out/v.jpg[Q=85]" 10)
size=$(vipsheader "$work/big24.jpg" | cut -d: -f2 | cut -d' ' -f2)
echo "| Gaussian blur σ = 10, $size JPEG → JPEG q85 | best s | Medley ÷ peer |"
echo "|---|---:|---:|"
echo "| medley CIGaussianBlur inputRadius 10 (linear light, float) | $tmb | |"
echo "| vips gaussblur 10 (sRGB values, integer path) | $tvb | $(ratio "$tmb" "$tvb") |"
echo

# 3. thumbnails -----------------------------------------------------------------
log "3/4 thumbnails of $count × 12 MP to 512 px"
thumbs=$(pipeline thumbs "      - resize: { width: 512, height: 512 }")
tmt=$(best_of "$medley" run "$thumbs" --quiet)
tvt=$(best_of parallel -j"$jobs" vipsthumbnail {} -s 512 -o "$work/out/%s.jpg[Q=85]" ::: "$work"/in/*.jpg)
echo "| thumbnails: $count × 12 MP → 512 px JPEG q85, $jobs at a time | best s | Medley ÷ peer |"
echo "|---|---:|---:|"
echo "| medley resize aspectFit 512×512 (shrink-on-load) | $tmt | |"
echo "| parallel vipsthumbnail -s 512 | $tvt | $(ratio "$tmt" "$tvt") |"
echo

# 4. memory on a huge image -----------------------------------------------------
log "4/4 ${big_side}×${big_side} JPEG through sepia + vignette (this takes a while)"
vips black "$work/black.v" "$big_side" "$big_side" --bands 3 >/dev/null
vips replicate "$first" "$work/tiled.v" $(( big_side / 4000 + 1 )) $(( big_side / 3000 + 1 )) >/dev/null
vips crop "$work/tiled.v" "$work/huge.jpg[Q=85]" 0 0 "$big_side" "$big_side" >/dev/null
rm -f "$work/black.v" "$work/tiled.v"
huge=$(pipeline huge "      - CISepiaTone: {}
      - CIVignette: { inputIntensity: 0.8 }" "$work/huge.jpg" "    limits: { maxPixels: 1000000000 }")
rm -rf "$work/out" && mkdir -p "$work/out"
start=$(date +%s.%N)
rss=$(peak_rss_mb "$medley" run "$huge" --quiet --jobs 1)
end=$(date +%s.%N)
[[ -s $work/out/huge.jpg ]] || echo "WARNING: no output for the huge image" >&2
echo "| $(( big_side * big_side / 1000000 )) MP JPEG, sepia + vignette → JPEG q85 | seconds | peak RSS MB |"
echo "|---|---:|---:|"
echo "| medley | $(awk -v s="$start" -v e="$end" 'BEGIN{printf "%.1f", e-s}') | $rss |"

#!/usr/bin/env bash
# bench-chain.sh — point-wise filter chains on real photos against the decode + encode floor.
#
# Usage: benchmarks/bench-chain.sh [PHOTOS_DIR]
#   PHOTOS_DIR  real JPEGs (default /work/bench-corpus/photos, else benchmarks/.photos made by
#               real-photos.sh); the first $COUNT (default 19) in name order are used, read-only.
# Environment: MEDLEY (default <repo>/.build/release/medley), BASE (another medley binary, e.g. the
#   main branch's, measured in the same run, interleaved), RUNS (default 3), JOBS (default 2).
#
# Jobs (JPEG → JPEG q85, $JOBS at a time): export only (the floor: decode + encode), CISepiaTone 0.8,
# the five-filter chain ExposureAdjust → ColorControls → SepiaTone → GammaAdjust → ColorMatrix, and a
# ten-filter chain of matrices and gammas. Every job and binary runs once per round, rounds repeat
# RUNS times, the best time of each is kept; ratios are to the same binary's floor.
set -euo pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_dir=$(cd "$script_dir/.." && pwd)
runs=${RUNS:-3}
jobs=${JOBS:-2}
count=${COUNT:-19}
medley=${MEDLEY:-"$repo_dir/.build/release/medley"}
base=${BASE:-}
photos=${1:-/work/bench-corpus/photos}
if [[ ! -d $photos ]]; then photos="$script_dir/.photos"; "$script_dir/real-photos.sh" "$photos" >&2; fi
[[ -x $medley ]] || { echo "build first: scripts/build.sh" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/in"
for f in $(ls "$photos"/*.jpg | sort | head -n "$count"); do cp "$f" "$work/in/"; done
megapixels=$(for f in "$work"/in/*.jpg; do vipsheader -f width "$f" 2>/dev/null; vipsheader -f height "$f" 2>/dev/null; done |
  paste - - | awk '{ s += $1 * $2 } END { printf "%.0f", s / 1e6 }')

pipeline() {  # pipeline NAME FILTERS-YAML
  {
    echo "version: 1"
    echo "jobs:"
    echo "  - name: $1"
    echo "    ingest: { from: [$work/in] }"
    if [[ -n $2 ]]; then echo "    filters:"; echo "$2"; fi
    echo "    export: { to: $work/out, format: jpeg, quality: 85, name: \"{stem}.jpg\" }"
  } > "$work/$1.yaml"
  echo "$work/$1.yaml"
}
names=(floor one five ten)
labels=("export only (decode + encode floor)" "CISepiaTone 0.8 (one matrix)"
        "5 filters: Exposure → ColorControls → Sepia → Gamma → ColorMatrix"
        "10 filters: (matrix, gamma) × 5, nothing fuses")
yamls=(
  "$(pipeline floor "")"
  "$(pipeline one "      - CISepiaTone: { inputIntensity: 0.8 }")"
  "$(pipeline five "      - CIExposureAdjust: { inputEV: 0.5 }
      - CIColorControls: { inputSaturation: 1.2, inputBrightness: 0.02, inputContrast: 1.1 }
      - CISepiaTone: { inputIntensity: 0.8 }
      - CIGammaAdjust: { inputPower: 0.8 }
      - CIColorMatrix: { inputRVector: [0.9, 0.1, 0.05, 0], inputGVector: [0.05, 0.85, 0.1, 0], inputBVector: [0.1, 0.05, 0.8, 0], inputBiasVector: [0.02, -0.01, 0.03, 0] }")"
  "$(pipeline ten "      - CIExposureAdjust: { inputEV: 0.3 }
      - CIGammaAdjust: { inputPower: 1.2 }
      - CIColorControls: { inputSaturation: 0.9, inputContrast: 1.2 }
      - CIGammaAdjust: { inputPower: 0.9 }
      - CISepiaTone: { inputIntensity: 0.3 }
      - CIGammaAdjust: { inputPower: 1.1 }
      - CIColorMatrix: { inputRVector: [0.9, 0.1, 0.05, 0], inputGVector: [0.05, 0.85, 0.1, 0], inputBVector: [0.1, 0.05, 0.8, 0], inputBiasVector: [0.02, -0.01, 0.03, 0] }
      - CIGammaAdjust: { inputPower: 0.95 }
      - CIExposureAdjust: { inputEV: -0.2 }
      - CIGammaAdjust: { inputPower: 1.05 }")"
)

seconds() {  # seconds BINARY YAML: wall time of one run
  rm -rf "$work/out" && mkdir -p "$work/out"
  local start end
  start=$(date +%s.%N)
  "$1" run "$2" --quiet --jobs "$jobs" >/dev/null 2>&1 || { echo "failed: $1 run $2" >&2; exit 1; }
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f", e - s }'
}
declare -A best
binaries=(medley)
[[ -n $base ]] && binaries+=(base)
for _ in $(seq "$runs"); do
  for i in "${!names[@]}"; do
    for which in "${binaries[@]}"; do
      binary=$medley; [[ $which == base ]] && binary=$base
      t=$(seconds "$binary" "${yamls[$i]}")
      key="$which.${names[$i]}"
      best[$key]=$(awk -v a="${best[$key]:-}" -v b="$t" 'BEGIN { if (a == "" || b < a) print b; else print a }')
    done
  done
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f×", a / b }'; }

echo "## Point-wise chains on real photos ($(date -u +%Y-%m-%d), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs))"
echo
echo "$(ls "$work"/in/*.jpg | wc -l) real JPEGs ($megapixels MP) → JPEG q85, $jobs at a time, best of $runs interleaved rounds; load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
if [[ -n $base ]]; then
  echo "| job | medley s | ÷ floor | base s | base ÷ floor | medley ÷ base |"
  echo "|---|---:|---:|---:|---:|---:|"
else
  echo "| job | medley s | ÷ floor |"
  echo "|---|---:|---:|"
fi
for i in "${!names[@]}"; do
  m=${best[medley.${names[$i]}]}
  row="| ${labels[$i]} | $m | $(ratio "$m" "${best[medley.floor]}") |"
  if [[ -n $base ]]; then
    b=${best[base.${names[$i]}]}
    row+=" $b | $(ratio "$b" "${best[base.floor]}") | $(ratio "$m" "$b") |"
  fi
  echo "$row"
done

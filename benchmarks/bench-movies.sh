#!/usr/bin/env bash
# bench-movies.sh — movies against the ffmpeg CLI, same files, same concurrency, one run:
#   1. poster frame at 1.0 s of each clip to PNG versus `parallel ffmpeg -ss 1.0 -i … -frames:v 1 out.png`
#   2. transcode with typeMedium (CRF 23, ≤ 5 Mb/s) and typeIFrame960x540 versus the same libx264/aac
#      settings on the ffmpeg command line
#
# Medley's side is `medley run` with a poster/transcode pipeline when the runner has those stages,
# else medley-movie-bench (benchmarks/MovieBench: MedleyMedia's Movie adapter, N files at a time).
# Clips: COUNT (default 100) × 3 s, 640×360, 30 fps, H.264 (keyframe every 2 s) + AAC, made once
# into benchmarks/.movie-corpus.
#
# Usage: benchmarks/bench-movies.sh [--count N] [--transcodes N]   (transcodes: default 10 clips)
# Environment: MEDLEY (default <repo>/.build/release/medley), RUNS (default 3), JOBS (default nproc).
set -euo pipefail
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_dir=$(cd "$script_dir/.." && pwd)
count=100
transcodes=10
while (($#)); do
  case $1 in
    --count) count=$2; shift 2 ;;
    --transcodes) transcodes=$2; shift 2 ;;
    -h | --help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
runs=${RUNS:-3}
jobs=${JOBS:-$(nproc)}
medley=${MEDLEY:-"$repo_dir/.build/release/medley"}
bench="$repo_dir/.build/release/medley-movie-bench"
[[ -x $bench ]] || { echo "build first: swift build -c release --product medley-movie-bench" >&2; exit 1; }
for tool in ffmpeg parallel; do command -v "$tool" >/dev/null || { echo "bench-movies: needs $tool" >&2; exit 1; }; done

corpus="$repo_dir/benchmarks/.movie-corpus"
mkdir -p "$corpus"
have=$(find "$corpus" -name 'clip*.mp4' | wc -l)
if ((have < count)); then
  echo "bench-movies: making $count clips of 3 s 640×360 into $corpus" >&2
  seq 1 "$count" | parallel -q -j"$jobs" ffmpeg -nostdin -v error -y \
    -f lavfi -i "testsrc2=size=640x360:rate=30:duration=3,hue=h={}*7+90*t" \
    -f lavfi -i "sine=frequency={}0:sample_rate=48000:duration=3" \
    -c:v libx264 -preset veryfast -crf 23 -g 60 -pix_fmt yuv420p -c:a aac -b:a 128k -ac 2 \
    -metadata title="Clip {}" "$corpus/clip{}.mp4"
fi
clips=()
for i in $(seq 1 "$count"); do clips+=("$corpus/clip$i.mp4"); done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
best_of() {
  local best=""
  for _ in $(seq "$runs"); do
    rm -rf "$work/out" && mkdir -p "$work/out"
    local start end
    start=$(date +%s.%N)
    "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; return 1; }
    end=$(date +%s.%N)
    best=$(awk -v a="$best" -v s="$start" -v e="$end" 'BEGIN{ b = e - s; if (a == "" || b < a) print b; else print a }')
  done
  printf "%.2f\n" "$best"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", a/b}'; }

# `medley run` when its runner takes this pipeline, else the adapter driver.
mkdir -p "$work/in"
# Copies, not symlinks: Medley does not follow links that leave an ingest root.
for c in "${clips[@]}"; do cp "$c" "$work/in/"; done
pipeline() { # stage-yaml name-template
  cat > "$work/pipeline.yaml" <<YAML
version: 1
jobs:
  - name: movies
    ingest: { from: [$work/in], media: [movie] }
    $1
    export: { to: $work/out, $2 }
YAML
}
medley_side() { # kind setting
  if [[ -x $medley ]] && "$medley" run "$work/pipeline.yaml" --quiet --force >/dev/null 2>&1 &&
     [[ -n $(ls "$work/out" 2>/dev/null) ]]; then
    echo "medley run"
  else
    echo "medley-movie-bench"
  fi
}
run_medley() { # how kind setting files…
  local how=$1 kind=$2 setting=$3; shift 3
  if [[ $how == "medley run" ]]; then "$medley" run "$work/pipeline.yaml" --jobs "$jobs" --quiet --force
  else JOBS=$jobs "$bench" "$kind" "$setting" "$work/out" "$@"; fi
}

echo "### Movies: poster frames and preset transcodes against the ffmpeg CLI, $jobs at a time ($(date -u +%Y-%m-%d), $(ffmpeg -version | head -1 | cut -d' ' -f1-3))"
echo
echo "| task | Medley side | Medley best s | ffmpeg best s | Medley ÷ ffmpeg |"
echo "|---|---|---:|---:|---:|"

pipeline 'poster: { at: 1.0 }' 'format: png, name: "{stem}.png"'
rm -rf "$work/out" && mkdir -p "$work/out"
how=$(medley_side)
echo "bench-movies: posters ($how)" >&2
tm=$(best_of run_medley "$how" poster 1.0 "${clips[@]}")
tf=$(best_of parallel -j"$jobs" ffmpeg -nostdin -v error -y -ss 1.0 -i {} -frames:v 1 "$work/out/{/.}.png" ::: "${clips[@]}")
echo "| poster at 1.0 s → PNG, $count clips | $how | $tm | $tf | $(ratio "$tm" "$tf") |"

subset=("${clips[@]:0:$transcodes}")
rm -f "$work"/in/* && for c in "${subset[@]}"; do cp "$c" "$work/in/"; done
# The ffmpeg command lines that match each preset (VideoQualityPreset's table).
declare -A peer=(
  [typeMedium]="-c:v libx264 -preset medium -crf 23 -maxrate 5M -bufsize 5M -profile:v high -pix_fmt yuv420p"
  [typeIFrame960x540]="-vf scale=960:540 -c:v libx264 -preset medium -crf 18 -g 1 -maxrate 30M -bufsize 30M -profile:v high -pix_fmt yuv420p"
)
for preset in typeMedium typeIFrame960x540; do
  pipeline "transcode: { videoQuality: $preset }" 'name: "{stem}.mp4"'
  rm -rf "$work/out" && mkdir -p "$work/out"
  how=$(medley_side)
  echo "bench-movies: $preset ($how)" >&2
  tm=$(best_of run_medley "$how" transcode "$preset" "${subset[@]}")
  # shellcheck disable=SC2086
  tf=$(best_of parallel -j"$jobs" ffmpeg -nostdin -v error -y -i {} ${peer[$preset]} \
        -c:a aac -b:a 128k -ac 2 -movflags +faststart "$work/out/{/.}.mp4" ::: "${subset[@]}")
  echo "| $preset, $transcodes clips of 3 s | $how | $tm | $tf | $(ratio "$tm" "$tf") |"
done
echo
echo "ffmpeg peers: \`ffmpeg -ss 1.0 -i clip -frames:v 1 out.png\`; typeMedium \`${peer[typeMedium]} -c:a aac -b:a 128k -ac 2\`;"
echo "typeIFrame960x540 \`${peer[typeIFrame960x540]} -c:a aac -b:a 128k -ac 2\`. Best of $runs runs."

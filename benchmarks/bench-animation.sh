#!/usr/bin/env bash
# bench-animation.sh — animated GIFs from movies: Medley's `animation:` against the FFmpeg wiki's
# palettegen/paletteuse recipe, same clips, same concurrency, one run (issue 31 goal: ≤ 0.8×).
#
#   ffmpeg -ss 5 -t 6 -i clip.mp4 -vf "fps=10,scale=480:-1:flags=lanczos,split[s0][s1];[s0]palettegen[p];[s1][p]paletteuse" clip.gif
#   medley: animation: { from: 5, duration: 6, fps: 10, width: 480, palette: clip }
#
# Clips: COUNT (default 8) × 20 s, 1280×720, 30 fps, H.264 (keyframe every 2 s), a moving test
# pattern with a hue sweep, made once into benchmarks/.animation-corpus. Both sides decode the same
# 6 s (60 pictures) of each clip and write one GIF per clip; ffmpeg runs JOBS (default nproc) at a
# time under GNU parallel, Medley as one `medley run` (its own workers). Wall time, best of RUNS
# (default 3), rounds interleaved. The ratio is Medley ÷ ffmpeg.
#
# Usage: benchmarks/bench-animation.sh [--count N]
# Environment: MEDLEY (default <repo>/.build/release/medley), RUNS, JOBS.
set -euo pipefail
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_dir=$(cd "$script_dir/.." && pwd)
count=8
while (($#)); do
  case $1 in
    --count) count=$2; shift 2 ;;
    -h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
runs=${RUNS:-3}
jobs=${JOBS:-$(nproc)}
medley=${MEDLEY:-"$repo_dir/.build/release/medley"}
[[ -x $medley ]] || { echo "build first: scripts/build.sh (or set MEDLEY)" >&2; exit 1; }
for tool in ffmpeg parallel; do command -v "$tool" >/dev/null || { echo "bench-animation: needs $tool" >&2; exit 1; }; done

corpus="$repo_dir/benchmarks/.animation-corpus"
mkdir -p "$corpus"
for i in $(seq 1 "$count"); do
  [[ -f $corpus/clip$i.mp4 ]] && continue
  ffmpeg -nostdin -v error -y -f lavfi -i "testsrc2=size=1280x720:rate=30:duration=20,hue=h=$i*40+30*t" \
    -c:v libx264 -preset veryfast -crf 23 -g 60 -pix_fmt yuv420p "$corpus/clip$i.mp4"
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/in"
for i in $(seq 1 "$count"); do cp "$corpus/clip$i.mp4" "$work/in/"; done
cat > "$work/pipeline.yaml" <<YAML
version: 1
jobs:
  - name: gifs
    ingest: { from: [$work/in], media: [movie] }
    animation: { from: 5, duration: 6, fps: 10, width: 480, palette: clip }
    export: { to: $work/medley }
YAML

medley_side() { rm -rf "$work/medley"; "$medley" run "$work/pipeline.yaml" --quiet >/dev/null; }
ffmpeg_side() {
  rm -rf "$work/ffmpeg" && mkdir -p "$work/ffmpeg"
  ls "$work/in"/*.mp4 | parallel -j"$jobs" ffmpeg -nostdin -v error -y -ss 5 -t 6 -i {} \
    -vf "'fps=10,scale=480:-1:flags=lanczos,split[s0][s1];[s0]palettegen[p];[s1][p]paletteuse'" "$work/ffmpeg/{/.}.gif"
}
seconds() { local start end; start=$(date +%s.%N); "$@"; end=$(date +%s.%N); awk -v s="$start" -v e="$end" 'BEGIN{printf "%.3f", e - s}'; }
best_medley="" best_ffmpeg=""
for round in $(seq "$runs"); do
  m=$(seconds medley_side); f=$(seconds ffmpeg_side)
  echo "round $round: medley $m s, ffmpeg $f s" >&2
  best_medley=$(awk -v a="$best_medley" -v b="$m" 'BEGIN{ print (a == "" || b < a) ? b : a }')
  best_ffmpeg=$(awk -v a="$best_ffmpeg" -v b="$f" 'BEGIN{ print (a == "" || b < a) ? b : a }')
done
size() { du -cb "$1"/*.gif | tail -1 | cut -f1; }
frames=$(ffprobe -v error -count_frames -select_streams v -show_entries stream=nb_read_frames -of csv=p=0 "$work/medley/clip1.gif")
ffframes=$(ffprobe -v error -count_frames -select_streams v -show_entries stream=nb_read_frames -of csv=p=0 "$work/ffmpeg/clip1.gif")
echo "clips: $count × 20 s 1280×720 H.264; GIF: 6 s at 10 fps, 480 px wide ($frames pictures Medley, $ffframes ffmpeg)"
printf "%-40s %8s s  %10s bytes\n" "medley animation (palette: clip)" "$best_medley" "$(size "$work/medley")"
printf "%-40s %8s s  %10s bytes\n" "ffmpeg palettegen/paletteuse" "$best_ffmpeg" "$(size "$work/ffmpeg")"
awk -v a="$best_medley" -v b="$best_ffmpeg" 'BEGIN{printf "ratio medley/ffmpeg: %.2f (goal ≤ 0.8)\n", a / b}'

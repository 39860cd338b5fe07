#!/usr/bin/env bash
# bench-movie-codecs.sh — issue 31's movie settings against the ffmpeg CLI, same files, same
# concurrency, one run:
#   1. HEVC (libx265 CRF 28, preset fast) and AV1 (SVT-AV1 CRF 35, preset 8) + AAC 128 kb/s:
#      `medley run` with {videoCodec: hevc|av1, crf, speed} versus ffmpeg with the same encoder
#      settings (goal ≤ 1.05×: the encoder is the same)
#   2. soundtrack extraction (`AVFormatIDKey: copy` → .m4a) versus `ffmpeg -vn -acodec copy`
#      (goal ≤ 1.2×: it is I/O)
#
# Clips made once into benchmarks/.movie-codec-corpus by ffmpeg from real photos of the test data
# cache (scripts/setup.sh --test), panned, with a real sound (freedesktop's alarm-clock-elapsed):
# ENCODES (default 4) × 8 s 1280×720 at 30 fps for the encoders, SOUNDS (default 200) × 8 s
# 640×360 for the extraction.
#
# Usage: benchmarks/bench-movie-codecs.sh
# Environment: MEDLEY (default <repo>/.build/release/medley, else .build/debug/medley), RUNS
# (default 3; 1 for the encoders unless ENCODE_RUNS), JOBS (default nproc), ENCODES, SOUNDS.
set -euo pipefail
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_dir=$(cd "$script_dir/.." && pwd)
runs=${RUNS:-3}
encode_runs=${ENCODE_RUNS:-1}
jobs=${JOBS:-$(nproc)}
encodes=${ENCODES:-4}
sounds=${SOUNDS:-200}
medley=${MEDLEY:-"$repo_dir/.build/release/medley"}
[[ -x $medley ]] || medley="$repo_dir/.build/debug/medley"
[[ -x $medley ]] || { echo "build first: swift build -c release" >&2; exit 1; }
for tool in ffmpeg parallel; do command -v "$tool" >/dev/null || { echo "bench-movie-codecs: needs $tool" >&2; exit 1; }; done
data=${MEDLEY_TEST_DATA:-${XDG_CACHE_HOME:-$HOME/.cache}/medley-tests}
photos="$data/photos/photos"
sound="$data/realworld-audio-subset/audio/sound-theme-freedesktop/usr/share/sounds/freedesktop/stereo/alarm-clock-elapsed.oga"
[[ -f $sound && -d $photos ]] || { echo "bench-movie-codecs: needs the test data cache (scripts/setup.sh --test)" >&2; exit 1; }
mapfile -t pictures < <(find "$photos" -name '*.jpg' | sort | head -8)

corpus="$repo_dir/benchmarks/.movie-codec-corpus"
mkdir -p "$corpus/encode" "$corpus/sound"
make_clip() { # photo size seconds out
  ffmpeg -nostdin -v error -y -loop 1 -i "$1" -stream_loop -1 -i "$sound" -filter_complex \
    "[0:v]scale=${2%x*}*2:-2,crop=${2%x*}:${2#*x}:x='t*40':y=0,format=yuv420p[v]" -map "[v]" -map 1:a \
    -t "$3" -r 30 -c:v libx264 -preset veryfast -crf 20 -g 60 -c:a aac -b:a 128k -ac 2 \
    -metadata title="$(basename "$1" .jpg)" "$4"
}
for i in $(seq 1 "$encodes"); do
  f="$corpus/encode/clip$i.mp4"
  [[ -f $f ]] || make_clip "${pictures[$(( (i - 1) % ${#pictures[@]} ))]}" 1280x720 8 "$f"
done
if (($(find "$corpus/sound" -name '*.mp4' | wc -l) < sounds)); then
  make_clip "${pictures[0]}" 640x360 8 "$corpus/sound/base.mp4"
  # The same movie under many names: extraction reads every file anyway.
  for i in $(seq 1 "$sounds"); do cp "$corpus/sound/base.mp4" "$corpus/sound/clip$i.mp4"; done
  rm "$corpus/sound/base.mp4"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
best_of() { # runs command…
  local n=$1 best=""; shift
  for _ in $(seq "$n"); do
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
pipeline() { # folder transcode name
  cat > "$work/pipeline.yaml" <<YAML
version: 1
jobs:
  - name: movies
    ingest: { from: [$1], media: [movie] }
    transcode: $2
    export: { to: $work/out, name: "$3" }
YAML
}
run_medley() { "$medley" run "$work/pipeline.yaml" --jobs "$jobs" --quiet --force; }

echo "### Movie codecs and soundtracks against the ffmpeg CLI, $jobs at a time ($(date -u +%Y-%m-%d), $(ffmpeg -version | head -1 | cut -d' ' -f1-3), $(basename "$(dirname "$(dirname "$medley")")")/$(basename "$(dirname "$medley")") medley)"
echo
echo "| task | Medley best s | ffmpeg best s | Medley ÷ ffmpeg | goal |"
echo "|---|---:|---:|---:|---:|"
encode=("$corpus"/encode/*.mp4)
declare -A setting=([hevc]="{ videoCodec: hevc, crf: 28, speed: fast }" [av1]="{ videoCodec: av1, crf: 35, speed: fast }")
declare -A peer=(
  [hevc]="-c:v libx265 -crf 28 -preset fast -x265-params log-level=none -pix_fmt yuv420p"
  [av1]="-c:v libsvtav1 -crf 35 -preset 8 -pix_fmt yuv420p"
)
for codec in hevc av1; do
  pipeline "$corpus/encode" "${setting[$codec]}" "{stem}.mp4"
  echo "bench-movie-codecs: $codec" >&2
  tm=$(SVT_LOG=1 best_of "$encode_runs" run_medley)
  # shellcheck disable=SC2086
  tf=$(SVT_LOG=1 best_of "$encode_runs" parallel -j"$jobs" ffmpeg -nostdin -v error -y -i {} ${peer[$codec]} \
        -c:a aac -b:a 128k -ac 2 -movflags +faststart "$work/out/{/.}.mp4" ::: "${encode[@]}")
  echo "| $codec, ${#encode[@]} clips of 8 s 1280×720 | $tm | $tf | $(ratio "$tm" "$tf") | ≤ 1.05 |"
done
pipeline "$corpus/sound" "{ AVFormatIDKey: copy }" "{stem}.{ext}"
echo "bench-movie-codecs: soundtracks" >&2
ts=("$corpus"/sound/*.mp4)
tm=$(best_of "$runs" run_medley)
tf=$(best_of "$runs" parallel -j"$jobs" ffmpeg -nostdin -v error -y -i {} -vn -acodec copy "$work/out/{/.}.m4a" ::: "${ts[@]}")
echo "| soundtrack copy → .m4a, ${#ts[@]} clips of 8 s | $tm | $tf | $(ratio "$tm" "$tf") | ≤ 1.2 |"
echo
echo "ffmpeg peers: hevc \`${peer[hevc]} -c:a aac -b:a 128k -ac 2\`; av1 \`${peer[av1]} -c:a aac -b:a 128k -ac 2\`"
echo "(Medley's speed \`fast\` is SVT-AV1's preset 8); soundtracks \`ffmpeg -i clip.mp4 -vn -acodec copy clip.m4a\`."
echo "Best of $encode_runs run(s) for the encoders, $runs for the soundtracks; \`lscpu\`: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores."

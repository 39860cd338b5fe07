#!/usr/bin/env bash
# bench-segment.sh — long recordings split into numbered parts, Medley against the peers on the same
# files, one run: `medley run` with `transcode.segment: {every: 5m}` vs `sox in out trim 0 300 : newfile
# : restart` a process a recording, and ffmpeg's segment muxer (`-f segment -segment_time 300`, which
# cuts at packet edges, not at the sample). FLAC → FLAC parts and MP3 → MP3 parts (LAME at 128 kb/s in
# each tool). Medley and parallel take `nproc` at once. Each timing is the best of RUNS.
#
# Usage: benchmarks/bench-segment.sh [MINUTES]   (default 30: two recordings of that length)
# Environment: MEDLEY (default <repo>/.build/release/medley), RUNS (default 3).
set -euo pipefail
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_dir=$(cd "$script_dir/.." && pwd)
minutes=${1:-30}
[[ $minutes == -h || $minutes == --help ]] && { sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0; }
runs=${RUNS:-3}
medley=${MEDLEY:-"$repo_dir/.build/release/medley"}
[[ -x $medley ]] || { echo "build first: scripts/build.sh" >&2; exit 1; }
for tool in sox ffmpeg parallel; do
  command -v "$tool" >/dev/null || { echo "bench-segment: $tool is missing (scripts/setup.sh --test)" >&2; exit 1; }
done
sox -h 2>/dev/null | grep -q 'AUDIO FILE FORMATS:.* mp3' || { echo "bench-segment: sox cannot write MP3 (libsox-fmt-mp3)" >&2; exit 1; }
jobs=$(nproc)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/in/flac" "$work/in/mp3"
seconds=$((minutes * 60))
# Speech-like material: pink noise under a slow sweep, 44.1 kHz stereo.
sox -R -n -r 44100 -c 2 -b 16 "$work/in/flac/talk.flac" synth "$seconds" pinknoise synth "$seconds" sine mix 100-2000 vol 0.4
ffmpeg -v error -i "$work/in/flac/talk.flac" -c:a libmp3lame -b:a 128k "$work/in/mp3/show.mp3"
parts=$(( (seconds + 299) / 300 ))
echo "bench-segment: 2 recordings of $minutes min (FLAC $(du -h "$work/in/flac/talk.flac" | cut -f1), MP3 $(du -h "$work/in/mp3/show.mp3" | cut -f1)), $parts parts each, best of $runs" >&2

best_of() {
  local out=$1; shift
  local best=""
  for _ in $(seq "$runs"); do
    rm -rf "$out"; mkdir -p "$out"
    local start end
    start=$(date +%s.%N)
    "$@" >/dev/null 2>"$work/stderr" || { cat "$work/stderr" >&2; echo "bench-segment: failed: $*" >&2; exit 1; }
    end=$(date +%s.%N)
    best=$(awk -v a="$best" -v s="$start" -v e="$end" 'BEGIN{ b = e - s; if (a == "" || b < a) print b; else print a }')
  done
  printf "%.2f\n" "$best"
}
# Parts of at least 16 KiB are counted: sox decodes an MP3 with its encoder delay and padding (not
# gapless), so its MP3 is ~50 ms longer and `newfile` leaves one more, tiny, part.
check() {
  local n; n=$(find "$1" -type f \( -name '*.flac' -o -name '*.mp3' \) -size +16k | wc -l)
  [[ $n == $((2 * parts)) ]] || { echo "bench-segment: $1 has $n parts, not $((2 * parts))" >&2; exit 1; }
}

cat > "$work/segment.yaml" <<YAML
version: 1
jobs:
  - name: flac
    ingest: { from: [$work/in/flac] }
    transcode: { AVFormatIDKey: kAudioFormatFLAC, segment: { every: 5m } }
    export: { to: $work/out/medley/flac }
  - name: mp3
    ingest: { from: [$work/in/mp3] }
    transcode: { AVFormatIDKey: kAudioFormatMPEGLayer3, AVEncoderBitRateKey: 128000, segment: { every: 5m } }
    export: { to: $work/out/medley/mp3 }
YAML
medley_s=$(best_of "$work/out/medley" "$medley" run "$work/segment.yaml" --quiet --jobs "$jobs")
check "$work/out/medley"
sox_s=$(best_of "$work/out/sox" parallel -j "$jobs" ::: \
  "sox $work/in/flac/talk.flac $work/out/sox/talk.flac trim 0 300 : newfile : restart" \
  "sox $work/in/mp3/show.mp3 -C 128 $work/out/sox/show.mp3 trim 0 300 : newfile : restart")
check "$work/out/sox"
ffmpeg_s=$(best_of "$work/out/ffmpeg" parallel -j "$jobs" ::: \
  "ffmpeg -v error -i $work/in/flac/talk.flac -f segment -segment_time 300 -c:a flac $work/out/ffmpeg/talk%03d.flac" \
  "ffmpeg -v error -i $work/in/mp3/show.mp3 -f segment -segment_time 300 -c:a libmp3lame -b:a 128k $work/out/ffmpeg/show%03d.mp3")
check "$work/out/ffmpeg"

ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ printf "%.2f", a / b }'; }
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "medley segment:   ${medley_s} s"
echo "sox trim newfile: ${sox_s} s   medley/sox:    $(ratio "$medley_s" "$sox_s")x"
echo "ffmpeg segment:   ${ffmpeg_s} s   medley/ffmpeg: $(ratio "$medley_s" "$ffmpeg_s")x"

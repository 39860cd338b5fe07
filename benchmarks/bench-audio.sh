#!/usr/bin/env bash
# bench-audio.sh — audio transcoding against peers, same files, same concurrency, one run:
#   1. 44.1 kHz stereo → 48 kHz stereo AAC 128 kb/s in .m4a versus `parallel ffmpeg -c:a aac -b:a 128k`
#   2. resample-only to FLAC 48 kHz versus libsamplerate's own sndfile-resample (same converter) and SoX
#
# Usage: benchmarks/bench-audio.sh [--minutes M] [--files N]   (defaults: 30 minutes in 10 files)
# Environment: MEDLEY (default <repo>/.build/release/medley), RUNS (default 3).
set -euo pipefail
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_dir=$(cd "$script_dir/.." && pwd)
minutes=30
files=10
while (($#)); do
  case $1 in
    --minutes) minutes=$2; shift 2 ;;
    --files) files=$2; shift 2 ;;
    -h | --help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
runs=${RUNS:-3}
jobs=$(nproc)
medley=${MEDLEY:-"$repo_dir/.build/release/medley"}
[[ -x $medley ]] || { echo "build first: scripts/build.sh" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/in"
seconds=$(( minutes * 60 / files ))
echo "bench-audio: making $files × ${seconds} s of 44.1 kHz stereo music-like audio" >&2
for i in $(seq 1 "$files"); do
  # A chord with vibrato plus pink noise: broadband, like music, not a bare sine.
  sox -n -r 44100 -c 2 -b 16 "$work/in/track$i.wav" synth "$seconds" \
    sine $((220 + i * 7)) sine $((277 + i * 5)) sine $((330 + i * 3)) pinknoise \
    tremolo 5 30 gain -n -3 2>/dev/null
done

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

cat > "$work/flac.yaml" <<YAML
version: 1
jobs:
  - name: resample
    ingest: { from: [$work/in] }
    transcode:
      AVFormatIDKey: kAudioFormatFLAC
      AVSampleRateKey: 48000
      AVSampleRateConverterAudioQualityKey: AVAudioQuality.high
    export: { to: $work/out, name: "{stem}.flac" }
YAML
echo "### AAC 128 kb/s stereo in .m4a: $minutes min of 44.1 kHz stereo, $files files, $jobs at a time ($(date -u +%Y-%m-%d))"
echo
echo "| output rate | medley best s | parallel ffmpeg -c:a aac -b:a 128k best s | Medley ÷ ffmpeg |"
echo "|---|---:|---:|---:|"
for rate in 44100 48000; do
  cat > "$work/aac.yaml" <<YAML
version: 1
jobs:
  - name: aac
    ingest: { from: [$work/in] }
    transcode:
      AVFormatIDKey: kAudioFormatMPEG4AAC
      AVSampleRateKey: $rate
      AVNumberOfChannelsKey: 2
      AVEncoderBitRateKey: 128000
    export: { to: $work/out, name: "{stem}.m4a" }
YAML
  echo "bench-audio: timing AAC at $rate Hz" >&2
  ta=$(best_of "$medley" run "$work/aac.yaml" --quiet --force)
  tf=$(best_of parallel -j"$jobs" ffmpeg -v error -y -i {} -ar "$rate" -c:a aac -b:a 128k "$work/out/{/.}.m4a" ::: "$work"/in/*.wav)
  note=""
  [[ $rate != 44100 ]] && note=" (Medley resamples with libsamplerate sinc, ffmpeg with swresample)"
  echo "| $rate Hz$note | $ta | $tf | $(ratio "$ta" "$tf") |"
done
echo
echo "bench-audio: timing" >&2
tm=$(best_of "$medley" run "$work/flac.yaml" --quiet --force)
ts=$(best_of parallel -j"$jobs" sndfile-resample -to 48000 -c 1 {} "$work/out/{/.}.flac" ::: "$work"/in/*.wav)
tx=$(best_of parallel -j"$jobs" sox {} -r 48000 "$work/out/{/.}.flac" rate -h ::: "$work"/in/*.wav)

echo "### Resample to FLAC 48 kHz: $minutes min of 44.1 kHz stereo in $files files, $jobs at a time ($(date -u +%Y-%m-%d))"
echo
echo "| tool | best s | Medley ÷ peer |"
echo "|---|---:|---:|"
echo "| medley (AVAudioQuality.high → libsamplerate sinc medium) | $tm | |"
echo "| parallel sndfile-resample -c 1 (sinc medium) | $ts | $(ratio "$tm" "$ts") |"
echo "| parallel sox rate -h | $tx | $(ratio "$tm" "$tx") |"

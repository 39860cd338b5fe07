#!/usr/bin/env bash
# bench-aac.sh — real music → AAC 128 kb/s stereo .m4a, Medley versus `parallel -j N ffmpeg` with
# the same encoder (FFmpeg's native `aac`), per source kind (OGG Vorbis, MP3, FLAC) × output rate
# (44.1 and 48 kHz), N = nproc files at a time (issue 18 goal 4).
#
# Usage: benchmarks/bench-aac.sh [--seconds S | --full] [--corpus DIR]
#   The corpus is benchmarks/real-music.sh's (made in DIR, default /tmp/medley-real-music, if absent).
#   Each track is cut (stream copy, no re-encoding) to its first S seconds (default 40) so the whole
#   table takes about 3 minutes on 2 cores; --full uses the full-length tracks (3–7.5 min each).
#   Three tracks per kind on N cores: the tail of the batch (one track left) is part of the timing.
# Environment: MEDLEY (default <repo>/.build/release/medley), RUNS (default 3; best of RUNS,
#   Medley and ffmpeg interleaved A B A B …), BEFORE (optional: another medley binary, e.g. an
#   older build, timed in the same interleaving and shown in two extra columns).
# CPU: user + system seconds (best of RUNS), less sensitive to the machine's load than wall time.
# Checks per cell (on one track): the two outputs' durations (ffprobe) and integrated loudness
# (ffmpeg ebur128) are printed; a duration difference over 1 AAC frame (1024 samples) is flagged.
set -euo pipefail
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_dir=$(cd "$script_dir/.." && pwd)
seconds=40
corpus=/tmp/medley-real-music
while (($#)); do
  case $1 in
    --seconds) seconds=$2; shift 2 ;;
    --full) seconds=0; shift ;;
    --corpus) corpus=$2; shift 2 ;;
    -h | --help) sed -n "2,17p" "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
runs=${RUNS:-3}
jobs=$(nproc)
medley=${MEDLEY:-"$repo_dir/.build/release/medley"}
before=${BEFORE:-}
[[ -x $medley ]] || { echo "build first: scripts/build.sh" >&2; exit 1; }
[[ -f $corpus/flac/.done && -f $corpus/mp3/.done && -f $corpus/ogg/.done ]] || "$script_dir/real-music.sh" "$corpus"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for kind in ogg mp3 flac; do
  mkdir -p "$work/in/$kind"
  for f in "$corpus/$kind"/*."$kind"; do
    if ((seconds > 0)) && [[ $kind == flac ]]; then
      # ffmpeg's stream copy keeps the source's STREAMINFO sample count, which would make the
      # excerpt a truncated FLAC: the flac tool re-encodes the same samples losslessly instead.
      flac -s -5 --until="$((seconds / 60)):$((seconds % 60))" -o "$work/in/$kind/$(basename "$f")" "$f"
    elif ((seconds > 0)); then
      ffmpeg -v error -i "$f" -t "$seconds" -map 0:a -c copy "$work/in/$kind/$(basename "$f")"
    else
      cp "$f" "$work/in/$kind/"
    fi
  done
done

# time CMD… → "wall-seconds cpu-seconds" of one run (CPU: user + system of the command and every
# child it waited for, so parallel's ffmpegs count; outputs into $work/out/$tool)
time_once() {
  "$TIME" -f "%e %U %S" -o "$work/time" "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; return 1; }
  awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' "$work/time"
}
TIME=/usr/bin/time
[[ -x $TIME ]] || { echo "bench-aac needs GNU time (apt-get install time)" >&2; exit 1; }
min() { awk -v a="$1" -v b="$2" 'BEGIN{ if (a == "" || b < a) print b; else print a }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", a/b}'; }
duration() { ffprobe -v error -select_streams a:0 -show_entries stream=duration -of csv=p=0 "$1"; }
loudness() { ffmpeg -nostats -hide_banner -i "$1" -af ebur128 -f null - 2>&1 | awk '/Integrated loudness/ {getline; print $2}'; }

cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
echo "### Real music → AAC 128 kb/s stereo .m4a, $jobs at a time, best of $runs ($(date -u +%Y-%m-%dT%H:%M:%SZ), $cpu, $(ffmpeg -version | head -1 | cut -d' ' -f1-3), load $(cut -d' ' -f1-3 /proc/loadavg))"
echo
echo "Tracks: $( ((seconds > 0)) && echo "first $seconds s of each" || echo "full length"); 3 per kind."
echo
extra_head="" extra_rule=""
[[ -n $before ]] && extra_head=" before best s | before ÷ ffmpeg |" extra_rule="---:|---:|"
echo "| source | output rate | medley best s | parallel ffmpeg best s | Medley ÷ ffmpeg | CPU s medley / ffmpeg | CPU ÷ ffmpeg |$extra_head duration s medley / ffmpeg | loudness LUFS medley / ffmpeg |"
echo "|---|---|---:|---:|---:|---:|---:|$extra_rule---|---|"
for kind in ogg mp3 flac; do
  src_rate=$(ffprobe -v error -select_streams a:0 -show_entries stream=sample_rate -of csv=p=0 "$(ls "$work/in/$kind"/* | head -1)")
  for rate in 44100 48000; do
    cat > "$work/aac.yaml" <<YAML
version: 1
jobs:
  - name: aac
    ingest: { from: [$work/in/$kind] }
    transcode:
      AVFormatIDKey: kAudioFormatMPEG4AAC
      AVSampleRateKey: $rate
      AVNumberOfChannelsKey: 2
      AVEncoderBitRateKey: 128000
    export: { to: $work/out/medley, name: "{stem}.m4a" }
YAML
    echo "bench-aac: $kind → $rate Hz" >&2
    tm="" tf="" tb="" cm="" cf=""
    for _ in $(seq "$runs"); do
      rm -rf "$work/out" && mkdir -p "$work/out/medley" "$work/out/ffmpeg"
      if [[ -n $before ]]; then t=$(time_once "$before" run "$work/aac.yaml" --quiet --force --jobs "$jobs"); tb=$(min "$tb" "${t% *}"); fi
      t=$(time_once "$medley" run "$work/aac.yaml" --quiet --force --jobs "$jobs"); read -r w c <<<"$t"
      tm=$(min "$tm" "$w") cm=$(min "$cm" "$c")
      t=$(time_once parallel -j"$jobs" ffmpeg -v error -y -i {} -ar "$rate" -c:a aac -b:a 128k "$work/out/ffmpeg/{/.}.m4a" ::: "$work/in/$kind"/*)
      read -r w c <<<"$t"
      tf=$(min "$tf" "$w") cf=$(min "$cf" "$c")
    done
    one=$(ls "$work/in/$kind" | head -1); one=${one%.*}
    dm=$(duration "$work/out/medley/$one.m4a"); df=$(duration "$work/out/ffmpeg/$one.m4a")
    flag=$(awk -v a="$dm" -v b="$df" -v r="$rate" 'BEGIN{ d = a - b; if (d < 0) d = -d; if (d * r > 1024) print " **differ**" }')
    extra=""
    [[ -n $before ]] && extra=" $(printf %.2f "$tb") | $(ratio "$tb" "$tf") |"
    echo "| $kind ($src_rate Hz) | $rate Hz | $(printf %.2f "$tm") | $(printf %.2f "$tf") | **$(ratio "$tm" "$tf")** | $(printf %.2f "$cm") / $(printf %.2f "$cf") | $(ratio "$cm" "$cf") |$extra $dm / $df$flag | $(loudness "$work/out/medley/$one.m4a") / $(loudness "$work/out/ffmpeg/$one.m4a") |"
  done
done
echo
echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg). Medley resamples with its polyphase sinc (libsamplerate's SINC_FASTEST bank, AVAudioQuality.medium), ffmpeg with swresample's defaults."

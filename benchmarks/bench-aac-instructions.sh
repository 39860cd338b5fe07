#!/usr/bin/env bash
# bench-aac-instructions.sh — instructions executed (valgrind callgrind, every thread) by Medley
# and by ffmpeg for one FLAC 44.1 kHz excerpt → AAC 128 kb/s stereo .m4a at 44.1 and 48 kHz, one
# process each, start-up included (issue 18 goal 4). Instruction counts do not depend on the
# machine's load, so this is the comparison to read when bench-aac.sh's wall times are noisy.
#
# Usage: benchmarks/bench-aac-instructions.sh [--seconds S] [--corpus DIR]
#   The excerpt is the first S seconds (default 10) of the corpus' first FLAC track
#   (benchmarks/real-music.sh's corpus, made in DIR, default /tmp/medley-real-music, if absent).
#   About 3 minutes at the defaults on this 2-core machine (valgrind runs one thread at a time).
# Environment: MEDLEY (default <repo>/.build/release/medley), BEFORE (optional: another medley
#   binary, counted too). Copies of the binaries without DWARF (strip --strip-debug) are what
#   valgrind runs: its debuginfo reader gives up on the Swift toolchain's. RUNS is not used:
#   the counts are the same from run to run within a few parts per million.
set -euo pipefail
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_dir=$(cd "$script_dir/.." && pwd)
seconds=10
corpus=/tmp/medley-real-music
while (($#)); do
  case $1 in
    --seconds) seconds=$2; shift 2 ;;
    --corpus) corpus=$2; shift 2 ;;
    -h | --help) sed -n "2,15p" "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
medley=${MEDLEY:-"$repo_dir/.build/release/medley"}
before=${BEFORE:-}
[[ -x $medley ]] || { echo "build first: scripts/build.sh" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "bench-aac-instructions needs valgrind" >&2; exit 1; }
[[ -f $corpus/flac/.done ]] || "$script_dir/real-music.sh" "$corpus"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/in"
track=$(ls "$corpus/flac"/*.flac | head -1)
flac -s -5 --until="$((seconds / 60)):$((seconds % 60))" -o "$work/in/excerpt.flac" "$track" 2>/dev/null
strip --strip-debug -o "$work/medley" "$medley"
[[ -n $before ]] && strip --strip-debug -o "$work/before" "$before"

# count NAME CMD… → the instructions CMD executed
count() {
  local name=$1; shift
  valgrind --tool=callgrind --callgrind-out-file="$work/$name.cg" "$@" >/dev/null 2>"$work/$name.err" \
    || { echo "failed: $*" >&2; tail -5 "$work/$name.err" >&2; return 1; }
  awk '/^(summary|totals):/ { print $2; exit }' "$work/$name.cg"
}
yaml() {
  cat > "$work/aac$1.yaml" <<YAML
version: 1
jobs:
  - name: aac
    ingest: { from: [$work/in] }
    transcode:
      AVFormatIDKey: kAudioFormatMPEG4AAC
      AVSampleRateKey: $1
      AVNumberOfChannelsKey: 2
      AVEncoderBitRateKey: 128000
    export: { to: $work/out, name: "{stem}.m4a" }
YAML
}
millions() { awk -v a="$1" 'BEGIN { printf "%.0f", a / 1e6 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }

cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
echo "### Instructions for one $(basename "$track" .flac) excerpt ($seconds s FLAC 44.1 kHz) → AAC 128 kb/s stereo, one process, start-up included ($(date -u +%Y-%m-%dT%H:%M:%SZ), $cpu, $(ffmpeg -version | head -1 | cut -d' ' -f1-3), $(valgrind --version))"
echo
extra_head="" extra_rule=""
[[ -n $before ]] && extra_head=" before M instr | before ÷ ffmpeg |" extra_rule="---:|---:|"
echo "| output rate | medley M instr | ffmpeg M instr | Medley ÷ ffmpeg |$extra_head"
echo "|---|---:|---:|---:|$extra_rule"
for rate in 44100 48000; do
  yaml "$rate"
  echo "bench-aac-instructions: → $rate Hz" >&2
  m=$(count "m$rate" "$work/medley" run "$work/aac$rate.yaml" --quiet --force --jobs 1)
  f=$(count "f$rate" ffmpeg -v error -y -i "$work/in/excerpt.flac" -ar "$rate" -c:a aac -b:a 128k "$work/ffmpeg$rate.m4a")
  extra=""
  if [[ -n $before ]]; then
    b=$(count "b$rate" "$work/before" run "$work/aac$rate.yaml" --quiet --force --jobs 1)
    extra=" $(millions "$b") | $(ratio "$b" "$f") |"
  fi
  echo "| $rate Hz | $(millions "$m") | $(millions "$f") | **$(ratio "$m" "$f")** |$extra"
done
echo
echo "Medley resamples with its polyphase sinc (libsamplerate's SINC_FASTEST captured as a bank, at start-up), ffmpeg with swresample's defaults; both encode with libavcodec's native aac."

#!/usr/bin/env bash
# bench-loudness-measure.sh — measuring loudness alone (issue 17, the measuring half of
# bench-loudness.sh): EBU R128 integrated loudness, loudness range, sample and true peak over
# ~30 min of music-like 44.1 kHz stereo FLAC, in the same run:
#   1. `medley probe --loudness` (decode with FFmpeg + libebur128, 4× oversampled true peak)
#   2. `ffmpeg -af ebur128=peak=true -f null -`, one file after another (its own meter; it
#      resamples to 48 kHz first, and true peak at 192 kHz), and the same with peak=none
#   3. libebur128 alone on the decoded samples (a small C harness compiled here), with and
#      without true peak: what the meter itself costs, apart from decoding
# Times are CPU seconds (user + system, from /usr/bin/time), so "realtime per core" is audio
# seconds ÷ CPU seconds whatever the machine's cores or load; wall seconds are printed beside.
#
# Usage: benchmarks/bench-loudness-measure.sh [--minutes M] [--files N]   (defaults: 30 minutes in 10 files)
# Environment: MEDLEY (default <repo>/.build/release/medley), RUNS (default 3, best of).
set -euo pipefail
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_dir=$(cd "$script_dir/.." && pwd)
minutes=30
files=10
while (($#)); do
  case $1 in
    --minutes) minutes=$2; shift 2 ;;
    --files) files=$2; shift 2 ;;
    -h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
runs=${RUNS:-3}
medley=${MEDLEY:-"$repo_dir/.build/release/medley"}
[[ -x $medley ]] || { echo "build first: scripts/build.sh (or set MEDLEY)" >&2; exit 1; }
"$medley" probe --help 2>&1 | grep -q -- --loudness || { echo "$medley has no probe --loudness: rebuild it" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/in"
seconds=$(( minutes * 60 / files ))
audio_seconds=$(( seconds * files ))
echo "bench-loudness-measure: making $files × ${seconds} s of 44.1 kHz stereo music-like FLAC" >&2
for i in $(seq 1 "$files"); do
  # A chord with vibrato plus pink noise, its level moving (tremolo): broadband, like music.
  sox -n -r 44100 -c 2 -b 16 "$work/in/track$i.flac" synth "$seconds" \
    sine $((220 + i * 7)) sine $((277 + i * 5)) sine $((330 + i * 3)) pinknoise \
    tremolo 0.2 60 gain -n -3 2>/dev/null
done

# libebur128 alone: reads interleaved float stereo from stdin-sized files, modes from argv.
cat > "$work/meter.c" <<'C'
#include <ebur128.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
  int mode = EBUR128_MODE_I | EBUR128_MODE_LRA | EBUR128_MODE_SAMPLE_PEAK;
  if (strcmp(argv[1], "true") == 0) mode |= EBUR128_MODE_TRUE_PEAK;
  enum { FRAMES = 4096 };
  static float block[FRAMES * 2];
  for (int f = 2; f < argc; f++) {
    FILE *in = fopen(argv[f], "rb");
    if (!in) return 1;
    ebur128_state *st = ebur128_init(2, 44100, mode);
    size_t n;
    while ((n = fread(block, sizeof(float) * 2, FRAMES, in)) > 0) ebur128_add_frames_float(st, block, n);
    double i, lra, peak = 0;
    ebur128_loudness_global(st, &i);
    ebur128_loudness_range(st, &lra);
    if (mode & EBUR128_MODE_TRUE_PEAK) ebur128_true_peak(st, 0, &peak);
    printf("%s %.2f %.2f %.4f\n", argv[f], i, lra, peak);
    ebur128_destroy(&st);
    fclose(in);
  }
  return 0;
}
C
cc -O2 -o "$work/meter" "$work/meter.c" -lebur128
for f in "$work"/in/*.flac; do sox "$f" -t f32 "${f%.flac}.f32"; done

# Best of $runs: prints "cpu wall" seconds.
best_of() {
  local best=""
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "%U %S %e" -o "$work/time" "$@" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; echo "failed: $*" >&2; return 1; }
    best=$(awk -v a="$best" '{ c = $1 + $2; if (a == "" || c < a + 0) printf "%.2f %.2f\n", c, $3; else print a }' "$work/time")
  done
  echo "$best"
}
sequential_ffmpeg() {
  for f in "$work"/in/*.flac; do ffmpeg -nostdin -hide_banner -nostats -i "$f" -af "ebur128=peak=$1" -f null - || return 1; done
}
export -f sequential_ffmpeg
export work
rt() { awk -v s="$audio_seconds" -v c="$1" 'BEGIN{printf "%.0f", s / c}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", a / b}'; }

echo "bench-loudness-measure: timing (best of $runs)" >&2
read -r m_cpu m_wall < <(best_of "$medley" probe --loudness "$work"/in/*.flac)
read -r ft_cpu ft_wall < <(best_of bash -c 'sequential_ffmpeg true')
read -r fn_cpu fn_wall < <(best_of bash -c 'sequential_ffmpeg none')
read -r lt_cpu lt_wall < <(best_of "$work/meter" true "$work"/in/*.f32)
read -r ln_cpu ln_wall < <(best_of "$work/meter" none "$work"/in/*.f32)

echo "### Measuring loudness: $minutes min of 44.1 kHz stereo FLAC in $files files ($(date -u +%Y-%m-%d), $(nproc) cores, $(uname -m))"
echo
echo "| what | CPU s | wall s | realtime per core | ÷ ffmpeg ebur128=peak=true (CPU) |"
echo "|---|---:|---:|---:|---:|"
echo "| medley probe --loudness (I, LRA, sample + true peak) | $m_cpu | $m_wall | $(rt "$m_cpu")× | $(ratio "$m_cpu" "$ft_cpu") |"
echo "| ffmpeg -af ebur128=peak=true, file after file | $ft_cpu | $ft_wall | $(rt "$ft_cpu")× | 1.00 |"
echo "| ffmpeg -af ebur128=peak=none | $fn_cpu | $fn_wall | $(rt "$fn_cpu")× | $(ratio "$fn_cpu" "$ft_cpu") |"
echo "| libebur128 alone on decoded floats, with true peak | $lt_cpu | $lt_wall | $(rt "$lt_cpu")× | $(ratio "$lt_cpu" "$ft_cpu") |"
echo "| libebur128 alone, without true peak | $ln_cpu | $ln_wall | $(rt "$ln_cpu")× | $(ratio "$ln_cpu" "$ft_cpu") |"
echo
echo "True peak's share of libebur128's time: $(awk -v t="$lt_cpu" -v n="$ln_cpu" 'BEGIN{printf "%.0f%%", (t > 0 ? 100 * (t - n) / t : 0)}'); target: measuring ≥ 200× realtime per core."

#!/usr/bin/env bash
# bench-loudness.sh — loudness normalization to -16 LUFS / -1 dBTP into AAC 128 kb/s .m4a, same files,
# same concurrency, one run:
#   medley `normalize: {loudness: -16LUFS, truePeak: -1dBTP}` (libebur128 measure, one linear gain)
#   versus ffmpeg-normalize's two-pass ffmpeg: `loudnorm=…:print_format=json` to measure, then
#   `loudnorm=…:measured_*=…:linear=true` with `-ar` back to the source rate and `-c:a aac -b:a 128k`.
# Afterwards every output of both is measured by ffmpeg's ebur128 filter (how close each got). Then
# bench-loudness-measure.sh times measuring alone (Medley vs ffmpeg ebur128 and libebur128 itself).
#
# Usage: benchmarks/bench-loudness.sh [--minutes M] [--files N]   (defaults: 30 minutes in 10 files)
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
    -h | --help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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
echo "bench-loudness: making $files × ${seconds} s of 44.1 kHz stereo music-like audio at different levels" >&2
for i in $(seq 1 "$files"); do
  # A chord with vibrato plus pink noise (broadband, like music), each file at its own level
  # (-8 … -26 dBFS peaks) so every one needs a different gain.
  sox -n -r 44100 -c 2 -b 16 "$work/in/track$i.wav" synth "$seconds" \
    sine $((220 + i * 7)) sine $((277 + i * 5)) sine $((330 + i * 3)) pinknoise \
    tremolo 5 30 gain -n -$(( 8 + (i * 7) % 19 )) 2>/dev/null
done

# ffmpeg-normalize's EBU R128 mode, per file: measure, then apply with the measured values.
cat > "$work/two-pass.sh" <<'SH'
#!/usr/bin/env bash
set -euo pipefail
in=$1 out=$2
target="I=-16:TP=-1:LRA=11"
json=$(ffmpeg -hide_banner -nostats -i "$in" -af "loudnorm=$target:print_format=json" -f null - 2>&1 | sed -n '/^{/,/^}/p')
get() { printf '%s\n' "$json" | sed -n "s/.*\"$1\" : \"\(.*\)\".*/\1/p"; }
ffmpeg -v error -y -i "$in" -af "loudnorm=$target:measured_I=$(get input_i):measured_TP=$(get input_tp):measured_LRA=$(get input_lra):measured_thresh=$(get input_thresh):offset=$(get target_offset):linear=true" \
  -ar 44100 -c:a aac -b:a 128k "$out"
SH
chmod +x "$work/two-pass.sh"

cat > "$work/normalize.yaml" <<YAML
version: 1
jobs:
  - name: loudness
    ingest: { from: [$work/in] }
    transcode:
      AVFormatIDKey: kAudioFormatMPEG4AAC
      AVEncoderBitRateKey: 128000
      normalize: { loudness: -16LUFS, truePeak: -1dBTP }
    export: { to: $work/out, name: "{stem}.m4a" }
YAML

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
# The largest distance from -16 LUFS and the highest true peak over a folder's outputs (ffmpeg ebur128).
accuracy() {
  for f in "$1"/*.m4a; do
    ffmpeg -hide_banner -nostats -i "$f" -af ebur128=peak=true:framelog=verbose -f null - 2>&1 |
      awk '/^ +I:/ { i = $2 } /^ +Peak:/ { p = $2 } END { print i, p }'
  done | awk '{ d = $1 + 16; if (d < 0) d = -d; if (d > worst) worst = d; if (NR == 1 || $2 > peak) peak = $2 }
              END { printf "±%.1f LU, max true peak %.1f dBTP", worst, peak }'
}

echo "bench-loudness: timing medley" >&2
tm=$(best_of "$medley" run "$work/normalize.yaml" --quiet --force --jobs "$jobs")
am=$(accuracy "$work/out")
echo "bench-loudness: timing two-pass ffmpeg loudnorm" >&2
tf=$(best_of bash -c "ls '$work'/in/*.wav | xargs -P $jobs -I{} sh -c 'f={}; \"$work/two-pass.sh\" \"\$f\" \"$work/out/\$(basename \"\$f\" .wav).m4a\"'")
af=$(accuracy "$work/out")

cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
echo "### Loudness normalization to -16 LUFS / -1 dBTP into AAC 128 kb/s: $minutes min of 44.1 kHz stereo, $files files, $jobs at a time ($(date -u +%Y-%m-%d), $cpu, $(ffmpeg -version | head -1 | cut -d' ' -f1-3))"
echo
echo "| tool | best of $runs, s | outputs by ffmpeg ebur128 | Medley ÷ ffmpeg |"
echo "|---|---:|---|---:|"
echo "| medley normalize (libebur128 measure + one gain, libavcodec aac) | $tm | $am | $(ratio "$tm" "$tf") |"
echo "| ffmpeg loudnorm two-pass, linear=true (ffmpeg-normalize's method) | $tf | $af | |"

# The measuring half: loudness alone over the same length of audio (its own files: FLAC), against
# ffmpeg's ebur128 and libebur128 itself; the issue's target is ≥ 200× realtime per core.
echo
"$script_dir/bench-loudness-measure.sh" --minutes "$minutes" --files "$files"

#!/usr/bin/env bash
# bench-loudness-delivered.sh — loudness normalization of loud music (true peak over 0 dBTP) into
# AAC 128 kb/s .m4a at -16 LUFS / -1 dBTP, measured as delivered (issue 31), same files, same
# concurrency, one run:
#   medley `normalize: podcast` (limit: true by default): measure, gain + true-peak limiter, encode,
#     then decode the .m4a, measure its true peak, and encode again (up to 3 encodes) while it is over
#   ffmpeg-normalize (pip, in a throw-away venv: never a Medley dependency), its default EBU R128 mode:
#     two ffmpeg passes (loudnorm measure, then loudnorm apply) into `-c:a aac -b:a 128k`
# Afterwards every output of both is measured by ffmpeg's ebur128=peak=true.
#
# Usage: benchmarks/bench-loudness-delivered.sh [FOLDER]
#   FOLDER: music to use (e.g. frozen-bubble-data's snd/*.ogg, fetched with `apt-get download
#   frozen-bubble-data` and `dpkg-deb -x`); without it, 6 × 60 s loud masters made by sox.
# Environment: MEDLEY (default <repo>/.build/release/medley), RUNS (default 3, best of),
#   FFMPEG_NORMALIZE (default: a venv in the work folder with `pip install ffmpeg-normalize`).
set -euo pipefail
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_dir=$(cd "$script_dir/.." && pwd)
runs=${RUNS:-3}
jobs=$(nproc)
medley=${MEDLEY:-"$repo_dir/.build/release/medley"}
[[ -x $medley ]] || { echo "build first: scripts/build.sh (or set MEDLEY)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/in"
if (($#)); then
  find "$1" -maxdepth 1 -type f \( -name '*.ogg' -o -name '*.wav' -o -name '*.flac' -o -name '*.mp3' \) -size +300k \
    -exec cp {} "$work/in/" \;
else
  echo "bench-loudness-delivered: making 6 × 60 s loud masters (true peak over 0 dBTP)" >&2
  for i in 1 2 3 4 5 6; do
    sox -R -n -r 44100 -c 2 -b 16 "$work/in/master$i.wav" synth 60 pluck $((100 + i * 11)) pluck $((150 + i * 7)) \
      pinknoise tremolo $i 60 highpass 40 overdrive $((6 + i)) gain -n 0 2>/dev/null
  done
fi
normalize=${FFMPEG_NORMALIZE:-}
if [[ -z $normalize ]]; then
  python3 -m venv "$work/venv" && "$work/venv/bin/pip" install -q ffmpeg-normalize >&2
  normalize="$work/venv/bin/ffmpeg-normalize"
fi

cat > "$work/normalize.yaml" <<YAML
version: 1
jobs:
  - name: loudness
    ingest: { from: [$work/in] }
    transcode: { AVFormatIDKey: kAudioFormatMPEG4AAC, AVEncoderBitRateKey: 128000, normalize: podcast }
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
# Per output: integrated and true peak by ffmpeg ebur128; then the worst distance from -16 LUFS and the highest peak.
measure() {
  for f in "$1"/*.m4a; do
    ffmpeg -hide_banner -nostats -i "$f" -af ebur128=peak=true -f null - 2>&1 |
      awk -v n="$(basename "$f")" '/^ +I:/ { i = $2 } /^ +Peak:/ { p = $2 } END { print n, i, p }'
  done
}
summary() { awk '{ d = $2 + 16; if (d < 0) d = -d; if (d > worst) worst = d; if (NR == 1 || $3 > peak) peak = $3 }
                 END { printf "±%.1f LU, max true peak %.1f dBTP", worst, peak }'; }

echo "bench-loudness-delivered: inputs by ffmpeg ebur128 (name, LUFS, dBTP):" >&2
for f in "$work"/in/*; do
  ffmpeg -hide_banner -nostats -i "$f" -af ebur128=peak=true -f null - 2>&1 |
    awk -v n="$(basename "$f")" '/^ +I:/ { i = $2 } /^ +Peak:/ { p = $2 } END { print "  " n, i, p }' >&2
done
echo "bench-loudness-delivered: timing medley" >&2
tm=$(best_of "$medley" run "$work/normalize.yaml" --quiet --force --jobs "$jobs")
measure "$work/out" > "$work/medley.txt"
echo "bench-loudness-delivered: timing ffmpeg-normalize" >&2
tf=$(best_of bash -c "ls '$work'/in/* | xargs -P $jobs -I{} sh -c 'f={}; b=\$(basename \"\$f\"); \"$normalize\" \"\$f\" -f -o \"$work/out/\${b%.*}.m4a\" -c:a aac -b:a 128k -t -16 -tp -1 -ar 44100'")
measure "$work/out" > "$work/peer.txt"

cpu=$(lscpu | awk -F': *' '/Model name/ { print $2; exit }')
files=$(ls "$work/in" | wc -l)
echo "### Loudness as delivered: -16 LUFS / -1 dBTP into AAC 128 kb/s, $files loud files, $jobs at a time ($(date -u +%Y-%m-%d), $cpu, $(ffmpeg -version | head -1 | cut -d' ' -f1-3), $("$normalize" --version))"
echo
echo "| tool | best of $runs, s | outputs by ffmpeg ebur128 | Medley ÷ peer |"
echo "|---|---:|---|---:|"
echo "| medley \`normalize: podcast\` (limiter, delivered true peak re-measured, ≤ 3 encodes) | $tm | $(summary < "$work/medley.txt") | $(ratio "$tm" "$tf") |"
echo "| ffmpeg-normalize (two ffmpeg passes, loudnorm) | $tf | $(summary < "$work/peer.txt") | |"
echo
echo "| file | medley LUFS | medley dBTP | ffmpeg-normalize LUFS | ffmpeg-normalize dBTP |"
echo "|---|---:|---:|---:|---:|"
join "$work/medley.txt" "$work/peer.txt" | awk '{ printf "| %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5 }'

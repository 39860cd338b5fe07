#!/usr/bin/env bash
# bench-watermark.sh — watermarking a folder of photos: Medley against per-file peers, in one run.
#
# Usage: benchmarks/bench-watermark.sh [--count N]
#   --count N  corpus images (12 MP JPEGs from make-corpus.sh; default 20)
# Environment: MEDLEY (default <repo>/.build/release/medley), CORPUS_DIR, RUNS (default 3).
#
# Every tool reads the same N JPEGs and writes JPEG q85 with a 160 × 48 logo (pipelines/logos)
# scaled to 15% of the width, at half opacity, 2% in from the bottom-right corner, N files at a
# time over all cores:
#   - medley: `watermark:` (linear light, the default; and `colorSpace: none`, the stored values)
#   - sharp-style: `vips composite2` per file, the logo resized and faded once beforehand
#   - ImageMagick: `composite -dissolve 50 -gravity southeast` per file (logo resized once)
# Ratios are Medley ÷ the faster peer, for wall time and for CPU time (user + system of all
# processes): below 1 means Medley is faster. Rounds are interleaved.
set -euo pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_dir=$(cd "$script_dir/.." && pwd)
log() { echo "bench-watermark: $*" >&2; }

count=20
while (($#)); do
  case $1 in
    --count) count=$2; shift 2 ;;
    -h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
runs=${RUNS:-3}
jobs=$(nproc)
medley=${MEDLEY:-"$repo_dir/.build/release/medley"}
corpus=${CORPUS_DIR:-"$script_dir/.corpus"}
[[ -x $medley ]] || { echo "build first: scripts/build.sh" >&2; exit 1; }
for tool in vips vipsheader parallel composite convert awk; do
  command -v "$tool" >/dev/null || { echo "'$tool' not found" >&2; exit 1; }
done
"$script_dir/make-corpus.sh" "$corpus" "$count" >&2

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/in" "$work/logos"
for f in $(ls "$corpus"/img-*.jpg | sort | head -n "$count"); do ln "$f" "$work/in/" 2>/dev/null || cp "$f" "$work/in/"; done
cp "$repo_dir/pipelines/logos/logo.png" "$work/logos/logo.png"

# timed NAME CMD...: one run (outputs removed first); keeps NAME's best wall and best CPU seconds
# (user + system, children included: the CPU a tool spends, whatever else loads the machine).
declare -A wall cpu
timed() {
  local name=$1; shift
  rm -rf "$work/out" && mkdir -p "$work/out"
  local times
  /usr/bin/time -o "$work/time" -f "%e %U %S" "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; return 1; }
  times=$(tail -n 1 "$work/time")
  local w c
  w=$(awk '{print $1}' <<<"$times"); c=$(awk '{print $2 + $3}' <<<"$times")
  wall[$name]=$(awk -v a="${wall[$name]:-}" -v b="$w" 'BEGIN{ if (a=="" || b<a) print b; else print a }')
  cpu[$name]=$(awk -v a="${cpu[$name]:-}" -v b="$c" 'BEGIN{ if (a=="" || b<a) print b; else print a }')
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", a/b}'; }

# The corpus is one size (4000 × 3000): the peers' logo and position are worked out once, as
# Medley works them out per image (15% of the width, 2% of each side in from the corner).
first=$(ls "$work/in"/*.jpg | head -n 1)
width=$(vipsheader -f width "$first"); height=$(vipsheader -f height "$first")
logo_w=$(( (width * 15 + 50) / 100 ))
scale=$(awk -v w="$logo_w" -v l="$(vipsheader -f width "$work/logos/logo.png")" 'BEGIN{print w / l}')
vips resize "$work/logos/logo.png" "$work/logo-sized.png" "$scale" >/dev/null
vips linear "$work/logo-sized.png" "$work/logo-faded.png" "1 1 1 0.5" "0 0 0 0" --uchar >/dev/null
logo_h=$(vipsheader -f height "$work/logo-sized.png")
dx=$(( (width * 2 + 50) / 100 )); dy=$(( (height * 2 + 50) / 100 ))
x=$(( width - $(vipsheader -f width "$work/logo-sized.png") - dx )); y=$(( height - logo_h - dy ))

pipeline() {  # pipeline NAME [EXTRA-JOB-LINES]
  cat > "$work/$1.yaml" <<YAML
version: 1
assets: [logos]
jobs:
  - name: $1
    ingest: { from: [$work/in], media: [image] }
${2:-}
    watermark: { image: logos/logo.png, gravity: southeast, offset: ["2%", "2%"], width: "15%", opacity: 0.5 }
    export: { to: $work/out, format: jpeg, quality: 85, name: "{stem}.jpg" }
YAML
  echo "$work/$1.yaml"
}
linear=$(pipeline wm-linear)
stored=$(pipeline wm-stored "    colorSpace: none")

echo "## Watermark benchmark ($(date -u +%Y-%m-%d), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(vips --version), $(convert -version | head -n 1 | cut -d' ' -f2-3))"
echo
log "$count × ${width}×${height} JPEG, $runs runs per tool, $jobs at a time"
# Interleaved rounds (A B C D, A B C D, …): background load hits every tool alike.
for round in $(seq "$runs"); do
  log "round $round of $runs"
  timed medley-linear "$medley" run "$linear" --quiet
  timed medley-none "$medley" run "$stored" --quiet
  timed vips parallel -j"$jobs" vips composite2 {} "$work/logo-faded.png" "$work/out/{/.}.jpg[Q=85]" over --x "$x" --y "$y" ::: "$work"/in/*.jpg
  timed magick parallel -j"$jobs" composite -dissolve 50 -gravity southeast -geometry "+$dx+$dy" "$work/logo-sized.png" {} -quality 85 "$work/out/{/.}.jpg" ::: "$work"/in/*.jpg
done
fastest() { awk -v a="$1" -v b="$2" 'BEGIN{print (a < b) ? a : b}'; }
fw=$(fastest "${wall[vips]}" "${wall[magick]}"); fc=$(fastest "${cpu[vips]}" "${cpu[magick]}")
echo "| watermark: $count × $((width * height / 1000000)) MP JPEG → JPEG q85, logo 15% wide at 50%, $jobs at a time | best wall s | best CPU s | Medley ÷ fastest peer (wall, CPU) |"
echo "|---|---:|---:|---:|"
echo "| medley watermark (linear light, default) | ${wall[medley-linear]} | ${cpu[medley-linear]} | $(ratio "${wall[medley-linear]}" "$fw"), $(ratio "${cpu[medley-linear]}" "$fc") |"
echo "| medley watermark (colorSpace: none) | ${wall[medley-none]} | ${cpu[medley-none]} | $(ratio "${wall[medley-none]}" "$fw"), $(ratio "${cpu[medley-none]}" "$fc") |"
echo "| parallel vips composite2 (sharp-style, logo prepared once) | ${wall[vips]} | ${cpu[vips]} | |"
echo "| parallel ImageMagick composite -dissolve 50 -gravity southeast | ${wall[magick]} | ${cpu[magick]} | |"
echo
echo "Load average while measuring: $(cut -d' ' -f1-3 /proc/loadavg)."

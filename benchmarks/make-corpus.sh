#!/usr/bin/env bash
# make-corpus.sh — generate a synthetic "camera photo" JPEG corpus for benchmarks.
#
# Usage: benchmarks/make-corpus.sh [DIR] [COUNT]
#   DIR    output directory (default: benchmarks/.corpus, which is gitignored)
#   COUNT  number of images (default: 40)
# Environment:
#   JOBS   images rendered concurrently (default: nproc)
#
# Each image is a 4000x3000 (12 MP) sRGB JPEG, quality 90, 4:2:0 chroma
# subsampling, ~2.5-3 MB — roughly what a 12 MP camera or phone writes. The content
# is built from noise so that it compresses like a photo (smooth gradients,
# mid-scale texture, hard-edged regions, per-pixel grain) rather than like flat
# colour (tiny, trivially fast files) or white noise (huge files, worst case for
# the entropy coder). Images are deterministic: img-NNNN.jpg always comes from
# seed NNNN, so corpora made on different machines are identical, and a
# COUNT=4 corpus is the first 4 files of a COUNT=40 one.
#
# Idempotent: existing files are skipped. Files are written under a temporary
# name and renamed, so an interrupted run never leaves a truncated image behind.
set -euo pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

die() { echo "make-corpus: $*" >&2; exit 1; }

# ---------------------------------------------------------------------------
# render_one OUT SEED — render a single image. Runs as a child process (the
# script calls itself with --one) so that GNU parallel can fan it out.
#
# Everything is done with the vips CLI, one operation per call, through .v
# intermediates (vips' native format, mmap'ed, so reading them back is
# nearly free). Each vips call costs ~0.1 s of startup, so the pipeline is
# kept short: large-scale structure is built at 100x75 and 1000x750, the
# per-pixel work at 2000x1500, and only the final upscale+JPEG encode at
# full 4000x3000.
# ---------------------------------------------------------------------------
render_one() {
  local out=$1 seed=$((10#$2))   # 10#: "0008" is decimal, not bad octal
  local tmp
  tmp=$(mktemp -d "${CORPUS_TMP:-${TMPDIR:-/tmp}}/medley-corpus.XXXXXX")
  # shellcheck disable=SC2064  # expand $tmp now, on purpose
  trap "rm -rf '$tmp'" EXIT
  cd "$tmp"

  # Per-image random parameters. Not from $RANDOM: bash reseeds it in every
  # $(...) subshell, which would make images non-reproducible. Instead a
  # Park-Miller LCG in awk (exact in double precision, so every awk gives the
  # same numbers) seeded with the image seed; vips' noise generators get
  # seeds derived from it too, so each image is a pure function of its seed.
  eval "$(awk -v seed="$seed" '
    function rnd() { state = (state * 16807) % 2147483647; return state / 2147483647 }
    function r(a) { return (2 * rnd() - 1) * a }      # uniform in [-a, a]
    function u(a, b) { return a + rnd() * (b - a) }   # uniform in [a, b]
    BEGIN {
      state = seed * 7919 + 1; rnd(); rnd()
      printf "cr=%.4f gx=%.4f gy=%.4f mx=%.4f my=%.4f\n", u(3, 9), r(0.3), r(0.4), r(0.6), r(0.8)
      printf "cast_r=%.3f cast_g=%.3f cast_b=%.3f region_k=%.4f\n", u(105, 145), u(105, 145), u(105, 145), r(0.4)
      lum = (rnd() < 0.5 ? -1 : 1) * u(25, 55)
      printf "step_r=%.5f step_g=%.5f step_b=%.5f\n", (lum + r(25)) / 255, (lum + r(25)) / 255, (lum + r(25)) / 255
    }')"

  # --- Coarse structure at 100x75 (each pixel becomes 40x40 in the output).
  # 8 bands of white noise (gaussnoise is 1-band; bandfold turns an 800-wide
  # strip into 8 bands), blurred twice: A (sigma 5) = very large blobs, light
  # fall-off; B (sigma 1.5) = medium blobs. Plus x/y ramps for gradients.
  vips gaussnoise n.v 800 75 --sigma 1 --mean 0 --seed $((seed * 4))
  vips bandfold n.v n8.v --factor 8
  vips gaussblur n8.v A.v 5 --precision float
  vips gaussblur n8.v B.v 1.5 --precision float
  vips xyz xy.v 100 75
  vips bandjoin "A.v B.v xy.v" b18.v

  # One recomb mixes the 18 bands (A0..A7, B0..B7, x, y) into 4: R, G, B and
  # a "region" field that is thresholded later to get hard edges. Luminance
  # is shared by R/G/B and dominates; chroma is weaker (photos are mostly
  # low-saturation). Blurred noise has sd ~1/(3*sigma), hence the a/b gains
  # that bring each band to unit sd before weighting (weights are 0-255 sd).
  awk -v cr="$cr" -v gx="$gx" -v gy="$gy" -v mx="$mx" -v my="$my" 'BEGIN {
    a = 12; b = 4.4
    print "18 4"
    #       A0      A1       A2     A3..A7      B0     B1     B2     B3..B7      x    y
    printf "%s %s %s 0 0 0 0 0  %s %s %s 0 0 0 0 0  %s %s\n", a*26,  a*cr,     0,   b*10,  b*3,     0, gx, gy
    printf "%s %s %s 0 0 0 0 0  %s %s %s 0 0 0 0 0  %s %s\n", a*26,     0,  a*cr,   b*10,    0,   b*3, gx, gy
    printf "%s %s %s 0 0 0 0 0  %s %s %s 0 0 0 0 0  %s %s\n", a*26, -a*cr, -a*cr,   b*10, -b*3,  -b*3, gx, gy
    # region field: big blobs + a little medium detail + a tilted ramp (so
    # some images get a horizon-like split). Scaled x30 so that the detail
    # added later only roughens the region edges instead of fragmenting them.
    printf "0 0 0 %s 0 0 0 0  0 0 0 %s 0 0 0 0  %s %s\n", 30*a*25, 30*b*6, 30*mx, 30*my
  }' > mix.mat
  vips recomb b18.v mix.v mix.mat

  # Offsets: a random colour cast for R/G/B, and for the region field minus
  # (roughly) its mean, so regions cover a sizeable part of every image.
  vips stats mix.v st.csv
  local region_off
  region_off=$(awk -F'\t' -v k="$region_k" 'NR == 5 { printf "%.4f", -($5 + k * $6) }' st.csv)
  # (leading space: vips would parse a negative first number as an option)
  vips linear mix.v c.v "1 1 1 1" " $cast_r $cast_g $cast_b $region_off"
  vips resize c.v cu.v 10 --kernel cubic

  # --- Mid-scale texture at 1000x750: two octaves of blurred noise (sigma 1
  # and, from that, sigma ~3.2 boosted x4), added to all bands.
  vips gaussnoise m.v 1000 750 --sigma 27 --mean 0 --seed $((seed * 4 + 1))
  vips gaussblur m.v mA.v 1
  vips gaussblur mA.v mB.v 3
  vips linear mB.v mBk.v 4 0
  vips sum "cu.v mA.v mBk.v" mid.v
  vips resize mid.v midu.v 2 --kernel cubic

  # --- 2000x1500: hard-edged regions and fine grain.
  # mask = region field > 0 (0/255). Inside the regions: a brightness+colour
  # step, and full-strength grain; outside, grain at 20% (smooth areas, like
  # sky or out-of-focus background, compress much better than texture).
  vips extract_band midu.v fld.v 3
  vips relational_const fld.v mask.v more 0
  vips extract_band midu.v rgb.v 0 --n 3
  vips linear mask.v mod.v "$(awk 'BEGIN { printf "%.6f", 0.8 / 255 }')" 0.2
  vips linear mask.v step.v " $step_r $step_g $step_b" 0
  vips gaussnoise d.v 2000 1500 --sigma 13 --mean 0 --seed $((seed * 4 + 2))
  vips multiply d.v mod.v dm.v
  vips sum "rgb.v dm.v step.v" s.v
  vips cast s.v sc.v uchar

  # --- Final 2x upscale straight into the JPEG encoder. The bilinear upscale
  # softens the grain over ~2 px, much like demosaicing does in a camera.
  # Written to a temp name in the destination directory, then renamed.
  local part="${out%.jpg}.part.jpg"
  vips resize sc.v "$part[Q=90,subsample-mode=on,strip]" 2 --kernel linear
  mv -f "$part" "$out"
}

if [[ ${1:-} == --one ]]; then
  shift
  render_one "$@"
  exit 0
fi

if [[ ${1:-} == -h || ${1:-} == --help ]]; then
  sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  exit 0
fi

dir=${1:-"$script_dir/.corpus"}
count=${2:-40}
jobs=${JOBS:-$(nproc)}
[[ $count =~ ^[0-9]+$ && $count -ge 1 ]] || die "COUNT must be a positive integer, got '$count'"
[[ $jobs =~ ^[0-9]+$ && $jobs -ge 1 ]] || die "JOBS must be a positive integer, got '$jobs'"
for tool in vips parallel awk; do
  command -v "$tool" >/dev/null || die "'$tool' not found in PATH"
done

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
rm -f "$dir"/*.part.jpg   # leftovers of an interrupted run

# Intermediates are ~300 MB per image in flight; keep them in RAM (/dev/shm)
# when there is room for all concurrent jobs, else in TMPDIR.
if [[ -z ${CORPUS_TMP:-} ]]; then
  CORPUS_TMP=${TMPDIR:-/tmp}
  if [[ -d /dev/shm && -w /dev/shm ]]; then
    shm_free_mb=$(df -Pm /dev/shm | awk 'NR == 2 { print $4 }')
    if (( shm_free_mb > 400 * jobs + 512 )); then CORPUS_TMP=/dev/shm; fi
  fi
fi
export CORPUS_TMP

# Which images are missing? (seed == index, so names are stable.)
todo=()
for ((i = 1; i <= count; i++)); do
  n=$(printf '%04d' "$i")
  [[ -s "$dir/img-$n.jpg" ]] || todo+=("$n")
done

if ((${#todo[@]} == 0)); then
  echo "make-corpus: $dir already has all $count images" >&2
  exit 0
fi

echo "make-corpus: rendering ${#todo[@]} of $count images into $dir ($jobs jobs)" >&2
start=$(date +%s%N)
# --halt now,fail=1: stop at the first failure rather than silently making a
# short corpus. --will-cite: suppress GNU parallel's citation banner.
printf '%s\n' "${todo[@]}" |
  parallel --will-cite --halt now,fail=1 -j "$jobs" \
    "$(printf '%q' "$script_dir/make-corpus.sh")" --one "$(printf '%q' "$dir")/img-{}.jpg" {}
end=$(date +%s%N)

total_mb=$(du -cm "$dir"/img-*.jpg | awk 'END { print $1 }')
awk -v n="${#todo[@]}" -v ns=$((end - start)) -v mb="$total_mb" -v d="$dir" 'BEGIN {
  s = ns / 1e9
  printf "make-corpus: rendered %d images in %.1f s (%.2f s/image); corpus %s is %d MB\n", n, s, s / n, d, mb
}' >&2

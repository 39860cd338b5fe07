#!/usr/bin/env bash
# bench-inprocess.sh — Medley against an in-process peer (issue 18, goal 6): the same real photos
# through `medley run --jobs 2` and through pyvips in ONE Python process with a thread pool of 2
# workers (benchmarks/bench-inprocess.py: decode → the same operation → JPEG at the same quality),
# plus the per-file CLI peers (`parallel -j2 vips …`), so the reader sees how much of Medley's lead
# over the CLIs is process start-up and how much is left once both sides run in one process.
#
# Cases (JPEG Q85 out, libvips' default chroma subsampling and Huffman tables on every side):
#   sepia      CISepiaTone intensity 1 — Medley applies the matrix in linear light; pyvips's
#              equivalent is colourspace('scrgb') → recomb → colourspace('srgb') ("pyvips linear",
#              the ratio that counts); "pyvips sRGB" and `vips recomb` apply it to the stored values
#   thumbnail  fit 512×512 — Medley `resize: {width: 512, height: 512}` (vips_thumbnail's
#              shrink-on-load), pyvips Image.thumbnail, `vipsthumbnail -s 512`
#   blur       Gaussian σ 10 on the first BLUR_COUNT photos — Medley CIGaussianBlur inputRadius 10
#              (linear light, float); pyvips gaussblur(10) on the 8-bit sRGB values (what a pyvips
#              user writes; the ratio that counts — its default min_ampl 0.2 cuts the mask at 1.8 σ) and,
#              for the same maths, in scRGB float with the whole Gaussian (min_ampl 0.01)
# Outputs are checked: Medley's against pyvips' same-maths output (largest and mean |difference| in
# 8-bit levels, `vips subtract`/`abs`/`max`/`avg` through pyvips).
#
# Usage: benchmarks/bench-inprocess.sh            (RUNS=3 by default; ~2–3 min on an idle 2-core machine)
# Environment:
#   RUNS         interleaved rounds (A B C, A B C, …); best and median reported (default 3)
#   COUNT        photos for sepia and thumbnails (default 30, all of the corpus)
#   BLUR_COUNT   photos for blur (default 8)
#   PHOTOS       folder of JPEGs (default: benchmarks/real-photos.sh's, made under ~/.cache/medley-bench;
#                /work/bench-corpus/photos is used when it exists)
#   MEDLEY       Medley binary (default <repo>/.build/release/medley; build with scripts/build.sh)
#   VENV         where the pyvips virtualenv is made (default ~/.cache/medley-bench/pyvips-venv). It is made
#                with `/usr/bin/python3 -m venv` (Debian: python3-venv) and `pip install pyvips`
#                (PyPI). pyvips finds Debian's libvips.so (libvips42): in cffi's API mode when
#                libvips-dev's headers are there at install time, else in ABI mode — the same libvips
#                Medley links either way.
#   VIPS_CONCURRENCY  libvips threads per pipeline for pyvips and the CLIs (default: libvips' own, one per
#                core; Medley sets its own, cores ÷ --jobs = 1 here). On a loaded machine a side with more
#                runnable threads gets more of the CPU, so compare the CPU column there, or set it to 1.
set -euo pipefail
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_dir=$(cd "$script_dir/.." && pwd)
die() { echo "bench-inprocess: $*" >&2; exit 1; }
log() { echo "bench-inprocess: $*" >&2; }

runs=${RUNS:-3} count=${COUNT:-30} blur_count=${BLUR_COUNT:-8} quality=85 jobs=2
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive integer"
[[ $count =~ ^[1-9][0-9]*$ && $blur_count =~ ^[1-9][0-9]*$ ]] || die "COUNT and BLUR_COUNT must be positive integers"
medley=${MEDLEY:-"$repo_dir/.build/release/medley"}
[[ -x $medley ]] || die "no Medley at $medley (build it: scripts/build.sh -j 1)"
for tool in vips vipsthumbnail parallel vipsheader; do
  command -v "$tool" >/dev/null || die "'$tool' not found (scripts/setup.sh installs libvips-tools and parallel)"
done

# --- pyvips in its own virtualenv ---------------------------------------------------------------
cache=${XDG_CACHE_HOME:-$HOME/.cache}/medley-bench
venv=${VENV:-"$cache/pyvips-venv"}
if [[ ! -x $venv/bin/python ]] || ! "$venv/bin/python" -c 'import pyvips' 2>/dev/null; then
  log "making the pyvips virtualenv in $venv"
  /usr/bin/python3 -m venv "$venv" ||
    die "/usr/bin/python3 -m venv failed: install Debian's python3-venv (apt-get install python3-venv)"
  "$venv/bin/pip" install -q pyvips || die "pip install pyvips failed (needs PyPI)"
fi
python=$venv/bin/python
pyvips_version=$("$python" -c 'import pyvips; print(pyvips.__version__, "API" if pyvips.API_mode else "ABI")')

# --- the photos -------------------------------------------------------------------------------
if [[ -z ${PHOTOS:-} ]]; then
  if [[ -f /work/bench-corpus/photos/.complete ]]; then PHOTOS=/work/bench-corpus/photos
  else PHOTOS=$("$script_dir/real-photos.sh" "$cache"); fi
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/medley-inprocess.XXXXXX")
trap 'rm -rf "$work"' EXIT
mapfile -t photos < <(find "$PHOTOS" -maxdepth 1 -iname '*.jpg' | LC_ALL=C sort)
((${#photos[@]} >= count)) || die "$PHOTOS has ${#photos[@]} JPEGs, COUNT is $count"
mkdir "$work/all" "$work/blur"
# Hard links where the filesystem allows (same page-cache pages), copies otherwise; the corpus is never written.
for ((i = 0; i < count; i++)); do ln "${photos[i]}" "$work/all/" 2>/dev/null || cp "${photos[i]}" "$work/all/"; done
for ((i = 0; i < blur_count && i < count; i++)); do ln "${photos[i]}" "$work/blur/" 2>/dev/null || cp "${photos[i]}" "$work/blur/"; done
megapixels() {
  for f in "$1"/*.jpg; do vipsheader -f width "$f" 2>/dev/null; vipsheader -f height "$f" 2>/dev/null; done |
    awk 'NR % 2 { w = $1; next } { px += w * $1 } END { printf "%.0f", px / 1e6 }'
}
mp_all=$(megapixels "$work/all") mp_blur=$(megapixels "$work/blur")
n_blur=$(find "$work/blur" -name '*.jpg' | wc -l)
cat "$work"/all/*.jpg > /dev/null   # warm the page cache

printf '3 3\n0.3588 0.7044 0.1368\n0.2990 0.5870 0.1140\n0.2392 0.4696 0.0912\n' > "$work/sepia.mat"
pipeline() {  # pipeline NAME INPUT FILTER_YAML
  cat > "$work/$1.yaml" <<EOF
version: 1
jobs:
  - name: $1
    ingest: { from: ["$2"], media: [image] }
    filters:
      - $3
    export: { to: "$work/out-medley-$1", format: jpeg, quality: $quality, name: "{stem}.jpg" }
EOF
}
# The CLI sepia commands: recomb needs three bands, so a grey photo is made sRGB first (a second process,
# as a shell user would do it; the pipeline and pyvips turn grey into RGB too).
for f in "$work"/all/*.jpg; do
  name=$(basename "$f" .jpg)
  if (( $(vipsheader -f bands "$f" 2>/dev/null) < 3 )); then
    echo "vips colourspace '$f' 'OUT/$name.v' srgb && vips recomb 'OUT/$name.v' 'OUT/$name.jpg[Q=$quality]' '$work/sepia.mat' && rm 'OUT/$name.v'"
  else
    echo "vips recomb '$f' 'OUT/$name.jpg[Q=$quality]' '$work/sepia.mat'"
  fi
done > "$work/sepia-cli.txt"
pipeline sepia "$work/all" 'CISepiaTone: { inputIntensity: 1.0 }'
pipeline thumbnail "$work/all" 'resize: { width: 512, height: 512 }'
pipeline blur "$work/blur" 'CIGaussianBlur: { inputRadius: 10 }'

# tool ids: CASE:SIDE; the first pyvips side of each case is the one Medley is measured against.
tools=(sepia:medley sepia:pyvips-linear sepia:pyvips-srgb sepia:cli
       thumbnail:medley thumbnail:pyvips thumbnail:cli
       blur:medley blur:pyvips-srgb blur:pyvips-linear blur:cli)
declare -A label=(
  [sepia:medley]="medley run --jobs 2 (CISepiaTone 1, linear light)"
  [sepia:pyvips-linear]="pyvips, 2 threads: scrgb → recomb → srgb"
  [sepia:pyvips-srgb]="pyvips, 2 threads: recomb on sRGB values"
  [sepia:cli]="parallel -j2 vips recomb (sRGB values; grey: colourspace first)"
  [thumbnail:medley]="medley run --jobs 2 (resize 512×512)"
  [thumbnail:pyvips]="pyvips, 2 threads: Image.thumbnail 512"
  [thumbnail:cli]="parallel -j2 vipsthumbnail -s 512"
  [blur:medley]="medley run --jobs 2 (CIGaussianBlur 10, linear float)"
  [blur:pyvips-srgb]="pyvips, 2 threads: gaussblur 10 on sRGB values"
  [blur:pyvips-linear]="pyvips, 2 threads: scrgb → gaussblur 10 (min_ampl 0.01) → srgb (last round only)"
  [blur:cli]="parallel -j2 vips gaussblur 10 (sRGB values)"
)
declare -A peer_of=([sepia]=sepia:pyvips-linear [thumbnail]=thumbnail:pyvips [blur]=blur:pyvips-srgb)
declare -A goal=([sepia]=0.6 [thumbnail]=0.8 [blur]=0.8)

run_tool() {  # run_tool CASE SIDE OUT
  local case=$1 side=$2 out=$3 input=$work/all
  [[ $case == blur ]] && input=$work/blur
  case $side in
    medley) rm -rf "$work/out-medley-$case"; "$medley" run "$work/$case.yaml" --jobs $jobs --quiet --force ;;
    pyvips-*) "$python" "$script_dir/bench-inprocess.py" "$case-${side#pyvips-}" "$input" "$out" --workers $jobs --quality $quality ;;
    pyvips) "$python" "$script_dir/bench-inprocess.py" "$case" "$input" "$out" --workers $jobs --quality $quality ;;
    cli)
      case $case in
        sepia) sed "s|OUT|$out|g" "$work/sepia-cli.txt" | parallel --will-cite --halt now,fail=1 -j $jobs ;;
        thumbnail) parallel --will-cite --halt now,fail=1 -j $jobs vipsthumbnail {} -s 512 -o "$out/%s.jpg[Q=$quality]" ::: "$input"/*.jpg ;;
        blur) parallel --will-cite --halt now,fail=1 -j $jobs vips gaussblur {} "$out/{/.}.jpg[Q=$quality]" 10 ::: "$input"/*.jpg ;;
      esac ;;
  esac
}

# User + system milliseconds of every child this shell has waited for (and theirs): bash's `times`.
# CPU time is the figure load disturbs least.
# `times` runs in this shell (a pipe or $(…) would make a fresh process with no children yet).
children_cpu_ms() {
  times > "$work/times"
  awk 'NR == 2 { n = 0; for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); n += t[1] * 60000 + t[2] * 1000 } printf "%.0f", n }' "$work/times"
}
declare -A times cpu
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
for ((run = 1; run <= runs; run++)); do
  for tool in "${tools[@]}"; do
    case=${tool%%:*} side=${tool#*:} out=$work/out-$case-$side
    # The whole-Gaussian float blur is the reference for the output check, and slow: the last round only.
    [[ $tool == blur:pyvips-linear ]] && ((run < runs)) && continue
    rm -rf "$out" && mkdir -p "$out"
    log "run $run/$runs: ${label[$tool]}"
    start=$(date +%s%N)
    children_cpu_ms > "$work/cpu-before"
    run_tool "$case" "$side" "$out" > "$work/log" 2>&1 || { tail -5 "$work/log" >&2; die "$tool failed"; }
    end=$(date +%s%N)
    times[$tool]+="$(( (end - start) / 1000000 )) "
    children_cpu_ms > "$work/cpu-after"
    cpu[$tool]+="$(( $(< "$work/cpu-after") - $(< "$work/cpu-before") )) "
  done
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

# --- outputs agree? -----------------------------------------------------------------------------
declare -A agree
compare() { "$python" "$script_dir/bench-inprocess.py" compare "$1" "$2" | awk '{ printf "max %s (%s), mean %s levels (%s files)", $1, $4, $2, $3 }'; }
agree[sepia]=$(compare "$work/out-medley-sepia" "$work/out-sepia-pyvips-linear")
agree[thumbnail]=$(compare "$work/out-medley-thumbnail" "$work/out-thumbnail-pyvips")
agree[blur]=$(compare "$work/out-medley-blur" "$work/out-blur-pyvips-linear")

# --- report -------------------------------------------------------------------------------------
best() { tr ' ' '\n' <<<"$1" | awk 'NF' | sort -n | head -1; }
median() { tr ' ' '\n' <<<"$1" | awk 'NF' | sort -n | awk '{ t[NR] = $1 } END { print (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2 }'; }
secs() { awk -v ms="$1" 'BEGIN { printf "%.2f", ms / 1000 }'; }
cpu=$(lscpu | awk -F: '/Model name/ { sub(/^ +/, "", $2); print $2; exit }')
echo "### In-process peer: Medley vs pyvips ($(date -u +%F), $(git -C "$repo_dir" rev-parse --short HEAD 2>/dev/null || echo '?'))"
echo
echo "$cpu, $(nproc) cores; load average $load_start at the start, $load_end at the end; RUNS=$runs;"
echo "libvips $(vips --version | sed 's/vips-//'), pyvips $pyvips_version; sepia and thumbnails: $count photos, $mp_all MP;"
echo "blur: $n_blur photos, $mp_blur MP; JPEG Q$quality; 2 items (2 workers, 2 processes) at a time."
echo
echo "| case | command | best s | median s | ÷ pyvips | goal | CPU s (best) | CPU ÷ pyvips |"
echo "|---|---|---:|---:|---:|---|---:|---:|"
for tool in "${tools[@]}"; do
  case=${tool%%:*} b=$(best "${times[$tool]}") m=$(median "${times[$tool]}")
  pb=$(best "${times[${peer_of[$case]}]}")
  ratio=$(awk -v a="$b" -v p="$pb" 'BEGIN { printf "%.2f", a / p }')
  g=""
  if [[ ${tool#*:} == medley ]]; then
    met=$(awk -v r="$ratio" -v g="${goal[$case]}" 'BEGIN { print (r <= g) ? "met" : "not met" }')
    ratio="**$ratio**" g="≤ ${goal[$case]}: $met"
  fi
  c=$(best "${cpu[$tool]}") pc=$(best "${cpu[${peer_of[$case]}]}")
  cratio=$(awk -v a="$c" -v p="$pc" 'BEGIN { printf "%.2f", a / p }')
  echo "| $case | ${label[$tool]} | $(secs "$b") | $(secs "$m") | $ratio | $g | $(secs "$c") | $cratio |"
done
echo
echo "CPU s is user + system time of the command and its children (bash's times), the figure load disturbs least."
echo "÷ pyvips is best time over the best time of the case's reference pyvips run (sepia: linear; thumbnail;"
echo "blur: sRGB values). Medley vs pyvips with the same maths: sepia ${agree[sepia]}; thumbnail ${agree[thumbnail]};"
echo "blur (vs the scRGB whole-Gaussian run) ${agree[blur]}."

#!/usr/bin/env bash
# Coverage-guided fuzzing (libFuzzer, AddressSanitizer) of the parsers Medley wrote itself
# (docs/fuzzing.md). Each target calls the entry point the product uses on a byte buffer.
#
# Usage: scripts/fuzz.sh [TARGET ...] [--time SECONDS | --cpu SECONDS | --runs N] [--smoke] [--list] [--build-only]
#   TARGET ...     targets to run (default: all; --list names them)
#   --time T       a long run: each target for T seconds (default 600), its corpus kept in
#                  .build/fuzz/corpus/TARGET and grown run after run
#   --cpu T        the same, but each target until it has used T seconds of CPU time (a run
#                  beside other work, e.g. under `nice`, gets the same amount of fuzzing)
#   --runs N       each target for N executions
#   --smoke        CI's bounded run: every target for a fixed number of executions (MEDLEY_FUZZ_SMOKE_RUNS,
#                  default 2000) over its seeds alone; any crash, leak or sanitizer report fails it.
#                  The corespm targets (pipeline, where, manifest, metadata: an instrumented build of all of
#                  MedleyCore, ~10 min) are left out of it unless MEDLEY_FUZZ_CORE=1 or named
# A crash, leak, timeout or sanitizer report saves its input under Tests/regressions/fuzz/TARGET/
# (FuzzRegressionTests replays every file there through the product's entry point from then on)
# and makes the script exit 1. The last statistics line of each target (executions, cov:, ft:)
# goes to .build/fuzz/results.tsv.
# The binaries are built with swiftc alone from the modules each target needs (not SwiftPM, so the
# normal build and CI's are untouched): .build/fuzz/{tags,media,cube,core}; the corespm group, which
# needs all of MedleyCore and its C libraries, is SwiftPM's product MedleyCoreFuzz (declared only under
# MEDLEY_FUZZ=1) built into .build/fuzz-spm and copied to .build/fuzz/corespm.
# (All in one block, read whole before it runs: editing the script cannot break a long run.)
{
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
OUT=.build/fuzz
DATA=${MEDLEY_TEST_DATA:-${XDG_CACHE_HOME:-$HOME/.cache}/medley-tests}

# name group dictionary seed-extensions
TARGETS="
tags tags id3 mp3,m4a,mp4,m4b,flac,ogg,oga,opus,wav,aif,aiff,aifc,caf
mp3 tags id3 mp3
mp4 tags mp4 m4a,mp4,m4b
flac tags vorbis flac
ogg tags vorbis ogg,oga,opus
wav tags riff wav
aiff tags riff aif,aiff,aifc
caf tags riff caf
roundtrip-mp3 tags id3 mp3
roundtrip-mp4 tags mp4 m4a,mp4,m4b
roundtrip-flac tags vorbis flac
roundtrip-ogg tags vorbis ogg,oga,opus
roundtrip-wav tags riff wav
roundtrip-aiff tags riff aif,aiff,aifc
roundtrip-caf tags riff caf
jpeg media jpeg jpg,jpeg
webp media riff webp
icc media icc icc,icm
mpeg media id3 mp3
cube cube cube cube
hald cube cube none
template core template none
pipeline corespm yaml yaml,yml
where corespm yaml none
manifest corespm manifest jsonl
metadata corespm xmp jpg,jpeg,tif,tiff,png,webp,heic,dng,xmp
subtitle csub subtitle srt,vtt,ass,ssa
"

MODE=time; AMOUNT=600; SMOKE=0; BUILD_ONLY=0; ONLY=()
while [ $# -gt 0 ]; do
  case "$1" in
    --time) MODE=time; AMOUNT=${2:?--time SECONDS}; shift ;;
    --cpu) MODE=cpu; AMOUNT=${2:?--cpu SECONDS}; shift ;;
    --runs) MODE=runs; AMOUNT=${2:?--runs N}; shift ;;
    --smoke) SMOKE=1; MODE=runs; AMOUNT=${MEDLEY_FUZZ_SMOKE_RUNS:-2000} ;;
    --build-only) BUILD_ONLY=1 ;;
    --list) echo "$TARGETS" | awk 'NF { print $1 }'; exit 0 ;;
    -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) echo "$TARGETS" | awk -v t="$1" '$1 == t { f = 1 } END { exit !f }' \
         || { echo "fuzz.sh: no target $1 (see --list)" >&2; exit 2; }
       ONLY+=("$1") ;;
  esac
  shift
done
if [ ${#ONLY[@]} -eq 0 ]; then
  if [ $SMOKE -eq 1 ] && [ "${MEDLEY_FUZZ_CORE:-0}" != 1 ]; then
    mapfile -t ONLY < <(echo "$TARGETS" | awk 'NF && $2 != "corespm" { print $1 }')
  else
    mapfile -t ONLY < <(echo "$TARGETS" | awk 'NF { print $1 }')
  fi
fi

mkdir -p "$OUT/mod"
SWIFTC=(swiftc -sanitize=fuzzer,address -parse-as-library -O -g -suppress-warnings)
# Other flags than the last build's: build everything again.
if [ "$(cat "$OUT/flags" 2>/dev/null)" != "${SWIFTC[*]}" ]; then
  rm -rf "$OUT/mod"/* "$OUT/tags" "$OUT/media" "$OUT/cube" "$OUT/core" "$OUT/csub"; echo "${SWIFTC[*]}" > "$OUT/flags"
fi
# Rebuilds a binary when one of its sources is newer than it.
stale() { local bin=$1; shift; [ ! -f "$bin" ] || [ -n "$(find "$@" -newer "$bin" -print -quit)" ]; }
quiet() { grep -v "Cannot export local symbol" >&2 || true; }
build_group() {
  case "$1" in
    tags)
      local src=(Sources/MedleyTags/*.swift Fuzz/Tags/TagsFuzz.swift)
      stale "$OUT/tags" "${src[@]}" || return 0
      echo "fuzz.sh: building $OUT/tags" >&2
      "${SWIFTC[@]}" -module-name MedleyTags "${src[@]}" -o "$OUT/tags" 2>&1 | quiet ;;
    media)
      local src=(Sources/MedleyMedia/ICCProfile.swift Sources/MedleyMedia/JPEGSegments.swift Sources/MedleyMedia/WebPChunks.swift
                 Sources/MedleyMedia/Audio/MPEGFrameScan.swift Sources/MedleySystem/MediaError.swift Fuzz/Media/MediaFuzz.swift)
      stale "$OUT/media" "${src[@]}" || return 0
      echo "fuzz.sh: building $OUT/media" >&2
      "${SWIFTC[@]}" -module-name MedleyMedia "${src[@]}" -o "$OUT/media" 2>&1 | quiet ;;
    cube)
      # CubeFile (MedleyFilters) over an instrumented MedleyKernels module.
      build_group kernels
      local src=(Sources/MedleyFilters/Catalog/LUT/CubeFile.swift Fuzz/Cube/CubeFuzz.swift)
      stale "$OUT/cube" "${src[@]}" "$OUT/mod/libMedleyKernels.a" || return 0
      echo "fuzz.sh: building $OUT/cube" >&2
      "${SWIFTC[@]}" -module-name MedleyFilters -I "$OUT/mod" -L "$OUT/mod" -lMedleyKernels "${src[@]}" -o "$OUT/cube" 2>&1 | quiet ;;
    core)
      # NameTemplate (MedleyCore) over instrumented MedleyKernels and MedleyFilters.
      build_group kernels
      if stale "$OUT/mod/libMedleyFilters.a" Sources/MedleyFilters "$OUT/mod/libMedleyKernels.a"; then
        echo "fuzz.sh: building $OUT/mod/libMedleyFilters.a" >&2
        "${SWIFTC[@]}" -module-name MedleyFilters -I "$OUT/mod" -emit-module -emit-module-path "$OUT/mod/MedleyFilters.swiftmodule" \
          -emit-library -static $(find Sources/MedleyFilters -name '*.swift') -o "$OUT/mod/libMedleyFilters.a" 2>&1 | quiet
      fi
      local src=(Sources/MedleyCore/Templates/*.swift Fuzz/Core/CoreFuzz.swift)
      stale "$OUT/core" "${src[@]}" "$OUT/mod/libMedleyFilters.a" || return 0
      echo "fuzz.sh: building $OUT/core" >&2
      "${SWIFTC[@]}" -module-name MedleyCore -I "$OUT/mod" -L "$OUT/mod" -lMedleyFilters -lMedleyKernels "${src[@]}" -o "$OUT/core" 2>&1 | quiet ;;
    corespm)
      # SwiftPM builds incrementally: asking it each time costs seconds when nothing changed.
      echo "fuzz.sh: building $OUT/corespm (SwiftPM, MEDLEY_FUZZ=1)" >&2
      MEDLEY_FUZZ=1 swift build --build-path .build/fuzz-spm -c release -Xswiftc -sanitize=fuzzer,address \
        -Xswiftc -enable-testing -Xswiftc -use-ld=lld --product MedleyCoreFuzz 2>&1 | grep -E "error|warning: unre" >&2 || true
      # A new file renamed over the old: another lane may be running the old one (cp onto it fails).
      if cp .build/fuzz-spm/release/MedleyCoreFuzz "$OUT/corespm.new" 2>/dev/null; then mv -f "$OUT/corespm.new" "$OUT/corespm"
      else rm -f "$OUT/corespm.new" "$OUT/corespm"; fi ;;
    csub)
      # C: medley_subtitle.c and the shim files it calls, instrumented by clang; FFmpeg as Debian ships it.
      local shim=Sources/CFFmpegShim
      local src=(Fuzz/Subtitle/SubtitleFuzz.c $shim/medley_subtitle.c $shim/medley_input.c $shim/medley_error.c
                 $shim/medley_remux.c $shim/medley_output.c)
      stale "$OUT/csub" "${src[@]}" $shim/*.h $shim/include/*.h || return 0
      echo "fuzz.sh: building $OUT/csub" >&2
      # shellcheck disable=SC2046
      clang -fsanitize=fuzzer,address -O1 -g -std=gnu11 -I $shim/include -I $shim $(pkg-config --cflags libavformat) \
        "${src[@]}" $(pkg-config --libs libavformat libavcodec libavutil) -o "$OUT/csub" 2>&1 | quiet ;;
    kernels)
      if stale "$OUT/mod/libMedleyKernels.a" Sources/MedleyKernels; then
        echo "fuzz.sh: building $OUT/mod/libMedleyKernels.a" >&2
        "${SWIFTC[@]}" -module-name MedleyKernels -emit-module -emit-module-path "$OUT/mod/MedleyKernels.swiftmodule" \
          -emit-library -static Sources/MedleyKernels/*.swift -o "$OUT/mod/libMedleyKernels.a" 2>&1 | quiet
      fi
      [ -f "$OUT/mod/libMedleyKernels.a" ] || { echo "fuzz.sh: MedleyKernels did not build" >&2; exit 1; }
      return 0 ;;
  esac
  [ -x "$OUT/$1" ] || { echo "fuzz.sh: the $1 fuzz binary did not build" >&2; exit 1; }
}

# The seeds of a target: files of its extensions from fixtures/ and the test data cache (their
# first 64 KiB: tags and headers are at the start, and short inputs run faster), the committed
# Fuzz/seeds/TARGET, and every regression file so far.
seeds() {
  local name=$1 exts=$2 dir="$OUT/seeds/$1$lane"
  rm -rf "$dir"; mkdir -p "$dir"
  local find_args=() ext
  for ext in ${exts//,/ }; do find_args+=(-o -iname "*.$ext"); done
  { find fixtures "$DATA" -type f -size -20M \( -false "${find_args[@]}" \) 2>/dev/null || true; } | sort | head -300 |
    while read -r file; do head -c 65536 "$file" > "$dir/$(printf '%s' "$file" | md5sum | cut -c1-16)"; done
  # ICC profiles are inside images: take them out with exiftool (an independent reader).
  if [ "$name" = icc ] && command -v exiftool >/dev/null; then
    # One exiftool process for all (-w: each profile to a file of its own).
    { find fixtures "$DATA" -type f \( -iname '*.jpg' -o -iname '*.tif' -o -iname '*.png' \) 2>/dev/null || true; } | sort | head -60 \
      | exiftool -q -q -m -b -icc_profile -w "$dir/%f_%c.icc" -@ - >/dev/null 2>&1 || true
    find "$dir" -type f -empty -delete
  fi
  # Pipelines users copy are the pipeline target's best seeds.
  [ "$name" = pipeline ] && cp pipelines/*.yaml "$dir"/ 2>/dev/null
  [ -d "Fuzz/seeds/$name" ] && cp Fuzz/seeds/"$name"/* "$dir"/ 2>/dev/null || true
  # A roundtrip- target starts from its reader's committed seeds too (Fuzz/seeds/make-chunk-seeds.sh).
  local reader=${name#roundtrip-}
  [ "$reader" != "$name" ] && [ -d "Fuzz/seeds/$reader" ] && cp Fuzz/seeds/"$reader"/* "$dir"/ 2>/dev/null || true
  [ -d "Tests/regressions/fuzz/$name" ] && cp Tests/regressions/fuzz/"$name"/* "$dir"/ 2>/dev/null || true
  # libFuzzer needs one input at least.
  [ -n "$(ls -A "$dir")" ] || printf '\0' > "$dir/empty"
}

declare -A BUILT=()
for name in "${ONLY[@]}"; do
  group=$(echo "$TARGETS" | awk -v t="$name" '$1 == t { print $2 }')
  [ -n "${BUILT[$group]:-}" ] || { build_group "$group"; BUILT[$group]=1; }
done
[ $BUILD_ONLY -eq 1 ] && exit 0

status=0
touch "$OUT/results.tsv"
for name in "${ONLY[@]}"; do
  read -r group dict exts < <(echo "$TARGETS" | awk -v t="$name" '$1 == t { print $2, $3, $4 }')
  # MEDLEY_FUZZ_LANE=N: one of several runs of a target at once (one per core, over the same corpus):
  # seeds, a log and an artifacts folder of its own. A run starts with an empty artifacts folder (what
  # an earlier run found is in Tests/regressions/fuzz/ already).
  lane=${MEDLEY_FUZZ_LANE:+.lane$MEDLEY_FUZZ_LANE}
  seeds "$name" "$exts"
  artifacts="$OUT/artifacts/$name$lane"; rm -rf "$artifacts"; mkdir -p "$artifacts"
  corpus=()
  if [ $SMOKE -eq 0 ]; then mkdir -p "$OUT/corpus/$name"; corpus=("$OUT/corpus/$name"); fi
  limit=(-runs="$AMOUNT"); [ "$MODE" = time ] && limit=(-max_total_time="$AMOUNT")
  [ "$MODE" = cpu ] && limit=(-max_total_time=$((AMOUNT * 1000)))
  dictarg=(); [ -f "Fuzz/dict/$dict.dict" ] && dictarg=(-dict="Fuzz/dict/$dict.dict")
  log="$OUT/logs/$name$lane.log"; mkdir -p "$OUT/logs"
  echo "fuzz.sh: $name (${limit[*]})" >&2
  set +e
  MEDLEY_FUZZ_TARGET=$name ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 "$OUT/$group" \
    "${dictarg[@]}" -max_len=65536 -timeout=25 -rss_limit_mb=2048 -malloc_limit_mb=1024 -interrupted_exitcode=0 \
    -print_final_stats=1 -artifact_prefix="$artifacts/" "${limit[@]}" "${corpus[@]}" "$OUT/seeds/$name$lane" > "$log" 2>&1 &
  pid=$!
  cpu=0
  if [ "$MODE" = cpu ]; then
    # libFuzzer runs in one process: its user+system time (clock ticks, /proc/PID/stat fields 14
    # and 15) is the target's CPU time. SIGINT ends it with its final statistics.
    hz=$(getconf CLK_TCK)
    while kill -0 "$pid" 2>/dev/null; do
      ticks=$(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null || echo 0)
      cpu=$((ticks / hz))
      [ "$cpu" -ge "$AMOUNT" ] && { kill -INT "$pid" 2>/dev/null; break; }
      sleep 10
    done
  fi
  wait "$pid"
  rc=$?
  set -e
  # Stopped by --cpu's SIGINT with nothing found: libFuzzer may still exit 72 (its leak check at exit
  # is skipped on interruption); that is the end of a clean run, not a finding.
  if [ "$MODE" = cpu ] && [ $rc -ne 0 ] && grep -q 'run interrupted; exiting' "$log" && [ -z "$(ls -A "$artifacts")" ]; then rc=0; fi
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  execs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{ print $2 }')
  ft=$(echo "$last" | grep -oE 'ft: [0-9]+' | awk '{ print $2 }')
  cov=$(echo "$last" | grep -oE 'cov: [0-9]+' | awk '{ print $2 }')
  case "$MODE" in time) secs="${AMOUNT}s" ;; cpu) secs="${cpu}s-cpu" ;; *) secs="${AMOUNT}runs" ;; esac
  grep -qE '^stat::' "$log" || secs="" 
  printf '%s\t%s\t%s\texecs=%s\tcov=%s\tft=%s\trc=%s\n' "$(date -u +%FT%TZ)" "$name" "$secs" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$rc" >> "$OUT/results.tsv"
  echo "fuzz.sh: $name: ${execs:-?} executions, cov ${cov:-?}, ft ${ft:-?}" >&2
  if [ $rc -ne 0 ]; then
    status=1
    mkdir -p "Tests/regressions/fuzz/$name"
    for file in "$artifacts"/*; do
      [ -f "$file" ] || continue
      cp "$file" "Tests/regressions/fuzz/$name/$(basename "$file")"
      echo "fuzz.sh: $name FAILED: input saved as Tests/regressions/fuzz/$name/$(basename "$file")" >&2
    done
    grep -E 'ERROR|Fatal error|SUMMARY|panic|#[0-9]+ in ' "$log" | head -20 >&2
    echo "fuzz.sh: the whole report is in $log" >&2
  fi
done
exit $status
}

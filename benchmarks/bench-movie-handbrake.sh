#!/usr/bin/env bash
# bench-movie-handbrake.sh — issue 50: movies as HandBrake makes them, against HandBrakeCLI and the
# ffmpeg CLI, same files, same concurrency, one run:
#   A. 1080i → 720p H.264 (x264 veryfast, CRF 22): deinterlaced (bwdif, every frame), the letterbox
#      cropped automatically, every audio track (AAC 160 kb/s stereo), every subtitle and the
#      chapters kept, MKV out. Medley `transcode: {videoCodec: h264, speed: veryfast, crf: 22,
#      maxHeight: 720, crop: auto, audio: {AAC, 160000}}` (deinterlace: auto is the default) versus
#      HandBrakeCLI (goal ≤ 1.0×) and ffmpeg with the same graph (goal ≤ 1.05×; its crop is found by
#      cropdetect beforehand, outside the timing — work Medley does inside its run).
#   B. HLG 10-bit HEVC → SDR BT.709 H.264 (x264 veryfast, CRF 22, same size): Medley
#      `transcode: {videoCodec: h264, speed: veryfast, crf: 22}` (tone-mapped by itself, hable) versus
#      ffmpeg's zscale + tonemap=hable graph (goal ≤ 1.0×) and HandBrakeCLI's --colorspace filter with
#      tonemap=hable when this HandBrake has it.
# Every output of the last run is checked once with ffprobe (stream counts, sizes, frame rate,
# chapters, field order and idet on the deinterlaced pictures, BT.709 tags on the tone-mapped ones);
# a line per check.
#
# Movies made once into benchmarks/.movie-handbrake-corpus by ffmpeg from the real photos of the
# test data cache (scripts/setup.sh --test), panned, with light film grain:
#   INTERLACED (default 3) × 20 s 1920×1080i25 H.264 (50 fields/s woven top field first, field-coded
#   with +ildct+ilme, tff=1), the picture 1920×800 letterboxed into 1080, two AAC tracks (eng, fra),
#   an SRT subtitle track (eng) and four chapters, in MKV;
#   HLG (default 2) × 10 s 1920×1080p25 HLG 10-bit HEVC (BT.2020, arib-std-b67) + AAC, in MKV.
#
# Usage: benchmarks/bench-movie-handbrake.sh
# Environment: MEDLEY (default <repo>/.build/release/medley, else .build/debug/medley), RUNS
# (default 1: the encodes are long), JOBS (default nproc), INTERLACED, HLG, HANDBRAKE (default
# HandBrakeCLI; a missing one is left out of the table), CORPUS_ONLY=1 (make the movies and stop).
set -euo pipefail
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_dir=$(cd "$script_dir/.." && pwd)
runs=${RUNS:-1}
jobs=${JOBS:-$(nproc)}
interlaced=${INTERLACED:-3}
hlg=${HLG:-2}
handbrake=${HANDBRAKE:-HandBrakeCLI}
medley=${MEDLEY:-"$repo_dir/.build/release/medley"}
[[ -x $medley ]] || medley="$repo_dir/.build/debug/medley"
[[ -x $medley ]] || { echo "build first: scripts/build.sh" >&2; exit 1; }
for tool in ffmpeg ffprobe parallel; do command -v "$tool" >/dev/null || { echo "bench-movie-handbrake: needs $tool" >&2; exit 1; }; done
command -v "$handbrake" >/dev/null || { echo "bench-movie-handbrake: no $handbrake, HandBrake left out" >&2; handbrake=""; }
data=${MEDLEY_TEST_DATA:-${XDG_CACHE_HOME:-$HOME/.cache}/medley-tests}
photos="$data/photos/photos"
sounds="$data/realworld-audio-subset/audio/sound-theme-freedesktop/usr/share/sounds/freedesktop/stereo"
[[ -d $photos && -f $sounds/alarm-clock-elapsed.oga && -f $sounds/phone-incoming-call.oga ]] ||
  { echo "bench-movie-handbrake: needs the test data cache (scripts/setup.sh --test)" >&2; exit 1; }
mapfile -t pictures < <(find "$photos" -name '*.jpg' | sort | head -8)

# ---------------------------------------------------------------------------------------- corpus
corpus="$repo_dir/benchmarks/.movie-handbrake-corpus"
mkdir -p "$corpus/interlaced" "$corpus/hlg"
make_interlaced() { # photo out
  local tmp="${2%.mkv}.tmp.mkv" meta="${2%.mkv}.chapters.txt" srt="${2%.mkv}.srt"
  { echo ";FFMETADATA1"
    for c in 0 1 2 3; do printf '[CHAPTER]\nTIMEBASE=1/1000\nSTART=%d\nEND=%d\ntitle=Chapter %d\n' $((c * 5000)) $(((c + 1) * 5000)) $((c + 1)); done
  } > "$meta"
  for s in $(seq 0 9); do printf '%d\n00:00:%02d,000 --> 00:00:%02d,500\nLine %d of the English subtitles\n\n' $((s + 1)) $((s * 2)) $((s * 2 + 1)) $((s + 1)); done > "$srt"
  # 50 progressive pictures a second panned over the photo, grain on the picture (not the bars),
  # letterboxed, then woven two by two into 25 interlaced frames, top field first (no fieldorder
  # filter: tinterlace already weaves the top field first, and fieldorder takes no 4:2:0).
  ffmpeg -nostdin -v error -y -loop 1 -framerate 50 -i "$1" \
    -stream_loop -1 -i "$sounds/alarm-clock-elapsed.oga" -stream_loop -1 -i "$sounds/phone-incoming-call.oga" \
    -i "$srt" -i "$meta" -filter_complex \
    "[0:v]scale=3840:-2,crop=1920:800:x='t*80':y='(ih-800)/3',format=yuv420p,noise=alls=6:allf=t,pad=1920:1080:0:140:black,tinterlace=interleave_top,setfield=tff,format=yuv420p[v]" \
    -map "[v]" -map 1:a -map 2:a -map 3:s -map_chapters 4 -t 20 \
    -c:v libx264 -preset veryfast -crf 18 -g 50 -flags +ildct+ilme -x264-params tff=1 \
    -c:a aac -b:a 192k -ac 2 -ar 48000 -c:s srt \
    -metadata:s:a:0 language=eng -metadata:s:a:1 language=fra -metadata:s:s:0 language=eng \
    -metadata title="$(basename "$1" .jpg)" "$tmp"
  mv "$tmp" "$2"; rm -f "$meta" "$srt"
}
make_hlg() { # photo out
  local tmp="${2%.mkv}.tmp.mkv"
  ffmpeg -nostdin -v error -y -loop 1 -framerate 25 -i "$1" -stream_loop -1 -i "$sounds/alarm-clock-elapsed.oga" \
    -filter_complex "[0:v]scale=3840:-2,crop=1920:1080:x='t*80':y='(ih-1080)/3',noise=alls=6:allf=t,format=yuv420p10le[v]" \
    -map "[v]" -map 1:a -t 10 \
    -c:v libx265 -preset faster -crf 20 -pix_fmt yuv420p10le \
    -color_primaries bt2020 -color_trc arib-std-b67 -colorspace bt2020nc \
    -x265-params log-level=none:colorprim=bt2020:transfer=arib-std-b67:colormatrix=bt2020nc:range=limited \
    -c:a aac -b:a 192k -ac 2 -ar 48000 -metadata title="$(basename "$1" .jpg)" "$tmp"
  mv "$tmp" "$2"
}
for i in $(seq 1 "$interlaced"); do
  f="$corpus/interlaced/movie$i.mkv"
  [[ -f $f ]] || { echo "bench-movie-handbrake: making $f" >&2; make_interlaced "${pictures[$(( (i - 1) % ${#pictures[@]} ))]}" "$f"; }
done
for i in $(seq 1 "$hlg"); do
  f="$corpus/hlg/hlg$i.mkv"
  [[ -f $f ]] || { echo "bench-movie-handbrake: making $f" >&2; make_hlg "${pictures[$(( (i + 2) % ${#pictures[@]} ))]}" "$f"; }
done
mkdir -p "$corpus/in-interlaced" "$corpus/in-hlg"    # exactly the first N / M movies
find "$corpus/in-interlaced" "$corpus/in-hlg" -name '*.mkv' -delete
for i in $(seq 1 "$interlaced"); do ln "$corpus/interlaced/movie$i.mkv" "$corpus/in-interlaced/"; done
for i in $(seq 1 "$hlg"); do ln "$corpus/hlg/hlg$i.mkv" "$corpus/in-hlg/"; done
movies=("$corpus"/in-interlaced/*.mkv)
hdrs=("$corpus"/in-hlg/*.mkv)
cat "${movies[@]}" "${hdrs[@]}" > /dev/null
[[ -z ${CORPUS_ONLY:-} ]] || exit 0

# ---------------------------------------------------------------------------------------- harness
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
best_of() { # tag command…   (writes into $work/out/tag, emptied before each run; best wall s; CPU s of that run: cpu tag)
  local tag=$1 best="" best_cpu=""; shift
  for _ in $(seq "$runs"); do
    rm -rf "$work/out/$tag" && mkdir -p "$work/out/$tag"
    /usr/bin/time -f "%e %U %S" -o "$work/time" "$@" > "$work/$tag.log" 2>&1 || { echo "failed: $* (log: $(tail -3 "$work/$tag.log"))" >&2; return 1; }
    read -r wall user sys < "$work/time"
    if [[ -z $best ]] || awk -v a="$wall" -v b="$best" 'BEGIN{exit !(a < b)}'; then
      best=$wall; best_cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN{printf "%.0f", u + s}')
    fi
  done
  echo "$best_cpu" > "$work/cpu.$tag"
  printf "%.2f\n" "$best"
}
cpu() { cat "$work/cpu.$1"; }
ratio() { [[ $1 == - || $2 == - ]] && { echo "–"; return; }; awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", a/b}'; }
pipeline() { # folder transcode out name
  cat > "$work/pipeline.yaml" <<YAML
version: 1
jobs:
  - name: movies
    ingest: { from: [$1], media: [movie] }
    transcode: $2
    export: { to: $3, name: "$4" }
YAML
}
run_medley=("$medley" run "$work/pipeline.yaml" --jobs "$jobs" --quiet --force)
checks=()
check() { # description ok-condition(0/1) detail
  local line
  if [[ $2 == 1 ]]; then line="- ok: $1 ($3)"; else line="- **FAILED**: $1 ($3)"; fi
  checks+=("$line"); echo "bench-movie-handbrake: check $line" >&2
}
probe() { # file entries selector
  ffprobe -v error -select_streams "$3" -show_entries "$2" -of default=nw=1:nk=1 "$1" | paste -sd, -
}
streams() { # file → "v a s" counts
  local v a s
  v=$(ffprobe -v error -select_streams v -show_entries stream=index -of csv=p=0 "$1" | wc -l)
  a=$(ffprobe -v error -select_streams a -show_entries stream=index -of csv=p=0 "$1" | wc -l)
  s=$(ffprobe -v error -select_streams s -show_entries stream=index -of csv=p=0 "$1" | wc -l)
  echo "$v $a $s"
}
idet_share() { # file → share of the first 250 pictures idet calls interlaced (multi-frame)
  ffmpeg -nostdin -hide_banner -i "$1" -vf idet -frames:v 250 -an -sn -f null - 2>&1 |
    awk '/Multi frame detection/ { for (i = 1; i <= NF; i++) { if ($i == "TFF:") t = $(i+1); if ($i == "BFF:") b = $(i+1); if ($i == "Progressive:") p = $(i+1) } }
         END { n = t + b + p; printf "%.2f", n ? (t + b) / n : -1 }'
}
verify_a() { # tag
  local dir="$work/out/$1" n f
  n=$(find "$dir" -maxdepth 1 -name '*.mkv' | wc -l)
  check "A $1: $n of ${#movies[@]} outputs" "$((n == ${#movies[@]}))" "$dir"
  f="$dir/movie1.mkv"; [[ -f $f ]] || return 0
  local counts size rate field chapters interl dur
  counts=$(streams "$f")
  size=$(probe "$f" stream=width,height v:0 | tr , x)
  rate=$(probe "$f" stream=avg_frame_rate v:0)
  field=$(probe "$f" stream=field_order v:0)
  chapters=$(ffprobe -v error -show_chapters -of csv=p=0 "$f" | wc -l)
  dur=$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$f")
  interl=$(idet_share "$f")
  local achan; achan=$(probe "$f" stream=codec_name,channels a | tr '\n' ' ')
  check "A $1 movie1: streams video/audio/subtitle" "$([[ $counts == "1 2 1" ]] && echo 1 || echo 0)" "$counts; audio $achan"
  check "A $1 movie1: picture cropped and scaled to 1728×720" "$([[ $size == 1728x720 ]] && echo 1 || echo 0)" "$size, $rate fps, ${dur}s"
  check "A $1 movie1: deinterlaced (progressive, idet ≤ 5 % interlaced)" \
    "$(awk -v i="$interl" -v f="$field" 'BEGIN{print (i >= 0 && i <= 0.05 && f != "tt" && f != "tb") ? 1 : 0}')" "field_order ${field:-unset}, idet interlaced share $interl"
  check "A $1 movie1: 4 chapters" "$((chapters == 4))" "$chapters"
}
verify_b() { # tag
  local dir="$work/out/$1" n f
  n=$(find "$dir" -maxdepth 1 -name '*.mkv' | wc -l)
  check "B $1: $n of ${#hdrs[@]} outputs" "$((n == ${#hdrs[@]}))" "$dir"
  f=$(find "$dir" -name 'hlg1.*' | head -1); [[ -n $f ]] || return 0
  local v counts
  v=$(probe "$f" stream=codec_name,width,height,pix_fmt,color_primaries,color_transfer,color_space v:0)
  counts=$(streams "$f")
  check "B $1 hlg1: H.264 1920×1080 8-bit BT.709 SDR" \
    "$([[ $v == h264,1920,1080,yuv420p,bt709,bt709,bt709 ]] && echo 1 || echo 0)" "$v; streams v/a/s $counts"
}
psnr() { # a b → average PSNR (dB) of the first 100 pictures of two outputs of the same size
  ffmpeg -nostdin -hide_banner -i "$1" -i "$2" -lavfi "[0:v][1:v]psnr" -frames:v 100 -an -sn -f null - 2>&1 |
    sed -n 's/.*PSNR.* average:\([0-9.inf]*\).*/\1/p' | tail -1
}
same_picture() { # task file tag… — each tool's output against ffmpeg's, which the others are measured against
  local ref="$work/out/ffmpeg-$1/$2" tag p
  for tag in "${@:3}"; do
    [[ -f $ref && -f $work/out/$tag/$2 ]] || continue
    p=$(psnr "$work/out/$tag/$2" "$ref")
    if [[ $tag == handbrake-b ]]; then  # HandBrake's own colorspace filter: the same curve, not the same maths
      checks+=("- info: B $tag $2 against ffmpeg's: PSNR ${p:-?} dB over 100 pictures (HandBrake's own colorspace filter)")
      continue
    fi
    check "${1^^} $tag $2: the same picture as ffmpeg's (PSNR ≥ 30 dB over 100 pictures)" \
      "$(awk -v p="$p" 'BEGIN{print (p == "inf" || p + 0 >= 30) ? 1 : 0}')" "${p:-?} dB"
  done
}

{ read -r _ load1 load5 load15 _; } < <(uptime | sed 's/.*load average: //; s/,//g' | awk '{print "x", $1, $2, $3, "x"}')
echo "### Movies as HandBrake makes them, $jobs at a time ($(date -u +%Y-%m-%d), $(ffmpeg -version | head -1 | cut -d' ' -f1-3), ${handbrake:+$("$handbrake" --version 2>/dev/null | grep -m1 HandBrake), }$(basename "$(dirname "$(dirname "$medley")")")/$(basename "$(dirname "$medley")") medley, load at start $load1 $load5 $load15)"
echo
echo "| task | tool | best s | CPU s (user+sys) | Medley ÷ tool | goal |"
echo "|---|---|---:|---:|---:|---:|"

# ---------------------------------------------------------------------------------------- task A
taskA="A: ${#movies[@]} × 20 s 1080i → 720p H.264, deinterlace + autocrop, 2 audio + 1 subtitle + chapters, MKV"
crops=()
crop_start=$(date +%s.%N)
for f in "${movies[@]}"; do  # ffmpeg's crop, found beforehand (Medley and HandBrake find their own in their runs)
  c=$(ffmpeg -nostdin -hide_banner -i "$f" -map 0:v:0 -vf cropdetect=limit=24:round=2:reset=0 -f null - 2>&1 |
      sed -n 's/.*crop=\([0-9:]*\).*/\1/p' | tail -1)
  crops+=("$c")
done
crop_s=$(awk -v s="$crop_start" -v e="$(date +%s.%N)" 'BEGIN{printf "%.2f", e - s}')
echo "bench-movie-handbrake: cropdetect says ${crops[*]} (${crop_s} s, one file after another)" >&2
: > "$work/a-jobs"
for i in "${!movies[@]}"; do printf '%s\t%s\n' "${movies[$i]}" "${crops[$i]}" >> "$work/a-jobs"; done

pipeline "$corpus/in-interlaced" "{ videoCodec: h264, speed: veryfast, crf: 22, maxHeight: 720, crop: auto, audio: {AVFormatIDKey: kAudioFormatMPEG4AAC, AVEncoderBitRateKey: 160000} }" "$work/out/medley-a" "{stem}.mkv"
echo "bench-movie-handbrake: A medley" >&2
ta_m=$(best_of medley-a "${run_medley[@]}"); verify_a medley-a
hb_a=(-f av_mkv -e x264 --encoder-preset veryfast --encoder-profile high --encoder-level auto -q 22 --vfr
      --maxHeight 720 --maxWidth 1920 --non-anamorphic --crop-mode auto --bwdif --no-comb-detect
      --all-audio -E av_aac -B 160 --mixdown stereo -R auto --all-subtitles --subtitle-burned=none --markers)
if [[ -n $handbrake ]]; then
  echo "bench-movie-handbrake: A HandBrakeCLI" >&2
  ta_h=$(best_of handbrake-a parallel -j"$jobs" "$handbrake" -i {} -o "$work/out/handbrake-a/{/.}.mkv" "${hb_a[@]}" ::: "${movies[@]}")
  verify_a handbrake-a
fi
ff_a="-map 0 -c:v libx264 -preset veryfast -crf 22 -c:a aac -b:a 160k -ac 2 -c:s copy"
echo "bench-movie-handbrake: A ffmpeg" >&2
# shellcheck disable=SC2086
ta_f=$(best_of ffmpeg-a parallel -j"$jobs" --colsep '\t' ffmpeg -nostdin -v error -y -i {1} \
       -vf "bwdif=mode=send_frame:parity=auto:deint=all,crop={2},scale=-2:720" $ff_a "$work/out/ffmpeg-a/{1/.}.mkv" :::: "$work/a-jobs")
verify_a ffmpeg-a
echo "| $taskA | Medley | $ta_m | $(cpu medley-a) | | |"
[[ -n $handbrake ]] && echo "| | HandBrakeCLI | $ta_h | $(cpu handbrake-a) | $(ratio "$ta_m" "$ta_h") | ≤ 1.0 |"
echo "| | ffmpeg (+ ${crop_s} s of cropdetect beforehand, not counted) | $ta_f | $(cpu ffmpeg-a) | $(ratio "$ta_m" "$ta_f") | ≤ 1.05 |"

# ---------------------------------------------------------------------------------------- task B
taskB="B: ${#hdrs[@]} × 10 s 1080p HLG 10-bit HEVC → SDR BT.709 H.264 (hable), MKV"
pipeline "$corpus/in-hlg" "{ videoCodec: h264, speed: veryfast, crf: 22 }" "$work/out/medley-b" "{stem}.mkv"
echo "bench-movie-handbrake: B medley" >&2
tb_m=$(best_of medley-b "${run_medley[@]}"); verify_b medley-b
ff_b_vf="zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=hable:desat=0,zscale=t=bt709:m=bt709:r=tv,format=yuv420p"
ff_b="-c:v libx264 -preset veryfast -crf 22 -color_primaries bt709 -color_trc bt709 -colorspace bt709 -c:a aac -b:a 128k -ac 2"
echo "bench-movie-handbrake: B ffmpeg" >&2
# shellcheck disable=SC2086
tb_f=$(best_of ffmpeg-b parallel -j"$jobs" ffmpeg -nostdin -v error -y -i {} -vf "$ff_b_vf" $ff_b "$work/out/ffmpeg-b/{/.}.mkv" ::: "${hdrs[@]}")
verify_b ffmpeg-b
hb_b=(-f av_mkv -e x264 --encoder-preset veryfast --encoder-profile high --encoder-level auto -q 22 --vfr
      --non-anamorphic --crop-mode none --no-comb-detect --no-decomb --no-deinterlace
      --colorspace=primaries=bt709:transfer=bt709:matrix=bt709:tonemap=hable:desat=0 -E av_aac -B 128 --mixdown stereo)
hb_b_note=""
if [[ -n $handbrake ]]; then
  # Does this HandBrake tone-map? Try one second of one movie first.
  if "$handbrake" -i "${hdrs[0]}" -o "$work/hb-probe.mkv" "${hb_b[@]}" --stop-at seconds:1 > "$work/hb-probe.log" 2>&1 &&
     [[ $(probe "$work/hb-probe.mkv" stream=color_transfer v:0) == bt709 ]]; then
    echo "bench-movie-handbrake: B HandBrakeCLI" >&2
    tb_h=$(best_of handbrake-b parallel -j"$jobs" "$handbrake" -i {} -o "$work/out/handbrake-b/{/.}.mkv" "${hb_b[@]}" ::: "${hdrs[@]}")
    verify_b handbrake-b
  else
    hb_b_note="HandBrakeCLI cannot tone-map here: $(grep -m1 -iE 'error|invalid|unknown|colorspace' "$work/hb-probe.log" || echo "output transfer $(probe "$work/hb-probe.mkv" stream=color_transfer v:0 2>/dev/null)")"
    echo "bench-movie-handbrake: $hb_b_note" >&2
  fi
fi
echo "| $taskB | Medley | $tb_m | $(cpu medley-b) | | |"
echo "| | ffmpeg (zscale + tonemap) | $tb_f | $(cpu ffmpeg-b) | $(ratio "$tb_m" "$tb_f") | ≤ 1.0 |"
[[ -n ${tb_h:-} ]] && echo "| | HandBrakeCLI (--colorspace …:tonemap=hable) | $tb_h | $(cpu handbrake-b) | $(ratio "$tb_m" "$tb_h") | ≤ 1.0 |"
same_picture a movie1.mkv medley-a handbrake-a
same_picture b hlg1.mkv medley-b handbrake-b

echo
echo "Checks of each tool's outputs (the first movie of each task):"
printf '%s\n' "${checks[@]}"
echo
echo "Commands (\`parallel -j$jobs\` over the movies; Medley: \`medley run pipeline.yaml --jobs $jobs --quiet --force\`):"
echo
echo "- A Medley: \`transcode: { videoCodec: h264, speed: veryfast, crf: 22, maxHeight: 720, crop: auto, audio: {AVFormatIDKey: kAudioFormatMPEG4AAC, AVEncoderBitRateKey: 160000} }\`, export \`{stem}.mkv\` (deinterlace: auto, every track and chapter kept: the defaults)"
[[ -n $handbrake ]] && echo "- A HandBrakeCLI: \`HandBrakeCLI -i in.mkv -o out.mkv ${hb_a[*]}\`"
echo "- A ffmpeg: \`ffmpeg -i in.mkv -vf bwdif=mode=send_frame:parity=auto:deint=all,crop=W:H:X:Y,scale=-2:720 $ff_a out.mkv\`, W:H:X:Y from \`ffmpeg -i in.mkv -vf cropdetect=limit=24:round=2:reset=0 -f null -\` over the whole movie beforehand (${crops[0]}; ${crop_s} s for the ${#movies[@]} movies one after another, not in the timing)"
echo "- B Medley: \`transcode: { videoCodec: h264, speed: veryfast, crf: 22 }\`, export \`{stem}.mkv\` (hdr: auto → tone-mapped, hable)"
echo "- B ffmpeg: \`ffmpeg -i in.mkv -vf $ff_b_vf $ff_b out.mkv\`"
if [[ -n $handbrake ]]; then
  if [[ -n ${tb_h:-} ]]; then echo "- B HandBrakeCLI: \`HandBrakeCLI -i in.mkv -o out.mkv ${hb_b[*]}\`"; else echo "- B HandBrakeCLI: left out — $hb_b_note"; fi
fi
echo
echo "Best of $runs run(s); CPU s is user+sys of the best run (children included). \`lscpu\`: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores; load average at the end $(uptime | sed 's/.*load average: //'); medley $(git -C "$repo_dir" rev-parse --short HEAD)."

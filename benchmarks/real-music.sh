#!/usr/bin/env bash
# real-music.sh — a corpus of real, full-length music tracks for the AAC benchmark (issue 18 goal 4).
#
# Usage: benchmarks/real-music.sh DIR
#
# Packages are fetched with `apt-get download` into DIR/.debs (kept as a cache) and unpacked with
# `dpkg-deb -x` into a temporary folder: nothing is installed. Result:
#   DIR/ogg/   Ogg Vorbis, 44.1 kHz stereo — frozen-bubble-data's three music tracks (3–5.5 min each)
#   DIR/mp3/   MP3, 22.05 kHz stereo 80 kb/s — asc-music's three tracks (5–7.5 min each)
#   DIR/flac/  FLAC, 44.1 kHz stereo 16-bit — the OGG tracks decoded by oggdec (libvorbisfile) and
#              encoded by the `flac` tool: Debian ships no full-length FLAC music in a small package,
#              so these are other people's encoders applied to the real OGGs.
# No small Debian package found here ships 48 kHz music; every source is 44.1 or 22.05 kHz.
# Idempotent: a folder already made is left as it is. About 32 MB to download.
set -euo pipefail
if [ $# -ne 1 ] || [ "${1:0:1}" = "-" ]; then
  sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
OUT=$(mkdir -p "$1" && cd "$1" && pwd)
DEBS="$OUT/.debs"
mkdir -p "$DEBS"

# fetch PACKAGE → the .deb's path (downloaded once)
fetch() {
  local deb
  deb=$(ls "$DEBS/${1}_"*.deb 2>/dev/null | head -1 || true)
  if [ -z "$deb" ]; then
    # apt's "download is performed unsandboxed as root" notice is noise here, not a failure
    (cd "$DEBS" && apt-get download -qq "$1" 2>&1 >/dev/null | grep -v unsandboxed >&2 || true)
    deb=$(ls "$DEBS/${1}_"*.deb 2>/dev/null | head -1 || true)
    [ -n "$deb" ] || { echo "real-music: apt-get download $1 failed" >&2; exit 1; }
  fi
  echo "$deb"
}

# take KIND PACKAGE PATH-IN-PACKAGE... : copies the named files into DIR/KIND
take() {
  local kind=$1 pkg=$2; shift 2
  [ -f "$OUT/$kind/.done" ] && return 0
  local deb tmp
  deb=$(fetch "$pkg")
  tmp=$(mktemp -d)
  dpkg-deb -x "$deb" "$tmp"
  rm -rf "${OUT:?}/$kind" && mkdir -p "$OUT/$kind"
  for rel in "$@"; do cp "$tmp/$rel" "$OUT/$kind/"; done
  rm -rf "$tmp"
  touch "$OUT/$kind/.done"
}

take ogg frozen-bubble-data \
  usr/share/games/frozen-bubble/snd/frozen-mainzik-1p.ogg \
  usr/share/games/frozen-bubble/snd/frozen-mainzik-2p.ogg \
  usr/share/games/frozen-bubble/snd/introzik.ogg
take mp3 asc-music \
  usr/share/games/asc/music/frontiers.mp3 \
  usr/share/games/asc/music/time_to_strike.mp3 \
  usr/share/games/asc/music/machine_wars.mp3

if [ ! -f "$OUT/flac/.done" ]; then
  rm -rf "$OUT/flac" && mkdir -p "$OUT/flac"
  for f in "$OUT"/ogg/*.ogg; do
    stem=$(basename "$f" .ogg)
    oggdec -Q -o "$OUT/flac/$stem.wav" "$f"
    flac -s -5 -o "$OUT/flac/$stem.flac" "$OUT/flac/$stem.wav"
    rm "$OUT/flac/$stem.wav"
  done
  touch "$OUT/flac/.done"
fi
for kind in ogg mp3 flac; do
  echo "real-music: $kind: $(ls "$OUT/$kind" | wc -l) files, $(du -sh "$OUT/$kind" | cut -f1)" >&2
done

#!/usr/bin/env bash
# Fetches the test data that comes from Debian's packages — real audio other people's encoders
# made — into a cache, once, so that no test downloads anything while it runs. Idempotent: a
# package already unpacked is kept (make-audio.sh's .done marks).
#
# Usage: scripts/test-data.sh          (scripts/setup.sh --tests calls it)
# The cache is $MEDLEY_TEST_DATA, by default ${XDG_CACHE_HOME:-$HOME/.cache}/medley-tests; the
# tests read the same variable with the same default (Tests/MedleyEndToEndTests/Support.swift,
# Tool.testData).
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${MEDLEY_TEST_DATA:-${XDG_CACHE_HOME:-$HOME/.cache}/medley-tests}
mkdir -p "$DATA"
# The representative subset of the real-world audio corpus: Vorbis .oga (sound-theme-freedesktop)
# and WAV (alsa-utils, sound-icons), about 2 MB to download. RealWorldAudioCorpusTests,
# ReplayGainRunTests, AlbumPassTests, TrimFadeRunTests and LoudnessNormalizationRunTests read it.
if ! fixtures/realworld/make-audio.sh "$DATA/realworld-audio-subset" --subset; then
  # apt-get download needs package lists; a machine set up earlier may have none left.
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  fixtures/realworld/make-audio.sh "$DATA/realworld-audio-subset" --subset
fi
# Loud real music (issue 31): frozen-bubble-data's frozen-mainzik-2p.ogg, a mastered Vorbis track (184 s)
# whose true peak is over 0 dBTP by ffmpeg's ebur128. DeliveredLoudnessRunTests reads it (22 MB package).
if [ ! -f "$DATA/loud-music/frozen-mainzik-2p.ogg" ]; then
  tmp=$(mktemp -d)
  (cd "$tmp" && apt-get download -qq frozen-bubble-data 2>&1 >/dev/null | grep -v unsandboxed >&2 || true)
  deb=$(ls "$tmp"/frozen-bubble-data_*.deb 2>/dev/null | head -1 || true)
  [ -n "$deb" ] || { echo "test-data: apt-get download frozen-bubble-data failed" >&2; exit 1; }
  dpkg-deb -x "$deb" "$tmp/x"
  mkdir -p "$DATA/loud-music"
  cp "$tmp/x/usr/share/games/frozen-bubble/snd/frozen-mainzik-2p.ogg" "$DATA/loud-music/"
  rm -rf "$tmp"
fi
# Camera RAW files (issue 29): Canon EOS 30D's full-size CR2 (rawtran-doc) and exiftool's
# header-only RAWs of many makers (its source package). RawFileTests and RawRunTests read them.
fixtures/realworld/make-raw.sh "$DATA/realworld-raw"
# The image-metadata corpus (issue 29): camera EXIF from golang-github-rwcarlsen-goexif-dev's test
# images, files and sidecars exiftool writes, bad sidecars. MetadataCorpusTests reads it.
if [ ! -d "$DATA/metadata/metadata/camera" ]; then
  fixtures/realworld/make-metadata.sh "$DATA/metadata"
fi
# Real photographs (issue 30): scikit-image's sample photos from python3-skimage, as PNG and JPEG.
# SmartCropTests reads them.
fixtures/realworld/make-photos.sh "$DATA/photos"
# Awkward real-world images (issue 30): the photos above and Debian's Adwaita icons turned into every
# EXIF orientation, CMYK with and without a profile, P3/ProPhoto, 16-bit, grey+alpha, palettes,
# animations, AVIF, JPEG 2000, SVG, a gain-map-like MPF JPEG, truncated files and a pixel bomb.
# AwkwardThumbnailTests reads them.
fixtures/realworld/make-awkward.sh "$DATA/awkward" "$DATA/photos/photos"

#!/usr/bin/env bash
# Installs every Debian package Medley needs (idempotent), then builds the release binary.
# Usage: scripts/setup.sh [--no-build]
set -euo pipefail
cd "$(dirname "$0")/.."

# Build and run-time libraries (the C libraries behind MedleyMedia) and the peer tools that
# tests use as independent references (vips, exiftool) and benchmarks compare against
# (vips, ImageMagick, GNU parallel).
PACKAGES=(
  pkg-config
  libvips-dev libvips-tools
  libyaml-dev
  libsqlite3-dev
  # XXH3 content hashes (persistentID); xxhsum is the independent check in tests
  libxxhash-dev xxhash
  # audio: libsndfile (WAV/AIFF/CAF/FLAC/Ogg/Opus/MP3 I/O), libsamplerate (resampling),
  # FFmpeg's libraries (AAC/ALAC in M4A; movies: libswscale for pictures, libswresample for sound)
  libsndfile1-dev libsamplerate0-dev libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libswresample-dev
  libimage-exiftool-perl
  imagemagick
  parallel
  time
  # independent references in tests and peers in benchmarks
  ffmpeg sox libsox-fmt-all samplerate-programs
  # independent tag readers for TagIO's tests: mutagen (raw ID3 frames, MP4 atoms, Vorbis
  # fields), ogginfo and opusinfo (Ogg page CRCs and sequence numbers)
  python3-mutagen vorbis-tools opus-tools
  # the tagger matrix of fixtures/realworld/make-tags.sh: the taggers the field uses write
  # tags into each container (id3v2 writes ID3v2.3, eyeD3, kid3-cli is TagLib, AtomicParsley
  # writes MP4 atoms, flac's metaflac writes Vorbis comments and pictures into FLAC)
  id3v2 eyed3 kid3-cli atomicparsley flac
  # fixtures/realworld/check-audio.py compares decoded samples of inputs and outputs with numpy
  python3-numpy
  # the real-world image corpus (fixtures/realworld/make-images.sh, check-images.py): cwebp and
  # gif2webp write WebP stills and animations, ICC profiles to embed (Adobe RGB, ProPhoto, Rec. 709…),
  # numpy compares Medley's pixels with vips' decode
  webp icc-profiles-free colord-data
  # renders the HTML run report in its test (DOM, screenshot, network log)
  chromium
  # CIQRCodeGenerator's symbols come from libqrencode; zbarimg decodes QR and Code 128 outputs in tests
  libqrencode-dev zbar-tools
  # text watermarks and CITextImageGenerator: vips_text draws with fontconfig's fonts (DejaVu Sans is the default)
  fonts-dejavu-core
  # loudness (EBU R128 integrated, range, true peak) for analyze, normalize and ReplayGain tags
  libebur128-dev
  # SlurmClusterTests: a throw-away single-node Slurm cluster (deploy/slurm/single-node-cluster.sh):
  # slurmctld, slurmd and the client commands, and munge for their authentication
  slurm-wlm munge
  # the container image (deploy/container/build-image.sh) and ContainerShardTests: mmdebstrap makes
  # the Debian root, podman imports and runs it, buildah adds medley's layer; runc is the runtime
  # (crun 1.8 refuses this machine's hybrid cgroups); binutils' objcopy strips debug sections
  mmdebstrap podman buildah runc binutils
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "setup: installing ${missing[*]}" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

export PATH="/opt/swift/usr/bin:$PATH"
if [ "${1:-}" != "--no-build" ]; then
  scripts/build.sh
fi

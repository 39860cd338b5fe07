#!/usr/bin/env bash
# Installs the Debian packages Medley needs to build and run (idempotent), then builds the
# release binary. With --test, also the peer tools the tests use as references and the test
# data they read (scripts/test-data.sh).
# Usage: scripts/setup.sh [--test] [--no-build]   (--tests is the same)
set -euo pipefail
cd "$(dirname "$0")/.."

# What building and running Medley needs: the C libraries behind MedleyMedia (their -dev
# packages, found with pkg-config) and the font text watermarks draw with. A user's machine
# gets only these.
RUN_PACKAGES=(
  pkg-config
  libvips-dev
  # GIFs of a movie clip: libimagequant (the palette) and cgif (the file) directly, libvips' own GIF libraries
  libimagequant-dev libcgif-dev
  libyaml-dev
  libsqlite3-dev
  # XXH3 content hashes (persistentID)
  libxxhash-dev
  # audio: libsndfile (WAV/AIFF/CAF/FLAC/Ogg/Opus/MP3 I/O), libsamplerate (resampling),
  # FFmpeg's libraries (AAC/ALAC in M4A; movies: libswscale for pictures, libswresample for sound)
  libsndfile1-dev libsamplerate0-dev libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libswresample-dev
  # movies: libavfilter for the field's own deinterlacer (bwdif), tone mapping (zscale through zimg, tonemap),
  # subtitles burned in (libass through the subtitles filter) and the idet/cropdetect analyses
  libavfilter-dev
  # CIQRCodeGenerator's symbols come from libqrencode
  libqrencode-dev
  # text watermarks and CITextImageGenerator: vips_text draws with fontconfig's fonts (DejaVu Sans is the default)
  fonts-dejavu-core
  # loudness (EBU R128 integrated, range, true peak) for analyze, normalize and ReplayGain tags
  libebur128-dev
  # camera RAW files (CR2, CR3, NEF, ARW, DNG, RAF, ORF, RW2 …): LibRaw, its thread-safe libraw_r
  libraw-dev
  # image metadata: EXIF, IPTC, XMP and .xmp sidecars read and written through exiv2 (gexiv2's C API)
  libgexiv2-dev
)

# What the tests call as independent references, and the peers benchmarks compare against
# (scripts/setup.sh --test; scripts/test.sh asks for it).
TEST_PACKAGES=(
  # the vips command line, exiftool, ImageMagick: expected values in tests, peers in benchmarks
  libvips-tools libimage-exiftool-perl imagemagick
  # exiv2's own command line reads back the metadata Medley writes (exiv2 -pa)
  exiv2
  # xxhsum checks XXH3 independently; xxd and the sqlite3 shell are called by tests
  xxhash xxd sqlite3
  parallel
  # poppler's pdftoppm: the peer of benchmarks/bench-pdfpages.sh (ingest.page: all)
  poppler-utils
  time
  # PIL reads animated GIF/WebP frames and delays back (MoviePicturesTests)
  python3-pil
  # LibRaw's own tools (raw-identify, dcraw_emu): RAW sizes and pixels in tests, the peer in benchmarks
  libraw-bin
  # independent references in tests and peers in benchmarks
  ffmpeg sox libsox-fmt-all samplerate-programs
  # HandBrakeCLI: the peer of the movie benchmarks (tracks, decomb, autocrop, HDR) and an oracle in MovieStreamsRunTests
  handbrake-cli
  # independent tag readers for TagIO's tests: mutagen (raw ID3 frames, MP4 atoms, Vorbis
  # fields), ogginfo and opusinfo (Ogg page CRCs and sequence numbers)
  python3-mutagen vorbis-tools opus-tools
  # the tagger matrix of fixtures/realworld/make-tags.sh: the taggers the field uses write
  # tags into each container (id3v2 writes ID3v2.3, eyeD3, kid3-cli is TagLib, AtomicParsley
  # writes MP4 atoms, flac's metaflac writes Vorbis comments and pictures into FLAC)
  id3v2 eyed3 kid3-cli atomicparsley flac
  # LAME's own encoder: MP3s with its Xing/LAME tag (encoder delay and padding) for the gapless tests
  lame
  # docs/cookbook.md's ReplayGain peer (CookbookTests runs it): libebur128's tagger, rsgain's forerunner
  loudgain
  # fixtures/realworld/check-audio.py compares decoded samples of inputs and outputs with numpy
  python3-numpy
  # the real-world image corpus (fixtures/realworld/make-images.sh, check-images.py): cwebp and
  # gif2webp write WebP stills and animations, ICC profiles to embed (Adobe RGB, ProPhoto, Rec. 709…),
  # numpy compares Medley's pixels with vips' decode
  webp icc-profiles-free colord-data
  # renders the HTML run report in its test (DOM, screenshot, network log)
  chromium
  # zbarimg decodes QR and Code 128 outputs in tests
  zbar-tools
  # SlurmClusterTests: a throw-away single-node Slurm cluster (deploy/slurm/single-node-cluster.sh):
  # slurmctld, slurmd and the client commands, and munge for their authentication
  slurm-wlm munge
  # the container image (deploy/container/build-image.sh) and ContainerShardTests: mmdebstrap makes
  # the Debian root, podman imports and runs it, buildah adds medley's layer; runc is the runtime
  # (crun 1.8 refuses this machine's hybrid cgroups); binutils' objcopy strips debug sections
  mmdebstrap podman buildah runc binutils
  # scripts/package.sh and PackageTests: dpkg-shlibdeps derives the .deb's Depends, lintian checks
  # the .deb, xz packs the tarball (mmdebstrap above makes the clean roots they are installed in)
  dpkg-dev lintian xz-utils
  # scripts/test.sh runs each test class under coreutils' timeout (a hang guard)
  coreutils
  # GeneratedDocsTests formats docs/medley.1 with groff and man; CompletionsTests runs the zsh and
  # fish scripts in those shells and reads pipelines with PyYAML (independent of Medley's reader)
  groff-base man-db zsh fish python3-yaml
)

TESTS=0
BUILD=1
for argument in "$@"; do
  case "$argument" in
    --test|--tests) TESTS=1 ;;
    --no-build) BUILD=0 ;;
    *) echo "usage: scripts/setup.sh [--test] [--no-build]" >&2; exit 2 ;;
  esac
done
PACKAGES=("${RUN_PACKAGES[@]}")
[ $TESTS -eq 1 ] && PACKAGES+=("${TEST_PACKAGES[@]}")

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

# Test data made from Debian's packages (real files other people's encoders made) is fetched
# here, into a cache, never while the tests run.
if [ $TESTS -eq 1 ]; then
  scripts/test-data.sh
fi

export PATH="/opt/swift/usr/bin:$PATH"
if [ $BUILD -eq 1 ]; then
  scripts/build.sh
fi

#!/usr/bin/env bash
# Sets everything up (Debian packages, release build) and runs the example pipelines over the
# bundled fixtures: sepia photos into out/sepia/, the audio fixtures as 44.1 kHz stereo AAC into
# out/aac/ (metering in the manifest) and normalized to podcast loudness into out/podcast-loudness/,
# the tagged music library's ambient tracks as AAC filed by their tags, with covers and a shuffled
# playlist, into out/ambient/, and the library copied with ReplayGain tags into out/replaygain/. Run it twice: the second
# run skips everything (incremental).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
for pipeline in sepia-photos film-look watermark podcasts-aac podcast-loudness ambient-to-aac album-replaygain; do
  echo "== medley run pipelines/$pipeline.yaml" >&2
  .build/release/medley run "pipelines/$pipeline.yaml" "$@"
done
echo "== outputs:" >&2
find out/sepia out/film-look out/watermarked out/captioned out/aac out/podcast-loudness out/ambient out/replaygain -type f -not -path '*/.medley/*' | sort >&2
echo "== the playlist (out/ambient/ambient.m3u8):" >&2
cat out/ambient/ambient.m3u8 >&2
echo "== manifests and run state: out/*/.medley/" >&2

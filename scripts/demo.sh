#!/usr/bin/env bash
# Sets everything up (Debian packages, release build) and runs the example pipelines over the
# bundled fixtures: sepia photos into out/sepia/, and the audio fixtures as 44.1 kHz stereo
# AAC into out/aac/ (with metering in out/aac-events.jsonl).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
echo "== medley run pipelines/sepia-photos.yaml" >&2
.build/release/medley run pipelines/sepia-photos.yaml "$@"
echo "== medley run pipelines/podcasts-aac.yaml" >&2
mkdir -p out
.build/release/medley run pipelines/podcasts-aac.yaml --events out/aac-events.jsonl "$@"
echo "== outputs:" >&2
find out/sepia out/aac -type f -not -path '*/.medley/*' | sort >&2

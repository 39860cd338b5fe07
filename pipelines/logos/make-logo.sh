#!/bin/sh
# Makes logo.png, the watermark of pipelines/watermark.yaml: a 160 × 48 white badge with a
# dark "Medley" on it, its corners and edges transparent (alpha), drawn by ImageMagick.
set -eu
cd "$(dirname "$0")"
convert -size 160x48 xc:none \
  -fill 'rgba(255,255,255,0.85)' -draw 'roundrectangle 0,0 159,47 12,12' \
  -fill '#223344' -font DejaVu-Sans-Bold -pointsize 28 -gravity center -annotate +0+0 'Medley' \
  -strip PNG32:logo.png

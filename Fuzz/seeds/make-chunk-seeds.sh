#!/usr/bin/env bash
# Makes the committed seeds of the AIFF, CAF and WAV tag targets (and their roundtrip- twins, which
# take the same seeds: scripts/fuzz.sh): tiny files (a few hundred bytes of audio) tagged by the
# field's own writers, so the fuzzer starts inside every chunk Medley reads instead of having to
# find it. Neither fixtures/ nor the real-world corpus holds a tagged AIFF or CAF, and before these
# seeds the aiff target started from one untagged file (COMM and SSND only).
#
#   ffmpeg  — AIFF with NAME/AUTH/ANNO/(c) chunks and an ID3 chunk (v2.3 and v2.4), AIFF-C, CAF
#             with an 'info' chunk (PCM and ALAC), WAV with LIST/INFO; all three written to a pipe
#             (sizes left unknown: 0xFFFFFFFF, 0, -1)
#   mutagen — AIFF and WAV with an ID3 chunk holding a picture, a comment and a TXXX frame
#
# Needs ffmpeg and /usr/bin/python3 with mutagen (the test dependencies). Run from anywhere.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$here/aiff" "$here/caf" "$here/wav"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

tone=(-v error -y -f lavfi -i "sine=frequency=440:duration=0.005:sample_rate=8000" -fflags +bitexact -flags:a +bitexact)
tags=(-metadata "title=Tïtle" -metadata "author=Äuthor" -metadata "artist=Ärtist" -metadata album=Album
      -metadata comment=Comment -metadata "copyright=(C) 2026" -metadata genre=Jazz -metadata track=3/12
      -metadata date=2019 -metadata composer=Composer -metadata "encoder=Lavf")

ffmpeg "${tone[@]}" "${tags[@]}" "$here/aiff/ffmpeg-native.aiff"
ffmpeg "${tone[@]}" "${tags[@]}" -write_id3v2 1 -id3v2_version 4 "$here/aiff/ffmpeg-id3v24.aiff"
ffmpeg "${tone[@]}" "${tags[@]}" -write_id3v2 1 -id3v2_version 3 "$here/aiff/ffmpeg-id3v23.aiff"
ffmpeg "${tone[@]}" "${tags[@]}" -c:a pcm_f32be -write_id3v2 1 -f aiff "$here/aiff/ffmpeg-aifc-float.aifc"

ffmpeg "${tone[@]}" "${tags[@]}" "$here/caf/ffmpeg-info.caf"
ffmpeg "${tone[@]}" "${tags[@]}" -c:a alac "$here/caf/ffmpeg-alac-info.caf"
# Not seekable: the data chunk's size is -1 (runs to the end of the file).
ffmpeg "${tone[@]}" "${tags[@]}" -f caf pipe:1 > "$here/caf/ffmpeg-piped.caf"

ffmpeg "${tone[@]}" "${tags[@]}" "$here/wav/ffmpeg-info.wav"

# Written to a pipe, where FFmpeg cannot go back to its header: a WAV's RIFF and data sizes stay 0xFFFFFFFF, an
# AIFF's FORM and SSND sizes 0 ("to the end of the file").
ffmpeg "${tone[@]}" "${tags[@]}" -f wav pipe:1 > "$here/wav/ffmpeg-piped.wav"
ffmpeg "${tone[@]}" "${tags[@]}" -f aiff pipe:1 > "$here/aiff/ffmpeg-piped.aiff"

# mutagen's ID3 chunk, with a picture (a 1×1 PNG), a comment in a language and a TXXX frame.
ffmpeg "${tone[@]}" "$tmp/plain.aiff"
ffmpeg "${tone[@]}" "$tmp/plain.wav"
/usr/bin/python3 - "$tmp" "$here" <<'EOF'
import shutil, sys, zlib, struct
from mutagen.aiff import AIFF
from mutagen.wave import WAVE
from mutagen.id3 import TIT2, TPE1, TALB, TRCK, TPOS, COMM, TXXX, APIC, TCMP

def png():
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00")) + chunk(b"IEND", b""))

tmp, here = sys.argv[1], sys.argv[2]
for kind, cls, folder in (("aiff", AIFF, "aiff"), ("wav", WAVE, "wav")):
    path = f"{here}/{folder}/mutagen-id3-picture.{kind}"
    shutil.copy(f"{tmp}/plain.{kind}", path)
    audio = cls(path)
    audio.add_tags()
    for frame in (TIT2(encoding=3, text="Tïtle"), TPE1(encoding=1, text=["One", "Two"]), TALB(encoding=0, text="Album"),
                  TRCK(encoding=3, text="3/12"), TPOS(encoding=3, text="1/2"), TCMP(encoding=3, text="1"),
                  COMM(encoding=3, lang="eng", desc="", text="Comment"), TXXX(encoding=3, desc="MOOD", text="Calm"),
                  APIC(encoding=3, mime="image/png", type=3, desc="cover", data=png())):
        audio.tags.add(frame)
    audio.save(v2_version=3 if kind == "wav" else 4)
EOF
ls -l "$here"/aiff "$here"/caf "$here"/wav

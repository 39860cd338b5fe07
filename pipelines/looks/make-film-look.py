#!/usr/bin/python3
"""Writes film-look.cube, the 17³ LUT pipelines/film-look.yaml applies.

A warm print-film look, on sRGB-encoded values (as LUT files are applied):
  1. a soft S-curve: c = mix(c, 3c² − 2c³, 0.3) (contrast in the mid-tones);
  2. saturation 0.85 around the Rec. 709 luma;
  3. lifted blacks and rolled-off whites: c = 0.04 + 0.92·c;
  4. a warm cast: red × 1.04, blue × 0.94;
clamped to 0…1. Run: /usr/bin/python3 pipelines/looks/make-film-look.py
"""
import os

N = 17


def look(r, g, b):
    c = [v + (3 * v * v - 2 * v * v * v - v) * 0.3 for v in (r, g, b)]
    y = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]
    c = [y + 0.85 * (v - y) for v in c]
    c = [0.04 + 0.92 * v for v in c]
    c = [c[0] * 1.04, c[1], c[2] * 0.94]
    return [min(max(v, 0.0), 1.0) for v in c]


here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "film-look.cube"), "w") as out:
    out.write('TITLE "Medley film look"\n')
    out.write("# made by make-film-look.py: S-curve 0.3, saturation 0.85, blacks 0.04, whites 0.96, warm cast\n")
    out.write("LUT_3D_SIZE %d\n" % N)
    for b in range(N):
        for g in range(N):
            for r in range(N):
                out.write("%.6f %.6f %.6f\n" % tuple(look(r / (N - 1), g / (N - 1), b / (N - 1))))

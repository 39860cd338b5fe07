#!/usr/bin/env python3
"""bench-inprocess.py — the in-process peer of benchmarks/bench-inprocess.sh.

Runs every JPEG of one folder through pyvips in ONE Python process with a thread pool
(concurrent.futures): decode → one operation → save, as Medley's pipeline does, and prints the wall
time in seconds on stdout. pyvips drives the same libvips Medley links (Debian's libvips.so); the
work happens in C, and cffi releases the GIL around each libvips call, so the workers run in parallel.

Usage: bench-inprocess.py compare DIR_A DIR_B   → "max mean files worst-file" of |A − B| over same-named JPEGs
       bench-inprocess.py CASE INPUT_DIR OUTPUT_DIR [--workers N] [--quality Q] [--concurrency C]
  CASE is one of
    sepia-linear   colourspace('scrgb') → recomb(sepia) → colourspace('srgb') → JPEG
                   (Medley's CISepiaTone: the matrix in linear light)
    sepia-srgb     recomb(sepia) on the stored sRGB values → JPEG (what `vips recomb` does)
    thumbnail      Image.thumbnail(path, 512, height=512) (shrink-on-load) → JPEG
    blur-srgb      gaussblur(10) on the stored 8-bit sRGB values → JPEG (what `vips gaussblur` does)
    blur-linear    colourspace('scrgb') → gaussblur(10, min_ampl=0.01) → colourspace('srgb') → JPEG
                   (Medley's CIGaussianBlur: linear light, float, the whole Gaussian)
  --concurrency C  libvips worker threads per pipeline (vips_concurrency_set); default: libvips' own.
"""
import argparse
import concurrent.futures
import os
import sys
import time

import pyvips

SEPIA = [[0.3588, 0.7044, 0.1368],
         [0.2990, 0.5870, 0.1140],
         [0.2392, 0.4696, 0.0912]]


def linear(image):
    """The picture's colour bands as linear-light float (scRGB), alpha left aside."""
    return image.colourspace("scrgb")


def back_to_srgb(image):
    return image.colourspace("srgb")


def process(case, source, target, quality):
    if case == "thumbnail":
        # fail_on as Medley's decode uses it (truncated files fail instead of decoding to grey).
        out = pyvips.Image.thumbnail(source, 512, height=512, fail_on="warning")
    else:
        image = pyvips.Image.new_from_file(source, access="sequential", fail_on="warning")
        if image.bands < 3:
            image = image.colourspace("srgb")  # grey → RGB, as Medley's filters see it
        if case == "sepia-linear":
            out = back_to_srgb(linear(image).recomb(SEPIA))
        elif case == "sepia-srgb":
            out = image.recomb(SEPIA).cast("uchar")
        elif case == "blur-srgb":
            out = image.gaussblur(10)
        elif case == "blur-linear":
            # min_ampl 0.01: the whole Gaussian (libvips' default 0.2 cuts the mask at 1.8 σ, a cheaper,
            # narrower blur — fine for speed, not a reference for the maths).
            out = back_to_srgb(linear(image).gaussblur(10, min_ampl=0.01))
        else:
            raise SystemExit(f"unknown case {case}")
    out.write_to_file(target, Q=quality)


def compare(a_dir, b_dir):
    """Largest and mean absolute difference (8-bit levels) between same-named JPEGs of two folders."""
    worst, worst_name, total, count = 0.0, "-", 0.0, 0
    for name in sorted(n for n in os.listdir(a_dir) if n.endswith(".jpg")):
        a = pyvips.Image.new_from_file(os.path.join(a_dir, name))
        b = pyvips.Image.new_from_file(os.path.join(b_dir, name))
        if (a.width, a.height) != (b.width, b.height):
            print(f"size differs: {name} {a.width}x{a.height} vs {b.width}x{b.height}")
            return 1
        if a.bands != b.bands:
            a, b = a.colourspace("srgb"), b.colourspace("srgb")
        difference = (a.cast("int") - b.cast("int")).abs()
        largest = difference.max()
        if largest > worst:
            worst, worst_name = largest, name
        total += difference.avg()
        count += 1
    print(f"{worst:.0f} {total / max(count, 1):.2f} {count} {worst_name}")
    return 0


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "compare":
        return compare(sys.argv[2], sys.argv[3])
    parser = argparse.ArgumentParser()
    parser.add_argument("case")
    parser.add_argument("input")
    parser.add_argument("output")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--quality", type=int, default=85)
    parser.add_argument("--concurrency", type=int, default=0)
    args = parser.parse_args()
    if args.concurrency > 0:
        pyvips.concurrency_set(args.concurrency)
    names = sorted(n for n in os.listdir(args.input) if n.lower().endswith((".jpg", ".jpeg")))
    os.makedirs(args.output, exist_ok=True)
    start = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.workers) as pool:
        jobs = [pool.submit(process, args.case, os.path.join(args.input, n),
                            os.path.join(args.output, os.path.splitext(n)[0] + ".jpg"), args.quality)
                for n in names]
        for job in jobs:
            job.result()  # re-raises a worker's error: a failed file fails the run
    print(f"{time.perf_counter() - start:.3f}")


if __name__ == "__main__":
    sys.exit(main())

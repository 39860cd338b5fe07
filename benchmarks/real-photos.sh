#!/usr/bin/env bash
# real-photos.sh — a corpus of real photographs for the image benchmarks: JPEGs of 4–15 MP that other
# people's cameras and editors made, as Debian ships them in its wallpaper packages (KDE Plasma,
# MATE, UKUI). Each package is fetched with `apt-get download` and unpacked with `dpkg-deb -x`
# (nothing is installed); of every wallpaper the largest JPEG between 4 and 15.5 MP is kept, so the
# corpus has each picture once. Deterministic: the same packages give the same files in the same order.
#
# Usage: benchmarks/real-photos.sh DIR   → DIR/photos/*.jpg (prints that folder on stdout)
# Idempotent: a DIR/photos that is already complete is reused; downloads are kept in DIR/.debs.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
out=$(mkdir -p "$1" && cd "$1" && pwd)
photos="$out/photos"
if [[ -f $photos/.complete ]]; then echo "$photos"; exit 0; fi
debs="$out/.debs"
mkdir -p "$debs"
packages=(plasma-workspace-wallpapers mate-backgrounds ukui-wallpapers)
for pkg in "${packages[@]}"; do
  if ! ls "$debs/${pkg}"_*.deb >/dev/null 2>&1; then
    (cd "$debs" && apt-get download -qq "$pkg" 2>&1 >/dev/null | grep -v unsandboxed >&2 || true)
  fi
  deb=$(ls "$debs/${pkg}"_*.deb 2>/dev/null | head -1)
  [[ -n $deb ]] || { echo "real-photos: apt-get download $pkg failed (run apt-get update?)" >&2; exit 1; }
  rm -rf "$debs/$pkg" && mkdir -p "$debs/$pkg" && dpkg-deb -x "$deb" "$debs/$pkg"
done
rm -rf "$photos.part" && mkdir -p "$photos.part"
# "pixels path" for every JPEG in range; a Plasma wallpaper is one folder with one file per size.
find "$debs" -type f \( -iname '*.jpg' -o -iname '*.jpeg' \) -not -path '*/screenshot*' | LC_ALL=C sort |
  while read -r file; do
    w=$(vipsheader -f width "$file" 2>/dev/null) || continue
    h=$(vipsheader -f height "$file" 2>/dev/null) || continue
    pixels=$(( w * h ))
    (( pixels >= 4000000 && pixels <= 15500000 )) || continue
    case $file in
      */contents/*) key=${file%/contents/*} ;;
      *) key=${file%.*} ;;
    esac
    echo "$key	$pixels	$file"
  done | LC_ALL=C sort -t '	' -k1,1 -k2,2nr | awk -F '\t' '$1 != last { print $3; last = $1 }' |
  while read -r file; do
    case $file in
      */contents/*) name=$(basename "${file%/contents/*}") ;;
      *) name=$(basename "${file%.*}") ;;
    esac
    cp "$file" "$photos.part/$(echo "$name" | tr -c 'A-Za-z0-9\n-' '_').jpg"
  done
count=$(ls "$photos.part" | wc -l)
(( count >= 10 )) || { echo "real-photos: only $count photos found" >&2; exit 1; }
touch "$photos.part/.complete"
rm -rf "$photos" && mv "$photos.part" "$photos"
echo "real-photos: $count photos, $(du -sh "$photos" | cut -f1)" >&2
echo "$photos"

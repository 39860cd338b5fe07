#!/usr/bin/env bash
# Builds Medley's packages for people without the Swift toolchain:
#
#   medley_VERSION_amd64.deb              Debian 12: /usr/bin/medley, Depends: on the Debian
#                                         libraries it links (dpkg-shlibdeps, or ldd → dpkg -S),
#                                         man page, shell completions, examples and docs in
#                                         /usr/share/doc/medley
#   medley-VERSION-linux-x86_64.tar.xz    Linux with glibc as new as its README says (2.36 for Debian
#                                         12's libraries): bin/medley (a launcher setting the
#                                         library path), libexec/medley (the binary), lib/ (every
#                                         shared library it loads but glibc's, and libvips' loader
#                                         modules), share/ (man page, completions, docs, examples)
#
# The binary is a release build with the Swift runtime linked in (--static-swift-stdlib) for a
# GENERIC x86-64 CPU: scripts/build.sh tunes for the build machine's CPU (x86-64-v3 on an
# AVX2/FMA host), which a package must not, since the machines it is installed on differ.
# The build has a folder of its own (.build/package), so it never replaces scripts/build.sh's.
#
# The man page (docs/medley.1) and the completions (`medley completions bash|zsh|fish`) are
# included when the source tree and the binary have them; a warning says when they do not.
#
# Usage: scripts/package.sh [--deb] [--tarball] [--out DIR]
#   --deb       build the Debian package      (neither flag: both)
#   --tarball   build the relocatable tarball
#   --out DIR   where the packages go (default .build/packages)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"

make_deb=0 make_tarball=0 out="$repo/.build/packages"
while [ $# -gt 0 ]; do
  case "$1" in
    --deb) make_deb=1; shift ;;
    --tarball) make_tarball=1; shift ;;
    --out) [ $# -ge 2 ] || { echo "package: --out needs a folder" >&2; exit 2; }
           out="$2"; shift 2 ;;
    *) echo "usage: scripts/package.sh [--deb] [--tarball] [--out DIR]" >&2; exit 2 ;;
  esac
done
if [ $make_deb = 0 ] && [ $make_tarball = 0 ]; then make_deb=1 make_tarball=1; fi

say() { echo "package: $*" >&2; }
warn() { echo "package: warning: $*" >&2; }
fail() { echo "package: $*" >&2; exit 1; }

[ "$(uname -m)" = x86_64 ] || fail "packages are made for x86-64 (amd64); this machine is $(uname -m)"
version="$(sed -n 's/^public let medleyVersion = "\([^"]*\)".*/\1/p' "$repo/Sources/MedleyCore/Version.swift")"
[ -n "$version" ] || fail "no medleyVersion in Sources/MedleyCore/Version.swift"

# --- the binary ------------------------------------------------------------------------------
# -target-cpu x86-64 / -march=x86-64: the baseline every x86-64 CPU runs (SSE2), named
# explicitly so no default or environment can tune it for this machine.
scratch="$repo/.build/package"
say "building medley $version (release, --static-swift-stdlib, generic x86-64) in .build/package"
started=$(date +%s)
if ! PATH="/opt/swift/usr/bin:$PATH" swift build --package-path "$repo" -c release --static-swift-stdlib \
  --scratch-path "$scratch" --product medley \
  -Xswiftc -target-cpu -Xswiftc x86-64 -Xcc -march=x86-64 -Xcc -mtune=generic \
  2>&1 | { grep -v "prohibited flag(s): -pthread" >&2 || true; }; then
  fail "swift build failed"
fi
built="$scratch/release/medley"
[ -x "$built" ] || fail "the build made no $built"
say "built in $(( $(date +%s) - started )) s"
if ldd "$built" | grep -q 'libswift\|libFoundation\|/opt/swift'; then
  fail "$built still loads the Swift runtime: $(ldd "$built" | grep 'swift\|Foundation' | tr -s ' \t' ' ')"
fi
if ldd "$built" | grep -q 'not found'; then fail "$built: $(ldd "$built" | grep 'not found')"; fi
# libvips over liborc before 0.4.34 needs Medley's own orc_program_compile/orc_program_free (the lock in
# CVipsShim/medley_orc.c): the link must export them so that libvips' calls reach them.
if ldd "$built" | grep -q 'liborc-0.4' \
  && [ "$(nm -D --defined-only "$built" | grep -cwE 'orc_program_(compile|free)')" != 2 ]; then
  fail "$built does not export orc_program_compile and orc_program_free: libvips would call liborc's unlocked"
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/medley-package.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
out="$(cd "$out" && pwd)"

# Debian's way of stripping (dh_strip): no debug sections, comments or notes; the dynamic symbols stay.
binary="$work/medley"
strip --strip-unneeded --remove-section=.comment --remove-section=.note -o "$binary" "$built"
chmod 0755 "$binary"
# A build whose binary still has AVX instructions in its own code was tuned for some CPU.
if objdump -d --no-show-raw-insn "$binary" | grep -qE '\s(vfmadd|vpbroadcast|vperm2|vinserti128)'; then
  fail "$built uses AVX2/FMA instructions: it was not built for a generic x86-64 CPU"
fi

# --- what goes beside it: man page, completions, docs, examples --------------------------------
extras="$work/extras"
mkdir -p "$extras/completions"
if [ -f "$repo/docs/medley.1" ]; then
  gzip -9n < "$repo/docs/medley.1" > "$extras/medley.1.gz"
else
  warn "docs/medley.1 does not exist: the packages have no man page"
fi
# `medley completions SHELL` prints the script for that shell, when this medley has the command.
completions=0
for shell in bash zsh fish; do
  if timeout 60 "$binary" completions "$shell" > "$extras/completions/$shell" 2>/dev/null && [ -s "$extras/completions/$shell" ]; then
    completions=$((completions + 1))
  else
    rm -f "$extras/completions/$shell"
  fi
done
[ $completions = 3 ] || warn "this medley has no \`medley completions bash|zsh|fish\`: the packages have no shell completions"

# The docs a user reads (README, docs/*.md) and the example pipelines with the fixtures they read
# (every ingest `from:` in pipelines/ names one of these folders under fixtures/).
copy_docs() {  # copy_docs DEST
  local dest="$1" folder
  mkdir -p "$dest/examples/fixtures"
  cp "$repo/README.md" "$dest/"
  if [ -d "$repo/docs" ]; then
    mkdir -p "$dest/docs"
    find "$repo/docs" -maxdepth 1 -type f -name '*.md' -exec cp {} "$dest/docs/" \;
  fi
  cp -R "$repo/pipelines" "$dest/examples/pipelines"
  for folder in images audio movies music; do
    [ -d "$repo/fixtures/$folder" ] && cp -R "$repo/fixtures/$folder" "$dest/examples/fixtures/$folder"
  done
  cat > "$dest/examples/README" <<EOF
Medley's example pipelines and the small media files they read.

The pipelines write next to themselves (../out), so copy the folder first:

  cp -R $2 ~/medley-examples
  medley run ~/medley-examples/pipelines/sepia-photos.yaml
  medley run ~/medley-examples/pipelines/podcasts-aac.yaml

and find the results under ~/medley-examples/out.
EOF
  # Documentation is read, not run: no file in it is executable.
  find "$dest" -type d -exec chmod 0755 {} + && find "$dest" -type f -exec chmod 0644 {} +
}

copyright() {  # copyright COMMIT YEARS
  cat <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: medley
Comment: Built by scripts/package.sh from commit $1 of Medley's repository.
 The Swift runtime and Foundation (Apache-2.0 with the Runtime Library Exception,
 Copyright Apple Inc. and the Swift project authors) are linked into the binary.

Files: *
Copyright: $2 the Medley authors
License: unstated
 The repository states no licence yet; until it does, ask its authors before
 redistributing this package.
EOF
}
commit="$(git -C "$repo" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
first_year="$(git -C "$repo" log --reverse --format=%cd --date=format:%Y 2>/dev/null | head -1 || true)"
last_year="$(git -C "$repo" log -1 --format=%cd --date=format:%Y 2>/dev/null || date +%Y)"
years="${first_year:-$last_year}"; [ "$years" = "$last_year" ] || years="$years-$last_year"
# The package's maintainer: MEDLEY_MAINTAINER, or the author of the commit it is built from.
maintainer="${MEDLEY_MAINTAINER:-$(git -C "$repo" log -1 --format='%an <%ae>' 2>/dev/null || true)}"
[ -n "$maintainer" ] || fail "say who maintains the package: MEDLEY_MAINTAINER='Name <address>'"
# Every file gets the time of the commit, so two builds of one commit make the same trees.
epoch="$(git -C "$repo" log -1 --format=%ct 2>/dev/null || date +%s)"

# --- the Debian package ----------------------------------------------------------------------
# The Debian packages and versions the binary's own libraries (DT_NEEDED) come from, as a
# Depends value. dpkg-shlibdeps reads the shlibs/symbols files; without it, each library found by
# ldd is mapped to its package with dpkg -S and required at the version installed here.
shlib_depends() {
  local bin="$1" dir="$work/shlibdeps" line
  if command -v dpkg-shlibdeps >/dev/null; then
    mkdir -p "$dir/debian"
    printf 'Source: medley\n\nPackage: medley\nArchitecture: amd64\n' > "$dir/debian/control"
    line="$(cd "$dir" && dpkg-shlibdeps -O -e"$bin" 2>"$dir/warnings")" || { cat "$dir/warnings" >&2; return 1; }
    sed 's/^shlibs:Depends=//' <<<"$line"
    return
  fi
  local lib real pkg
  for lib in $(objdump -p "$bin" | awk '$1 == "NEEDED" { print $2 }'); do
    real="$(ldd "$bin" | awk -v l="$lib" '$1 == l { print $3 }')"
    [ -n "$real" ] || continue  # the loader itself
    pkg="$( { dpkg -S "$real" || dpkg -S "$(realpath "$real")" || dpkg -S "/usr$(realpath "$real")"; } 2>/dev/null | head -1 | cut -d: -f1)"
    [ -n "$pkg" ] || { echo "no Debian package owns $real" >&2; return 1; }
    echo "$pkg (>= $(dpkg-query -W -f='${Version}' "$pkg"))"
  done | sort -u | paste -sd, | sed 's/,/, /g'
}

if [ $make_deb = 1 ]; then
  command -v dpkg-deb >/dev/null || fail "dpkg-deb is missing: the .deb is built on Debian"
  root="$work/deb"
  install -d -m 0755 "$root/DEBIAN" "$root/usr/bin" "$root/usr/share/doc/medley"
  install -m 0755 "$binary" "$root/usr/bin/medley"
  if [ -f "$extras/medley.1.gz" ]; then
    install -d -m 0755 "$root/usr/share/man/man1"
    install -m 0644 "$extras/medley.1.gz" "$root/usr/share/man/man1/medley.1.gz"
  fi
  if [ $completions = 3 ]; then
    install -D -m 0644 "$extras/completions/bash" "$root/usr/share/bash-completion/completions/medley"
    install -D -m 0644 "$extras/completions/zsh" "$root/usr/share/zsh/vendor-completions/_medley"
    install -D -m 0644 "$extras/completions/fish" "$root/usr/share/fish/vendor_completions.d/medley.fish"
  fi
  copy_docs "$root/usr/share/doc/medley" /usr/share/doc/medley/examples
  copyright "$commit" "$years" > "$root/usr/share/doc/medley/copyright"
  printf 'medley (%s) unstable; urgency=medium\n\n  * Built by scripts/package.sh from commit %s.\n\n -- %s  %s\n' \
    "$version" "$commit" "$maintainer" "$(date -R -d "@$epoch")" | gzip -9n > "$root/usr/share/doc/medley/changelog.gz"
  chmod 0644 "$root/usr/share/doc/medley/copyright" "$root/usr/share/doc/medley/changelog.gz"

  depends="$(shlib_depends "$root/usr/bin/medley")" || fail "could not derive the Debian packages medley's libraries come from"
  # Image metadata goes through gexiv2 (libgexiv2-2, over libexiv2-27): linked, so derived above; a
  # binary built without it would write photos without their EXIF/IPTC/XMP edits.
  case "$depends" in *libgexiv2-2*) ;; *) fail "the binary does not link libgexiv2 (image metadata): Depends lacks libgexiv2-2" ;; esac
  # Text watermarks draw through fontconfig, whose default font is DejaVu Sans: no library names it.
  depends="$depends, fonts-dejavu-core"
  installed_kb="$(du -sk --exclude=DEBIAN "$root" | cut -f1)"
  cat > "$root/DEBIAN/control" <<EOF
Package: medley
Version: $version
Architecture: amd64
Maintainer: $maintainer
Installed-Size: $installed_kb
Depends: $depends
Section: graphics
Priority: optional
Description: batch processor for photos, audio and movies
 Medley runs pipelines written in YAML over folders of media: it ingests
 files, selects them with queries, tags them, filters images with Core
 Image-style filters (libvips), transcodes audio (libsndfile, FFmpeg), makes
 movie posters and exports the results with manifests and reports; runs are
 incremental and can be sharded over Slurm or Kubernetes.
 .
 This build targets any x86-64 CPU and has the Swift runtime linked in.
EOF
  (cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum) > "$root/DEBIAN/md5sums"
  chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"
  find "$root" -exec touch -h -d "@$epoch" {} +
  deb="$out/medley_${version}_amd64.deb"
  SOURCE_DATE_EPOCH="$epoch" dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
  say "$deb: $(stat -c %s "$deb") bytes; Depends: $depends"
  if command -v lintian >/dev/null; then
    lintian --tag-display-limit 0 "$deb" >&2 || warn "lintian reports the tags above"
  fi
fi

# --- the relocatable tarball -----------------------------------------------------------------
# glibc's own libraries stay out: they must match the loader of the machine that runs medley.
is_glibc() {
  case "$1" in
    libc.so.*|libm.so.*|libmvec.so.*|libpthread.so.*|libdl.so.*|librt.so.*|libresolv.so.*|libutil.so.*|\
    libanl.so.*|libnsl.so.*|libBrokenLocale.so.*|libthread_db.so.*|libc_malloc_debug.so.*|libnss_*|ld-linux*) return 0 ;;
  esac
  return 1
}

# "SONAME PATH" for every shared library ldd resolves for the files given (ldd lists the whole
# closure, not only each file's own DT_NEEDED).
libraries_of() {
  ldd "$@" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' | sort -u
}

if [ $make_tarball = 1 ]; then
  name="medley-$version-linux-x86_64"
  top="$work/$name"
  install -d -m 0755 "$top/bin" "$top/libexec" "$top/lib" "$top/share/doc/medley"
  install -m 0755 "$binary" "$top/libexec/medley"
  cat > "$top/bin/medley" <<'EOF'
#!/bin/sh
# Medley's launcher: runs the binary next to it with the libraries bundled in ../lib, wherever
# this folder was unpacked (glibc comes from the system). VIPSHOME makes libvips look for its
# loader modules in ../lib/vips-modules-* too.
self=$(readlink -f -- "$0" 2>/dev/null) || self=$0
top=$(cd -- "$(dirname -- "$self")/.." && pwd -P) || exit 127
LD_LIBRARY_PATH="$top/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
VIPSHOME="$top"
export LD_LIBRARY_PATH VIPSHOME
exec "$top/libexec/medley" "$@"
EOF
  chmod 0755 "$top/bin/medley"

  # libvips' loader modules (HEIF, JPEG XL, PDF, ImageMagick, OpenSlide), dlopen()ed at start-up,
  # so ldd of the binary does not see them: copied with their own libraries.
  modules=()
  vips_path="$(ldd "$binary" | awk '$1 ~ /^libvips\.so/ { print $3 }')"
  if [ -n "$vips_path" ]; then
    for folder in "$(dirname "$(realpath "$vips_path")")"/vips-modules-*; do
      [ -d "$folder" ] || continue
      install -d -m 0755 "$top/lib/$(basename "$folder")"
      for module in "$folder"/*.so; do
        [ -e "$module" ] || continue
        install -m 0644 "$module" "$top/lib/$(basename "$folder")/"
        modules+=("$module")
      done
    done
  fi
  [ ${#modules[@]} -gt 0 ] || say "libvips here has no loader modules"
  bundled=0
  while read -r soname path; do
    is_glibc "$soname" && continue
    cp -L "$path" "$top/lib/$soname"
    chmod 0644 "$top/lib/$soname"
    bundled=$((bundled + 1))
  done < <(libraries_of "$binary" ${modules[@]+"${modules[@]}"})

  if [ -f "$extras/medley.1.gz" ]; then install -D -m 0644 "$extras/medley.1.gz" "$top/share/man/man1/medley.1.gz"; fi
  if [ $completions = 3 ]; then
    install -D -m 0644 "$extras/completions/bash" "$top/share/bash-completion/completions/medley"
    install -D -m 0644 "$extras/completions/zsh" "$top/share/zsh/site-functions/_medley"
    install -D -m 0644 "$extras/completions/fish" "$top/share/fish/vendor_completions.d/medley.fish"
  fi
  copy_docs "$top/share/doc/medley" "$name/share/doc/medley/examples"
  copyright "$commit" "$years" > "$top/share/doc/medley/copyright"

  # The newest glibc symbol version anything in the tarball asks for is the oldest glibc it runs on.
  glibc_of() { { objdump -T "$1" 2>/dev/null || true; } | { grep -o 'GLIBC_[0-9][0-9.]*' || true; } | sed 's/GLIBC_//' | sort -uV | tail -1; }
  glibc="" glibc_files=""
  while read -r file; do
    needs="$(glibc_of "$file")"
    [ -n "$needs" ] || continue
    if [ -z "$glibc" ] || [ "$(printf '%s\n' "$glibc" "$needs" | sort -V | tail -1)" != "$glibc" ]; then
      glibc="$needs" glibc_files="${file#"$top/"}"
    elif [ "$needs" = "$glibc" ]; then
      glibc_files="$glibc_files ${file#"$top/"}"
    fi
  done < <(find "$top/libexec" "$top/lib" -type f | sort)
  [ -n "$glibc" ] || fail "found no glibc symbol versions in the binary"
  cat > "$top/README" <<EOF
Medley $version for Linux on x86-64 (any x86-64 CPU)

Needs glibc $glibc or newer (\`ldd --version\` prints yours; $glibc_files ask for it): these are
Debian 12's libraries. Every other library medley loads is in lib/. Nothing needs installing:
unpack anywhere and run

  $name/bin/medley --help

or put bin/ on your PATH (or link bin/medley into it: the launcher finds lib/ through the link).

  bin/medley          the launcher: sets LD_LIBRARY_PATH to lib/ and VIPSHOME to this folder,
                      then runs libexec/medley
  libexec/medley      the binary (the Swift runtime is linked in)
  lib/                the shared libraries it loads but glibc's (libvips, FFmpeg, libsndfile …),
                      and libvips' loader modules in lib/vips-modules-*
  share/man/man1      the man page:  man -l share/man/man1/medley.1.gz
  share/bash-completion, share/zsh, share/fish
                      shell completions (source them, or copy them where your shell looks)
  share/doc/medley    README.md, docs/, and examples/ (see examples/README)

Text watermarks draw with fontconfig's default font, which this folder does not hold: install
DejaVu Sans (fonts-dejavu-core, dejavu-sans-fonts) or name a font file. ImageMagick's loader
module (vips-magick) finds ImageMagick's own coders only where the system has them.

Built from commit $commit of Medley's repository by scripts/package.sh.
EOF
  chmod 0644 "$top/README"
  tarball="$out/$name.tar.xz"
  tar -C "$work" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" \
    -cf - "$name" | xz -6 -T0 > "$tarball.tmp"
  mv "$tarball.tmp" "$tarball"
  say "$tarball: $(stat -c %s "$tarball") bytes; $bundled libraries, ${#modules[@]} libvips modules; needs glibc $glibc ($glibc_files)"
fi

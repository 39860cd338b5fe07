#!/usr/bin/env bash
# Builds the OCI image localhost/medley:latest offline from this machine's Debian packages: no
# image is pulled from a registry.
#
#   build stage  this host's Swift toolchain: scripts/build.sh's release build with
#                --static-swift-stdlib, in its own build folder (.build/container), so the Swift
#                runtime and Foundation are inside the binary and nothing is copied from /opt/swift;
#   run stage    a slim Debian 12 root made by mmdebstrap (--variant=apt) from the machine's own
#                Debian apt sources, holding only runtime-packages.txt (and what apt pulls in for
#                them), imported once as the base image localhost/medley-base:bookworm-KEY;
#   image        buildah: the base plus one layer with /usr/local/bin/medley, CMD ["medley", "--help"]
#                and no entrypoint, so a Kubernetes `command:` (or `podman run IMAGE medley run …`)
#                runs medley directly as PID 1.
#
# Usage: deploy/container/build-image.sh [--binary PATH] [--tag NAME] [--if-changed] [--refresh] [--derive]
#                                        [--generic-cpu]
#   --binary PATH  package this medley binary instead of building one (e.g. .build/debug/medley);
#                  Swift runtime libraries it links from the toolchain are copied into the root
#                  (/usr/local/lib/swift, registered with ldconfig)
#   --tag NAME     the image's name (default localhost/medley:latest)
#   --if-changed   do nothing when an image of that name was built from the same binary, package
#                  list and script (label io.medley.build-key)
#   --refresh      make the Debian root again instead of taking it from the cache
#   --derive       print the Debian packages the binary's libraries come from (dpkg -S), then exit
#   --generic-cpu  build for any x86-64 (without it, an AVX2/FMA host builds for x86-64-v3 as
#                  scripts/build.sh does, and the image runs only on such CPUs)
#
# The Debian root is cached as a tarball under ~/.cache/medley-container/ (MEDLEY_CONTAINER_CACHE),
# keyed by the package list, the mmdebstrap options and the apt sources; the cache only saves
# time (--refresh, or deleting the folder, makes it again). Needs root, mmdebstrap, podman and
# buildah (scripts/setup.sh installs them).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"

binary="" tag="localhost/medley:latest" if_changed=0 refresh=0 derive=0 generic_cpu=0
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) binary="$(realpath "$2")"; shift 2 ;;
    --tag) tag="$2"; shift 2 ;;
    --if-changed) if_changed=1; shift ;;
    --refresh) refresh=1; shift ;;
    --derive) derive=1; shift ;;
    --generic-cpu) generic_cpu=1; shift ;;
    *) echo "build-image: unknown argument $1" >&2; exit 2 ;;
  esac
done

say() { echo "build-image: $*" >&2; }
fail() { say "$*"; exit 1; }

# Every spelling of a library's path that dpkg may have registered (usrmerge: /lib vs /usr/lib,
# the link ldd names or the file it points to).
spellings() {
  local real
  real="$(realpath "$1")"
  printf '%s\n' "$1" "$real" "${1#/usr}" "${real#/usr}" "/usr${1#/usr}" | sort -u
}

# "PACKAGE PATH" for every library ldd resolves for the binary (all of them, not only its own),
# PACKAGE "unpackaged" for a library no Debian package owns. One dpkg -S for all of them.
library_owners() {
  local bin="$1" libs owned lib package p
  libs="$(ldd "$bin" | awk '$3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' | sort -u)"
  owned="$(for lib in $libs; do spellings "$lib"; done | xargs dpkg -S 2>/dev/null || true)"
  for lib in $libs; do
    package=""
    for p in $(spellings "$lib"); do
      package="$(awk -v p="$p" '{ path = $0; sub(/^[^:]*(:[a-z0-9]+)?: /, "", path) } path == p { sub(/[:,].*/, ""); print; exit }' <<<"$owned")"
      [ -n "$package" ] && break
    done
    echo "${package:-unpackaged} $lib"
  done
}

# The Debian packages the binary's own libraries (DT_NEEDED) come from, one a line; libraries
# outside any package (the Swift toolchain's) are listed as "unpackaged PATH".
derive_packages() {
  local bin="$1" owners lib path
  owners="$(library_owners "$bin")"
  for lib in $(objdump -p "$bin" | awk '$1 == "NEEDED" { print $2 }'); do
    # "libx.so.1 => /path (…)", or "/lib64/ld-linux-x86-64.so.2 (…)" for the dynamic loader
    path="$(ldd "$bin" | awk -v l="$lib" '$1 == l && $3 ~ /^\// { print $3 } $1 ~ ("/" l "$") { print $1 }' | head -1)"
    [ -n "$path" ] || fail "$bin needs $lib, which ldd does not find on this host"
    awk -v p="$path" '$2 == p { if ($1 == "unpackaged") print "unpackaged " p; else print $1 }' <<<"$owners"
  done | sort -u
}

packages=()
while read -r line; do
  line="${line%%#*}"; line="${line//[[:space:]]/}"
  [ -n "$line" ] && packages+=("$line")
done < "$here/runtime-packages.txt"
[ ${#packages[@]} -gt 0 ] || fail "no packages in $here/runtime-packages.txt"

# --- build stage -----------------------------------------------------------------------------
if [ -z "$binary" ]; then
  # scripts/build.sh's release build and CPU tuning, in a build folder of its own (its check of
  # .build/release/medley does not follow --scratch-path, so swift build is called here).
  flags=()
  if [ "$generic_cpu" = 0 ] && [ "$(uname -m)" = x86_64 ] && grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo; then
    flags+=(-Xswiftc -target-cpu -Xswiftc haswell -Xcc -march=haswell)
    say "building for x86-64-v3 (haswell) like scripts/build.sh: the image needs AVX2/FMA nodes (--generic-cpu for any x86-64)"
  fi
  say "building medley (release, --static-swift-stdlib) in .build/container"
  PATH="/opt/swift/usr/bin:$PATH" swift build --package-path "$repo" -c release --static-swift-stdlib \
    --scratch-path "$repo/.build/container" --product medley ${flags[@]+"${flags[@]}"} 2>&1 | grep -v "prohibited flag(s): -pthread" >&2
  binary="$repo/.build/container/release/medley"
fi
[ -x "$binary" ] || fail "$binary is not an executable"

if [ "$derive" = 1 ]; then
  derive_packages "$binary"
  exit 0
fi

# The key of this image: binary, package list and this script. Same key, same image.
key="$(cat "$binary" "$here/runtime-packages.txt" "$0" | sha256sum | cut -c1-64)"
if [ "$if_changed" = 1 ] && [ "$(podman image inspect --format '{{index .Labels "io.medley.build-key"}}' "$tag" 2>/dev/null)" = "$key" ]; then
  say "$tag is up to date (build key ${key:0:12})"
  exit 0
fi

# Every library the binary names must come from a listed package (or from the Swift toolchain,
# whose libraries are copied below): a library added to Package.swift without its package here
# stops the build.
derived="$(derive_packages "$binary")"
missing=()
while read -r pkg rest; do
  [ "$pkg" = unpackaged ] && continue
  pkg="${pkg%%:*}"
  printf '%s\n' "${packages[@]}" | grep -qx "$pkg" || missing+=("$pkg")
done <<<"$derived"
[ ${#missing[@]} -eq 0 ] || fail "$binary links libraries of ${missing[*]}: add them to $here/runtime-packages.txt"

[ "$(id -u)" -eq 0 ] || fail "needs root (mmdebstrap makes the root as root; podman's image store is root's)"
command -v mmdebstrap >/dev/null || fail "mmdebstrap is missing (scripts/setup.sh installs it)"
command -v podman >/dev/null || fail "podman is missing (scripts/setup.sh installs it)"

# --- run stage: the Debian root --------------------------------------------------------------
# Only the machine's Debian sources (deb.debian.org and its security suite), not third-party ones.
sources=/etc/apt/sources.list.d/debian.sources
[ -f "$sources" ] || fail "$sources is missing: the root is made from the machine's Debian apt sources"
mm_options=(--variant=apt --include="$(IFS=,; echo "${packages[*]}")"
  # as debian:bookworm-slim: no manuals, documentation (but copyright files) or translations
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*'
  --dpkgopt='path-include=/usr/share/doc/*/copyright' --dpkgopt='path-exclude=/usr/share/locale/*'
  --aptopt='APT::Install-Recommends "false"')
cache="${MEDLEY_CONTAINER_CACHE:-$HOME/.cache/medley-container}"
root_key="$( { printf '%s\n' "${mm_options[@]}"; cat "$sources"; } | sha256sum | cut -c1-16)"
root_tar="$cache/root-bookworm-$root_key.tar"
# The root becomes a base image of its own (one layer; medley is a second, small one), so a new
# binary costs a layer of a few MB, not a new 370 MB import.
base="localhost/medley-base:bookworm-$root_key"

work="$(mktemp -d "${TMPDIR:-/tmp}/medley-image.XXXXXX")"
ctr=""
cleanup() {
  if [ -n "$ctr" ]; then buildah rm "$ctr" >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
if [ "$refresh" = 1 ] || ! podman image exists "$base"; then
  if [ "$refresh" = 1 ] || [ ! -f "$root_tar" ]; then
    say "making the Debian root with mmdebstrap (${#packages[@]} packages and their dependencies)"
    mkdir -p "$cache"
    mmdebstrap --quiet "${mm_options[@]}" bookworm "$work/root.tar" "$sources"
    mv "$work/root.tar" "$root_tar.tmp.$$" && mv "$root_tar.tmp.$$" "$root_tar"
  else
    say "Debian root from the cache: $root_tar"
  fi
  say "importing the root as $base"
  podman import --quiet --change "LABEL io.medley.packages=$(IFS=,; echo "${packages[*]}")" "$root_tar" "$base" >/dev/null
else
  say "Debian root: $base"
fi
command -v buildah >/dev/null || fail "buildah is missing (scripts/setup.sh installs it)"
ctr="$(buildah from --pull=never "$base")"
root="$(buildah mount "$ctr")"

# --- medley into the root --------------------------------------------------------------------
install -d "$root/usr/local/bin"
# Debug sections are dropped (the symbol table stays, so backtraces still name functions).
objcopy --strip-debug "$binary" "$root/usr/local/bin/medley"
chmod 0755 "$root/usr/local/bin/medley"

# A binary linked against the toolchain's shared Swift runtime (a debug build) gets exactly the
# toolchain libraries it loads, found by ldd on this host.
swift_libs=()
while read -r package path; do
  [ "$package" = unpackaged ] && swift_libs+=("$path")
done <<<"$(library_owners "$binary")"
if [ ${#swift_libs[@]} -gt 0 ]; then
  install -d "$root/usr/local/lib/swift"
  for lib in "${swift_libs[@]}"; do
    case "$lib" in
      */usr/lib/swift/linux/*) objcopy --strip-debug "$lib" "$root/usr/local/lib/swift/$(basename "$lib")" ;;
      *) fail "$binary loads $lib, which is neither a Debian package's nor the Swift toolchain's" ;;
    esac
  done
  echo /usr/local/lib/swift > "$root/etc/ld.so.conf.d/medley-swift.conf"
  say "copied ${#swift_libs[@]} Swift runtime libraries: ${swift_libs[*]##*/}"
  chroot "$root" /sbin/ldconfig
fi

# Inside the root, every library of medley and of libvips' loader modules must be found.
check="$(chroot "$root" /usr/bin/ldd /usr/local/bin/medley; for m in "$root"/usr/lib/*/vips-modules-*/*.so; do
  [ -e "$m" ] && chroot "$root" /usr/bin/ldd "${m#"$root"}"; done)"
if grep -q "not found" <<<"$check"; then
  grep "not found" <<<"$check" >&2
  fail "libraries missing in the root: add their packages to $here/runtime-packages.txt"
fi
# (with a /proc of its own: Swift's runtime reads the arguments from /proc/self/cmdline)
version="$(unshare --fork --pid --mount --mount-proc="$root/proc" chroot "$root" /usr/local/bin/medley --version)" \
  || fail "medley --version fails inside the root"
say "in the root: $version"
medley_mb=$(( $(stat -c %s "$root/usr/local/bin/medley") / 1000000 ))
buildah umount "$ctr" >/dev/null

# --- the image -------------------------------------------------------------------------------
say "committing $tag"
previous="$(podman image inspect --format '{{.Id}}' "$tag" 2>/dev/null || true)"
buildah config --cmd '["medley", "--help"]' --entrypoint '[]' \
  --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin --env LANG=C.UTF-8 \
  --workingdir /library \
  --label io.medley.build-key="$key" --label org.opencontainers.image.title=medley \
  --label org.opencontainers.image.description="Medley batch media processor on Debian 12" \
  --label org.opencontainers.image.version="$version" "$ctr"
buildah commit --quiet --rm "$ctr" "$tag" >/dev/null
ctr=""
# The image this one replaces under the tag is removed (unless a container still uses it), so
# rebuilds do not pile up untagged images.
if [ -n "$previous" ] && [ "$previous" != "$(podman image inspect --format '{{.Id}}' "$tag")" ]; then
  podman rmi "$previous" >/dev/null 2>&1 || say "kept the previous image $previous (in use)"
fi
size="$(podman image inspect --format '{{.Size}}' "$tag")"
say "$tag: $((size / 1000000)) MB ($size bytes; medley ${medley_mb} MB; base $base $(( $(podman image inspect --format '{{.Size}}' "$base") / 1000000 )) MB)"
echo "$tag"

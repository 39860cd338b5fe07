// swift-tools-version:6.0
// Medley: a batch processor for media libraries. One folder per module under Sources/.
import PackageDescription

let package = Package(
    name: "Medley",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "medley", targets: ["medley"]),
    ],
    targets: [
        // C libraries from Debian, found with pkg-config. Only the adapter modules import them.
        .systemLibrary(name: "CVips", pkgConfig: "vips", providers: [.apt(["libvips-dev"])]),
        .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        .systemLibrary(name: "CSndfile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(name: "CSamplerate", pkgConfig: "samplerate", providers: [.apt(["libsamplerate0-dev"])]),
        // XXH3: the 64-bit content hash behind persistentID and run-state fingerprints (memory speed,
        // and `xxhsum -H3` checks it independently).
        .systemLibrary(name: "CXXHash", pkgConfig: "libxxhash", providers: [.apt(["libxxhash-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CQREncode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        // EBU R128 / ITU-R BS.1770 loudness (integrated, range, sample and true peak): the field's reference
        // implementation, the one ffmpeg's ebur128 filter and beets' replaygain backends agree with.
        .systemLibrary(name: "CEbur128", pkgConfig: "libebur128", providers: [.apt(["libebur128-dev"])]),
        // Camera RAW files (CR2, CR3, NEF, ARW, DNG, RAF, ORF, RW2 …): LibRaw's thread-safe build, one handle per call.
        .systemLibrary(name: "CLibRaw", pkgConfig: "libraw_r", providers: [.apt(["libraw-dev"])]),
        // EXIF, IPTC and XMP read and written through exiv2 (gexiv2: its C API, as Shotwell, GIMP and darktable use it).
        .systemLibrary(name: "CGexiv2", pkgConfig: "gexiv2", providers: [.apt(["libgexiv2-dev"])]),
        .systemLibrary(name: "CFFmpeg", pkgConfig: "libavformat",
                       providers: [.apt(["libavformat-dev", "libavcodec-dev", "libswscale-dev", "libswresample-dev", "libavfilter-dev"])]),
        // Audio encode/decode, and movie probe, frames and transcodes (libswscale for pictures,
        // libswresample for sound) through FFmpeg without its macros in Swift.
        .target(name: "CFFmpegShim", dependencies: ["CFFmpeg"],
                linkerSettings: [.linkedLibrary("avformat"), .linkedLibrary("avcodec"), .linkedLibrary("avutil"),
                                 .linkedLibrary("swscale"), .linkedLibrary("swresample"), .linkedLibrary("avfilter")]),
        // Non-variadic C entry points over libvips' `vips_*(…, NULL)` calls and region callbacks.
        .target(name: "CVipsShim", dependencies: ["CVips"],
                // GIFs of a clip: libimagequant quantises the palette and cgif writes (libvips' own GIF libraries).
                linkerSettings: [.linkedLibrary("cgif"), .linkedLibrary("imagequant")]),
        // glibc calls Swift's Glibc module does not expose (malloc arenas under `ulimit -v`, the terminal's width).
        .target(name: "CSystemShim"),

        // The system below every adapter: `MediaError` (every adapter's error, its cause kept: library,
        // operation, errno or library code, path) and the safe file-system adapter (descriptor-relative,
        // no-follow access, folder listings, flock, renameat2 without replacing: where Medley's file-system calls
        // and their pointers live). Its only C is CSystemShim's `medley_rename_noreplace`.
        .target(name: "MedleySystem", dependencies: ["CSystemShim"]),

        // Pure-Swift SIMD kernels over raw buffers: no C imports, no knowledge of graphs.
        .target(name: "MedleyKernels"),
        // The CIFilter-style registry: attribute declarations, filter recipes, the fusing optimiser.
        .target(name: "MedleyFilters", dependencies: ["MedleyKernels"]),
        // Audio tags in pure Swift over a file's bytes: ID3v2.2–2.4, ID3v1, APEv2, MP4 atoms, FLAC blocks,
        // Ogg/Vorbis comments, RIFF/AIFF/CAF chunks. No C module, no dependency: tested, and fuzzed, alone.
        .target(name: "MedleyTags"),
        // libyaml adapter: YAML text → a node tree that remembers line and column.
        .target(name: "MedleyYAML", dependencies: ["CYAML"]),
        // Adapters over media C libraries: libvips (images), libsndfile, libsamplerate and FFmpeg (audio, movies),
        // xxHash (content hashes), libqrencode (QR symbols), libebur128 (loudness), LibRaw (camera RAW files), gexiv2 (image metadata), and the C library's malloc settings they all allocate through.
        .target(name: "MedleyMedia", dependencies: ["CVipsShim", "CFFmpegShim", "CSndfile", "CSamplerate", "CXXHash", "CSystemShim",
                                                    "CQREncode", "CEbur128", "CLibRaw", "CGexiv2", "MedleyKernels", "MedleySystem"]),
        // SQLite adapter: the run state behind incremental runs and resume.
        .target(name: "MedleyStore", dependencies: ["CSQLite", "MedleySystem"]),
        // Pipeline model and validation, ingest, templates, scheduler, stages, events.
        .target(name: "MedleyCore", dependencies: ["MedleyYAML", "MedleyFilters", "MedleyMedia", "MedleyKernels", "MedleyStore",
                                                   "MedleySystem", "MedleyTags"]),
        // `medley bench`: times Medley against peer tools it shells out to; not part of the library.
        .target(name: "MedleyBench", dependencies: ["MedleyCore", "MedleyFilters"]),
        .executableTarget(name: "medley", dependencies: ["MedleyCore", "MedleyBench"]),

        // Kernel micro-benchmark (MP/s against memcpy of the same buffer; the resampler against libsamplerate).
        .executableTarget(name: "medley-kernel-bench", dependencies: ["MedleyKernels", "MedleyMedia"], path: "benchmarks/KernelBench"),
        // Movie poster/transcode driver for bench-movies.sh (the adapter alone, N files at a time).
        .executableTarget(name: "medley-movie-bench", dependencies: ["MedleyMedia"], path: "benchmarks/MovieBench"),

        // What the test targets share: running peer tools with a time limit.
        .target(name: "MedleyTestSupport", path: "Tests/Support"),
        .testTarget(name: "MedleyKernelsTests", dependencies: ["MedleyKernels"]),
        .testTarget(name: "MedleyFiltersTests", dependencies: ["MedleyFilters", "MedleyTestSupport"]),
        // Tags read and written, checked by peer readers (mutagen, ffprobe, exiftool, id3v2, eyeD3).
        .testTarget(name: "MedleyTagsTests", dependencies: ["MedleyTags", "MedleyTestSupport"]),
        // Movies, the resampler against libsamplerate's C API and the true-peak meter against libebur128's, called directly;
        // tags written into a CAF of Medley's own libsndfile writer.
        .testTarget(name: "MedleyMediaTests", dependencies: ["MedleyMedia", "MedleyTags", "CSamplerate", "CEbur128", "MedleyTestSupport"]),
        .testTarget(name: "MedleyCoreTests", dependencies: ["MedleyCore", "MedleyTags", "MedleyTestSupport"]),
        .testTarget(name: "MedleyEndToEndTests", dependencies: ["MedleyCore", "MedleyTags", "MedleyTestSupport"]),
        .testTarget(name: "MedleySystemTests", dependencies: ["MedleySystem"]),
    ],
    // Swift 5 mode: the scheduler shares immutable kernels and C handles across Dispatch
    // threads, which Swift 6's checker cannot see is safe without wrappers everywhere.
    swiftLanguageModes: [.v5]
)

// The fuzz targets that need all of MedleyCore (pipeline validation, `where:`, manifest lines): declared
// only for scripts/fuzz.sh, which builds them with MEDLEY_FUZZ=1 and `-sanitize=fuzzer,address` into
// a build folder of their own (docs/fuzzing.md). The normal build and CI's test build never see them.
if Context.environment["MEDLEY_FUZZ"] == "1" {
    package.targets.append(.executableTarget(name: "MedleyCoreFuzz", dependencies: ["MedleyCore", "MedleyMedia", "MedleyYAML"],
                                             path: "Fuzz/CoreSPM",
                                             // one file with no top-level code: its entry point is the one below
                                             swiftSettings: [.unsafeFlags(["-parse-as-library"])]))
    package.products.append(.executable(name: "MedleyCoreFuzz", targets: ["MedleyCoreFuzz"]))
}

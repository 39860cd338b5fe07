import Foundation
import MedleyCore
import MedleyFilters

/// `medley init [TEMPLATE] [FILE]`: a commented starter pipeline to edit, rather than a blank page.
enum InitCommand {
    static let command = Command(
        "init", operands: "[TEMPLATE] [FILE]",
        summary: """
            Writes a starter pipeline, every line commented, to FILE (default: TEMPLATE.yaml; '-' is
            standard output) from one of the templates: \(StarterTemplate.all.map(\.name).joined(separator: ", "))
            (default: photos). It reads the folder the template names next to the file (photos/, music/,
            …): make it, or change 'from:'; then 'medley validate FILE' and 'medley run FILE'.
            """,
        options: [Option("--list", "l", "list the templates with what each makes, and exit")],
        notes: """
            An existing FILE is never overwritten. Templates: \(StarterTemplate.all.map { "\($0.name) (\($0.summary))" }.joined(separator: "; ")).
            Exit codes: 0 written, 2 unknown template, FILE exists or cannot be written.
            """,
        completes: [.words(StarterTemplate.all.map(\.name)), .pipelineFiles],
        run: main)

    static func main(_ parsed: ParsedArguments) throws -> Int32 {
        if parsed.flag("--list") {
            for template in StarterTemplate.all {
                print(template.name.padding(toLength: 15, withPad: " ", startingAt: 0) + template.summary)
            }
            return 0
        }
        guard parsed.positional.count <= 2 else {
            throw UsageError("expected a template and a file, not \(parsed.positional.count) operands", showsUsage: true)
        }
        // One operand that names no template but a YAML file is the file: `medley init my.yaml`.
        var operands = parsed.positional
        if operands.count == 1, StarterTemplate.named(operands[0]) == nil,
           operands[0] == "-" || operands[0].hasSuffix(".yaml") || operands[0].hasSuffix(".yml") {
            operands.insert("photos", at: 0)
        }
        let name = operands.first ?? "photos"
        guard let template = StarterTemplate.named(name) else {
            let names = StarterTemplate.all.map(\.name)
            throw UsageError("no template '\(name)'" + (nearest(name, in: names).map { "; did you mean '\($0)'?" } ?? "")
                             + " (templates: \(names.joined(separator: ", ")); medley init --list)")
        }
        let path = operands.count == 2 ? operands[1] : template.name + ".yaml"
        if path == "-" {
            print(template.text, terminator: "")
            return 0
        }
        // O_EXCL: a file that exists — or appears meanwhile — is left alone.
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else {
            let reason = errno == EEXIST ? "it exists (medley init never overwrites a file; name another)" : String(cString: strerror(errno))
            printError("medley init: cannot write \(path): \(reason)")
            return 2
        }
        let bytes = Array(template.text.utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let closed = close(descriptor)
        guard written == bytes.count, closed == 0 else {
            printError("medley init: cannot write \(path): \(String(cString: strerror(errno)))")
            unlink(path)
            return 2
        }
        printError("medley init: wrote \(path) (template \(template.name)); it reads \(template.folders.map { $0 + "/" }.joined(separator: " and ")) "
                   + "next to it — then: medley validate \(path) && medley run \(path)")
        return 0
    }
}

/// A starter pipeline: valid as written once its input folders exist, and commented line by line.
struct StarterTemplate {
    let name: String
    /// What it makes, in a few words (`init --list`, the docs).
    let summary: String
    /// The folders it reads, relative to the pipeline file.
    let folders: [String]
    let text: String

    static func named(_ name: String) -> StarterTemplate? { all.first { $0.name == name } }

    static let all: [StarterTemplate] = [photos, webExport, musicLibrary, podcast, movies]

    static let preamble = """
        # Paths are relative to this file. Check it with `medley validate FILE`, see what it would write
        # with `medley run FILE --dry-run`, run it with `medley run FILE`. A second run skips what is done.
        # Every key: docs/pipelines.md; every filter: docs/filters.md or `medley filters list`.
        version: 1
        jobs:
        """

    static let photos = StarterTemplate(
        name: "photos", summary: "a sepia look on every photo of a folder, as JPEG", folders: ["photos"], text: """
        # A starter pipeline (medley init photos): every photo under photos/ toned sepia with a soft
        # vignette, written as JPEG under out/photos/ in the same sub-folders.
        \(preamble)
          - name: photos                        # the job's name: medley run FILE --only photos
            ingest:
              from: [photos]                    # the folders to read (a list)
              recursive: true                   # and every folder inside them
              media: [image]                    # images only: JPEG, PNG, HEIC, TIFF, WebP, RAW...
            filters:                            # applied in order, in linear light
              - CISepiaTone: { inputIntensity: 0.8 }                    # 0 leaves colours, 1 is all sepia
              - CIVignette: { inputIntensity: 0.4, inputRadius: 1.5 }   # darker corners
              # Other looks: CIPhotoEffectNoir (black and white), CIPhotoEffectChrome,
              # CIColorControls: { inputSaturation: 1.2, inputContrast: 1.1 } — medley filters describe NAME
            export:
              to: out/photos                    # the export root (Medley keeps its run state in out/photos/.medley)
              format: jpeg
              quality: 85
              name: "{relpath}/{stem}-sepia.{ext}"   # {relpath}: the sub-folder, {stem}: the name without extension

        """)

    static let webExport = StarterTemplate(
        name: "web-export", summary: "WebP copies of a photo folder, at most 1600 pixels a side", folders: ["photos"], text: """
        # A starter pipeline (medley init web-export): a WebP copy of every photo under photos/, shrunk to
        # fit 1600 x 1600 (never enlarged), camera data stripped but the colour profile kept, in out/web/.
        \(preamble)
          - name: web-export
            ingest:
              from: [photos]                    # the folders to read
              recursive: true
              media: [image]
            filters:
              - resize: { width: 1600, height: 1600, mode: aspectFit, enlarge: false }   # keeps the proportions
            export:
              to: out/web
              format: webp                      # or avif, jpeg, png
              quality: 80                       # 1-100
              strip: true                       # drop EXIF, XMP and IPTC (GPS positions too)
              keepProfile: true                 # but keep the ICC profile, so colours stay right
              name: "{relpath}/{stem}.{ext}"

        """)

    static let musicLibrary = StarterTemplate(
        name: "music-library", summary: "a tagged music folder as AAC, filed Artist/Album by its tags",
        folders: ["music"], text: """
        # A starter pipeline (medley init music-library): every song under music/ (FLAC, MP3, Ogg, ...)
        # as AAC at 256 kb/s in out/library/Artist/Album/, named from its tags, cover art and tags kept,
        # with a playlist of the whole library.
        \(preamble)
          - name: music-library
            ingest:
              from: [music]                     # the folders to read
              recursive: true
              media: [music]                    # audio files with music tags
            # where:                            # to take only some songs, e.g.
            #   genre: jazz
            transcode:
              AVFormatIDKey: kAudioFormatMPEG4AAC   # AAC in .m4a; kAudioFormatAppleLossless for ALAC
              AVEncoderBitRateKey: 256000           # bits per second
            export:
              to: out/library
              # A missing tag falls back to the next name after |: albumArtist, then artist, then the words;
              # "00" (quoted: a literal) for a song without a track number, :02 writes 1 as 01.
              name: '{albumArtist|artist|Unknown Artist}/{albumTitle|Unknown Album}/{albumTrackNumber|"00":02} {title|stem}.m4a'
            playlist: { to: out/library/library.m3u8 }   # every song, in the order of the library

        """)

    static let podcast = StarterTemplate(
        name: "podcast", summary: "episodes to -16 LUFS, silence trimmed, as MP3", folders: ["episodes"], text: """
        # A starter pipeline (medley init podcast): every episode under episodes/ (WAV, AIFF, FLAC, ...)
        # made -16 LUFS loud with true peaks at most -1 dBTP (what Apple Podcasts and most hosts ask),
        # leading and trailing silence trimmed, as MP3 in out/podcast/, each output's loudness in the manifest.
        \(preamble)
          - name: podcast
            ingest:
              from: [episodes]                  # the folders to read
              media: [anyAudio]
            transcode:
              AVFormatIDKey: kAudioFormatMPEGLayer3   # MP3; kAudioFormatMPEG4AAC for AAC in .m4a
              AVEncoderBitRateKey: 128000
              AVSampleRateKey: 44100
              AVNumberOfChannelsKey: 2          # MP3 holds at most two: 5.1 and more are mixed down; 1 for mono
              normalize: podcast                # -16 LUFS integrated, -1 dBTP: one gain per episode
              trim: { silence: -50dB, keep: 0.25s }     # cut silence at the ends, keep a quarter second
              fade: { in: 0.01s, out: 0.1s }
            analyze: [loudness]                 # the output's loudness, in the manifest and the report
            export:
              to: out/podcast
              name: "{stem}.{ext}"

        """)

    static let movies = StarterTemplate(
        name: "movies", summary: "a poster frame of each movie, and the movies as H.264 MP4", folders: ["movies"], text: """
        # A starter pipeline (medley init movies): two jobs over the movies under movies/ — a JPEG poster
        # frame of each at a tenth of its length, and each movie re-encoded as H.264 + AAC in MP4 at most
        # 1280 x 720 (tags and rotation kept).
        \(preamble)
          - name: posters
            ingest:
              from: [movies]                    # the folders to read
              media: [movie]
            poster: { at: "10%" }               # the frame at 10 % of the length (or a time: 5s)
            filters:                            # posters are images: any filter applies
              - CIVignette: { inputIntensity: 0.4, inputRadius: 1.5 }
            export:
              to: out/posters
              format: jpeg
              quality: 88
              name: "{stem}.jpg"
          - name: movies
            ingest:
              from: [movies]
              media: [movie]
            transcode: { videoQuality: typeMedium, scalingMode: aspectFit }   # typeHigh keeps the size
            export:
              to: out/movies
              name: "{stem}.mp4"

        """)
}

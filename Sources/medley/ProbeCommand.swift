import Foundation
import MedleyCore
import MedleyFilters

enum ProbeCommand {
    static let command = Command(
        "probe", operands: "FILE|FOLDER...",
        summary: """
            Prints the media type and every property Medley can read of each file: persistentID (XXH3
            of the content), file facts, format, codec, sample rate, channels, duration, tags and cover
            art of audio (tags outside the MPMediaItem names as tag.<FIELD>, by their Vorbis comment
            name: tag.ISRC, tag.REPLAYGAIN_TRACK_GAIN; tagsNotCarried names what no property holds),
            size, bit depth, colour space, orientation and EXIF fields of images (numbers
            as exiftool -n gives them), duration, codecs, frame rate and every container tag of movies
            (tag.<key>, as ffprobe's format_tags). A folder stands for the media files a run would ingest from it
            (recursively, byte-wise order, hidden files skipped, files that are not media left out), as exiftool -r.
            Files are read in parallel; output keeps the order given.
            """,
        options: [
            Option("--json", "print one JSON array of objects, one per file"),
            Option("--meter", """
                also decode each audio file for peak and average power per channel in dBFS
                (AVAudioPlayer's peakPower / averagePower)
                """),
            Option("--loudness", """
                also decode each audio file, at its own rate and channels, for its EBU R128 loudness
                (libebur128): integratedLoudness LUFS, loudnessRange LU, samplePeak dBFS, truePeak dBTP
                (4x oversampled); what has no value (silence, a file under 400 ms) is said in loudnessNote
                """),
        ],
        notes: "Exit codes: 0 every file read, 1 some file could not be read, 2 bad options.",
        run: main)

    static func main(_ parsed: ParsedArguments) throws -> Int32 {
        guard !parsed.positional.isEmpty else { throw UsageError("name at least one file", showsUsage: true) }
        // Folders become the files a run would ingest from them (Steps/ProbeFolders.swift).
        let operands = Probe.operands(parsed.positional)
        var failed = false
        for case .failed(let path, let reason) in operands {
            failed = true
            printError("medley probe: \(path): \(reason)")
        }
        let paths = operands.compactMap { operand -> String? in if case .file(let path) = operand { return path } else { return nil } }
        let metering = parsed.flag("--meter"), loudness = parsed.flag("--loudness")
        let results = parallelMap(count: paths.count) { index in
            Result { try Probe.properties(ofFileAt: paths[index], metering: metering, loudness: loudness) }
        }
        var reports: [JSONValue] = []
        for (path, result) in zip(paths, results) {
            switch result {
            case .success(let properties):
                if parsed.flag("--json") {
                    reports.append(.object(properties.map { ($0.name, $0.value.json) }))
                } else {
                    // One line per property: a tag's control characters (and line breaks) escaped.
                    print(TerminalText.escaped(path, keepingLineBreaks: false))
                    for (name, value) in properties {
                        print("  \(name): " + TerminalText.escaped(value.text, keepingLineBreaks: false))
                    }
                }
            case .failure(let error):
                failed = true
                printError("medley probe: \(path): \(error)")
            }
        }
        if parsed.flag("--json") { print(JSONValue.array(reports).rendered(pretty: true)) }
        return failed ? 1 : 0
    }
}

import Foundation
import MedleyCore
import MedleyFilters

enum ProbeCommand {
    static let help = """
        usage: medley probe FILE... [--json] [--meter]

        Prints the media type and every property Medley can read of each file: persistentID (XXH3
        of the content), file facts, format, codec, sample rate, channels, duration, tags and cover
        art of audio (tags outside the MPMediaItem names as tag.<FIELD>, by their Vorbis comment
        name: tag.ISRC, tag.REPLAYGAIN_TRACK_GAIN; tagsNotCarried names what no property holds), size, bit depth, colour space, orientation and EXIF fields of images (numbers
        as exiftool -n gives them), duration, codecs, frame rate and every container tag of movies
        (tag.<key>, as ffprobe's format_tags).
        --meter also decodes each audio file for peak and average power per channel in dBFS
        (AVAudioPlayer's peakPower / averagePower). Files are read in parallel; output keeps the
        order given. Exit 1 if any file could not be read.
        """

    static func main(_ arguments: [String]) throws -> Int32 {
        let parsed: ParsedArguments
        do {
            parsed = try ParsedArguments(arguments, flags: ["--json", "--meter"], valued: [], help: help)
        } catch let help as HelpRequested {
            printError(help.text)
            return 0
        }
        guard !parsed.positional.isEmpty else { throw UsageError("name at least one file\n\n" + help) }
        let paths = parsed.positional
        let metering = parsed.flags.contains("--meter")
        let results = parallelMap(count: paths.count) { index in
            Result { try Probe.properties(ofFileAt: paths[index], metering: metering) }
        }
        var failed = false
        var reports: [JSONValue] = []
        for (path, result) in zip(paths, results) {
            switch result {
            case .success(let properties):
                if parsed.flags.contains("--json") {
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
        if parsed.flags.contains("--json") { print(JSONValue.array(reports).rendered(pretty: true)) }
        return failed ? 1 : 0
    }
}

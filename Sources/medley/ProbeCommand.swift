import Foundation
import MedleyCore
import MedleyFilters

enum ProbeCommand {
    static let help = """
        usage: medley probe FILE... [--json]

        Prints the media type and every property Medley can read of each file: file facts, format,
        size, channels, bit depth, colour space, orientation and EXIF fields (audio and movie
        properties arrive with audio and movie support). Exit 1 if any file could not be read.
        """

    static func main(_ arguments: [String]) throws -> Int32 {
        let parsed: ParsedArguments
        do {
            parsed = try ParsedArguments(arguments, flags: ["--json"], valued: [], help: help)
        } catch let help as HelpRequested {
            printError(help.text)
            return 0
        }
        guard !parsed.positional.isEmpty else { throw UsageError("name at least one file\n\n" + help) }
        var failed = false
        var reports: [JSONValue] = []
        for path in parsed.positional {
            do {
                let properties = try Probe.properties(ofFileAt: path)
                if parsed.flags.contains("--json") {
                    reports.append(.object(properties.map { ($0.name, $0.value.json) }))
                } else {
                    print(path)
                    for (name, value) in properties { print("  \(name): \(value.text)") }
                }
            } catch {
                failed = true
                printError("medley probe: \(path): \(error)")
            }
        }
        if parsed.flags.contains("--json") { print(JSONValue.array(reports).rendered(pretty: true)) }
        return failed ? 1 : 0
    }
}

import Foundation
import MedleyCore
import MedleyFilters
import MedleyMedia

/// `medley` subcommands. Hand-written parsing: SwiftPM cannot fetch swift-argument-parser here.
enum CommandLineInterface {
    static let usage = """
        medley \(medleyVersion) — a batch processor for media libraries

        usage:
          medley run PIPELINE.yaml [--jobs N] [--only JOB] [--dry-run] [--force] [--shard K/N]
                                   [--events FILE.jsonl] [--quiet] [--wait] [--set job.key=value]
          medley validate PIPELINE.yaml
          medley filters [list | describe NAME] [--category C] [--json]
          medley probe FILE... [--json] [--meter]
          medley merge PIPELINE.yaml [--only JOB]
          medley report PIPELINE.yaml [--only JOB]
          medley bench [--quick] [--media DIR] [--out DIR]
          medley --version

        Run 'medley COMMAND --help' for a command's options.
        """

    static func main(_ arguments: [String]) -> Int32 {
        guard let command = arguments.first else {
            printError(usage)
            return 2
        }
        let rest = Array(arguments.dropFirst())
        do {
            switch command {
            case "run": return try RunCommand.main(rest)
            case "validate": return try ValidateCommand.main(rest)
            case "filters": return try FiltersCommand.main(rest)
            case "probe": return try ProbeCommand.main(rest)
            case "merge": return try MergeCommand.main(rest)
            case "report": return try ReportCommand.main(rest)
            case "bench": return try BenchCommand.main(rest)
            case "--version", "version":
                print("medley \(medleyVersion)")
                return 0
            case "--help", "-h", "help":
                printError(usage)
                return 0
            default:
                let known = ["run", "validate", "filters", "probe", "merge", "report", "bench"]
                printError("medley: unknown command '\(command)'"
                           + (nearest(command, in: known).map { "; did you mean '\($0)'?" } ?? "") + "\n\n" + usage)
                return 2
            }
        } catch let error as UsageError {
            printError("medley \(command): \(error.message)")
            return 2
        } catch RunError.cannotStart(let message) {
            // The export root cannot be used: nothing was run.
            printError("medley: \(message)")
            return 2
        } catch let error as RunError {
            if case .internalError = error {
                printError("medley: \(error)")
                return 3
            }
            printError("medley: \(error)")
            return 1
        } catch {
            printError("medley: internal error: \(error)")
            return 3
        }
    }
}

/// A command line that cannot be run as written (exit code 2).
struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// A message for a person on standard error, control characters escaped (`TerminalText`).
func printError(_ text: String) {
    StandardError.write(TerminalText.escaped(text) + "\n")
}

/// Options and positional arguments of one subcommand.
struct ParsedArguments {
    var flags: Set<String> = []
    var values: [String: [String]] = [:]
    var positional: [String] = []

    /// `valued` options take the next argument (or `--key=value`); `flags` take none.
    init(_ arguments: [String], flags allowedFlags: Set<String>, valued: Set<String>, help: String) throws {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--help" || argument == "-h" { throw HelpRequested(text: help) }
            guard argument.hasPrefix("--"), argument.count > 2 else {
                positional.append(argument)
                continue
            }
            var name = argument
            var inline: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            if allowedFlags.contains(name) {
                guard inline == nil else { throw UsageError("\(name) takes no value") }
                flags.insert(name)
            } else if valued.contains(name) {
                let value: String
                if let inline { value = inline } else {
                    guard index < arguments.count else { throw UsageError("\(name) needs a value") }
                    value = arguments[index]
                    index += 1
                }
                values[name, default: []].append(value)
            } else {
                let all = Array(allowedFlags) + Array(valued)
                throw UsageError("unknown option \(name)" + (nearest(name, in: all).map { "; did you mean \($0)?" } ?? ""))
            }
        }
    }

    func value(_ name: String) -> String? { values[name]?.last }
}

struct HelpRequested: Error { let text: String }

/// The one pipeline a subcommand names (with its `--set` overrides), after checking that `--only`
/// names one of its jobs; nil once validation problems are printed (exit 2).
func loadPipeline(_ parsed: ParsedArguments, help: String) throws -> Pipeline? {
    guard parsed.positional.count == 1 else { throw UsageError("expected one pipeline file\n\n" + help) }
    let pipeline: Pipeline
    do {
        pipeline = try PipelineReader.load(path: parsed.positional[0], overrides: parsed.values["--set"] ?? [])
    } catch let failure as ValidationFailure {
        printError(failure.description)
        return nil
    }
    if let only = parsed.value("--only"), !pipeline.jobs.contains(where: { $0.name == only }) {
        throw UsageError("--only \(only): no such job (jobs: \(pipeline.jobs.map(\.name).joined(separator: ", ")))")
    }
    return pipeline
}

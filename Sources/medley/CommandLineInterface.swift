import Foundation
import MedleyCore
import MedleyFilters
import MedleyMedia

/// `medley` and its subcommands. Each command is declared once (`Command`, a table of
/// `Option`s); that declaration drives parsing, the command's `--help` and the top-level usage.
/// Hand-written: SwiftPM cannot fetch swift-argument-parser here.
enum CommandLineInterface {
    /// Every subcommand, in the order the usage lists them.
    static let commands: [Command] = [
        RunCommand.command, WatchCommand.command, ValidateCommand.command, FiltersCommand.command, ProbeCommand.command,
        MergeCommand.command, ReportCommand.command, BenchCommand.command, InitCommand.command, CompletionsCommand.command,
    ]

    /// Commands for scripts, left out of the usage and the docs: `complete` (what the shell
    /// completions ask) and `docs` (writes the generated reference files).
    static let hiddenCommands: [Command] = [CompleteCommand.command, DocsCommand.command]

    /// The top-level usage, made from the commands' declarations.
    static var usage: String {
        var text = "medley \(medleyVersion) — a batch processor for media libraries\n\nusage:\n"
        for command in commands { text += command.synopsis(prefix: "  ") + "\n" }
        text += "  medley --version\n\nRun 'medley COMMAND --help' for a command's options."
        return text
    }

    static func main(_ arguments: [String]) -> Int32 {
        guard let name = arguments.first else {
            printError(usage)
            return 2
        }
        let rest = Array(arguments.dropFirst())
        switch name {
        case "--version", "-V", "version":
            print("medley \(medleyVersion)")
            return 0
        case "--help", "-h":
            print(usage)
            return 0
        case "help":
            // `medley help run` is `medley run --help`.
            guard let topic = rest.first else {
                print(usage)
                return 0
            }
            guard let command = commands.first(where: { $0.name == topic }) else { return unknownCommand(topic) }
            print(command.help)
            return 0
        default:
            guard let command = (commands + hiddenCommands).first(where: { $0.name == name }) else { return unknownCommand(name) }
            return run(command, rest)
        }
    }

    /// Parses `arguments` by the command's declaration and runs it; every error a command can
    /// throw becomes its message and exit code here, once.
    static func run(_ command: Command, _ arguments: [String]) -> Int32 {
        do {
            switch try command.parse(arguments) {
            case .help:
                print(command.help)
                return 0
            case .version:
                print("medley \(medleyVersion)")
                return 0
            case .arguments(let parsed):
                return try command.run(parsed)
            }
        } catch let error as UsageError {
            printError("medley \(command.name): \(error.message)"
                       + (error.showsUsage ? "\n\n" + command.synopsis(prefix: "usage: ") + "\n(medley \(command.name) --help for more)" : ""))
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

    static func unknownCommand(_ name: String) -> Int32 {
        let suggestion = nearest(name, in: commands.map(\.name)).map { "; did you mean '\($0)'?" } ?? ""
        printError("medley: unknown command '\(name)'\(suggestion)\n\n" + usage)
        return 2
    }
}

/// One option of a subcommand: `--name` (and `-s`), the value it takes if any, and its help.
struct Option: Sendable {
    /// "--jobs"
    let name: String
    /// "j" for `-j`; nil when the option has only its long name.
    let short: Character?
    /// What the value is called in the help ("N", "FILE"); nil for a flag, which takes none.
    let value: String?
    /// One or more lines for `--help`.
    let help: String

    /// A flag with a long name only.
    init(_ name: String, _ help: String) {
        self.init(name, short: nil, value: nil, help)
    }

    /// An option with a short name: a flag, or one taking a value when `value` names it.
    init(_ name: String, _ short: Character, value: String? = nil, _ help: String) {
        self.init(name, short: short, value: value, help)
    }

    /// An option with a long name only that takes a value.
    init(_ name: String, value: String, _ help: String) {
        self.init(name, short: nil, value: value, help)
    }

    private init(_ name: String, short: Character?, value: String?, _ help: String) {
        self.name = name
        self.short = short
        self.value = value
        self.help = help
    }

    /// What a shell completes as the option's value, read from its placeholder and name, so an
    /// option declared anywhere gets its completion without saying so: JOB → the job names of
    /// the pipeline on the line; FILTER… (or an option named like --filter) → filter names;
    /// FILE, PATH, PIPELINE… → files; DIR, FOLDER → folders; anything else → nothing.
    var completion: Completion {
        guard let value else { return .nothing }
        let word = value.uppercased()
        if word == "JOB" { return .jobs }
        if word.hasPrefix("FILTER") || name == "--filter" { return .filters }
        if word.hasPrefix("PIPELINE") { return .pipelineFiles }
        if word.hasPrefix("FILE") || word.hasPrefix("PATH") { return .files }
        if word.hasPrefix("DIR") || word.hasPrefix("FOLDER") { return .folders }
        return .nothing
    }

    /// "-j N" or "--only JOB": how the option is written in a usage line.
    var usageForm: String {
        let written = short.map { "-\($0)" } ?? name
        return value.map { "\(written) \($0)" } ?? written
    }
}

/// A subcommand, declared once.
struct Command {
    let name: String
    /// What follows the name besides options: "PIPELINE.yaml", "FILE...".
    let operands: String
    /// The help's first paragraph.
    let summary: String
    let options: [Option]
    /// The help's closing paragraphs (exit codes, notes); may be empty.
    let notes: String
    /// What a shell completes for the first, second, … operand; the last one for any after.
    let operandCompletions: [Completion]
    let run: (ParsedArguments) throws -> Int32

    /// `completes` says what the operands are for the shell completions; by default it is read
    /// from `operands`: PIPELINE → pipeline files, FILE → files, else nothing.
    init(_ name: String, operands: String, summary: String, options: [Option], notes: String = "",
         completes: [Completion]? = nil, run: @escaping (ParsedArguments) throws -> Int32) {
        self.name = name
        self.operands = operands
        self.summary = summary
        self.options = options
        self.notes = notes
        self.operandCompletions = completes
            ?? (operands.contains("PIPELINE") ? [.pipelineFiles] : operands.contains("FILE") ? [.files] : [])
        self.run = run
    }

    /// The options every command takes, after its own.
    static let common = [
        Option("--help", "h", "print this help and exit"),
        Option("--version", "print medley's version and exit"),
    ]

    var allOptions: [Option] { options + Self.common }

    /// `prefix` + "medley run PIPELINE.yaml [-j N] [--only JOB] …", wrapped under the options at 100 columns.
    func synopsis(prefix: String) -> String {
        let head = prefix + "medley \(name)" + (operands.isEmpty ? "" : " " + operands)
        let continuation = String(repeating: " ", count: min(head.count + 1, 40))
        var lines = [head]
        // An option the operands already show ("-i PATH… -o FOLDER") is not repeated after them.
        for option in options where !operands.contains(option.usageForm) {
            let part = "[\(option.usageForm)]"
            if let last = lines.last, last.count + 1 + part.count <= 100 {
                lines[lines.count - 1] = last + " " + part
            } else {
                lines.append(continuation + part)
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The whole `--help` text.
    var help: String {
        var text = synopsis(prefix: "usage: ") + "\n\n" + summary + "\n\noptions:\n"
        let forms = allOptions.map { option -> String in
            let short = option.short.map { "-\($0), " } ?? "    "
            return "  " + short + option.name + (option.value.map { " " + $0 } ?? "")
        }
        let column = (forms.map(\.count).max() ?? 0) + 2
        for (option, form) in zip(allOptions, forms) {
            let lines = option.help.split(separator: "\n", omittingEmptySubsequences: false)
            text += form.padding(toLength: column, withPad: " ", startingAt: 0) + (lines.first.map(String.init) ?? "") + "\n"
            for line in lines.dropFirst() { text += String(repeating: " ", count: column) + line + "\n" }
        }
        if !notes.isEmpty { text += "\n" + notes + "\n" }
        return text.hasSuffix("\n") ? String(text.dropLast()) : text
    }

    /// What a command line asks for.
    enum Parsed {
        case help
        case version
        case arguments(ParsedArguments)
    }

    /// Reads `arguments` by this command's options: `--name value`, `--name=value`, `-s value`,
    /// `-svalue`, grouped flags (`-qn`), and `--` before operands that start with "-". A lone
    /// "-" is an operand. `--help` and `--version` win wherever they stand.
    func parse(_ arguments: [String]) throws -> Parsed {
        var parsed = ParsedArguments()
        var index = 0
        var operandsOnly = false
        func take(_ option: Option, inline: String?) throws {
            guard let placeholder = option.value else {
                guard inline == nil else { throw UsageError("option '\(option.name)' takes no value") }
                parsed.flags.insert(option.name)
                return
            }
            if let inline {
                parsed.values[option.name, default: []].append(inline)
                return
            }
            guard index < arguments.count else { throw UsageError("option '\(option.name)' needs a value (\(placeholder))") }
            parsed.values[option.name, default: []].append(arguments[index])
            index += 1
        }
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if operandsOnly || argument == "-" || !argument.hasPrefix("-") {
                parsed.positional.append(argument)
            } else if argument == "--" {
                operandsOnly = true
            } else if argument.hasPrefix("--") {
                let equals = argument.firstIndex(of: "=")
                let name = equals.map { String(argument[..<$0]) } ?? argument
                guard let option = allOptions.first(where: { $0.name == name }) else {
                    let suggestion = nearest(name, in: allOptions.map(\.name)).map { "; did you mean \($0)?" } ?? ""
                    throw UsageError("unknown option '\(name)'\(suggestion)", showsUsage: true)
                }
                try take(option, inline: equals.map { String(argument[argument.index(after: $0)...]) })
            } else {
                // One or more short options: flags, then at most one that takes the rest as its value.
                var letters = Substring(argument.dropFirst())
                while let letter = letters.first {
                    letters = letters.dropFirst()
                    guard let option = allOptions.first(where: { $0.short == letter }) else {
                        throw UsageError("unknown option '-\(letter)'", showsUsage: true)
                    }
                    if option.value != nil {
                        try take(option, inline: letters.isEmpty ? nil : String(letters))
                        break
                    }
                    try take(option, inline: nil)
                }
            }
        }
        if parsed.flags.contains("--help") { return .help }
        if parsed.flags.contains("--version") { return .version }
        return .arguments(parsed)
    }
}

/// What a shell offers for an option's value or an operand (`medley completions`).
enum Completion: Equatable {
    case nothing
    case files
    case folders
    /// `.yaml` and `.yml` files, and folders to find them in.
    case pipelineFiles
    /// The job names of the pipeline file on the command line (`medley complete jobs FILE`).
    case jobs
    /// Filter names (`medley complete filters`).
    case filters
    case words([String])
}

/// A command line that cannot be run as written (exit code 2); `showsUsage` adds the
/// command's usage line to the message.
struct UsageError: Error {
    let message: String
    let showsUsage: Bool
    init(_ message: String, showsUsage: Bool = false) {
        self.message = message
        self.showsUsage = showsUsage
    }
}

/// A message for a person on standard error, control characters escaped (`TerminalText`).
func printError(_ text: String) {
    StandardError.write(TerminalText.escaped(text) + "\n")
}

/// Options and operands of one command line, options under their long names.
struct ParsedArguments {
    var flags: Set<String> = []
    var values: [String: [String]] = [:]
    var positional: [String] = []

    func flag(_ name: String) -> Bool { flags.contains(name) }
    /// The last value given for a valued option (a later one overrides an earlier one).
    func value(_ name: String) -> String? { values[name]?.last }
    /// Every value given for an option that may repeat (`--set`).
    func all(_ name: String) -> [String] { values[name] ?? [] }

    /// A whole number ≥ `minimum` from option `name`, if given.
    func count(_ name: String, minimum: Int = 1) throws -> Int? {
        guard let text = value(name) else { return nil }
        guard let n = Int(text), n >= minimum else { throw UsageError("\(name) takes a whole number ≥ \(minimum), not '\(text)'") }
        return n
    }
}

/// The one pipeline a command names (with its `--set` overrides), after checking that `--only`
/// names one of its jobs; nil once validation problems are printed (exit 2).
func loadPipeline(_ parsed: ParsedArguments, nothingRun: Bool = false) throws -> Pipeline? {
    guard parsed.positional.count == 1 else {
        throw UsageError(parsed.positional.isEmpty ? "name the pipeline file" : "expected one pipeline file, not \(parsed.positional.count)",
                         showsUsage: true)
    }
    let path = parsed.positional[0]
    let pipeline: Pipeline
    do {
        pipeline = try PipelineReader.load(path: path, overrides: parsed.all("--set"))
    } catch let failure as ValidationFailure {
        printError(failure.description)
        let count = failure.diagnostics.count
        printError("medley: \(count) problem\(count == 1 ? "" : "s") in \(path)" + (nothingRun ? "; nothing was run" : ""))
        return nil
    }
    if let only = parsed.value("--only"), !pipeline.jobs.contains(where: { $0.name == only }) {
        throw UsageError("--only \(only): no such job (jobs: \(pipeline.jobs.map(\.name).joined(separator: ", ")))")
    }
    return pipeline
}

/// Options several commands share, declared once.
enum SharedOptions {
    static let only = Option("--only", value: "JOB", "only the job of that name")
    static let set = Option("--set", value: "JOB.KEY=VALUE", "change one value of a job, e.g. --set sepia-photos.export.quality=90\n(may be given more than once)")
    static let jobs = Option("--jobs", "j", value: "N", "items processed at once (default: the number of cores)")
}

extension RunOptions {
    /// The options of `run` and `watch` from their command line: --quiet, --wait, --events, --only,
    /// --jobs, --shard, and run's --dry-run and --force (never given to watch, whose parser refuses them).
    init(_ parsed: ParsedArguments) throws {
        self.init()
        quiet = parsed.flag("--quiet")
        wait = parsed.flag("--wait")
        eventsPath = parsed.value("--events")
        onlyJob = parsed.value("--only")
        if let jobs = try parsed.count("--jobs") { concurrency = jobs }
        shard = try Self.shard(parsed.value("--shard"))
        dryRun = parsed.flag("--dry-run")
        force = parsed.flag("--force")
    }

    /// `--shard K/N`, or the index a cluster scheduler gives an array task.
    static func shard(_ text: String?) throws -> (index: Int, count: Int)? {
        let environment = ProcessInfo.processInfo.environment
        if let text {
            let parts = text.split(separator: "/").map { Int($0) }
            guard parts.count == 2, let k = parts[0], let n = parts[1], n >= 1, (1...n).contains(k) else {
                throw UsageError("--shard takes K/N with 1 ≤ K ≤ N, e.g. --shard 1/4, not '\(text)'")
            }
            return (k, n)
        }
        if let id = environment["SLURM_ARRAY_TASK_ID"].flatMap(Int.init),
           let count = environment["SLURM_ARRAY_TASK_COUNT"].flatMap(Int.init), count >= 1 {
            // A resubmitted task (`--array=5` of 0-7) is an array of its own, whose size and
            // minimum say nothing of the shard count: MEDLEY_SHARD_COUNT names it, and the task
            // counts from MEDLEY_FIRST_TASK (default 0).
            if let named = environment["MEDLEY_SHARD_COUNT"] {
                let first = environment["MEDLEY_FIRST_TASK"] ?? "0"
                guard let n = Int(named), n >= 1, let base = Int(first), (1...n).contains(id - base + 1) else {
                    throw UsageError("""
                        SLURM_ARRAY_TASK_ID \(id) with MEDLEY_SHARD_COUNT '\(named)' and MEDLEY_FIRST_TASK '\(first)' \
                        is not one of the shards: the task must lie in MEDLEY_FIRST_TASK … MEDLEY_FIRST_TASK + N − 1
                        """)
                }
                return (id - base + 1, n)
            }
            // A one-task array cannot be told from a resubmitted task of a larger one, which would
            // take every item as shard 1/1 under a run state of its own.
            guard count > 1 else {
                throw UsageError("""
                    SLURM_ARRAY_TASK_ID is set in an array of one task, which cannot say which shard it is \
                    (a resubmitted task would take every item): set MEDLEY_SHARD_COUNT=N (and MEDLEY_FIRST_TASK \
                    if the original array did not start at 0), or pass --shard K/N
                    """)
            }
            // A whole array numbers its tasks as the --array range says (0-3 or 1-4): count from its minimum.
            let index = id - (environment["SLURM_ARRAY_TASK_MIN"].flatMap(Int.init) ?? 0)
            guard (0..<count).contains(index) else {
                throw UsageError("SLURM_ARRAY_TASK_ID \(id) is outside the array of \(count) tasks; use a contiguous --array range")
            }
            return (index + 1, count)
        }
        if let index = environment["JOB_COMPLETION_INDEX"].flatMap(Int.init) {
            guard let count = environment["MEDLEY_SHARD_COUNT"].flatMap(Int.init), (0..<count).contains(index) else {
                throw UsageError("JOB_COMPLETION_INDEX is set: set MEDLEY_SHARD_COUNT to the Indexed Job's completions too")
            }
            return (index + 1, count)
        }
        return nil
    }
}

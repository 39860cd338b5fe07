import Foundation
import XCTest

/// `medley completions bash|zsh|fish`, run in the shells themselves: bash's completion function
/// called with COMP_WORDS set, fish's `complete -C`, zsh's syntax check. Job names expected come
/// from PyYAML, filter names from the catalogue's source text — never from Medley.
final class CompletionsTests: EndToEndCase {
    /// The folder of the medley binary, put first on PATH: the scripts call `medley complete`.
    var path: String {
        URL(fileURLWithPath: Tool.medley).deletingLastPathComponent().path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
    }

    func script(_ shell: String) throws -> String {
        let result = try Tool.medley(["completions", shell])
        XCTAssertEqual(result.status, 0, result.stderr)
        let file = work + "/medley.\(shell)"
        try result.data.write(to: URL(fileURLWithPath: file))
        return file
    }

    /// What bash's completion offers for the words of a command line (the last is the word being completed).
    /// `cursor`: the index of the word being completed when it is not the last.
    func bash(_ words: [String], cursor: Int? = nil, script: String) throws -> [String] {
        let program = """
            source "$1"; shift
            COMP_WORDS=("$@"); COMP_CWORD=\(cursor ?? words.count - 1)
            COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
            _medley
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let result = try Tool.run("/bin/bash", ["--norc", "-c", program, "bash", script] + words,
                                  in: Tool.packageRoot, environment: ["PATH": path])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr, "", words.joined(separator: " "))
        return result.stdout.split(separator: "\n").map(String.init).sorted()
    }

    /// The job names of a pipeline file as PyYAML reads it.
    func jobNames(_ pipeline: String) throws -> [String] {
        let result = try Tool.run("/usr/bin/python3", ["-c", "import sys, yaml; [print(j['name']) for j in yaml.safe_load(open(sys.argv[1]))['jobs']]",
                                                       Tool.packageRoot + "/" + pipeline])
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stdout.split(separator: "\n").map(String.init).sorted()
    }

    /// Filter names starting with `prefix`, read from the catalogue's declarations as text.
    func filterNames(startingWith prefix: String) throws -> [String] {
        let result = try Tool.run("/bin/sh", ["-c", #"grep -rhoE 'name: "[A-Za-z0-9]+",' Sources/MedleyFilters/Catalog | sed -E 's/name: "(.*)",/\1/' | sort -u"#],
                                  in: Tool.packageRoot)
        return result.stdout.split(separator: "\n").map(String.init).filter { $0.hasPrefix(prefix) }
    }

    func testBashCompletesCommandsOptionsJobsAndFilters() throws {
        let file = try script("bash")
        XCTAssertEqual(try Tool.run("/bin/bash", ["-n", file]).status, 0)
        XCTAssertEqual(try bash(["medley", "r"], script: file), ["report", "run"])
        XCTAssertTrue(try bash(["medley", ""], script: file).contains("completions"))
        XCTAssertEqual(try bash(["medley", "run", "--dry"], script: file), ["--dry-run"])
        XCTAssertTrue(try bash(["medley", "watch", "--"], script: file).contains("--settle"))
        // Job names of the pipeline on the line, after --only, written either way.
        let sepiaJobs = try jobNames("pipelines/sepia-photos.yaml")
        XCTAssertEqual(sepiaJobs, ["sepia-photos"])
        XCTAssertEqual(try bash(["medley", "run", "pipelines/sepia-photos.yaml", "--only", ""], script: file), sepiaJobs)
        let movieJobs = try jobNames("pipelines/movie-posters.yaml")
        XCTAssertEqual(movieJobs.count, 2)
        XCTAssertEqual(try bash(["medley", "run", "-j", "2", "pipelines/movie-posters.yaml", "--only", "="], script: file), movieJobs)
        XCTAssertEqual(try bash(["medley", "report", "--only", "", "pipelines/movie-posters.yaml"], cursor: 3, script: file), movieJobs,
                       "the pipeline may come after the option")
        // Filter names where an operand is one.
        let sepia = try filterNames(startingWith: "CISep")
        XCTAssertEqual(sepia, ["CISepiaTone"])
        XCTAssertEqual(try bash(["medley", "filters", "describe", "CISep"], script: file), sepia)
        XCTAssertEqual(try bash(["medley", "filters", "describe", "CIPhotoEffect"], script: file),
                       try filterNames(startingWith: "CIPhotoEffect"))
        XCTAssertEqual(try bash(["medley", "filters", ""], script: file), ["describe", "list"])
        // Pipeline files and the words of init and completions.
        XCTAssertEqual(try bash(["medley", "validate", "pipelines/sepia-p"], script: file), ["pipelines/sepia-photos.yaml"])
        XCTAssertEqual(try bash(["medley", "init", "mu"], script: file), ["music-library"])
        XCTAssertEqual(try bash(["medley", "completions", ""], script: file), ["bash", "fish", "zsh"])
        // An option's value that is not a name to complete offers nothing.
        XCTAssertEqual(try bash(["medley", "run", "--jobs", ""], script: file), [])
    }

    func testFishCompletesCommandsJobsAndFilters() throws {
        let file = try script("fish")
        XCTAssertEqual(try Tool.run("fish", ["-n", file]).status, 0, "fish -n")
        func fish(_ line: String) throws -> [String] {
            let result = try Tool.run("fish", ["--no-config", "-c", "source $argv[1]; complete -C $argv[2]", file, line],
                                      in: Tool.packageRoot, environment: ["PATH": path])
            XCTAssertEqual(result.status, 0, result.stderr)
            return result.stdout.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }.sorted()
        }
        XCTAssertEqual(try fish("medley r"), ["report", "run"])
        XCTAssertEqual(try fish("medley run pipelines/movie-posters.yaml --only "), try jobNames("pipelines/movie-posters.yaml"))
        XCTAssertEqual(try fish("medley filters describe CISep"), try filterNames(startingWith: "CISep"))
        XCTAssertEqual(try fish("medley run --dry"), ["--dry-run"])
    }

    func testZshScriptParses() throws {
        let file = try script("zsh")
        let check = try Tool.run("zsh", ["-n", file])
        XCTAssertEqual(check.status, 0, check.stderr)
        XCTAssertTrue(try String(contentsOfFile: file, encoding: .utf8).hasPrefix("#compdef medley\n"))
    }

    func testUnknownShellIsRefused() throws {
        let result = try Tool.medley(["completions", "zhs"])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("did you mean 'zsh'"), result.stderr)
        XCTAssertEqual(result.stdout, "")
    }
}

import Foundation
import XCTest

/// The command line as users of other Unix tools expect it: help on standard output, short
/// flags, `--version` everywhere, unknown options named, a progress line that fits the terminal.
final class CommandLineTests: EndToEndCase {
    static let commands = ["run", "validate", "filters", "probe", "merge", "report", "bench", "init", "completions"]

    func testHelpGoesToStandardOutputAndExitsZero() throws {
        for command in Self.commands {
            for flag in ["--help", "-h"] {
                let help = try Tool.medley([command, flag])
                XCTAssertEqual(help.status, 0, "\(command) \(flag)")
                XCTAssertTrue(help.stdout.hasPrefix("usage: medley \(command)"), help.stdout)
                XCTAssertTrue(help.stdout.contains("  -h, --help"), help.stdout)
                XCTAssertEqual(help.stderr, "", "\(command) \(flag) writes nothing to standard error")
            }
            // `medley help COMMAND` is the same text.
            XCTAssertEqual(try Tool.medley(["help", command]).stdout, try Tool.medley([command, "--help"]).stdout)
        }
        let top = try Tool.medley(["--help"])
        XCTAssertEqual(top.status, 0)
        XCTAssertEqual(top.stderr, "")
        for command in Self.commands { XCTAssertTrue(top.stdout.contains("  medley \(command)"), top.stdout) }
        // Without a command the usage is an error: standard error, exit 2.
        let bare = try Tool.medley([])
        XCTAssertEqual(bare.status, 2)
        XCTAssertEqual(bare.stdout, "")
        XCTAssertTrue(bare.stderr.contains("usage:"), bare.stderr)
    }

    func testEveryCommandTakesVersion() throws {
        let version = try Tool.medley(["--version"])
        XCTAssertEqual(version.status, 0)
        XCTAssertNotNil(version.stdout.range(of: #"^medley \d+\.\d+\.\d+\n$"#, options: .regularExpression), version.stdout)
        for command in Self.commands {
            let result = try Tool.medley([command, "--version"])
            XCTAssertEqual(result.status, 0, command)
            XCTAssertEqual(result.stdout, version.stdout, command)
        }
    }

    /// The top-level usage lists every option each command's own help lists (it had drifted:
    /// bench without --jobs/--repeats/--only, validate, merge and report without --set).
    func testTopLevelUsageListsEveryOptionOfEachCommand() throws {
        let top = try Tool.medley(["--help"]).stdout
        func usageLines(of command: String) -> String {
            // A command's synopsis: its line and the continuation lines under it.
            let lines = top.components(separatedBy: "\n")
            guard let first = lines.firstIndex(where: { $0.hasPrefix("  medley \(command)") }) else { return "" }
            var text = lines[first]
            for line in lines[(first + 1)...] {
                guard line.hasPrefix("   ") else { break }
                text += " " + line
            }
            return text
        }
        XCTAssertTrue(["--jobs", "--repeats", "--only"].allSatisfy { usageLines(of: "bench").contains($0) || usageLines(of: "bench").contains("-j N") },
                      usageLines(of: "bench"))
        for command in ["validate", "merge", "report", "run"] {
            XCTAssertTrue(usageLines(of: command).contains("[--set JOB.KEY=VALUE]"), command + ": " + usageLines(of: command))
        }
        for command in Self.commands {
            let help = try Tool.medley([command, "--help"]).stdout
            let synopsis = usageLines(of: command)
            // Option lines of the help: "  -j, --jobs N    text" or "      --only JOB   text".
            for line in help.components(separatedBy: "\n") {
                guard let match = line.range(of: #"^  (-(\w), )?    ?(--[\w-]+)( [A-Z][A-Z./=,…]*)?"#, options: .regularExpression) else { continue }
                let words = line[match].split(separator: " ").map(String.init)
                let long = words.first { $0.hasPrefix("--") } ?? ""
                guard long != "--help", long != "--version" else { continue }
                let short = words.first { $0.count == 3 && $0.hasPrefix("-") && $0.hasSuffix(",") }.map { String($0.dropLast()) }
                XCTAssertTrue(synopsis.contains("[" + (short ?? long)), "\(command): \(long) missing from the usage: \(synopsis)")
            }
        }
    }

    func testUnknownOptionsAreNamedWithTheUsage() throws {
        let path = Tool.packageRoot + "/pipelines/sepia-photos.yaml"
        let short = try Tool.medley(["run", path, "-x"])
        XCTAssertEqual(short.status, 2)
        XCTAssertTrue(short.stderr.contains("medley run: unknown option '-x'"), short.stderr)
        XCTAssertTrue(short.stderr.contains("usage: medley run PIPELINE.yaml"), short.stderr)
        let long = try Tool.medley(["probe", "--jsn", path])
        XCTAssertEqual(long.status, 2)
        XCTAssertTrue(long.stderr.contains("unknown option '--jsn'; did you mean --json?"), long.stderr)
        let flagWithValue = try Tool.medley(["run", path, "--dry-run=yes"])
        XCTAssertEqual(flagWithValue.status, 2)
        XCTAssertTrue(flagWithValue.stderr.contains("option '--dry-run' takes no value"), flagWithValue.stderr)
        let missing = try Tool.medley(["run", path, "-j"])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("option '--jobs' needs a value (N)"), missing.stderr)
        XCTAssertEqual(try Tool.medley(["run", path, "-j", "0"]).status, 2)
    }

    /// -n is --dry-run, -q --quiet, -j N (or -jN) --jobs, -f --force; flags group (-nq).
    func testShortFlagsMeanTheirLongOptions() throws {
        let path = Tool.packageRoot + "/pipelines/sepia-photos.yaml"
        let out = work + "/dry"
        let dry = try Tool.medley(["run", path, "-n", "-j1", "--set", "sepia-photos.export.to=\(out)"])
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertTrue(dry.stderr.contains("sepia-photos: would write 7, unchanged 0, 0 failed"), dry.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
        let quiet = try Tool.medley(["run", path, "-fnqj", "2", "--set", "sepia-photos.export.to=\(out)"])
        XCTAssertEqual(quiet.status, 0, quiet.stderr)
        XCTAssertFalse(quiet.stderr.contains("would write"), "quiet: " + quiet.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
        let real = try Tool.medley(["run", path, "-q", "--set", "sepia-photos.export.to=\(out)"])
        XCTAssertEqual(real.status, 0, real.stderr)
        // Quiet: no item lines and no summary; only the warning that the one 16-bit fixture
        // (vipsheader: ushort) lost bits in JPEG.
        XCTAssertEqual(try Tool.vipsHeader(Tool.fixtures + "/images/deep16.png", "format"), "ushort")
        let lines = real.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, real.stderr)
        XCTAssertTrue(lines.allSatisfy { $0.hasPrefix("warn ") && $0.contains("deep16.png") && $0.contains("16-bit → 8-bit") },
                      "quiet run with no failure prints only warnings: " + real.stderr)
        XCTAssertEqual(Tool.files(under: out).filter { $0.hasSuffix(".jpg") }.count, 7)
    }

    /// After `--`, an operand may start with "-".
    func testDoubleDashEndsTheOptions() throws {
        let text = """
            version: 1
            jobs:
              - name: odd
                ingest: { from: [in] }
                export: { to: out }
            """
        _ = try pipeline(text, name: "-odd.yaml")
        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
        let result = try Tool.run(Tool.medley, ["validate", "--", "-odd.yaml"], in: work)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("-odd.yaml: valid (1 job: odd)"), result.stderr)
        XCTAssertEqual(try Tool.run(Tool.medley, ["validate", "-odd.yaml"], in: work).status, 2, "without --, an option")
    }

    /// On a 40-column terminal every redraw of the progress line fits in 39 columns (a line that
    /// wraps leaves a new row at each redraw), the long job name cut with "…". The terminal is a
    /// pseudo-terminal made by Python's pty module with its size set before medley starts.
    func testTheProgressLineFitsANarrowTerminal() throws {
        let input = work + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        for i in 0..<6 {
            XCTAssertEqual(try Tool.run("vips", ["black", input + "/b\(i).png", "\(16 + i)", "16"]).status, 0)
        }
        let name = "a-job-whose-name-is-much-wider-than-the-terminal-it-runs-in"
        let path = try pipeline("""
            version: 1
            jobs:
              - name: \(name)
                ingest: { from: [in] }
                filters: [ { CISepiaTone: { inputIntensity: 0.5 } } ]
                export: { to: out, format: png }
            """)
        let script = """
            import fcntl, json, os, pty, struct, sys, termios
            pid, fd = pty.fork()
            if pid == 0:
                fcntl.ioctl(1, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 40, 0, 0))
                os.environ["TERM"] = "xterm"
                os.environ.pop("NO_COLOR", None)
                os.execv(sys.argv[1], sys.argv[1:])
            data = b""
            while True:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                data += chunk
            _, status = os.waitpid(pid, 0)
            print(json.dumps({"status": os.waitstatus_to_exitcode(status), "output": data.decode("utf-8", "replace")}))
            """
        let result = try Tool.run("/usr/bin/python3", ["-c", script, Tool.medley, "run", path], in: work)
        XCTAssertEqual(result.status, 0, result.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(report["status"] as? Int, 0, result.stdout)
        let output = try XCTUnwrap(report["output"] as? String)
        // Each redraw is "\r ESC[K" + the line, up to the next one; a segment with a line break is
        // a message printed above the progress line instead. Colour codes take no columns.
        let redraws = output.components(separatedBy: "\r\u{1B}[K").dropFirst()
            .filter { !$0.isEmpty && !$0.contains("\n") }
            .map { $0.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression) }
        XCTAssertFalse(redraws.isEmpty, output)
        for line in redraws {
            XCTAssertLessThanOrEqual(line.count, 39, "'\(line)'")
            XCTAssertTrue(line.hasPrefix("a-job-"), line)
            XCTAssertTrue(line.contains("…"), "the name is cut: '\(line)'")
            XCTAssertFalse(line.contains(name), line)
        }
        XCTAssertEqual(Tool.files(under: work + "/out").filter { $0.hasSuffix(".png") }.count, 6)
    }
}

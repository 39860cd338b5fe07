import Foundation
import XCTest

/// docs/filters.md, docs/cli.md and docs/medley.1 are made from the declarations in the code
/// (`medley docs`, scripts/generate-docs.sh). Each is made again here, in memory, and must be
/// the committed bytes; what they say is checked against sources the generator does not read
/// (the catalogue's source text, Apple's documented values, groff, the commands' own --help).
final class GeneratedDocsTests: EndToEndCase {
    static let generated = ["docs/filters.md", "docs/cli.md", "docs/medley.1"]

    func testCommittedFilesAreWhatTheDeclarationsMake() throws {
        for path in Self.generated {
            let made = try Tool.medley(["docs", "--print", path])
            XCTAssertEqual(made.status, 0, made.stderr)
            let committed = FileManager.default.contents(atPath: Tool.packageRoot + "/" + path) ?? Data()
            if made.data != committed {
                let madeLines = made.stdout.components(separatedBy: "\n")
                let committedLines = String(decoding: committed, as: UTF8.self).components(separatedBy: "\n")
                let first = (0..<min(madeLines.count, committedLines.count)).first { madeLines[$0] != committedLines[$0] } ?? min(madeLines.count, committedLines.count)
                XCTFail("""
                    \(path) is not what the code declares (first difference at line \(first + 1): \
                    committed \(first < committedLines.count ? committedLines[first].debugDescription : "end of file"), \
                    made \(first < madeLines.count ? madeLines[first].debugDescription : "end of file")): run scripts/generate-docs.sh
                    """)
            }
        }
    }

    /// `medley docs` writes the same three files (what scripts/generate-docs.sh runs).
    func testDocsCommandWritesTheFilesItPrints() throws {
        let result = try Tool.medley(["docs", "--root", work])
        XCTAssertEqual(result.status, 0, result.stderr)
        for path in Self.generated {
            XCTAssertEqual(FileManager.default.contents(atPath: work + "/" + path),
                           try Tool.medley(["docs", "--print", path]).data, path)
        }
    }

    /// Every filter declared in the catalogue's sources (read here as text) has its section;
    /// a filter's table gives its attributes with Apple's documented type, default and range.
    func testFilterReferenceCoversTheCatalogue() throws {
        let catalogue = Tool.packageRoot + "/Sources/MedleyFilters/Catalog"
        var declared: Set<String> = []
        for file in Tool.files(under: catalogue) where file.hasSuffix(".swift") {
            let source = try String(contentsOfFile: catalogue + "/" + file, encoding: .utf8)
            // `FilterAttributes(name: "CISepiaTone"`, a family's `static let name = "CIConvolution3X3"`,
            // or a pair's `name: largest ? "CIMaximumComponent" : "CIMinimumComponent"`.
            let pattern = try NSRegularExpression(
                pattern: #"(?:FilterAttributes\(\s*name:|static let name =|name: \w+ \?)\s*"([A-Za-z0-9]+)"(?:\s*:\s*"([A-Za-z0-9]+)")?"#)
            for match in pattern.matches(in: source, range: NSRange(source.startIndex..., in: source)) {
                for group in [1, 2] {
                    if let range = Range(match.range(at: group), in: source) { declared.insert(String(source[range])) }
                }
            }
        }
        XCTAssertGreaterThan(declared.count, 100, "the scan found the catalogue's declarations")
        let page = try String(contentsOfFile: Tool.packageRoot + "/docs/filters.md", encoding: .utf8)
        let headings = Set(page.components(separatedBy: "\n").filter { $0.hasPrefix("### ") }.map { String($0.dropFirst(4)) })
        XCTAssertEqual(headings, declared, "documented only: \(headings.subtracting(declared).sorted()); "
                       + "declared only: \(declared.subtracting(headings).sorted())")
        // Apple's CISepiaTone: inputIntensity, a scalar defaulting to 1, from 0 to 1, identity 0.
        XCTAssertTrue(page.contains("| `inputIntensity` | Scalar (NSNumber) | `1` | 0 … 1; slider 0 … 1; identity `0` |"), "CISepiaTone's row")
        // CIGaussianBlur: inputRadius defaults to 10 (Apple), and Medley's own limit says why.
        let blur = section(of: "CIGaussianBlur", in: page)
        XCTAssertTrue(blur.contains("| `inputRadius` | Scalar (NSNumber) | `10` |"), blur)
        XCTAssertTrue(blur.contains("at most 300"), blur)
        XCTAssertTrue(blur.contains("Reference: "), blur)
        // Every contents link leads to a heading of the page.
        let anchors = Set(page.components(separatedBy: "\n").filter { $0.hasPrefix("#") }.map { line in
            githubAnchor(String(line.drop(while: { $0 == "#" }).dropFirst()))
        })
        for link in links(in: page) { XCTAssertTrue(anchors.contains(link), "#\(link) leads nowhere") }
    }

    /// A user copies defaults from the tables into a pipeline: every filter that takes one image, with
    /// every attribute set to its documented default as written there, is a valid pipeline.
    func testDocumentedDefaultsAreValidPipelineValues() throws {
        let page = try String(contentsOfFile: Tool.packageRoot + "/docs/filters.md", encoding: .utf8)
        var steps: [String] = []
        for section in page.components(separatedBy: "\n### ").dropFirst() {
            let lines = section.components(separatedBy: "\n")
            var attributes: [String] = []
            var images = 0
            for row in lines where row.hasPrefix("| `") {
                // | `name` | type | `default` | range | description |
                let cells = row.replacingOccurrences(of: "\\|", with: "¦").split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
                guard cells.count >= 3 else { continue }
                if cells[1].hasPrefix("Image") {
                    images += 1
                } else if cells[2] != "—" {
                    attributes.append(cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`")) + ": "
                                      + cells[2].trimmingCharacters(in: CharacterSet(charactersIn: "`")))
                }
            }
            if images == 1 { steps.append("      - \(lines[0]): { \(attributes.joined(separator: ", ")) }") }
        }
        XCTAssertGreaterThan(steps.count, 80, "filters taking one image")
        try FileManager.default.createDirectory(atPath: work + "/photos", withIntermediateDirectories: true)
        let path = try pipeline("""
            version: 1
            jobs:
              - name: defaults
                ingest: { from: [photos] }
                filters:
            \(steps.joined(separator: "\n"))
                export: { to: out }
            """)
        let result = try Tool.medley(["validate", path])
        XCTAssertEqual(result.status, 0, result.stderr)
    }

    /// docs/cli.md has a section for each command `medley --help` lists, and each of them lists every
    /// option that command's own `--help` prints.
    func testCommandLineReferenceCoversEveryCommandAndOption() throws {
        let page = try String(contentsOfFile: Tool.packageRoot + "/docs/cli.md", encoding: .utf8)
        let manual = try String(contentsOfFile: Tool.packageRoot + "/docs/medley.1", encoding: .utf8)
        let usage = try Tool.medley(["--help"]).stdout
        let commands = usage.components(separatedBy: "\n").compactMap { line -> String? in
            let words = line.split(separator: " ")
            guard line.hasPrefix("  medley "), words.count >= 2, !words[1].hasPrefix("-") else { return nil }
            return String(words[1])
        }
        XCTAssertTrue(commands.contains("init") && commands.contains("completions"), usage)
        for command in commands {
            let part = section(of: "medley \(command)", in: page)
            XCTAssertFalse(part.isEmpty, "no section for \(command)")
            XCTAssertTrue(manual.contains(".SS \"medley \(command)\""), "man page: \(command)")
            let help = try Tool.medley([command, "--help"]).stdout
            // The options block of --help: lines "  -j, --jobs N   text".
            let options = help.components(separatedBy: "\n").compactMap { line -> String? in
                line.range(of: #"^  (-[A-Za-z], |    )(--[a-z0-9-]+)"#, options: .regularExpression).map { range in
                    String(line[range].split(separator: " ").last ?? "")
                }
            }
            XCTAssertTrue(options.contains("--help") && options.contains("--version"), help)
            for option in options {
                XCTAssertTrue(part.contains("`\(option)"), "cli.md, \(command): \(option)")
                XCTAssertTrue(manual.contains(option.replacingOccurrences(of: "-", with: "\\-")), "medley.1, \(command): \(option)")
            }
        }
        let anchors = Set(page.components(separatedBy: "\n").filter { $0.hasPrefix("#") }.map { line in
            githubAnchor(String(line.drop(while: { $0 == "#" }).dropFirst()))
        })
        for link in links(in: page) { XCTAssertTrue(anchors.contains(link), "cli.md: #\(link) leads nowhere") }
        XCTAssertTrue(section(of: "medley watch", in: page).contains("| `--settle DURATION` |"))
        XCTAssertTrue(section(of: "medley watch", in: page).contains("| 2s |"), "the default --settle states")
        for install in ["medley completions bash > /etc/bash_completion.d/medley", "~/.config/fish/completions/medley.fish"] {
            XCTAssertTrue(page.contains(install), install)
        }
        for template in ["photos", "web-export", "music-library", "podcast", "movies"] {
            XCTAssertTrue(section(of: "medley init", in: page).contains("| `\(template)` |"), template)
        }
    }

    /// groff formats the page without a warning, and man shows the sections a man page has.
    func testManPageRendersWithoutWarnings() throws {
        let path = Tool.packageRoot + "/docs/medley.1"
        let groff = try Tool.run("groff", ["-ww", "-man", "-Tutf8", path])
        XCTAssertEqual(groff.status, 0, groff.stderr)
        XCTAssertEqual(groff.stderr, "", "groff warnings")
        let man = try Tool.run("man", ["-l", path], environment: ["MANWIDTH": "80", "MANPAGER": "cat", "PAGER": "cat"])
        XCTAssertEqual(man.status, 0, man.stderr)
        // Not on a terminal, man writes plain text (no overstrikes): this is the page as a reader sees it.
        let text = man.stdout
        for heading in ["NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "EXIT STATUS", "FILES", "EXAMPLES", "SEE ALSO"] {
            XCTAssertTrue(text.contains("\n" + heading + "\n"), "man medley: \(heading)")
        }
        XCTAssertTrue(text.contains("medley run pipelines/sepia-photos.yaml -j 4"), "examples as typed")
        // Characters beyond ASCII reach the page (written as groff escapes, not read as Latin-1).
        XCTAssertTrue(text.contains("—"), "the dashes of the commands' notes")
        XCTAssertFalse(text.contains("â€"), "UTF-8 read as Latin-1")
    }

    // MARK: helpers

    /// The text under a heading up to the next heading of the same or a higher level.
    func section(of title: String, in page: String) -> String {
        let lines = page.components(separatedBy: "\n")
        guard let start = lines.firstIndex(where: { $0.hasPrefix("#") && $0.drop(while: { $0 == "#" }).dropFirst() == Substring(title) }) else { return "" }
        let level = lines[start].prefix(while: { $0 == "#" }).count
        let end = lines[(start + 1)...].firstIndex { line in
            line.hasPrefix("#") && line.prefix(while: { $0 == "#" }).count <= level
        } ?? lines.count
        return lines[start..<end].joined(separator: "\n")
    }

    /// GitHub's rule: lower case, spaces to hyphens, other punctuation dropped.
    func githubAnchor(_ heading: String) -> String {
        heading.lowercased().unicodeScalars.compactMap { scalar -> String? in
            if scalar == " " { return "-" }
            if CharacterSet.alphanumerics.contains(scalar) || scalar == "-" || scalar == "_" { return String(scalar) }
            return nil
        }.joined()
    }

    /// The targets of `](#anchor)` links.
    func links(in page: String) -> [String] {
        page.components(separatedBy: "](#").dropFirst().compactMap { $0.split(separator: ")").first.map(String.init) }
    }
}

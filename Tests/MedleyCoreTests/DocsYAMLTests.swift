import Foundation
import MedleyCore
import MedleyYAML
import XCTest

/// Every ```yaml block of README.md and docs/*.md is a pipeline `medley validate` accepts, or a
/// fragment marked with the place it belongs (`# in: jobs[].export`) that is valid there. The
/// convention is written at the top of docs/pipelines.md; paths resolve from the repository root.
final class DocsYAMLTests: XCTestCase {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    func testEveryYAMLBlockOfTheDocsIsAPipelineOrAMarkedFragmentThatValidates() throws {
        let files = try DocsYAML.markdownFiles(in: Self.repository)
        XCTAssertTrue(files.contains(Self.repository + "/README.md"))
        XCTAssertTrue(files.contains(Self.repository + "/docs/pipelines.md"))
        var blocks = 0
        var problems: [String] = []
        for file in files {
            let text = try String(contentsOfFile: file, encoding: .utf8)
            let found = DocsYAML.blocks(in: text)
            blocks += found.count
            problems += found.flatMap { DocsYAML.problems(of: $0, file: file, directory: Self.repository) }
        }
        // The docs show a pipeline in every chapter; finding none means the extraction broke.
        XCTAssertGreaterThan(blocks, 20)
        XCTAssertEqual(problems, [], "\n" + problems.joined(separator: "\n"))
    }

    // MARK: the checker itself, on Markdown written here (lines counted by hand)

    func check(_ markdown: String) -> [String] {
        DocsYAML.blocks(in: markdown).flatMap { DocsYAML.problems(of: $0, file: "x.md", directory: Self.repository) }
    }

    func testAPlantedBadKeyFailsAtTheLineOfTheMarkdownFile() {
        let problems = check("""
            # Title

            ```yaml
            version: 1
            jobs:
              - name: sepia
                ingest: { from: [fixtures/images] }
                filters:
                  - CISepiaTone: { inputIntensity: 0.8 }
                export: { to: out/sepia, qualty: 85 }
            ```
            """)
        XCTAssertEqual(problems.count, 1, "\(problems)")
        // The block's first line is line 4 of the file; `qualty` is on its 7th line.
        XCTAssertTrue(problems.first?.hasPrefix("x.md:10: ") == true, "\(problems)")
        XCTAssertTrue(problems.first?.contains("qualty") == true, "\(problems)")
    }

    func testAMarkedFragmentIsValidatedWhereItBelongs() {
        XCTAssertEqual(check("""
            ```yaml
            # in: jobs[].export
            to: out/web
            format: webp
            quality: 80
            ```

            ```yaml
            # in: jobs[]
            filters:
              - CIColorCube: { file: pipelines/looks/film-look.cube, intensity: 0.8 }
            ```

            ```yaml
            # in: jobs[].transcode.normalize
            podcast
            ```
            """), [])
        let problems = check("""
            Text.

            ```yaml
            # in: jobs[].export
            to: out/web
            format: webbp
            ```
            """)
        XCTAssertEqual(problems.count, 1, "\(problems)")
        XCTAssertTrue(problems.first?.hasPrefix("x.md:6: ") == true, "\(problems)")
        XCTAssertTrue(problems.first?.contains("webbp") == true, "\(problems)")
    }

    func testAnUnmarkedFragmentFails() {
        let problems = check("""
            ```yaml
            export: { to: out, format: jpeg }
            ```
            """)
        XCTAssertEqual(problems.count, 3, "\(problems)")  // 'export' at the top, no 'version', no 'jobs'
        XCTAssertTrue(problems.allSatisfy { $0.hasPrefix("x.md:2: ") }, "\(problems)")
    }

    func testAnAssetOrFolderThatIsNotInTheRepositoryFails() {
        let problems = check("""
            ```yaml
            # in: jobs[]
            ingest: { from: [photos] }
            filters:
              - CIColorCube: { file: pipelines/looks/nowhere.cube }
            ```
            """)
        XCTAssertEqual(problems.count, 2, "\(problems)")
        XCTAssertTrue(problems.contains { $0.hasPrefix("x.md:3: ") && $0.contains("photos") }, "\(problems)")
        XCTAssertTrue(problems.contains { $0.hasPrefix("x.md:5: ") && $0.contains("nowhere.cube") }, "\(problems)")
    }

    func testAMarkOfAnotherPlaceOrNotAPipelineIsHonoured() {
        XCTAssertEqual(check("""
            ```yaml
            # not a pipeline: a Kubernetes manifest
            apiVersion: batch/v1
            kind: Job
            ```
            """), [])
        let broken = check("""
            ```yaml
            # not a pipeline
            a: [1, 2
            ```
            """)
        XCTAssertEqual(broken.count, 1, "\(broken)")
        let unknown = check("""
            ```yaml
            # in: jobs[].exprt
            to: out
            ```
            """)
        XCTAssertEqual(unknown.count, 1, "\(unknown)")
        XCTAssertTrue(unknown.first?.hasPrefix("x.md:2: ") == true, "\(unknown)")
    }
}

/// Extracting ```yaml blocks from Markdown and validating them as `medley validate` does.
enum DocsYAML {
    struct Block {
        /// The 1-based line, in the Markdown file, of the block's first line (after the fence).
        let firstLine: Int
        let lines: [String]
    }

    /// README.md and every docs/*.md, sorted.
    static func markdownFiles(in repository: String) throws -> [String] {
        let docs = repository + "/docs"
        let names = try FileManager.default.contentsOfDirectory(atPath: docs).filter { $0.hasSuffix(".md") }.sorted()
        return [repository + "/README.md"] + names.map { docs + "/" + $0 }
    }

    /// The blocks fenced ```yaml (or ```yml), indented fences included (their indentation removed).
    static func blocks(in markdown: String) -> [Block] {
        var blocks: [Block] = []
        var open: (indent: Int, first: Int, lines: [String])?
        for (index, line) in markdown.components(separatedBy: "\n").enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if var current = open {
                if trimmed == "```" {
                    blocks.append(Block(firstLine: current.first, lines: current.lines))
                    open = nil
                } else {
                    let indent = line.prefix(while: { $0 == " " }).count
                    current.lines.append(String(line.dropFirst(min(indent, current.indent))))
                    open = current
                }
            } else if trimmed == "```yaml" || trimmed == "```yml" {
                open = (line.prefix(while: { $0 == " " }).count, index + 2, [])
            }
        }
        return blocks
    }

    /// What is wrong with a block, each as `FILE:LINE: message`; empty when it validates.
    static func problems(of block: Block, file: String, directory: String) -> [String] {
        let first = block.lines.first?.trimmingCharacters(in: .whitespaces) ?? ""
        let text = block.lines.joined(separator: "\n")
        if first.hasPrefix("# not a pipeline") {
            do { _ = try YAMLReader.parse(text) } catch {
                return ["\(file):\(block.firstLine): not valid YAML: \(error)"]
            }
            return []
        }
        var pipeline = text
        var headerLines = 0
        var indent = 0
        if let range = first.range(of: #"^#\s*in:\s*"#, options: .regularExpression) {
            let place = String(first[range.upperBound...]).trimmingCharacters(in: .whitespaces)
            guard let keys = fragmentKeys(place) else {
                return ["\(file):\(block.firstLine): unknown place '\(place)': write '# in: jobs[]' or '# in: jobs[].KEY[.KEY…]'"]
            }
            let given: Set<String>
            do { given = try topKeys(text) } catch {
                return ["\(file):\(block.firstLine): not valid YAML: \(error)"]
            }
            var header = ["version: 1", "assets: [pipelines/looks, pipelines/logos]", "jobs:", "  -"]
            let job = keys.first
            if job == nil ? !given.contains("name") : true { header.append("    name: docs-example") }
            if job == nil ? !given.contains("ingest") : job != "ingest" { header.append("    ingest: { from: [fixtures] }") }
            if job == nil ? !given.contains("export") : job != "export" { header.append("    export: { to: out/docs-example }") }
            for (depth, key) in keys.enumerated() {
                header.append(String(repeating: " ", count: 4 + 2 * depth) + key + ":")
            }
            indent = 4 + 2 * keys.count
            headerLines = header.count
            let body = block.lines.map { $0.isEmpty ? $0 : String(repeating: " ", count: indent) + $0 }
            pipeline = (header + body).joined(separator: "\n")
        }
        do {
            _ = try PipelineReader.parse(pipeline, file: file, directory: directory)
            return []
        } catch let failure as ValidationFailure {
            return failure.diagnostics.map { diagnostic in
                let inBlock = diagnostic.mark.line - headerLines
                let line = block.firstLine + max(inBlock, 1) - 1
                return "\(file):\(line): \(diagnostic.message)" + (diagnostic.suggestion.map { "; \($0)" } ?? "")
            }
        } catch {
            return ["\(file):\(block.firstLine): \(error)"]
        }
    }

    /// `jobs[]` → [], `jobs[].transcode.normalize` → ["transcode", "normalize"]; nil for anything else.
    static func fragmentKeys(_ place: String) -> [String]? {
        guard place.hasPrefix("jobs[]") else { return nil }
        let rest = place.dropFirst("jobs[]".count)
        if rest.isEmpty { return [] }
        guard rest.hasPrefix(".") else { return nil }
        let keys = rest.dropFirst().split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard keys.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } }) else { return nil }
        return keys
    }

    /// The keys at the top of a fragment that is a mapping (none for other fragments).
    static func topKeys(_ text: String) throws -> Set<String> {
        guard case .mapping(let pairs, _) = try YAMLReader.parse(text) else { return [] }
        return Set(pairs.compactMap(\.key.scalarText))
    }
}

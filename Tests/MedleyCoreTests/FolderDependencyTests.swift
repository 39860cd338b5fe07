import Foundation
import XCTest

/// MedleyCore's folders depend on each other one way: each may use the types of the folders its
/// row in ARCHITECTURE.md's table "Folder dependencies" names, and no other. The check is a name
/// scan: a folder's sources (comments and string literals left out) are searched for the type
/// names declared at the top level of other folders.
final class FolderDependencyTests: XCTestCase {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    func testEveryFolderUsesOnlyTheFoldersItsRowAllows() throws {
        let table = try AllowedTable(markdown: String(contentsOf: Self.repository.appendingPathComponent("ARCHITECTURE.md"),
                                                      encoding: .utf8))
        let sources = try Self.sources(of: Self.repository.appendingPathComponent("Sources/MedleyCore"))
        XCTAssertEqual(Set(sources.keys), Set(table.allowed.keys), "every folder of MedleyCore has a row, and every row a folder")
        let found = DependencyScan(sources: sources).dependencies
        XCTAssertEqual(table.violations(of: found), [], "uses the table does not allow (folder → folder: the names used)")
        // A use the table allows but no source makes is a row to tighten, not an error — but an
        // exception (a cycle left) that is no longer used must go from the table.
        for (from, to) in table.exceptions where found[from]?[to] == nil {
            XCTFail("\(from) → \(to) is listed as an exception, but \(from) no longer uses \(to): remove the exception")
        }
    }

    func testTheAllowedTableHasNoCycleButItsDocumentedExceptions() throws {
        let table = try AllowedTable(markdown: String(contentsOf: Self.repository.appendingPathComponent("ARCHITECTURE.md"),
                                                      encoding: .utf8))
        XCTAssertNil(table.cycle(), "the table's uses not marked (!) go one way")
        XCTAssertFalse(table.allowed.isEmpty)
    }

    /// The scan on sources made here: a planted use of another folder's type is found and named,
    /// and the same name in a comment or a string is not a use.
    func testAPlantedUseIsFoundAndCommentsAndStringsAreNot() throws {
        let sources: [String: [String: String]] = [
            "Low": ["A.swift": "struct LowThing {}\nenum LowKind { case a }\n"],
            "High": ["B.swift": "struct HighThing { let low: LowThing }\n"],
            "Other": ["C.swift": "// HighThing in a comment\nlet text = \"HighThing\"\n/* HighThing */\nstruct OtherThing {}\n",
                      "D.swift": "func planted() -> HighThing? { nil }\n"],
        ]
        let found = DependencyScan(sources: sources).dependencies
        XCTAssertEqual(found["High"]?["Low"], ["LowThing"])
        XCTAssertEqual(found["Other"]?["High"], ["HighThing"], "only D.swift's use, not C.swift's comment and string")
        let table = try AllowedTable(markdown: """
            ## Folder dependencies
            | folder | may use |
            |---|---|
            | `Low` | — |
            | `High` | `Low` |
            | `Other` | `Low` |
            """)
        XCTAssertEqual(table.violations(of: found), ["Other → High: HighThing"])
        let cyclic = try AllowedTable(markdown: """
            ## Folder dependencies
            | folder | may use |
            |---|---|
            | `Low` | `High` |
            | `High` | `Low` |
            """)
        XCTAssertNotNil(cyclic.cycle())
        let excepted = try AllowedTable(markdown: """
            ## Folder dependencies
            | folder | may use |
            |---|---|
            | `Low` | `High` (!) |
            | `High` | `Low` |
            """)
        XCTAssertNil(excepted.cycle())
    }

    /// The Swift sources of each folder of `root` (by folder name, then file name).
    static func sources(of root: URL) throws -> [String: [String: String]] {
        var result: [String: [String: String]] = [:]
        let manager = FileManager.default
        for folder in try manager.contentsOfDirectory(atPath: root.path) {
            var isFolder: ObjCBool = false
            let path = root.appendingPathComponent(folder)
            guard manager.fileExists(atPath: path.path, isDirectory: &isFolder), isFolder.boolValue else { continue }
            var files: [String: String] = [:]
            for name in try manager.contentsOfDirectory(atPath: path.path) where name.hasSuffix(".swift") {
                files[name] = try String(contentsOf: path.appendingPathComponent(name), encoding: .utf8)
            }
            result[folder] = files
        }
        return result
    }
}

/// Which folder uses which other folder's types, found by name.
struct DependencyScan {
    /// folder → used folder → the names used.
    let dependencies: [String: [String: Set<String>]]

    init(sources: [String: [String: String]]) {
        var owners: [String: Set<String>] = [:]
        for (folder, files) in sources {
            for text in files.values {
                for name in Self.declaredTypes(in: text) { owners[name, default: []].insert(folder) }
            }
        }
        var dependencies: [String: [String: Set<String>]] = [:]
        for (folder, files) in sources {
            for text in files.values {
                for name in Self.capitalisedWords(in: Self.code(of: text)) {
                    // A name declared in two folders (private helpers alike by chance) says nothing.
                    guard let owner = owners[name], owner.count == 1, let other = owner.first, other != folder else { continue }
                    dependencies[folder, default: [:]][other, default: []].insert(name)
                }
            }
        }
        self.dependencies = dependencies
    }

    /// Types declared at the top level of a file (not nested: a nested type is reached through its outer one).
    static func declaredTypes(in text: String) -> [String] {
        let keywords: Set<Substring> = ["struct", "class", "enum", "protocol", "typealias", "actor"]
        let modifiers: Set<Substring> = ["public", "internal", "private", "fileprivate", "final", "indirect", "open", "package"]
        var names: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            guard let first = line.first, first.isLetter || first == "@" else { continue }
            var words = line.split(whereSeparator: { $0 == " " || $0 == ":" || $0 == "<" || $0 == "{" || $0 == "=" })[...]
            while let word = words.first, modifiers.contains(word) || word.hasPrefix("@") { words = words.dropFirst() }
            guard let keyword = words.first, keywords.contains(keyword), let name = words.dropFirst().first,
                  name.first?.isUppercase == true else { continue }
            names.append(String(name))
        }
        return names
    }

    /// The text without comments and string literals (a name there is not a use).
    static func code(of text: String) -> String {
        var out = ""
        let chars = Array(text.unicodeScalars)
        var i = 0
        var blockDepth = 0
        while i < chars.count {
            let c = chars[i], next = i + 1 < chars.count ? chars[i + 1] : " "
            if blockDepth > 0 {
                if c == "*" && next == "/" { blockDepth -= 1; i += 2 } else if c == "/" && next == "*" { blockDepth += 1; i += 2 } else { i += 1 }
                continue
            }
            if c == "/" && next == "/" {
                while i < chars.count && chars[i] != "\n" { i += 1 }
                continue
            }
            if c == "/" && next == "*" { blockDepth = 1; i += 2; continue }
            if c == "\"" {
                let triple = i + 2 < chars.count && chars[i + 1] == "\"" && chars[i + 2] == "\""
                i += triple ? 3 : 1
                while i < chars.count {
                    if chars[i] == "\\" { i += 2; continue }
                    if triple {
                        if chars[i] == "\"" && i + 2 < chars.count && chars[i + 1] == "\"" && chars[i + 2] == "\"" { i += 3; break }
                    } else if chars[i] == "\"" || chars[i] == "\n" {
                        i += 1
                        break
                    }
                    i += 1
                }
                out.unicodeScalars.append(" ")
                continue
            }
            out.unicodeScalars.append(c)
            i += 1
        }
        return out
    }

    /// Identifiers that start with a capital letter.
    static func capitalisedWords(in code: String) -> Set<String> {
        var words = Set<String>()
        var current = ""
        for c in code.unicodeScalars {
            if CharacterSet.alphanumerics.contains(c) || c == "_" {
                current.unicodeScalars.append(c)
            } else {
                if let first = current.unicodeScalars.first, CharacterSet.uppercaseLetters.contains(first) { words.insert(current) }
                current = ""
            }
        }
        if let first = current.unicodeScalars.first, CharacterSet.uppercaseLetters.contains(first) { words.insert(current) }
        return words
    }
}

/// The table of allowed folder dependencies: the rows of the "Folder dependencies" section of
/// ARCHITECTURE.md, `| \`Folder\` | \`Other\`, \`Another\` (!) |`, where (!) marks an exception
/// (a cycle left, its reason given below the table).
struct AllowedTable {
    struct Malformed: Error, CustomStringConvertible { let description: String }

    /// folder → the folders it may use.
    var allowed: [String: Set<String>] = [:]
    /// The uses marked (!).
    var exceptions: [(String, String)] = []

    init(markdown: String) throws {
        var inSection = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") {
                inSection = line.contains("Folder dependencies")
                continue
            }
            guard inSection, line.hasPrefix("| `") else { continue }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 3 else { throw Malformed(description: "a row without two cells: \(line)") }
            let folder = cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`/"))
            var uses = Set<String>()
            for item in cells[2].split(separator: ",") {
                let text = item.trimmingCharacters(in: .whitespaces)
                guard text != "—", !text.isEmpty else { continue }
                let name = text.replacingOccurrences(of: "(!)", with: "").trimmingCharacters(in: CharacterSet(charactersIn: "`/ "))
                uses.insert(name)
                if text.contains("(!)") { exceptions.append((folder, name)) }
            }
            allowed[folder] = uses
        }
        guard !allowed.isEmpty else { throw Malformed(description: "no 'Folder dependencies' table") }
    }

    /// Each use found that the table does not allow, as "From → To: Names".
    func violations(of found: [String: [String: Set<String>]]) -> [String] {
        var result: [String] = []
        for (from, uses) in found.sorted(by: { $0.key < $1.key }) {
            for (to, names) in uses.sorted(by: { $0.key < $1.key }) where !(allowed[from]?.contains(to) ?? false) {
                result.append("\(from) → \(to): \(names.sorted().joined(separator: ", "))")
            }
        }
        return result
    }

    /// A cycle among the uses not marked (!), as the folders on it; nil when they go one way.
    func cycle() -> [String]? {
        let excepted = Set(exceptions.map { "\($0.0)→\($0.1)" })
        var state: [String: Int] = [:]  // 1: on the path, 2: done
        var path: [String] = []
        func visit(_ folder: String) -> [String]? {
            state[folder] = 1
            path.append(folder)
            for next in (allowed[folder] ?? []).sorted() where !excepted.contains("\(folder)→\(next)") {
                if state[next] == 1, let start = path.firstIndex(of: next) { return Array(path[start...]) + [next] }
                if state[next] == nil, let found = visit(next) { return found }
            }
            path.removeLast()
            state[folder] = 2
            return nil
        }
        for folder in allowed.keys.sorted() where state[folder] == nil {
            if let found = visit(folder) { return found }
        }
        return nil
    }
}

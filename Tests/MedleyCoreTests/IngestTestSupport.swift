import Foundation
import XCTest
@testable import MedleyCore

/// A throwaway folder under NSTemporaryDirectory() for building file trees; remove it in tearDown.
struct IngestTempTree {
    /// Absolute path of the tree's top folder (symlinks in the temp path resolved, so paths compare exactly).
    let root: String

    init() throws {
        let base = NSTemporaryDirectory() + "medley-ingest-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        root = (base as NSString).resolvingSymlinksInPath
    }

    /// Absolute path of `relative` inside the tree.
    func path(_ relative: String) -> String {
        relative.isEmpty ? root : root + "/" + relative
    }

    /// Creates a file (and its folders) holding `bytes`.
    @discardableResult
    func file(_ relative: String, bytes: [UInt8] = [0x2A]) throws -> String {
        let full = path(relative)
        try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: full, contents: Data(bytes)) else {
            throw IngestTestFailure("could not create \(full)")
        }
        return full
    }

    /// Creates a folder (and its parents).
    func folder(_ relative: String) throws {
        try FileManager.default.createDirectory(atPath: path(relative), withIntermediateDirectories: true)
    }

    /// Creates a symlink at `relative` whose content is `destination` (relative or absolute, as given).
    func link(_ relative: String, to destination: String) throws {
        try FileManager.default.createSymbolicLink(atPath: path(relative), withDestinationPath: destination)
    }

    func remove() {
        // Undo any chmod a test did, or removal of the folder fails for non-root users.
        if let walker = FileManager.default.enumerator(atPath: root) {
            for case let relative as String in walker {
                chmod(path(relative), 0o755)
            }
        }
        try? FileManager.default.removeItem(atPath: root)
    }
}

struct IngestTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Everything an enumeration produced, split by kind, in order.
struct IngestRun {
    var files: [IngestedFile] = []
    var errors: [IngestError] = []
    var skippedLinks = 0
    var relativePaths: [String] { files.map(\.relativePath) }

    init(_ source: IngestSource) {
        var enumerator = FileEnumerator(source)
        while let result = enumerator.next() {
            switch result {
            case .success(let file): files.append(file)
            case .failure(let error): errors.append(error)
            }
        }
        skippedLinks = enumerator.skippedLinks
    }
}

/// Byte-wise (memcmp) comparison of two strings' UTF-8, written independently of the code under test.
func ingestBytewiseLess(_ left: String, _ right: String) -> Bool {
    Array(left.utf8).lexicographicallyPrecedes(Array(right.utf8))
}

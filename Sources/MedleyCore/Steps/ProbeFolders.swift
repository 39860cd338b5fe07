import Foundation
import MedleySystem

extension Probe {
    /// One thing `medley probe` reports on: a file to read, or a path that could not be walked.
    public enum Operand: Sendable {
        case file(String)
        case failed(path: String, reason: String)
    }

    /// The files `medley probe` reads for its operands, in order (as `exiftool -r` takes folders): a file as
    /// given, even when it is not media (probe then says so); a folder walked as a run's ingest walks it
    /// (`FileEnumerator`: recursively, byte-wise order, hidden files and folders skipped, links inside the
    /// folder followed), keeping only what ingest keeps — files that are not media are left out, a file named
    /// as media that cannot be read stays (probe reports it).
    public static func operands(_ paths: [String]) -> [Operand] {
        var operands: [Operand] = []
        for path in paths {
            guard case .success(let status) = FileSystem.status(of: path), status.kind == .directory else {
                operands.append(.file(path))
                continue
            }
            var walk = FileEnumerator(IngestSource(roots: [path]))
            while let element = walk.next() {
                switch element {
                case .success(let file):
                    // Ingest's own decision: a nil format is a file that is not media, ignored by a run.
                    if (try? Identify.format(of: file)) == .some(nil) { continue }
                    operands.append(.file(file.path))
                case .failure(let error):
                    operands.append(.failed(path: error.subject, reason: error.description))
                }
            }
        }
        return operands
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import MedleyMedia
import MedleyYAML

/// A file a pipeline names besides its media — a LUT, a watermark or mask image, an ICC profile, a
/// font — read once, whole, while the pipeline is validated.
///
/// A pipeline reads only under the roots it declares (docs/safety.md, "Files a pipeline names"): such a file must lie inside
/// one of the pipeline's `assets:` folders or one of its job's ingest roots, after every symbolic link
/// on its path is resolved (a planted link cannot lead outside). It is read here and nowhere else: the
/// stages get its bytes, never its path, so a file swapped for a link after validation is never read.
public struct AssetFile: Sendable {
    /// The path as the pipeline resolved it (for messages and manifests).
    public let path: String
    /// The file's contents.
    public let bytes: [UInt8]
    /// XXH3 of the contents: part of the settings of the jobs that use it, so an edited LUT or logo
    /// redoes their items on the next run.
    public let fingerprint: UInt64

    /// The largest asset Medley reads (a 65³ float LUT in text is about 8 MB; a logo far less).
    public static let maximumBytes = 64 << 20
}

/// The read roots of the pipeline being validated and the assets its jobs have read. A class because
/// `SchemaReader` is a value passed to every stage's reader; one ledger serves the whole file.
final class AssetLedger {
    /// The pipeline's `assets:` folders, canonical (links resolved).
    var assetRoots: [String] = []
    /// The ingest roots of the job being read, canonical.
    var jobRoots: [String] = []
    /// Fingerprints of the assets the job being read has named, in order.
    var jobFingerprints: [String] = []
}

extension SchemaReader {
    /// `assets:` at the top of a pipeline: folders (relative to the pipeline file) it may read files
    /// from, besides its ingest roots.
    func readAssetRoots(_ node: YAMLNode) {
        for (text, place) in stringList(node, what: "assets") {
            let path = resolve(text)
            guard let canonical = FileSystem.resolvedPath(path) else {
                sink.error(place, "assets folder '\(text)' does not exist (\(path))",
                           suggestion: "create it, or remove it from 'assets'")
                continue
            }
            guard case .success(let status) = FileSystem.status(of: canonical), status.kind == .directory else {
                sink.error(place, "assets entry '\(text)' is not a folder", suggestion: "name the folder that holds the file")
                continue
            }
            assets.assetRoots.append(canonical)
        }
    }

    /// A file a stage names (`file:`, `image:`, `profile:`), checked and read: it must exist, be a
    /// regular file of at most `AssetFile.maximumBytes`, be readable, and lie inside a read root.
    /// Reports a diagnostic at `node` and returns nil otherwise.
    func assetFile(_ node: YAMLNode, what: String) -> AssetFile? {
        guard let text = string(node, what: what) else { return nil }
        guard !text.isEmpty else {
            sink.error(node, "\(what) is empty", suggestion: "name a file, relative to the pipeline file")
            return nil
        }
        let path = resolve(text)
        guard let canonical = FileSystem.resolvedPath(path) else {
            sink.error(node, "\(what): '\(text)' does not exist (\(path))", suggestion: "check the path; it is relative to the pipeline file")
            return nil
        }
        let roots = assets.assetRoots + assets.jobRoots
        guard roots.contains(where: { FileSystem.isWithin(canonical, directory: $0) }) else {
            let folder = FileSystem.parent(of: path)
            sink.error(node, "\(what): '\(text)' is outside the folders this pipeline may read"
                       + (canonical == path ? "" : " (it resolves to \(canonical))"),
                       suggestion: "add its folder to the pipeline's 'assets:' list (assets: [\(folder)]), or move the file into one")
            return nil
        }
        switch AssetReading.read(canonical, maximumBytes: AssetFile.maximumBytes) {
        case .failure(let problem):
            sink.error(node, "\(what): cannot read '\(text)': \(problem)", suggestion: nil)
            return nil
        case .success(let bytes):
            let fingerprint = ContentHash.of(bytes: bytes)
            assets.jobFingerprints.append(ContentHash.hex(fingerprint))
            return AssetFile(path: path, bytes: bytes, fingerprint: fingerprint)
        }
    }
}

/// The one read of an asset: opened without following a last link (the path is canonical, so a link
/// there now was planted since), checked to be a regular file, read whole up to a limit.
enum AssetReading {
    /// Why an asset could not be read.
    struct Problem: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static func read(_ canonicalPath: String, maximumBytes: Int) -> Result<[UInt8], Problem> {
        let descriptor: Int32
        switch FileSystem.openForReadingWithoutLink(canonicalPath) {
        case .success(let opened): descriptor = opened
        case .failure(let error): return .failure(Problem(error.text))
        }
        defer { FileSystem.close(descriptor) }
        let status: FileSystem.Status
        switch FileSystem.status(ofDescriptor: descriptor) {
        case .success(let value): status = value
        case .failure(let error): return .failure(Problem(error.text))
        }
        guard status.kind == .file else { return .failure(Problem("not a regular file")) }
        guard status.size <= Int64(maximumBytes) else {
            return .failure(Problem("it is \(status.size) bytes, more than the \(maximumBytes) Medley reads for a pipeline's own files"))
        }
        // One byte past the limit tells a file that grew since fstat from one that fits.
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: false)
        let data: Data
        do {
            data = try handle.read(upToCount: maximumBytes + 1) ?? Data()
        } catch {
            return .failure(Problem(PipelineReader.reason(error)))
        }
        guard data.count <= maximumBytes else {
            return .failure(Problem("it grew past the \(maximumBytes) bytes Medley reads for a pipeline's own files"))
        }
        let bytes = [UInt8](data)
        return .success(bytes)
    }
}

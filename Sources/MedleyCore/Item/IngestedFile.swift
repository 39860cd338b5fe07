import Foundation

/// One file found by ingest.
public struct IngestedFile: Sendable, Equatable {
    /// Absolute path as reached under the root (not symlink-resolved), so outputs mirror what the user sees.
    public let path: String
    /// The folder it was found under (for a file given directly: its folder).
    public let root: String
    /// Path below `root`, "/"-separated, e.g. "nested/deeper/tiny.tif".
    public let relativePath: String
    /// Size in bytes (of the target, for a followed symlink).
    public let size: Int64
    /// Last modification time (of the target, for a followed symlink).
    public let modified: Date
    /// The root with every symbolic link resolved, as it was when the walk began: an input is read only if the file
    /// opened for it lies below this (`InputFile.open`).
    public let canonicalRoot: String
    /// Whether the walk reached the file through a symbolic link (the file, a folder on its path, or a file given as
    /// a root). Such a file is opened by following links and then checked; any other is opened component by
    /// component without following a link, so a link swapped in after the listing fails the item.
    public let throughLink: Bool

    /// Creates a file record; `FileEnumerator` is the usual source of these. `canonicalRoot` defaults to `root`.
    public init(path: String, root: String, relativePath: String, size: Int64, modified: Date,
                canonicalRoot: String? = nil, throughLink: Bool = false) {
        self.path = path
        self.root = root
        self.relativePath = relativePath
        self.size = size
        self.modified = modified
        self.canonicalRoot = canonicalRoot ?? root
        self.throughLink = throughLink
    }

    /// The same file with the size and modification time of what was actually opened.
    func with(size: Int64, modified: Date) -> IngestedFile {
        IngestedFile(path: path, root: root, relativePath: relativePath, size: size, modified: modified,
                     canonicalRoot: canonicalRoot, throughLink: throughLink)
    }

    /// The modification time in nanoseconds since 1970, held inside Int64 (±292 years): a file dated after 2262
    /// (`touch -d 2300-01-01`) is any file's right, not a reason to stop.
    var modifiedNanoseconds: Int64 {
        Int64(Int(saturating: modified.timeIntervalSince1970 * 1e9, in: Int(Int64.min)...Int(Int64.max)))
    }
}

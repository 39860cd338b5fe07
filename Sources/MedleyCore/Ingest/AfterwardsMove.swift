#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import MedleyMedia
import MedleyYAML

/// `ingest.afterwards: { move: FOLDER }`: once an item's output is in place, its source is moved
/// into FOLDER (a folder inside one of the job's ingest folders), keeping its path below its root.
public struct AfterwardsMove: Sendable {
    /// FOLDER as the pipeline names it, resolved against the pipeline's folder.
    public let folder: String
    /// The real path (links resolved) of the ingest folder FOLDER lies in.
    public let root: String
    /// FOLDER's real path below `root`, one name per component (none of them a link when validated).
    public let components: [String]
    /// The paths under which the walk must not enter FOLDER: as written, as reached from the ingest
    /// folder, and its real path.
    public let excludedFolders: [String]
    /// Where `move` is written (for the checks that need the whole pipeline).
    let mark: SourceMark
}

/// Moves sources aside for one job (`AfterwardsMove`). Every move is one `renameat2` with
/// `RENAME_NOREPLACE` between two folders held open: the source's folder, reached from its ingest
/// root without following a link, and its folder below FOLDER, created one component at a time the
/// way the exporter creates output folders (`SafeFolder`: a link planted anywhere below the ingest
/// root is refused, never followed). Nothing is copied and nothing is replaced: a name that is
/// taken gets " (1)", " (2)" … before its extension; another file system leaves the source in place.
final class SourceMover: @unchecked Sendable {
    // @unchecked: `destination` is guarded by `lock`; SafeFolder is safe to share.
    let move: AfterwardsMove
    private let lock = NSLock()
    private var destination: SafeFolder?
    /// The inputs this job's run has moved (absolute paths as listed).
    private var moved: Set<String> = []
    /// How many numbered names are tried when the plain one is taken.
    static let numberedNames = 999

    init(_ move: AfterwardsMove) { self.move = move }

    /// What became of a source.
    enum Outcome: Equatable {
        /// Moved there (its absolute path, links resolved).
        case moved(String)
        /// Left in place, for this reason.
        case left(String)
    }

    /// Where a source would go (a dry run's answer; a taken name would get a number).
    func plannedDestination(_ file: IngestedFile) -> String {
        move.folder + "/" + file.relativePath
    }

    /// Moves `file` into FOLDER at its relative path. `identity`: the file the item read; a source
    /// that is no longer that file stays where it is.
    func moveAside(_ file: IngestedFile, identity: FileSystem.FileIdentity?) -> Outcome {
        if file.throughLink {
            return .left("it was reached through a symbolic link, and only files reached without one are moved")
        }
        let names = file.relativePath.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard let name = names.last, !names.contains(".."), !names.contains(".") else {
            return .left("its relative path \(file.relativePath) cannot be followed below its root")
        }
        let folders = Array(names.dropLast())
        let source: SafeFolder
        do {
            source = try SafeFolder.open(file.root, creating: false).folder(at: folders, creating: false)
        } catch {
            return .left("its folder cannot be reached without following a link (\(error))")
        }
        // A file given directly as a root has itself as its canonical root: its folder is where it lies.
        let root = FileSystem.resolvedPath(file.path) == file.canonicalRoot ? FileSystem.parent(of: file.canonicalRoot) : file.canonicalRoot
        guard FileSystem.isWithin(source.realPath, directory: root) else {
            return .left("its folder now lies outside the ingest root \(file.canonicalRoot)")
        }
        guard let status = source.status(of: name), status.kind == .file else {
            return .left("it is no longer a regular file at \(file.path)")
        }
        if let identity, identity != status.identity {
            return .left("it was replaced after it was read")
        }
        let target: SafeFolder
        do {
            target = try destinationFolder().folder(at: folders, creating: true)
        } catch {
            return .left("\(error); not followed")
        }
        for attempt in 0...Self.numberedNames {
            let candidate = attempt == 0 ? name : Self.numbered(name, attempt)
            switch FileMoves.renameWithoutReplacing(name, in: source.descriptor, to: candidate, in: target.descriptor) {
            case nil:
                lock.lock()
                moved.insert(file.path)
                lock.unlock()
                return .moved(target.realPath + "/" + candidate)
            case EEXIST?, ENOTEMPTY?:
                continue
            case EXDEV?:
                return .left("\(move.folder) is on another file system, and a move there would be a copy and a delete")
            case EINVAL?, ENOSYS?:
                return .left("this file system cannot move a file without the risk of replacing one at \(target.path)")
            case let code?:
                return .left("\(target.child(candidate)): \(String(cString: strerror(code)))")
            }
        }
        return .left("\(target.child(name)) and its numbered names up to (\(Self.numberedNames)) are all taken")
    }

    /// Whether this run moved the input at `path`.
    func hasMoved(_ path: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return moved.contains(path)
    }

    /// FOLDER, created when missing, held open once it is (a failure is tried again by the next item).
    private func destinationFolder() throws -> SafeFolder {
        lock.lock()
        defer { lock.unlock() }
        if let destination { return destination }
        let opened = try SafeFolder.open(move.root, creating: false).folder(at: move.components, creating: true)
        destination = opened
        return opened
    }

    /// "name (n).ext" ("name (n)" without an extension; a leading dot is no extension).
    static func numbered(_ name: String, _ n: Int) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "\(name) (\(n))" }
        return "\(name[..<dot]) (\(n))\(name[dot...])"
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import MedleySystem

/// Streams the files of a source. Lazily: millions of files are never held at once (only the sorted listing of each
/// directory on the current descent path). Order: byte-wise (UTF-8, memcmp) ascending by relativePath within each root,
/// roots in the order given — so every run and every shard sees the same order.
///
/// - Symlinks: a link whose target resolves inside the root is followed (file or folder); a link that resolves
///   outside the root, dangles, or leads back into a folder on the current descent path (a loop) is skipped and
///   counted in `skippedLinks`.
/// - Hidden files and folders (name starting with ".") are skipped, so ".medley" work folders are never entered.
///   FIFOs, sockets and devices are skipped too: they are not media, and reading a FIFO would block.
/// - Errors (unreadable folder, a root that vanished, a bad glob root) are yielded as elements, and enumeration goes on.
/// - The same file (device and inode) reached through two overlapping roots is yielded once, the first time.
///   Only roots that overlap a later root remember what they yielded, so a single root costs no memory per file.
/// - A glob root like "/abs/photos/*.jpg" or "/abs/p/**/*.png" is split at its first component with a
///   metacharacter: the folder before it is the root ("/abs/photos"), the rest filters the relative path, and only
///   a "**" lets it descend. The pattern, not `recursive`, decides how deep a glob root goes.
/// - `include` and `exclude` apply to every file, including files given directly as roots.
///
/// `skippedLinks` lives in the enumerator value, and `for … in` iterates a copy; to read it afterwards, iterate
/// with `while let result = enumerator.next()`.
public struct FileEnumerator: Sequence, IteratorProtocol {
    /// Each element is a file, or an error about one path; enumeration continues after an error.
    public typealias Element = Result<IngestedFile, IngestError>

    /// How many symlinks were not followed (target outside the root, dangling, or a loop).
    public private(set) var skippedLinks: Int = 0

    private let source: IngestSource
    private let plans: [Result<RootPlan, IngestError>]
    /// Per root: whether a later root overlaps it, so what it yields must be remembered for de-duplication.
    private let remembersYielded: [Bool]
    private var nextRootIndex = 0
    private var walk: RootWalk?
    /// The folders on the current descent path, root first, each with its sorted listing and position in it.
    private var stack: [DirectoryFrame] = []
    private var yieldedByEarlierRoots: Set<FileSystem.FileIdentity> = []
    private var yieldedByThisRoot: Set<FileSystem.FileIdentity> = []
    /// Whether an include/exclude list or a glob root means paths must be prepared for matching.
    private let hasPathFilters: Bool
    /// Includes can prune folders only if every one of them is a whole-path pattern.
    private let includesCanPrune: Bool

    /// Prepares to enumerate `source`; nothing is read until the first `next()`, except that roots are resolved
    /// once to find which of them overlap.
    public init(_ source: IngestSource) {
        self.source = source
        plans = source.roots.map(RootPlan.make)
        let canonical: [String?] = plans.map { plan in
            guard case .success(let plan) = plan else { return nil }
            return FileSystem.resolvedPath(plan.location)
        }
        remembersYielded = canonical.indices.map { index in
            guard let mine = canonical[index] else { return false }
            return canonical[(index + 1)...].contains { other in
                guard let other else { return false }
                return FileSystem.isWithin(other, directory: mine) || FileSystem.isWithin(mine, directory: other)
            }
        }
        hasPathFilters = !source.include.isEmpty || !source.exclude.isEmpty
        includesCanPrune = !source.include.isEmpty && source.include.allSatisfy(\.matchesWholePath)
    }

    /// The next file or error, or nil when every root has been walked.
    public mutating func next() -> Element? {
        while true {
            guard let top = stack.indices.last else {
                guard nextRootIndex < plans.count else { return nil }
                if let element = beginNextRoot() { return element }
                continue
            }
            let index = stack[top].nextIndex
            guard index < stack[top].entries.count else {
                stack.removeLast()
                continue
            }
            stack[top].nextIndex += 1
            let entry = stack[top].entries[index]
            let path = FileSystem.join(stack[top].path, entry.name)
            switch entry.kind {
            case .undecodableName:
                return .failure(.unreadable(path: path, reason: "its name is not valid UTF-8, so it cannot be passed on"))
            case .file(let status, let viaLink):
                if let file = accept(path: path, name: entry.name, in: stack[top], status: status, viaLink: viaLink) {
                    return .success(file)
                }
            case .directory(let viaLink):
                if let error = descend(into: path, name: entry.name, from: stack[top], viaLink: viaLink) {
                    return .failure(error)
                }
            }
        }
    }

    // MARK: - Roots

    /// What a root string means, worked out from the text alone (plus one existence check).
    struct RootPlan: Sendable {
        /// The root as the caller wrote it, for error messages.
        let given: String
        /// The normalized absolute folder or file to start from.
        let location: String
        /// The pattern part of a glob root, matched against the whole relative path.
        let pattern: Glob?

        static func make(_ given: String) -> Result<RootPlan, IngestError> {
            let location = FileSystem.normalized(given)
            // A path that exists as written is literal even if it contains "[" or "?".
            if !Glob.isPattern(location) || FileSystem.exists(location) {
                return .success(RootPlan(given: given, location: location, pattern: nil))
            }
            let components = location.split(separator: "/")
            guard let firstPattern = components.firstIndex(where: { Glob.isPattern(String($0)) }) else {
                return .success(RootPlan(given: given, location: location, pattern: nil))
            }
            let base = "/" + components[..<firstPattern].joined(separator: "/")
            let rest = components[firstPattern...].joined(separator: "/")
            do {
                return .success(RootPlan(given: given, location: base, pattern: try Glob(rest)))
            } catch IngestError.badPattern(_, let reason) {
                return .failure(.badPattern(given, reason: reason))
            } catch {
                return .failure(.badPattern(given, reason: "\(error)"))
            }
        }
    }

    /// Facts about the root being walked.
    private struct RootWalk {
        let plan: RootPlan
        /// Canonical path of the root folder: symlink targets must resolve inside it to be followed.
        let canonicalRoot: String
        /// Whether the root as given is itself a symbolic link (a file root named by its link).
        let isLink: Bool
        let remembersYielded: Bool
        /// The folder reported as `IngestedFile.root`: the root itself, or the folder of a file root.
        let rootFolder: String
    }

    /// Starts the next root: yields its error or single file, or opens its folder. nil = nothing to yield yet.
    private mutating func beginNextRoot() -> Element? {
        // Whatever the finished root yielded now counts as "seen" for the roots after it.
        yieldedByEarlierRoots.formUnion(yieldedByThisRoot)
        yieldedByThisRoot.removeAll()
        walk = nil
        let rootIndex = nextRootIndex
        nextRootIndex += 1

        let plan: RootPlan
        switch plans[rootIndex] {
        case .failure(let error): return .failure(error)
        case .success(let value): plan = value
        }
        let status: FileSystem.Status
        switch FileSystem.status(of: plan.location) {
        case .failure(let error) where error.meansMissing:
            return .failure(.missingRoot(plan.given))
        case .failure(let error):
            return .failure(.unreadable(path: plan.location, reason: error.text))
        case .success(let value):
            status = value
        }
        let canonical = FileSystem.resolvedPath(plan.location) ?? plan.location
        let isLink = FileSystem.isLink(plan.location)
        walk = RootWalk(plan: plan, canonicalRoot: canonical, isLink: isLink, remembersYielded: remembersYielded[rootIndex],
                        rootFolder: status.kind == .file ? FileSystem.parent(of: plan.location) : plan.location)

        switch status.kind {
        case .file:
            guard plan.pattern == nil else {
                return .failure(.unreadable(path: plan.location, reason: "it is a file, so the pattern after it cannot match anything"))
            }
            // A file given directly: its folder is the root and its name the relative path.
            let folder = DirectoryFrame(path: FileSystem.parent(of: plan.location), relativePrefix: "",
                                        components: [], identity: status.identity, throughLink: false, entries: [])
            let name = FileSystem.lastComponent(of: plan.location)
            return accept(path: plan.location, name: name, in: folder, status: status, viaLink: isLink).map { .success($0) }
        case .directory:
            switch Self.list(plan.location, canonicalRoot: canonical, descentPath: [], link: .follow) {
            case .failure(let error):
                return .failure(error.meansMissing
                    ? .missingRoot(plan.given)
                    : .unreadable(path: plan.location, reason: error.text))
            case .success(.loop):
                return nil  // impossible with an empty descent path; nothing to walk
            case .success(.listed(let listing)):
                skippedLinks += listing.skippedLinks
                stack.append(DirectoryFrame(path: plan.location, relativePrefix: "", components: [],
                                            identity: listing.identity, throughLink: false, entries: listing.entries))
                return nil
            }
        case .other:
            return .failure(.unreadable(path: plan.location, reason: "it is neither a regular file nor a folder"))
        }
    }

    // MARK: - Files and folders

    /// The file record for `name` in `folder` if the filters keep it and no earlier root yielded it.
    private mutating func accept(path: String, name: String, in folder: DirectoryFrame,
                                 status: FileSystem.Status, viaLink: Bool) -> IngestedFile? {
        guard let walk else { return nil }
        if hasPathFilters || walk.plan.pattern != nil {
            let subject = Glob.Subject(components: folder.components + [Array(name.lowercased())])
            if let pattern = walk.plan.pattern, !pattern.matchesWholePath(subject) { return nil }
            if !source.include.isEmpty, !source.include.contains(where: { $0.matches(subject) }) { return nil }
            if source.exclude.contains(where: { $0.matches(subject) }) { return nil }
        }
        if yieldedByEarlierRoots.contains(status.identity) { return nil }
        if walk.remembersYielded { yieldedByThisRoot.insert(status.identity) }
        return IngestedFile(path: path, root: walk.rootFolder, relativePath: folder.relativePrefix + name,
                            size: status.size, modified: status.modified,
                            canonicalRoot: walk.canonicalRoot, throughLink: viaLink || folder.throughLink)
    }

    /// Opens the folder `name` below `parent` unless depth, patterns or a loop rule it out. Returns an error to
    /// yield if the folder cannot be read.
    private mutating func descend(into path: String, name: String, from parent: DirectoryFrame,
                                  viaLink: Bool) -> IngestError? {
        guard let walk else { return nil }
        let components = parent.components + [Array(name.lowercased())]
        let subject = Glob.Subject(components: components)
        if let pattern = walk.plan.pattern {
            if !pattern.mayMatchBelow(subject) { return nil }
        } else if !source.recursive {
            return nil
        }
        // Skipping whole folders here is only an optimisation: every file below them would be filtered anyway.
        if includesCanPrune, !source.include.contains(where: { $0.mayMatchBelow(subject) }) { return nil }
        if source.exclude.contains(where: { $0.matchesEverythingBelow(subject) }) { return nil }
        if isExcludedFolder(path, viaLink: viaLink || parent.throughLink) { return nil }

        switch Self.list(path, canonicalRoot: walk.canonicalRoot, descentPath: stack.map(\.identity),
                         link: viaLink ? .followInsideRoot : .refuse) {
        case .failure(let error) where error.code == ELOOP:
            return .unreadable(path: path, reason: viaLink
                ? "the symbolic link now leads outside the ingest root (changed after it was listed); not followed"
                : "it was replaced by a symbolic link after it was listed; not followed")
        case .failure(let error):
            return .unreadable(path: path, reason: error.text)
        case .success(.loop):
            if viaLink { skippedLinks += 1 }
            return nil
        case .success(.listed(let listing)):
            skippedLinks += listing.skippedLinks
            stack.append(DirectoryFrame(path: path, relativePrefix: parent.relativePrefix + name + "/",
                                        components: components, identity: listing.identity,
                                        throughLink: viaLink || parent.throughLink, entries: listing.entries))
            return nil
        }
    }

    /// Whether `path` is (or lies below) one of `source.excludedFolders`; a folder reached through a
    /// link is also judged by its real path.
    private func isExcludedFolder(_ path: String, viaLink: Bool) -> Bool {
        guard !source.excludedFolders.isEmpty else { return false }
        if source.excludedFolders.contains(where: { FileSystem.isWithin(path, directory: $0) }) { return true }
        guard viaLink, let real = FileSystem.resolvedPath(path) else { return false }
        return source.excludedFolders.contains { FileSystem.isWithin(real, directory: $0) }
    }

    // MARK: - Listing

    /// A folder being walked: its sorted entries and how far through them we are.
    private struct DirectoryFrame {
        let path: String
        /// Relative path of this folder with a trailing "/", or "" for the root.
        let relativePrefix: String
        /// Lower-cased relative path components, ready for glob matching.
        let components: [[Character]]
        let identity: FileSystem.FileIdentity
        /// Whether this folder was reached through a symbolic link (its own, or one above it).
        let throughLink: Bool
        let entries: [Entry]
        var nextIndex = 0
    }

    /// One visible entry of a folder, already classified.
    struct Entry {
        enum Kind {
            case file(FileSystem.Status, viaLink: Bool)
            case directory(viaLink: Bool)
            case undecodableName
        }
        /// The name's bytes, plus "/" for folders, so sorting entries gives byte-wise order of full paths.
        let sortKey: [UInt8]
        let name: String
        let kind: Kind
    }

    enum ListingOutcome {
        case listed(Listing)
        /// The folder is already on the descent path (reached again through a symlink).
        case loop
    }

    struct Listing {
        let identity: FileSystem.FileIdentity
        let entries: [Entry]
        let skippedLinks: Int
    }

    /// How a folder about to be listed may be reached.
    enum LinkRule {
        /// A root as the pipeline names it: links followed.
        case follow
        /// A folder the listing of its parent showed as a link that stays inside the root: followed, and the
        /// folder opened must still lie inside the root (the link may have been changed since).
        case followInsideRoot
        /// A folder the listing of its parent showed as a folder: opened without following a link, so one
        /// swapped in since fails with ELOOP.
        case refuse
    }

    /// Reads and sorts one folder. Regular files are stat'ed here (relative to the open folder, which is cheaper
    /// than resolving full paths), so the listing carries everything needed to yield them.
    static func list(_ path: String, canonicalRoot: String, descentPath: [FileSystem.FileIdentity],
                     link: LinkRule) -> Result<ListingOutcome, FileSystem.Errno> {
        let directory: FolderListing
        switch FolderListing.open(path, followingLink: link != .refuse) {
        case .failure(let failure): return .failure(failure)
        case .success(let opened): directory = opened
        }
        let identity = directory.identity
        if link == .followInsideRoot {
            // The folder opened must be the one a path inside the root names now.
            guard let resolved = FileSystem.resolvedPath(path), FileSystem.isWithin(resolved, directory: canonicalRoot),
                  case .success(let named) = FileSystem.status(of: resolved), named.identity == identity else {
                return .failure(FileSystem.Errno(code: ELOOP))
            }
        }
        // Checked on the opened folder itself, so a symlink swapped between checks cannot fool it.
        if descentPath.contains(identity) { return .success(.loop) }

        var entries: [Entry] = []
        var skippedLinks = 0
        while true {
            let next = directory.next()
            guard case .success(let record) = next else {
                if case .failure(let failure) = next { return .failure(failure) }
                break
            }
            guard let (bytes, type) = record else { break }
            let entry: Entry? = { () -> Entry? in
                // Hidden entries, "." and ".." all start with a dot.
                guard bytes.first != UInt8(ascii: ".") else { return nil }
                guard let name = String(validating: bytes, as: UTF8.self) else {
                    return Entry(sortKey: bytes, name: String(decoding: bytes, as: UTF8.self), kind: .undecodableName)
                }
                let kind: Entry.Kind?
                switch type {
                case .directory:
                    kind = .directory(viaLink: false)
                case .link:
                    kind = followedLink(FileSystem.join(path, name), canonicalRoot: canonicalRoot,
                                        skipped: &skippedLinks)
                case .regular, .unknown:
                    // unknown: some filesystems do not fill d_type, so ask lstat what it is.
                    guard let status = directory.status(of: name) else {
                        return nil  // vanished since readdir: nothing to report
                    }
                    if status.isLink {
                        kind = followedLink(FileSystem.join(path, name), canonicalRoot: canonicalRoot,
                                            skipped: &skippedLinks)
                    } else {
                        switch status.kind {
                        case .file: kind = .file(status, viaLink: false)
                        case .directory: kind = .directory(viaLink: false)
                        case .other: kind = nil
                        }
                    }
                case .other:
                    kind = nil  // FIFO, socket, device: not media
                }
                guard let kind else { return nil }
                if case .directory = kind {
                    return Entry(sortKey: bytes + [UInt8(ascii: "/")], name: name, kind: kind)
                }
                return Entry(sortKey: bytes, name: name, kind: kind)
            }()
            if let entry { entries.append(entry) }
        }
        entries.sort { precedesByteWise($0.sortKey, $1.sortKey) }
        return .success(.listed(Listing(identity: identity, entries: entries, skippedLinks: skippedLinks)))
    }

    /// What a symlink leads to, if it may be followed: only targets that resolve inside the root.
    private static func followedLink(_ path: String, canonicalRoot: String, skipped: inout Int) -> Entry.Kind? {
        guard let target = FileSystem.resolvedPath(path),
              FileSystem.isWithin(target, directory: canonicalRoot),
              case .success(let status) = FileSystem.status(of: target) else {
            skipped += 1  // dangling, or leaves the root
            return nil
        }
        switch status.kind {
        case .file: return .file(status, viaLink: true)
        case .directory: return .directory(viaLink: true)
        case .other: return nil
        }
    }

    /// memcmp order, shorter first on a common prefix — the same order `sort` gives byte strings in C.
    static func precedesByteWise(_ left: [UInt8], _ right: [UInt8]) -> Bool {
        FolderListing.precedesByteWise(left, right)
    }
}

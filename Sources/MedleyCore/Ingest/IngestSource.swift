import Foundation

/// Where files come from and which are kept.
public struct IngestSource: Sendable {
    /// Absolute paths: folders, files, or globs like "/abs/photos/**/*.jpg". A relative path is taken against the
    /// working directory. A path that exists as written is never treated as a glob, so a folder literally named
    /// "[2023] Trip" still works.
    public var roots: [String]
    /// Descend into sub-folders of folder roots (default true). Glob roots ignore this: their pattern says how
    /// deep to go ("**" descends, anything else does not).
    public var recursive: Bool
    /// Keep only files matching at least one of these; empty = everything.
    public var include: [Glob]
    /// Drop files matching any of these, even when an include matched.
    public var exclude: [Glob]
    /// Absolute folders the walk never enters (`ingest.afterwards.move`: the sources moved aside),
    /// compared with the path as reached and, for a folder reached through a link, with its real path.
    public var excludedFolders: [String]

    /// Creates a source; see the properties for what each argument means.
    public init(roots: [String], recursive: Bool = true, include: [Glob] = [], exclude: [Glob] = [],
                excludedFolders: [String] = []) {
        self.roots = roots
        self.recursive = recursive
        self.include = include
        self.exclude = exclude
        self.excludedFolders = excludedFolders
    }
}

/// Per-job tallies.
public struct JobCounts: Sendable, Equatable {
    public var succeeded = 0
    public var failed = 0
    /// Outputs already present and kept (`overwrite: skip`).
    public var skipped = 0
    /// Files that were not selected: not media, or not of the job's kinds of media.
    public var ignored = 0
    /// Media the job's media types (podcast, audioBook …) or `where` left out.
    public var excluded = 0
    public var bytesWritten: Int64 = 0
    /// Of `skipped`, in a dry run: the items that a real run would write.
    public var wouldWrite = 0
    /// Of `skipped`: items unchanged since the last run (incremental).
    public var unchanged = 0
    public var done: Int { succeeded + failed + skipped }
    public init() {}
}

import Foundation
import MedleyFilters
import MedleyKernels
import MedleyMedia
import MedleyStore

/// How a run was asked for on the command line.
public struct RunOptions: Sendable {
    /// Items in flight at once.
    public var concurrency = ProcessInfo.processInfo.activeProcessorCount
    public var onlyJob: String?
    /// List what would be written; write nothing.
    public var dryRun = false
    /// Redo outputs that exist even under `overwrite: skip`.
    public var force = false
    /// This process's share: (k, n) with k counted from 1.
    public var shard: (index: Int, count: Int)?
    public var eventsPath: String?
    public var quiet = false
    /// Wait for another run holding an export root to finish, instead of stopping at once.
    public var wait = false
    public init() {}
}

/// Outcome of a whole run.
public struct RunSummary: Sendable {
    public var jobs: [(name: String, counts: JobCounts)] = []
    public var interrupted = false
    /// Reports and manifests that could not be written.
    public var reportFailures = 0
    /// Set when the run stopped because the disk holding an export root is full: that root and
    /// the system's words ("No space left on device", "Disk quota exceeded").
    public var diskFull: (exportRoot: String, reason: String)?
    public var failed: Int { jobs.reduce(0) { $0 + $1.counts.failed } + reportFailures }
    /// Items done (succeeded, failed or skipped) in every job.
    public var done: Int { jobs.reduce(0) { $0 + $1.counts.done } }
}

/// Runs the jobs of a pipeline: the export roots opened and locked (`RunSession`), then each job
/// through the `JobRunner` — its items through the scheduler, each on the journey of
/// `ItemJourney.swift`, and the job's manifest, playlist, summary and report at its end.
public final class PipelineRunner: Sendable {
    let session: RunSession
    let jobs: JobRunner

    public init(pipeline: Pipeline, options: RunOptions) throws {
        session = try RunSession(pipeline: pipeline, options: options)
        jobs = JobRunner(session: session)
    }

    /// Stops taking new items (SIGINT/SIGTERM); in-flight items finish.
    public func stop() { session.scheduler.requestStop() }

    /// Whether the run is still blocked on another run's lock (`--wait`): nothing started yet.
    public var isWaitingForLock: Bool { session.isWaitingForLock }

    /// Runs every job the options take, in order; stops after a stop request or a full disk.
    public func run() throws -> RunSummary {
        var summary = RunSummary()
        let jobs = session.jobs
        defer { session.closeExportRoots() }
        if !session.options.dryRun { try session.openExportRoots(of: jobs) }
        for job in jobs {
            let counts = try self.jobs.run(job)
            summary.jobs.append((job.name, counts))
            summary.reportFailures = session.currentReportFailures
            if session.scheduler.isStopping {
                summary.diskFull = session.diskFull
                summary.interrupted = summary.diskFull == nil
                break
            }
        }
        return summary
    }
}


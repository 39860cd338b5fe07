import Foundation
import MedleyMedia
import MedleyTags

/// One job while it runs: its stages, its export, its manifest and incremental state, and the
/// counts the console, events and summary show. Counts and failures are guarded by the runner's lock.
final class JobContext {
    /// The job as validated.
    let job: Job
    /// The filters and image encoder (nil without an export).
    let image: ImageStage?
    /// The transcode stage (nil without `transcode`).
    let audio: AudioStage?
    /// Naming, claims, skip policy and atomic output (nil without an export).
    let exporter: Exporter?
    /// The job's manifest being written (nil without an export, or in a dry run); `medley watch`
    /// starts a new one after each batch it puts in place.
    var manifest: ManifestWriter?
    /// What the last run did with each input (nil: no run state, or none yet).
    var incremental: IncrementalState?
    var counts = JobCounts()
    /// The first `OutcomeRecorder.failuresListed` failures, for the summary (the manifest has every one).
    var failures: [(String, String)] = []
    /// Which item has which output name.
    let claims: OutputClaims
    /// When the job started (its rate, ETA and summary).
    let started = Date()
    /// How many files the ingest holds, once a background count knows (for the progress ETA).
    var expected: Int?
    /// Album mode: each audio item's album and the album's loudness, from the album pass (nil
    /// when the job needs no album loudness).
    var albums: AlbumIndex?
    /// `ingest.afterwards.move`: moves each item's source aside once its output is in place (nil: none).
    var mover: SourceMover?

    init(job: Job, image: ImageStage?, audio: AudioStage?, exporter: Exporter?, claims: OutputClaims,
         manifest: ManifestWriter?) {
        self.job = job
        self.image = image
        self.audio = audio
        self.exporter = exporter
        self.claims = claims
        self.manifest = manifest
    }
}

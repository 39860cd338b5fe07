import Foundation
import MedleyFilters

/// Tells each item's outcome once: counted, its line in the job's manifest, its event and its
/// console line. The journey hands it an `ItemOutcome` and the record it settled; nothing else
/// writes a manifest line of an item or says how one went.
struct OutcomeRecorder {
    /// How many failures the summary lists by name; a run over a million broken files must not
    /// hold a million reasons in memory (the manifest has them all).
    static let failuresListed = 1000

    let session: RunSession
    let context: JobContext

    private var console: Console { session.console }
    private var job: String { context.job.name }

    /// Records `outcome` of the item whose record is `entry` (settled by `ManifestRecord.settle`).
    /// `line`: the entry's manifest line when the caller already rendered it (the run state keeps
    /// the same one; an unchanged item's is the last run's). `milliseconds`: time spent on the item.
    func record(_ outcome: ItemOutcome, _ entry: ManifestRecord, line: String? = nil, milliseconds: Double? = nil) {
        let line = line ?? entry.line
        switch outcome {
        case .ignored:
            session.lock.lock()
            context.counts.ignored += 1
            session.lock.unlock()
            append(line)
        case .excluded:
            session.lock.lock()
            context.counts.excluded += 1
            session.lock.unlock()
            append(line)
            // Tags that could not be read may be why `where` left the item out.
            sayWarnings(entry)
        case .written(let written):
            let output = written.output, bytes = written.bytes
            update { $0.succeeded += 1; $0.bytesWritten += bytes }
            append(line)
            var details: [(String, JSONValue)] = []
            if let duration = entry.duration { details.append(("duration", .number((duration * 1000).rounded() / 1000))) }
            if let meter = entry.meter { details += AudioProperties.metering(meter).map { ($0.name, $0.value.json) } }
            if let loudness = entry.loudness { details.append(("loudness", loudness.json)) }
            if let movedTo = entry.movedTo { details.append(("movedTo", .string(movedTo))) }
            let ms = milliseconds ?? 0
            session.emit(.itemFinished(job: job, input: entry.input, output: output, bytes: bytes, milliseconds: ms, details: details))
            console.itemLine(String(format: "ok    %@ → %@ (%.0f ms)", entry.input, output, ms), failure: false)
            sayMoved(entry)
            sayWarnings(entry)
        case .skipped(let output, let reason):
            update {
                $0.skipped += 1
                switch reason {
                case .unchanged: $0.unchanged += 1
                case .dryRun: $0.wouldWrite += 1
                case .exists: break
                }
            }
            append(line)
            session.emit(.itemSkipped(job: job, input: entry.input, output: output, reason: reason.description, movedTo: entry.movedTo))
            if reason == .dryRun {
                console.itemLine("would write  \(entry.input) → \(output)", failure: false)
            } else {
                console.itemLine("skip  \(entry.input) → \(output) (\(reason))", failure: false)
            }
            sayMoved(entry)
        case .failed(let error, let reason):
            let input = entry.input
            update { $0.failed += 1 }
            session.lock.lock()
            if context.failures.count < Self.failuresListed { context.failures.append((input, reason)) }
            session.lock.unlock()
            append(line)
            session.noteFailure(error, of: context.job)
            session.emit(.itemFailed(job: job, input: input, error: reason, milliseconds: milliseconds))
            console.itemLine("FAIL  \(input.isEmpty ? "" : input + ": ")\(reason)", failure: true)
        }
    }

    private func sayMoved(_ entry: ManifestRecord) {
        if let movedTo = entry.movedTo { console.itemLine("moved \(entry.input) → \(movedTo)", failure: false) }
    }

    private func sayWarnings(_ entry: ManifestRecord) {
        for warning in entry.warnings { console.say("warn  \(entry.input): \(warning)") }
    }

    /// Changes the job's counts under the lock and redraws the progress line.
    private func update(_ change: (inout JobCounts) -> Void) {
        session.lock.lock()
        change(&context.counts)
        let counts = context.counts
        let expected = context.expected
        session.lock.unlock()
        console.progress(job: job, counts: counts, started: context.started, expected: expected)
    }

    /// One line of the job's manifest; a line that cannot be written is said once, and a full
    /// disk stops the run.
    func append(_ line: String) {
        guard let manifest = context.manifest, let failure = manifest.append(line: line) else { return }
        console.say("medley: cannot write the manifest \(manifest.path): \(failure)", color: "31")
        session.noteFailure(failure, of: context.job)
    }
}

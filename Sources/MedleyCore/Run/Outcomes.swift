import Foundation
import MedleyFilters
import MedleyStore

/// How each outcome of an item is told: counted, written to the manifest, sent as an event and
/// said on the console; and the job's summary at its end.
extension PipelineRunner {
    /// A file the job does not take, named in the manifest with the reason (nothing vanishes).
    func record(_ context: JobContext, ignored entry: ManifestRecord, reason: String) {
        var entry = entry
        entry.status = .ignored
        entry.error = reason
        entry.markFinished()
        lock.lock()
        context.counts.ignored += 1
        lock.unlock()
        append(entry.line, context)
    }

    /// An item the job's media types or `where` left out (its tag warnings are said: they may be why).
    func record(_ context: JobContext, excluded entry: ManifestRecord) {
        var entry = entry
        entry.markFinished()
        lock.lock()
        context.counts.excluded += 1
        lock.unlock()
        append(entry.line, context)
        // Tags that could not be read may be why `where` left the item out.
        for warning in entry.warnings { console.say("warn  \(entry.input): \(warning)") }
    }

    /// A finished item: counted, in the manifest, an itemFinished event and an "ok" line.
    /// `line`: the entry's manifest line when the caller has already rendered it (the run state keeps the same one).
    func record(_ context: JobContext, finished entry: ManifestRecord, line: String? = nil, milliseconds: Double) {
        let bytes = entry.bytes ?? 0, output = entry.output ?? ""
        update(context) { $0.succeeded += 1; $0.bytesWritten += bytes }
        append(line ?? entry.line, context)
        var details: [(String, JSONValue)] = []
        if let duration = entry.duration { details.append(("duration", .number((duration * 1000).rounded() / 1000))) }
        if let meter = entry.meter { details += AudioProperties.metering(meter).map { ($0.name, $0.value.json) } }
        if let loudness = entry.loudness { details.append(("loudness", loudness.json)) }
        if let movedTo = entry.movedTo { details.append(("movedTo", .string(movedTo))) }
        emit(.itemFinished(job: context.job.name, input: entry.input, output: output, bytes: bytes,
                           milliseconds: milliseconds, details: details))
        console.itemLine(String(format: "ok    %@ → %@ (%.0f ms)", entry.input, output, milliseconds), failure: false)
        if let movedTo = entry.movedTo { console.itemLine("moved \(entry.input) → \(movedTo)", failure: false) }
        for warning in entry.warnings { console.say("warn  \(entry.input): \(warning)") }
    }

    /// Returns whether the item keeps its output (false: another item's claim came first).
    func record(_ context: JobContext, unchanged row: StateRow, file: IngestedFile, reason: String) -> Bool {
        let output = row.output ?? "", input = file.path
        emit(.itemStarted(job: context.job.name, input: input))
        do {
            try context.exporter?.claim(output, for: input)
        } catch {
            var entry = ManifestRecord(job: context.job.name, item: file.relativePath, input: input, status: .failed)
            entry.persistentID = row.contentHash
            record(context, failed: entry, reason: "\(error)", cause: error)
            return false
        }
        // Its output is in place: a source the last run could not move aside yet (killed between the
        // two) is moved now, and its line says so.
        let (line, movedTo) = moveAside(unchanged: row, file: file, context)
        update(context) { $0.skipped += 1; $0.unchanged += 1 }
        append(line, context)
        emit(.itemSkipped(job: context.job.name, input: input, output: output, reason: reason, movedTo: movedTo))
        console.itemLine("skip  \(input) → \(output) (\(reason))", failure: false)
        if let movedTo { console.itemLine("moved \(input) → \(movedTo)", failure: false) }
        if options.dryRun { sayWouldMove(file, context) }
        return true
    }

    /// An item that writes nothing: its output exists under `overwrite: skip`, or the run is a dry run.
    func record(_ context: JobContext, skipped entry: ManifestRecord) {
        var entry = entry
        entry.markFinished()
        let output = entry.output ?? "", reason = entry.error ?? ""
        let wouldWrite = reason == Exporter.dryRunReason
        update(context) { $0.skipped += 1; if wouldWrite { $0.wouldWrite += 1 } }
        append(entry.line, context)
        emit(.itemSkipped(job: context.job.name, input: entry.input, output: output, reason: reason, movedTo: entry.movedTo))
        if wouldWrite {
            console.itemLine("would write  \(entry.input) → \(output)", failure: false)
        } else {
            console.itemLine("skip  \(entry.input) → \(output) (\(reason))", failure: false)
        }
        if let movedTo = entry.movedTo { console.itemLine("moved \(entry.input) → \(movedTo)", failure: false) }
    }

    /// A failed item: its reason in the manifest, the summary (the first `failuresListed`), the events and the console.
    func record(_ context: JobContext, failed entry: ManifestRecord, reason: String, cause: Error? = nil, milliseconds: Double? = nil) {
        var entry = entry
        entry.error = reason
        entry.output = nil
        entry.bytes = nil
        entry.markFinished()
        let input = entry.input
        update(context) { $0.failed += 1 }
        lock.lock()
        if context.failures.count < Self.failuresListed { context.failures.append((input, reason)) }
        lock.unlock()
        append(entry.line, context)
        if let cause { noteFailure(cause, context) }
        emit(.itemFailed(job: context.job.name, input: input, error: reason, milliseconds: milliseconds))
        console.itemLine("FAIL  \(input.isEmpty ? "" : input + ": ")\(reason)", failure: true)
    }

    /// Changes the job's counts under the lock and redraws the progress line.
    func update(_ context: JobContext, _ change: (inout JobCounts) -> Void) {
        lock.lock()
        change(&context.counts)
        let counts = context.counts
        let expected = context.expected
        lock.unlock()
        console.progress(job: context.job.name, counts: counts, started: context.started, expected: expected)
    }

    /// One line of the job's manifest; a line that cannot be written is said once, and a full
    /// disk stops the run.
    func append(_ line: String, _ context: JobContext) {
        guard let manifest = context.manifest, let failure = manifest.append(line: line) else { return }
        console.say("medley: cannot write the manifest \(manifest.path): \(failure)", color: "31")
        noteFailure(failure, context)
    }

    /// A failure caused by a full disk (by its errno or SQLite's code, never its words) stops the run
    /// after the items in flight: every item after it would fail the same way (and leave the disk
    /// fuller of temporary files).
    func noteFailure(_ error: Error, _ context: JobContext) {
        guard let full = DiskFull.words(for: error) else { return }
        lock.lock()
        if diskFull == nil { diskFull = (context.job.export?.to ?? "", full) }
        lock.unlock()
        scheduler.requestStop()
    }

    /// The job's last lines: its counts, rate and bytes written, and its failures by name (the first `failuresListed`).
    func printSummary(_ context: JobContext, seconds: Double) {
        let c = context.counts
        let rate = seconds > 0 ? Double(c.done) / seconds : 0
        var line = "\(context.job.name): \(c.succeeded) succeeded, \(c.failed) failed, \(c.skipped) skipped"
        if options.dryRun {
            // Nothing succeeds in a dry run: say what a real run would do.
            let other = c.skipped - c.wouldWrite - c.unchanged
            line = "\(context.job.name): would write \(c.wouldWrite), unchanged \(c.unchanged)"
                + (other > 0 ? ", \(other) skipped" : "") + ", \(c.failed) failed"
        }
        if c.ignored > 0 { line += " (\(c.ignored) file\(c.ignored == 1 ? "" : "s") ignored: not media of the job's types)" }
        if c.excluded > 0 { line += " (\(c.excluded) left out by the job's media types or where)" }
        line += String(format: " in %.2f s, %.1f items/s", seconds, rate)
        if c.bytesWritten > 0, let to = context.job.export?.to { line += ", \(Console.bytes(c.bytesWritten)) written to \(to)" }
        if options.dryRun { line += " (dry run: nothing written)" }
        if c.failed == 0 {
            if !options.quiet { console.say(line) }
            return
        }
        console.say(line)
        console.say("\(context.job.name): \(c.failed) failed:", color: "31")
        for (input, reason) in context.failures.sorted(by: { $0.0 < $1.0 }) {
            console.say("  ✗ \(input.isEmpty ? "(ingest)" : input): \(reason)")
        }
        if c.failed > context.failures.count, let to = context.job.export?.to {
            console.say("  … and \(c.failed - context.failures.count) more: every failure is in \(to)/.medley/ (the job's manifest)")
        }
    }
}

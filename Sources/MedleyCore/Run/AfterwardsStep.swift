import Foundation
import MedleySystem
import MedleyStore

/// The journey's last step, `ingest.afterwards.move`: an item's source moved aside once its output
/// is in place (renamed) and remembered (the run-state row saved). A move that cannot be made is an
/// item warning, the source left where it was; failed, excluded and ignored items are never moved.
extension ItemJourney {
    /// Moves the source of a finished or skipped item aside, recording where (`movedTo`) or why not (a warning).
    func moveAside(_ file: IngestedFile, identity: FileSystem.FileIdentity?, _ entry: inout ManifestRecord) {
        guard let mover = context.mover, !session.options.dryRun else { return }
        switch mover.moveAside(file, identity: identity) {
        case .moved(let path):
            entry.movedTo = path
            // The row keeps the line that says where the source went: later runs list the item from it.
            if entry.status == .succeeded, let failure = context.incremental?.rememberMove(of: file.path, line: entry.line) {
                entry.warnings.append("moved, but the run state could not record where (\(failure)); later runs do not list it")
            }
        case .left(let reason):
            entry.warnings.append("not moved to \(mover.move.folder) (left in place): \(reason)")
        }
    }

    /// An item unchanged since the last run has its output in place, so its source moves aside too
    /// (the last run may have been killed between the two). Returns its manifest line (the last
    /// run's, with `movedTo` or the warning added) and where the source went.
    func moveAside(unchanged row: StateRow, file: IngestedFile) -> (line: String, movedTo: String?) {
        guard context.mover != nil, !session.options.dryRun else { return (row.record, nil) }
        guard var entry = try? ManifestRecord(line: row.record) else {
            session.console.say("warn  \(file.path): its run-state record cannot be read, so it is not moved aside")
            return (row.record, nil)
        }
        let known = entry.warnings.count
        do {
            let opened = try InputFile.open(file)
            moveAside(file, identity: Self.identity(of: opened), &entry)
            opened.close()
        } catch {
            entry.warnings.append("not moved aside (left in place): \(error)")
        }
        for warning in entry.warnings.dropFirst(known) { session.console.say("warn  \(file.path): \(warning)") }
        return (entry.line, entry.movedTo)
    }

    /// A dry run's word on a source it would move.
    func sayWouldMove(_ file: IngestedFile) {
        guard let mover = context.mover else { return }
        session.console.itemLine("would move  \(file.path) → \(mover.plannedDestination(file))", failure: false)
    }

    /// The device and inode of the file an item read.
    static func identity(of input: InputFile?) -> FileSystem.FileIdentity? {
        guard let input, input.descriptor >= 0 else { return nil }
        return try? FileSystem.status(ofDescriptor: input.descriptor).get().identity
    }
}

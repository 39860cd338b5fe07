import MedleySystem

/// The checks of `ingest.afterwards.move` that need more than the ingest stage: its folder apart from
/// the export root, and a job that moves its sources being the only one reading them. They belong to
/// the pipeline's reader, which sees every stage of every job.
extension SchemaReader {
    /// FOLDER apart from the job's export root: outputs and moved sources never share a folder.
    func checkMoveFolder(_ move: AfterwardsMove, export: ExportStage) {
        let to = FileSystem.realPath(export.to)
        let real = FileSystem.realPath(move.folder)
        guard FileSystem.isWithin(real, directory: to) || FileSystem.isWithin(to, directory: real) else { return }
        sink.error(at: move.mark, "ingest.afterwards.move (\(move.folder)) and export.to (\(export.to)) overlap: moved sources and outputs would share a folder",
                   suggestion: "move sources to a folder apart from the export root, like 'in/done'")
    }

    /// A job that moves its sources aside must be the only job reading them: another job would find
    /// them gone (jobs run one after another), or read the moved copies.
    func checkMovesAreAlone(_ jobs: [Job]) {
        for job in jobs {
            guard let move = job.ingest.afterwards else { continue }
            let mine = job.ingest.roots.map { FileSystem.realPath(Self.fixedPrefix(of: $0)) }
            for other in jobs where other.name != job.name {
                let theirs = other.ingest.roots.map { FileSystem.realPath(Self.fixedPrefix(of: $0)) }
                let shared = mine.contains { a in theirs.contains { b in FileSystem.isWithin(a, directory: b) || FileSystem.isWithin(b, directory: a) } }
                guard shared else { continue }
                sink.error(at: move.mark, "job '\(job.name)' moves its sources aside, but job '\(other.name)' reads the same folders: it would find them gone",
                           suggestion: "one job per ingest folder when sources are moved, or a graph in one job")
                break
            }
        }
    }
}

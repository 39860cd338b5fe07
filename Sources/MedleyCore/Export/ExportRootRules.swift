import Foundation
import MedleySystem
import MedleyYAML

/// Validation that keeps a job's export root apart from its inputs and its outputs apart from
/// Medley's own `.medley/` folder.
extension SchemaReader {
    /// An export root that holds an ingest root (is it, or a folder above it) would take every
    /// input for one of its own outputs and put `.medley/` among the inputs. Compared by real
    /// paths, so a symbolic link on either side changes nothing. (An export root inside an ingest
    /// root is fine: its files are never ingested.)
    func checkExportRoot(_ export: ExportStage, against ingest: IngestStage, exportNode: YAMLNode) {
        let to = FileSystem.realPath(export.to)
        let place = field("to", of: exportNode) ?? exportNode
        for root in ingest.roots {
            let real = FileSystem.realPath(Self.fixedPrefix(of: root))
            guard FileSystem.isWithin(real, directory: to) else { continue }
            sink.error(place, real == to
                       ? "export.to is the ingest folder \(root): every input would be taken for one of the job's own outputs, and nothing would run"
                       : "export.to (\(export.to)) contains the ingest folder \(root): every input would be taken for one of the job's own outputs, and nothing would run",
                       suggestion: "export to a folder outside the ingest folders, or to a new folder inside one (like photos/out), whose files are never ingested")
        }
    }

    /// An output name whose own text leads into `.medley/` would replace Medley's manifest, run
    /// state or temporary files.
    func checkOutputName(_ template: NameTemplate, node: YAMLNode?, fallback: YAMLNode, what: String) {
        guard let offset = template.offsetLeading(into: ExportRoot.folderName) else { return }
        let mark = node.map { Self.mark(in: $0, offset: offset) } ?? fallback.mark
        sink.error(at: mark, "\(what) leads into .medley, Medley's own folder (manifest, run state, temporary files)",
                   suggestion: "name outputs outside it, like \"{relpath}/{stem}.{ext}\"")
    }

    private func field(_ key: String, of node: YAMLNode) -> YAMLNode? {
        guard case .mapping(let pairs, _) = node else { return nil }
        return pairs.first { $0.key.scalarText == key }?.value
    }
}

import Foundation
import MedleySystem
import MedleyYAML

/// Reading `ingest.afterwards: { move: FOLDER }` and keeping FOLDER where it is safe: inside one of
/// the job's ingest folders (a rename needs the same file system, and the sources' own folder is
/// the one most likely to be on it), never the folder itself, never holding an ingest root, never
/// reached through a link leading out, and never inside or around the export root.
extension SchemaReader {
    /// The keys an `ingest.afterwards` mapping may have.
    static let afterwardsKeys = ["move"]

    func afterwards(_ node: YAMLNode, roots: [String]) -> AfterwardsMove? {
        guard let fields = mapping(node, keys: Self.afterwardsKeys, what: "ingest.afterwards") else { return nil }
        guard let moveNode = fields["move"] else {
            sink.error(node, "ingest.afterwards needs 'move'", suggestion: "add 'move: done' (a folder inside an ingest folder)")
            return nil
        }
        guard let text = string(moveNode, what: "ingest.afterwards.move") else { return nil }
        guard !text.isEmpty else {
            sink.error(moveNode, "ingest.afterwards.move must name a folder", suggestion: "like 'move: photos/done'")
            return nil
        }
        let folder = resolve(text)
        // The ingest roots that are folders, and the folder part of each glob ("in/**/*.jpg": in),
        // which the walk lists its files below (a single file's root holds no folder to move into).
        let folders: [(written: String, real: String)] = roots.compactMap { given in
            let root = Glob.isPattern(given) && !FileSystem.exists(given) ? Self.fixedPrefix(of: given) : given
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root, isDirectory: &isFolder), isFolder.boolValue,
                  let real = FileSystem.resolvedPath(root) else { return nil }
            return (FileSystem.normalized(root), real)
        }
        let real = FileSystem.realPath(folder)
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), !isFolder.boolValue {
            sink.error(moveNode, "ingest.afterwards.move: \(folder) exists and is not a folder",
                       suggestion: "name a folder (it is made when missing)")
            return nil
        }
        guard let home = folders.first(where: { FileSystem.isWithin(real, directory: $0.real) && real != $0.real }) else {
            if folders.contains(where: { $0.real == real }) {
                sink.error(moveNode, "ingest.afterwards.move is the ingest folder \(folder) itself: nothing would move",
                           suggestion: "a folder inside it, like '\(text)/done'")
            } else if folders.contains(where: { FileSystem.isWithin(folder, directory: $0.written) }) {
                sink.error(moveNode, "ingest.afterwards.move: \(folder) leads through a symbolic link to \(real), outside the ingest folders",
                           suggestion: "a real folder inside an ingest folder (Medley moves only inside the roots the pipeline names)")
            } else {
                let named = folders.isEmpty ? "the job has no ingest folder, only files"
                    : "ingest folders: " + folders.map(\.written).joined(separator: ", ")
                sink.error(moveNode, "ingest.afterwards.move: \(folder) is outside every ingest folder (\(named))",
                           suggestion: "a folder inside an ingest folder, like '\(folders.first.map { Self.relative($0.written, to: directory) + "/done" } ?? "photos/done")'")
            }
            return nil
        }
        for root in roots {
            let rootReal = FileSystem.realPath(Self.fixedPrefix(of: root))
            if FileSystem.isWithin(rootReal, directory: real) {
                sink.error(moveNode, "ingest.afterwards.move: \(folder) holds the ingest root \(root): its files would be moved into the folder they are read from",
                           suggestion: "a folder inside an ingest folder that holds no other root")
                return nil
            }
        }
        let components = real.dropFirst(home.real.count + 1).split(separator: "/").map(String.init)
        var excluded = [folder, real, home.written + "/" + components.joined(separator: "/")]
        excluded = excluded.enumerated().filter { !excluded[..<$0.offset].contains($0.element) }.map(\.element)
        return AfterwardsMove(folder: folder, root: home.real, components: components, excludedFolders: excluded,
                              mark: moveNode.mark)
    }

    /// `path` relative to `folder` when it lies inside it, else as it is.
    static func relative(_ path: String, to folder: String) -> String {
        FileSystem.isWithin(path, directory: folder) && path != folder ? String(path.dropFirst(folder.count + 1)) : path
    }
}

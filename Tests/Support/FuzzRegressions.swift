import Foundation

/// The inputs fuzz targets once failed on (Tests/regressions/fuzz/TARGET/, saved by scripts/fuzz.sh),
/// which each module's `…FuzzRegressionTests` replays through the product's entry points.
public enum FuzzRegressions {
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("regressions/fuzz")

    /// The saved files of `target`, by name.
    public static func files(_ target: String) -> [URL] {
        let folder = root.appendingPathComponent(target)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.sorted().map { folder.appendingPathComponent($0) }
    }
}

import Foundation
import MedleyMedia
import MedleyKernels

/// One exported item as a playlist sees it.
struct PlaylistEntry: Sendable {
    /// Absolute path of the exported file.
    var path: String
    /// Position in ingest order (byte-wise sorted relative path): the `ingest` order and every tie-break.
    var ingestIndex: Int
    var persistentID: String?
    var duration: Double?
    var title: String?
    var artist: String?
    var albumTitle: String?
    var discNumber: Int?
    var albumTrackNumber: Int?
}

/// Builds M3U8 playlists: `#EXTM3U`, then `#EXTINF:<seconds>,<artist> - <title>` and the path of
/// each item relative to the playlist's folder.
enum Playlist {
    /// The playlist text. `seed` makes a shuffle reproducible; `dedupe` keeps the first item (in
    /// ingest order) of each persistentID.
    static func render(_ entries: [PlaylistEntry], order: PlaylistStage.Order, seed: UInt64, dedupe: Bool,
                       playlistPath: String) -> String {
        var items = entries.sorted { $0.ingestIndex < $1.ingestIndex }
        if dedupe {
            var seen = Set<String>()
            items = items.filter { entry in
                guard let id = entry.persistentID else { return true }
                return seen.insert(id).inserted
            }
        }
        items = arrange(items, order: order, seed: seed)
        // The playlist's folder, standardized once for every entry.
        let folder = ((playlistPath as NSString).deletingLastPathComponent as NSString).standardizingPath
            .split(separator: "/", omittingEmptySubsequences: true)
        var text = "#EXTM3U\n"
        if order == .shuffle { text += "# shuffled by Medley with seed \(seed)\n" }
        for item in items {
            // The duration is read from a manifest (a shard's, possibly edited): any number, even ∞.
            let seconds = item.duration.map { String(Int(saturating: $0, in: -1...Int(Int32.max))) } ?? "-1"
            let title = clean(item.title) ?? clean(((item.path as NSString).lastPathComponent as NSString).deletingPathExtension) ?? "-"
            let label = clean(item.artist).map { "\($0) - \(title)" } ?? title
            text += "#EXTINF:\(seconds),\(label)\n" + relativePath(of: (item.path as NSString).standardizingPath, fromComponents: folder) + "\n"
        }
        return text
    }

    static func arrange(_ items: [PlaylistEntry], order: PlaylistStage.Order, seed: UInt64) -> [PlaylistEntry] {
        switch order {
        case .ingest:
            return items
        case .shuffle:
            // Fisher–Yates driven by SplitMix64: the same seed gives the same order everywhere.
            var shuffled = items
            var generator = SplitMix64(seed: seed)
            if shuffled.count > 1 {
                for i in stride(from: shuffled.count - 1, to: 0, by: -1) {
                    let j = Int(generator.next() % UInt64(i + 1))
                    shuffled.swapAt(i, j)
                }
            }
            return shuffled
        case .title:
            return items.sorted { precedes($0, $1, keys: [\.title, \.artist, \.albumTitle]) }
        case .album:
            return items.sorted { precedes($0, $1, keys: [\.albumTitle]) }
        case .artist:
            return items.sorted { precedes($0, $1, keys: [\.artist, \.albumTitle]) }
        }
    }

    /// Compares by the text keys (case-insensitive, missing values last), then disc and track
    /// number, then ingest order.
    static func precedes(_ a: PlaylistEntry, _ b: PlaylistEntry, keys: [KeyPath<PlaylistEntry, String?>]) -> Bool {
        for key in keys {
            switch (a[keyPath: key], b[keyPath: key]) {
            case let (x?, y?):
                let order = x.compare(y, options: [.caseInsensitive, .numeric])
                if order != .orderedSame { return order == .orderedAscending }
            case (_?, nil): return true
            case (nil, _?): return false
            case (nil, nil): break
            }
        }
        let numbers: [(Int?, Int?)] = [(a.discNumber, b.discNumber), (a.albumTrackNumber, b.albumTrackNumber)]
        for (x, y) in numbers where x != y {
            return (x ?? Int.max) < (y ?? Int.max)
        }
        return a.ingestIndex < b.ingestIndex
    }

    /// Text for an #EXTINF line: no line breaks or other control characters; nil when empty.
    static func clean(_ text: String?) -> String? {
        guard let text else { return nil }
        let cleaned = String(text.unicodeScalars.map { CharacterSet.controlCharacters.contains($0) ? " " : Character($0) })
            .trimmingCharacters(in: .whitespaces)
        return cleaned.isEmpty ? nil : cleaned
    }

    /// `path` as seen from `folder`: "Artist/Album/01 Song.m4a" or "../aac/01 Song.m4a".
    static func relativePath(of path: String, from folder: String) -> String {
        relativePath(of: (path as NSString).standardizingPath,
                     fromComponents: (folder as NSString).standardizingPath.split(separator: "/", omittingEmptySubsequences: true))
    }

    /// `path` as seen from the folder whose components are `base` (already standardized: callers
    /// with many paths standardize their folder once). `path` is only made canonical in its text
    /// ("." and ".." components).
    static func relativePath(of path: String, fromComponents base: [Substring]) -> String {
        var target: [Substring] = []
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            if component == "." { continue }
            if component == ".." { _ = target.popLast(); continue }
            target.append(component)
        }
        // Shared leading folders (the file name itself never counts as one).
        var common = 0
        while common < min(target.count - 1, base.count), target[common] == base[common] { common += 1 }
        let ups = Array(repeating: "..", count: base.count - common)
        return (ups + target[common...].map(String.init)).joined(separator: "/")
    }
}

extension Playlist {
    /// Writes the playlist of the finished manifest at `manifestAt`; returns its number of items.
    static func write(_ stage: PlaylistStage, manifestAt path: String, root: ExportRoot) throws -> Int {
        try write(stage, manifestLines: String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "\n"), root: root)
    }

    /// Writes the playlist of a job from its manifest lines: every playable item with an output
    /// (see ``entries(fromManifestLines:)``), in the stage's order, atomically.

    static func write(_ stage: PlaylistStage, manifestLines: [String], root: ExportRoot) throws -> Int {
        let entries = self.entries(fromManifestLines: manifestLines)
        let seed = stage.seed ?? UInt64.random(in: 0...UInt64(UInt32.max))
        let text = render(entries, order: stage.order, seed: seed, dedupe: stage.dedupe, playlistPath: stage.to)
        // Through the export root: a temporary file of this process, renamed into place, every
        // folder on the way a real one.
        do {
            try root.writeFile(try root.relative(stage.to), Array(text.utf8))
        } catch let failure as FileSystemFailure {
            guard failure.errorCode == nil else { throw RunError.cannotWrite(path: stage.to, reason: failure.reason) }
            throw RunError.cannotWrite(path: stage.to, reason: "\(failure); Medley writes only through real folders under the export root")
        }
        return entries.count
    }

    /// Extensions of the image files Medley writes (a movie's poster is one).
    static let imageExtensions: Set<String> = Set(ImageFormat.allCases.map(\.fileExtension) + ["jpeg", "tiff", "heif", "avif", "jxl"])

    /// Whether an exported item belongs in a playlist: what iTunes puts in one — audio (music,
    /// podcasts, audiobooks) and movies re-encoded as movies; never images, nor a movie's poster
    /// frame (an image file).
    static func isPlayable(mediaType: MediaType?, output: String) -> Bool {
        switch mediaType {
        case nil, .image?: return false
        case .movie?: return !imageExtensions.contains((output as NSString).pathExtension.lowercased())
        case .music?, .podcast?, .audioBook?: return true
        }
    }

    /// The playlist entries of a job's manifest lines: every item that was not failed, has an
    /// output and is playable, with its ingest rank (byte-wise order of input path).
    static func entries(fromManifestLines manifestLines: [String]) -> [PlaylistEntry] {
        var entries: [PlaylistEntry] = []
        var inputs: [String] = []
        for line in manifestLines where !line.isEmpty {
            guard let record = try? ManifestRecord(line: line), let output = record.output, record.status != .failed,
                  isPlayable(mediaType: record.mediaType, output: output) else { continue }
            func text(_ key: String) -> String? { record[property: key]?.text }
            func number(_ key: String) -> Int? { record[property: key]?.integerValue }
            entries.append(PlaylistEntry(
                path: output, ingestIndex: 0, persistentID: record.persistentID,
                duration: record.duration ?? record[property: "playbackDuration"]?.numberValue,
                title: text("title"), artist: text("artist"), albumTitle: text("albumTitle"),
                discNumber: number("discNumber"), albumTrackNumber: number("albumTrackNumber")))
            inputs.append(record.input.isEmpty ? output : record.input)
        }
        // Ingest order: byte-wise by input path (the enumeration order of one root).
        let order = inputs.indices.sorted { Array(inputs[$0].utf8).lexicographicallyPrecedes(Array(inputs[$1].utf8)) }
        for (rank, index) in order.enumerated() { entries[index].ingestIndex = rank }
        return entries
    }
}

/// SplitMix64 (Steele, Lea & Flood 2014): a small, well-mixed generator for reproducible shuffles.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

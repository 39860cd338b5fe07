import MedleySystem
import MedleyYAML

/// The `playlist:` stage (docs/pipelines.md): the job's exported items as an M3U8 playlist, like an
/// `MPMediaItemCollection` queued in `MPMusicPlayerController` (ordered, or shuffled with a seed).
public struct PlaylistStage: Sendable, Equatable {
    /// How entries are ordered.
    public enum Order: String, Sendable, CaseIterable {
        /// The ingest order (byte-wise by relative path).
        case ingest
        case title, album, artist
        /// Random; the same for every run when `seed` is given.
        case shuffle
    }

    /// Absolute path of the .m3u8 or .m3u file; inside the job's export folder.
    public let to: String
    public let order: Order
    /// Only with `order: shuffle`.
    public let seed: UInt64?
    /// List each item (by persistentID) once.
    public let dedupe: Bool

    public init(to: String, order: Order = .ingest, seed: UInt64? = nil, dedupe: Bool = false) {
        self.to = to
        self.order = order
        self.seed = seed
        self.dedupe = dedupe
    }
}

extension SchemaReader {
    static let playlistKeys = ["to", "order", "seed", "dedupe"]

    /// `playlist: { to: out/list.m3u8, order: shuffle, seed: 7, dedupe: true }`. The job must export, and the
    /// file must lie inside its export folder (a pipeline writes only under its export roots), outside
    /// Medley's `.medley/`. `exportRoot` is the job's resolved `export.to`, nil when it has none.
    func playlist(_ node: YAMLNode, exportRoot: String?) -> PlaylistStage? {
        guard let fields = mapping(node, keys: Self.playlistKeys, what: "playlist") else { return nil }
        var ok = true
        if exportRoot == nil {
            sink.error(node, "a playlist lists the job's exported files, but the job has no 'export'",
                       suggestion: "add 'export: { to: out }' and put the playlist inside it")
            ok = false
        }
        var to: String?
        if let toNode = fields["to"] {
            if let text = string(toNode, what: "playlist.to") {
                let path = resolve(text)
                let lowered = path.lowercased()
                if !lowered.hasSuffix(".m3u8") && !lowered.hasSuffix(".m3u") {
                    sink.error(toNode, "playlist.to must name an .m3u8 or .m3u file, not '\(text)'",
                               suggestion: "like out/list.m3u8")
                    ok = false
                } else if let exportRoot, path.utf8.elementsEqual(exportRoot.utf8) || !FileSystem.isWithin(path, directory: exportRoot)
                            || FileSystem.isWithin(path, directory: exportRoot + "/.medley") {
                    sink.error(toNode, "playlist.to must be inside the job's export folder (\(exportRoot)), outside its .medley folder",
                               suggestion: "a pipeline writes only under its export roots")
                    ok = false
                } else {
                    to = path
                }
            } else {
                ok = false
            }
        } else {
            sink.error(node, "playlist needs 'to'", suggestion: "add 'to: out/list.m3u8'")
            ok = false
        }
        var order = PlaylistStage.Order.ingest
        var orderKnown = true
        if let orderNode = fields["order"], let text = string(orderNode, what: "playlist.order") {
            let names = PlaylistStage.Order.allCases.map(\.rawValue)
            if let chosen = PlaylistStage.Order(rawValue: text) { order = chosen } else {
                sink.error(orderNode, "unknown playlist order '\(text)'",
                           suggestion: DiagnosticSink.didYouMean(text, in: names) ?? "one of \(names.joined(separator: ", "))")
                ok = false
                orderKnown = false
            }
        } else if fields["order"] != nil {
            ok = false
        }
        var seed: UInt64?
        if let seedNode = fields["seed"] {
            if case .scalar(let text, true, _) = seedNode, let number = UInt64(text) {
                seed = number
            } else {
                sink.error(seedNode, "playlist.seed must be a whole number ≥ 0, found \(seedNode.kindDescription)")
                ok = false
            }
            if seed != nil, orderKnown, order != .shuffle {
                sink.error(seedNode, "playlist.seed only applies to order: shuffle",
                           suggestion: "add 'order: shuffle' or remove the seed")
                ok = false
            }
        }
        var dedupe = false
        if let dedupeNode = fields["dedupe"] {
            if let flag = boolean(dedupeNode, what: "playlist.dedupe") { dedupe = flag } else { ok = false }
        }
        guard ok, let to else { return nil }
        return PlaylistStage(to: to, order: order, seed: seed, dedupe: dedupe)
    }
}

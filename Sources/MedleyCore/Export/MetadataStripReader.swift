import Foundation
import MedleyYAML

/// Reading `export.strip` as a list (`strip: [gps, serial]`) and `export.keep` (`strip: true,
/// keep: [copyright, creator]`); every name checked, with a suggestion, before anything runs.
extension SchemaReader {
    /// `strip` (true, false or a list of names) and `keep`: what the image saver strips, and what
    /// the metadata adapter removes or keeps afterwards.
    func exportMetadataStrip(_ fields: [String: YAMLNode]) -> (libvipsStrips: Bool, strip: MetadataStrip) {
        var strip: MetadataStrip = .libvips
        var all = false
        if let node = fields["strip"] {
            if case .sequence = node {
                let names = metadataNames(node, what: "export.strip")
                if !names.isEmpty { strip = .remove(names) }
            } else if case .scalar(let text, _, _) = node, !node.isNull, Self.bool(text) == nil {
                // `strip: gps`: one name.
                let names = metadataNames(node, what: "export.strip")
                if !names.isEmpty { strip = .remove(names) }
            } else {
                all = boolean(node, what: "export.strip") ?? false
            }
        }
        if let keepNode = fields["keep"] {
            guard all else {
                sink.error(keepNode, "export.keep says what 'strip: true' keeps, but strip is not true",
                           suggestion: "write 'strip: true' with 'keep: [copyright, creator]', or list what to remove: 'strip: [gps, serial]'")
                return (all, strip)
            }
            let names = metadataNames(keepNode, what: "export.keep")
            if names.contains(where: { $0.name == "icc" }) {
                sink.error(keepNode, "export.keep: the ICC profile is kept with 'keepProfile: true'",
                           suggestion: "remove 'icc' from keep and add 'keepProfile: true'")
            }
            if !names.isEmpty { strip = .keepOnly(names) }
        }
        return (all || strip.savesStripped, strip)
    }

    /// A name or a list of names of image metadata (MetadataSelector), each checked.
    private func metadataNames(_ node: YAMLNode, what: String) -> [MetadataSelector] {
        var names: [MetadataSelector] = []
        for (text, item) in stringList(node, what: what) {
            guard MetadataSelector.isKnown(text) else {
                sink.error(item, "\(what): unknown metadata name '\(text)'",
                           suggestion: DiagnosticSink.didYouMean(text, in: MetadataSelector.names)
                               ?? "names: \(MetadataSelector.names.joined(separator: ", ")), or a field like exif.Artist, iptc.City, xmp.dc.rights")
                continue
            }
            names.append(MetadataSelector(text))
        }
        return names
    }
}
